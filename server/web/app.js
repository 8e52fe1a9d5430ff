// Council of Four in the browser: a front-end of council.v1.CouncilService that uses only
// the public RPCs, over the Connect protocol with JSON (POST /council.v1.CouncilService/<Method>).
// The page holds the full state; bots and hints get only their seat's view (GetView, and
// the server's own view handling of a full state sent with a seat).
"use strict";

const SERVICE = "/council.v1.CouncilService/";
// The pause before a bot's move, so that a person sees it (?bot_delay_ms=0: none).
const BOT_DELAY_MS = Number(new URLSearchParams(location.search).get("bot_delay_ms") ?? 500);
// ?seed=N: the games' setup seed (a decimal string), for a repeatable opening; absent, the
// server draws a random one.
const SEED = new URLSearchParams(location.search).get("seed");
const PRESETS = ["beginner", "casual", "strong"];
const HINT_CANDIDATES = 5;

const $ = (id) => document.getElementById(id);

// One call of the service; rejects with an Error carrying the Connect error's code/message.
async function call(method, request) {
  const answer = await fetch(SERVICE + method, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1" },
    body: JSON.stringify(request),
  });
  const body = await answer.json().catch(() => ({}));
  if (!answer.ok) {
    const error = new Error(`${method}: ${body.message || answer.statusText} (${body.code || answer.status})`);
    error.code = body.code;
    throw error;
  }
  return body;
}

// A server stream (AnalyzePosition) over Connect's streaming protocol with JSON: the request
// and each answer in an envelope (1 flag byte, 4-byte big-endian length, the JSON); the last
// envelope (flag 0x02) is the end of the stream, {"error": ...} when the call failed. Yields
// each message as it arrives (the body read with a ReadableStream reader).
async function* stream(method, request, signal) {
  const json = new TextEncoder().encode(JSON.stringify(request));
  const body = new Uint8Array(5 + json.length);
  new DataView(body.buffer).setUint32(1, json.length);
  body.set(json, 5);
  const answer = await fetch(SERVICE + method, {
    method: "POST",
    headers: { "Content-Type": "application/connect+json", "Connect-Protocol-Version": "1" },
    body,
    signal,
  });
  if (!answer.ok || !answer.body) throw new Error(`${method}: ${answer.statusText} (${answer.status})`);
  const reader = answer.body.getReader();
  const decoder = new TextDecoder();
  let buffer = new Uint8Array(0);
  for (;;) {
    while (buffer.length >= 5) {
      const size = new DataView(buffer.buffer, buffer.byteOffset, 5).getUint32(1);
      if (buffer.length < 5 + size) break;
      const flags = buffer[0];
      const message = JSON.parse(decoder.decode(buffer.subarray(5, 5 + size)));
      buffer = buffer.slice(5 + size);
      if (flags & 2) {
        if (!message.error) return;
        const error = new Error(`${method}: ${message.error.message || ""} (${message.error.code})`);
        error.code = message.error.code;
        throw error;
      }
      yield message;
    }
    const { done, value } = await reader.read();
    if (done) throw new Error(`${method}: the stream ended without its end message`);
    const joined = new Uint8Array(buffer.length + value.length);
    joined.set(buffer);
    joined.set(value, buffer.length);
    buffer = joined;
  }
}

const game = {
  seats: [{ kind: "human" }, { kind: "bot", preset: "casual" }],
  state: null,      // the full state (Connect JSON)
  over: false,
  scores: [],
  winners: [],
  generation: 0,    // bumped by each new game: a stale bot move or answer is dropped
  busy: false,
  turn: null,       // the human seat to move: {seat, generation, actions, status}
  history: [],      // before each human move: {state, logLines}; Undo restores the last
  hint: null,       // the AbortController of the hint being streamed
};

function seatLabel(seat) {
  const s = game.seats[seat];
  return s.kind === "human" ? `Seat ${seat} (you)` : `Seat ${seat} (${s.preset} bot)`;
}

function showError(error) {
  const box = $("error");
  box.textContent = error ? String(error.message || error) : "";
  box.hidden = !error;
}

// (Not "status": the board's SVG, inside the page, has a <g id="status">.)
function setStatus(text) { $("game-status").textContent = text; }

function log(seat, text) {
  const item = document.createElement("li");
  item.textContent = `${seatLabel(seat)}: ${text}`;
  $("log").append(item);
  item.scrollIntoView({ block: "nearest" });
}

// The seat whose view the board shows: the human to move, else the first human, else 0.
function viewingSeat() {
  const current = game.state.turn ? game.state.turn.current || 0 : 0;
  if (game.seats[current].kind === "human") return current;
  const human = game.seats.findIndex((s) => s.kind === "human");
  return human < 0 ? 0 : human;
}

async function draw() {
  const request = { state: game.state };
  if (!game.over) request.seat = viewingSeat(); // the finished game is shown whole
  const { svg } = await call("RenderPosition", request);
  $("board").innerHTML = svg;
}

function clearActions() {
  game.turn = null;
  $("actions").replaceChildren();
  $("hint").replaceChildren();
  $("hint-button").disabled = true;
  $("undo-button").disabled = true;
  showDecision("");
  if (game.hint) game.hint.abort(); // a hint of a position left behind is dropped
  game.hint = null;
}

// What a pending decision chooses (ListLegalActions' `decision`), said above the options.
const DECISIONS = {
  pay_permit: "Pay the council for the permit tile: choose the politics cards",
  pay_king: "Pay the king's council to build: choose the politics cards",
  city_token: "Choose a city whose token bonus you gain",
  first_of_two_city_tokens: "Choose the first of two city token bonuses",
  second_of_two_city_tokens: "Choose the second of two city token bonuses",
  free_permit: "Choose a face-up permit tile to take for free",
  permit_bonus: "Choose a permit tile whose bonus you gain again",
};

function showDecision(decision) {
  const heading = $("decision");
  heading.textContent = decision ? DECISIONS[decision] || `Decide: ${decision}` : "";
  heading.hidden = !decision;
}

// The group of an option, shown once before the first of the group: a payment's number of
// cards and coin cost (from its description, "pay white+joker: 2 card(s), 8 coin(s)").
function groupOf(action) {
  const cost = /(\d+) card\(s\), (\d+) coin\(s\)/.exec(action.description || "");
  if (!cost) return "";
  const [, cards, coins] = cost;
  return `${cards} card${cards === "1" ? "" : "s"}, ${coins} coin${coins === "1" ? "" : "s"}`;
}

async function apply(seat, actionId, generation) {
  const answer = await call("ApplyAction", { state: game.state, actionId });
  if (generation !== game.generation) return;
  game.state = answer.state;
  game.over = Boolean(answer.gameOver);
  game.scores = answer.scores || [];
  game.winners = answer.winners || [];
  log(seat, answer.applied.text);
  await draw();
  await step(generation);
}

// Whoever is to move moves: a bot after a visible delay, a human by a button.
async function step(generation) {
  if (generation !== game.generation) return;
  clearActions();
  if (game.over) return showScores();
  const seat = game.state.turn.current || 0;
  if (game.seats[seat].kind === "bot") {
    setStatus(`${seatLabel(seat)} is thinking…`);
    await new Promise((resolve) => setTimeout(resolve, BOT_DELAY_MS));
    if (generation !== game.generation) return;
    // The bot sees only its own view of the game.
    const { state: view } = await call("GetView", { state: game.state, seat });
    const preset = "STRENGTH_PRESET_" + game.seats[seat].preset.toUpperCase();
    const { result } = await call("RecommendAction", {
      state: view, limits: { preset }, seed: String(Math.floor(Math.random() * 2 ** 31)),
    });
    if (generation !== game.generation) return;
    return apply(seat, result.action.id || 0, generation);
  }
  const listed = await call("ListLegalActions", { state: game.state, seat, includeDescriptions: true });
  if (generation !== game.generation) return;
  const decision = listed.decision === "turn" ? "your turn" : `decide: ${listed.decision}`;
  game.turn = { seat, generation, actions: listed.actions, status: `${seatLabel(seat)} to move, ${decision}` };
  showDecision(listed.decision === "turn" ? "" : listed.decision);
  showActions(listed.actions);
  $("hint-button").disabled = false;
  $("undo-button").disabled = game.history.length === 0;
}

// The list of buttons: all the legal actions, or those of what was clicked on the board.
function showActions(actions, picked) {
  const { seat, generation } = game.turn;
  setStatus(picked ? `${game.turn.status}: ${picked}` : game.turn.status);
  const list = $("actions");
  list.replaceChildren();
  if (actions.length && actions.every((action) => groupOf(action))) {
    // Payments: fewest cards first, then cheapest (ids order them by cards, not by coins).
    const cost = (action) => /(\d+) card\(s\), (\d+) coin/.exec(action.description).slice(1).map(Number);
    actions = [...actions].sort((a, b) => cost(a)[0] - cost(b)[0] || cost(a)[1] - cost(b)[1]);
  }
  let group = "";
  for (const action of actions) {
    const item = document.createElement("li");
    const itsGroup = groupOf(action);
    if (itsGroup && itsGroup !== group) {
      // A label before each group (CSS shows data-group), not an element of its own.
      item.className = "group-start";
      item.dataset.group = itsGroup;
    }
    group = itsGroup;
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.actionId = String(action.id || 0);
    const text = document.createElement("span");
    text.className = "text";
    text.textContent = action.text;
    button.append(text);
    if (action.description && action.description !== action.text) {
      const more = document.createElement("span");
      more.className = "description";
      more.textContent = action.description;
      button.append(more);
    }
    button.addEventListener("click", () => humanMove(seat, action.id || 0, generation));
    item.append(button);
    list.append(item);
  }
  if (picked) {
    const item = document.createElement("li");
    const all = document.createElement("button");
    all.type = "button";
    all.className = "show-all";
    all.textContent = "Show all actions";
    all.addEventListener("click", () => showActions(game.turn.actions));
    item.append(all);
    list.append(item);
  }
  const first = list.querySelector("button");
  if (first) first.focus({ preventScroll: true });
}

// A click on the board (docs/render.md's ids): a city, a balcony or a face-up permit tile
// picks the legal actions about it; one is played at once, several are listed.
const REGIONS = ["coast", "hills", "mountains"];
const BALCONIES = [...REGIONS, "king"];
const PICKABLE = '[id^="city-"], [id^="balcony-"], [id^="tile-"]';

function pickedOf(element) {
  const [kind, name, slot] = element.id.split("-");
  if (kind === "city") {
    const letter = element.dataset.letter || element.getAttribute("data-letter") || name[0];
    return { kind, city: letter.toUpperCase().charCodeAt(0) - 65, label: name };
  }
  if (kind === "balcony" && BALCONIES.includes(name)) {
    return { kind, balcony: BALCONIES.indexOf(name), label: `the ${name} council` };
  }
  if (kind === "tile" && REGIONS.includes(name) && (slot === "0" || slot === "1")) {
    const label = `${name} permit ${Number(slot) + 1}`;
    return { kind, region: REGIONS.indexOf(name), slot: Number(slot), label };
  }
  return null;
}

function about(action, picked) {
  if (picked.kind === "city") return action.city === picked.city;
  if (picked.kind === "tile") {
    // Buying that tile, or changing its region's face-up tiles.
    const change = action.kind === "ACTION_KIND_CHANGE" && action.region === picked.region;
    return change || (action.region === picked.region && action.slot === picked.slot);
  }
  // A balcony: electing into it, or buying a permit of its region (its council is paid).
  return action.balcony === picked.balcony || (action.slot !== undefined && action.region === picked.balcony);
}

function boardClick(event) {
  const element = event.target && event.target.closest ? event.target.closest(PICKABLE) : null;
  const picked = element && pickedOf(element);
  if (!picked || !game.turn || game.busy || game.turn.generation !== game.generation) return;
  const chosen = game.turn.actions.filter((action) => about(action, picked));
  if (chosen.length === 1) return humanMove(game.turn.seat, chosen[0].id || 0, game.turn.generation);
  if (chosen.length === 0) return showActions(game.turn.actions, `nothing to do with ${picked.label}`);
  showActions(chosen, `${chosen.length} actions with ${picked.label}`);
}

async function humanMove(seat, actionId, generation) {
  if (game.busy) return;
  game.busy = true;
  game.history.push({ state: game.state, logLines: $("log").children.length });
  clearActions();
  try {
    await apply(seat, actionId, generation);
  } catch (error) {
    showError(error);
  } finally {
    game.busy = false;
  }
}

// Undo: back to the position before the human's last move (the bot moves after it go too).
// The page holds every state, so restoring one is drawing it again.
async function undo() {
  if (game.busy || game.history.length === 0) return;
  const generation = ++game.generation; // a bot move under way is dropped
  const { state, logLines } = game.history.pop();
  showError(null);
  clearActions();
  Object.assign(game, { state, over: false, scores: [], winners: [] });
  $("scores").hidden = true;
  $("log").replaceChildren(...[...$("log").children].slice(0, logLines));
  try {
    await draw();
    await step(generation);
  } catch (error) {
    showError(error);
  }
}

// The board's pieces an action is about (docs/render.md's ids), highlighted for a hint.
const CITIES = ["Arkon", "Burgen", "Castrum", "Dorful", "Esti", "Framek", "Graden", "Hellar",
  "Indur", "Juvelar", "Kultos", "Lyram", "Merkatim", "Naris", "Osium"];

function touched(action) {
  const ids = [];
  if (action.city !== undefined) ids.push(`city-${CITIES[action.city]}`);
  if (action.balcony !== undefined) ids.push(`balcony-${BALCONIES[action.balcony]}`);
  if (action.kind === "ACTION_KIND_BUILD_KING") ids.push("balcony-king");
  if (action.region !== undefined) {
    const region = REGIONS[action.region];
    if (action.slot !== undefined) ids.push(`tile-${region}-${action.slot}`);
    else ids.push(`tile-${region}-0`, `tile-${region}-1`); // changing the face-up tiles
    if (action.kind === "ACTION_KIND_ACQUIRE") ids.push(`balcony-${region}`); // paid
  }
  return ids;
}

function highlight(ids) {
  const board = $("board");
  for (const old of board.querySelectorAll(".hinted")) old.classList.remove("hinted");
  for (const id of ids) {
    const element = board.querySelector(`[id="${id}"]`);
    if (element) element.classList.add("hinted");
  }
}

// One report of the hint's search: the candidates with visits and win-probability bars, the
// principal line, and the best candidate's pieces highlighted on the board.
function showHint(result, final) {
  const table = document.createElement("table");
  table.setAttribute("aria-label", "Hint: the best candidates");
  for (const c of result.candidates || []) {
    const row = table.insertRow();
    const win = c.winProbability || 0;
    row.insertCell().textContent = c.action.text;
    row.insertCell().textContent = `${c.visits || 0} visits`;
    const barCell = row.insertCell();
    barCell.className = "bar-box";
    const bar = document.createElement("span");
    bar.className = "bar";
    bar.style.width = `${Math.round(win * 100)}%`;
    barCell.append(bar);
    barCell.title = `win probability ${(win * 100).toFixed(0)}%`;
    row.insertCell().textContent = `${(win * 100).toFixed(0)}%`;
  }
  const line = document.createElement("p");
  line.className = "principal";
  const moves = (result.principalVariation || []).map((a) => a.text);
  line.textContent = moves.length ? `Line: ${moves.join(" → ")}` : "";
  const state = document.createElement("p");
  state.className = "hint-state";
  const iterations = (result.stats && result.stats.iterations) || 0;
  state.textContent = final ? `Final, ${iterations} iterations` : `Searching… ${iterations} iterations`;
  $("hint").replaceChildren(table, line, state);
  $("hint").dataset.final = final ? "true" : "false";
  highlight(result.action ? touched(result.action) : []);
}

async function hint() {
  const seat = game.state.turn.current || 0;
  const generation = game.generation;
  const controller = new AbortController();
  game.hint = controller;
  $("hint-button").disabled = true;
  $("hint").textContent = "Thinking…";
  $("hint").dataset.final = "false";
  // A full state with the seat: the server searches from that seat's view only. A second of
  // search (well past the strong preset's 5,000 iterations), reported every 0.1 s.
  const request = {
    state: game.state, seat, limits: { iterations: "100000", maxTime: "1s" },
    maxCandidates: HINT_CANDIDATES,
  };
  const current = () => generation === game.generation && game.hint === controller;
  try {
    try {
      // Streamed: AnalyzePosition reports every 200 ms, then its final result.
      const analyze = { ...request, reportInterval: "0.1s" };
      for await (const report of stream("AnalyzePosition", analyze, controller.signal)) {
        if (!current()) return;
        showHint(report.result || {}, Boolean(report.final));
      }
      $("hint").dataset.source = "AnalyzePosition";
    } catch (error) {
      if (!current() || error.name === "AbortError") return;
      // Streaming failed (a proxy that buffers, a browser without streams): one answer.
      const { result } = await call("RecommendAction", request);
      if (!current()) return;
      showHint(result, true);
      $("hint").dataset.source = "RecommendAction";
    }
  } catch (error) {
    if (!current()) return;
    $("hint").textContent = "";
    showError(error);
  } finally {
    if (current()) {
      $("hint-button").disabled = game.over;
      game.hint = null;
    }
  }
}

function showScores() {
  setStatus("Game over");
  $("undo-button").disabled = game.history.length === 0;
  const list = $("score-list");
  list.replaceChildren();
  const order = game.scores.map((score, seat) => ({ score, seat })).sort((a, b) => b.score - a.score);
  for (const { score, seat } of order) {
    const item = document.createElement("li");
    const won = game.winners.includes(seat) ? " — winner" : "";
    item.textContent = `${seatLabel(seat)}: ${score} VP${won}`;
    list.append(item);
  }
  $("scores").hidden = false;
}

async function newGame() {
  const generation = ++game.generation;
  showError(null);
  clearActions();
  $("log").replaceChildren();
  game.history = [];
  $("scores").hidden = true;
  setStatus("Setting up…");
  try {
    const request = { config: { players: game.seats.length } };
    if (SEED) request.seed = SEED;
    const { state } = await call("NewGame", request);
    if (generation !== game.generation) return;
    Object.assign(game, { state, over: false, scores: [], winners: [] });
    await draw();
    await step(generation);
  } catch (error) {
    showError(error);
  }
}

// The "New game" form: a choice per seat, human or a bot preset.
function seatChoices() {
  const n = Number($("seat-count").value);
  const box = $("seat-choices");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  for (let seat = 0; seat < n; seat++) {
    const label = document.createElement("label");
    label.textContent = `Seat ${seat} `;
    const select = document.createElement("select");
    select.name = `seat-${seat}`;
    for (const value of ["human", ...PRESETS]) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = value === "human" ? "human" : `${value} bot`;
      select.append(option);
    }
    select.value = old[seat] || (seat === 0 ? "human" : "casual");
    label.append(select);
    box.append(label);
  }
}

function readSeats() {
  return [...$("seat-choices").querySelectorAll("select")].map((s) =>
    s.value === "human" ? { kind: "human" } : { kind: "bot", preset: s.value });
}

document.addEventListener("DOMContentLoaded", () => {
  seatChoices();
  $("seat-count").addEventListener("change", seatChoices);
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    game.seats = readSeats();
    newGame();
  });
  $("hint-button").addEventListener("click", hint);
  $("undo-button").addEventListener("click", undo);
  $("board").addEventListener("click", boardClick);
  newGame();
});
