// Council of Four and The Council in the browser: a front-end of council.v1.CouncilService
// that uses only the public RPCs, over the Connect protocol with JSON
// (POST /council.v1.CouncilService/<Method>). It plays sealed games (docs/service.md, "Sealed
// games"): the page never holds the full state, only the server's sealed blob of it, a
// ticket per seat (a player ticket for each human seat, a bot ticket for each bot, whose
// RecommendAction the server answers by playing the bot's move, so the page never sees its
// hand nor its secret moves) and the view of the human seat it shows. Nothing
// in its memory, storage or the replies it gets shows another seat's hand, the deck or the
// rng. The Council's cards and suits are GetEngineInfo's (THE_COUNCIL, below).
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

// The games, by GetEngineInfo's names: its `games` gives each one's enum, label
// (displayName) and seat range; the page's own is only how it draws a game (draw).
const DEFAULT_GAME = "council-of-four"; // GAME_UNSPECIFIED's, played before the list loads
const GAMES = {}; // name -> GetEngineInfo's GameInfo, once loaded

// The Council's facts, from its GameInfo (loadGames; no game of it is set up before): its
// suits in the core's order, the draft rounds and events of a hand, and each card's rank,
// value (what it asks of a bid as the event) and suits, by name as the position names it.
const THE_COUNCIL = { suits: [], draftRounds: 0, eventsPerHand: 0, cards: {} };

function readTheCouncil(info) {
  THE_COUNCIL.suits = info.suits || [];
  THE_COUNCIL.draftRounds = info.draftRounds || 0;
  THE_COUNCIL.eventsPerHand = info.eventsPerHand || 0;
  THE_COUNCIL.cards = {};
  for (const card of info.cards || []) { // (zero values are absent from Connect JSON)
    THE_COUNCIL.cards[card.name] = { rank: card.rank, value: card.value || 0, suits: card.suits || [] };
  }
}

const game = {
  name: DEFAULT_GAME, // the game being played (GetEngineInfo's name)
  seats: [{ kind: "human" }, { kind: "bot", preset: "casual" }],
  blob: null,       // the sealed full state (base64, as the server sent it): opaque here
  tickets: [],      // each seat's ticket, by seat: a player's for humans, a bot's for bots
  state: null,      // the view the board shows: a human seat's (Connect JSON), never the full state
  over: false,
  scores: [],
  winners: [],
  generation: 0,    // bumped by each new game: a stale bot move or answer is dropped
  busy: false,
  turn: null,       // the human seat to move: {seat, generation, actions, status}
  history: [],      // before each human move: {blob, state, logLines, secrets}; Undo restores the last
  secrets: [],      // The Council: log lines of bots' secret moves not yet public (below)
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
  return item;
}

// The Council's secret moves (TC15): a pick is hidden until the round's picks are revealed
// together, a choice of cards to reveal until the event's reveal. The server plays a bot's
// move and answers a secret one as the other seats see it (`secret`, a text such as "picks a
// card" and no card), which is logged; once the period is over the line tells what the view
// then shows: the card the seat drafted, or the drafted cards it no longer has (revealed).
// The cards revealed in a hand's last event go back to the deck with the hand: those lines
// keep their public text. (A human's own moves are shown: the players here saw them made.)

// Changes exactly when a draft round or an event ends (or the game does).
function secrecyPeriod(state) {
  const c = state.theCouncil;
  return c ? [c.hand, c.draftRound, c.eventsDone, c.phase === "over"].join("/") : "";
}

const draftedOf = (state, seat) => ((state.theCouncil.seats || [])[seat] || {}).drafted || [];

// What a secret move was, from the views before it and after its period: null if untold.
function toldMove(secret, after) {
  if ((after.theCouncil.hand || 0) !== secret.hand) return null;
  const now = draftedOf(after, secret.seat);
  if (secret.kind === "ACTION_KIND_PICK") {
    const gained = now.filter((card) => !secret.drafted.includes(card));
    return gained.length === 1 ? `picks ${gained[0]}` : null;
  }
  const revealed = secret.drafted.filter((card) => !now.includes(card));
  return revealed.length ? `reveals ${revealed.join(", ")}` : "reveals no card";
}

function logMove(seat, action, secret, before) {
  const item = log(seat, action.text);
  if (secret) {
    const hand = before.theCouncil.hand || 0;
    game.secrets.push({ item, seat, hidden: action.text, kind: action.kind, hand, drafted: draftedOf(before, seat) });
  }
  if (secrecyPeriod(game.state) === secrecyPeriod(before)) return;
  for (const pending of game.secrets) {
    const told = toldMove(pending, game.state);
    if (told) pending.item.textContent = `${seatLabel(pending.seat)}: ${told}`;
  }
  game.secrets = [];
}

// A game's own part of a GameState is the field named after it (the-council: theCouncil,
// kuhn-poker: kuhnPoker, as Connect JSON names it); Council of Four's is the message itself.
function partOf(state) {
  return state[game.name.replace(/-(\w)/g, (_, c) => c.toUpperCase())];
}

// The seat to move (zero values are absent from Connect JSON): every game's part says it as
// `current`, Council of Four's in `turn`.
function toMove(state) {
  const part = partOf(state) || state.turn;
  return part ? part.current || 0 : 0;
}

// The seats the page holds a player ticket of: the humans (with no human, seat 0, watched).
function isPlayerSeat(seat) {
  return game.seats[seat].kind === "human" || (seat === 0 && !game.seats.some((s) => s.kind === "human"));
}

// A sealed game's state for a call on behalf of `seat`: the blob and that seat's ticket.
function sealed(seat) {
  return { blob: game.blob, ticket: game.tickets[seat] };
}

// The view the board shows, after each move: the human to move's, else the first human's.
async function refreshView() {
  const first = game.seats.findIndex((s, seat) => isPlayerSeat(seat));
  let { state } = await call("GetView", { sealed: sealed(first) });
  const mover = toMove(state);
  if (mover !== first && isPlayerSeat(mover) && !game.over) {
    ({ state } = await call("GetView", { sealed: sealed(mover) }));
  }
  game.state = state;
}

// The seat whose view the board shows (game.state's viewer).
function viewingSeat() {
  return game.state.viewer || 0;
}

// Council of Four: RenderPosition's SVG of the view. The Council: the page's own HTML of it.
async function draw() {
  if (game.name === "the-council") return drawTheCouncil();
  const { svg } = await call("RenderPosition", { sealed: sealed(viewingSeat()) });
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

// The Council's phases (ListLegalActions' `decision`), said the same way.
const THE_COUNCIL_DECISIONS = {
  draft: "Pick a card of the pack you hold: the picks are revealed together",
  bid: "Offer chips of the event's suits, one at a time, then end the bid",
  reveal: "Choose in secret the drafted cards to reveal when every seat has bid",
};

function showDecision(decision) {
  const heading = $("decision");
  const said = game.name === "the-council" ? THE_COUNCIL_DECISIONS : DECISIONS;
  heading.textContent = decision ? said[decision] || `Decide: ${decision}` : "";
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
  const answer = await call("ApplyAction", { sealed: sealed(seat), actionId });
  return moved(seat, answer, answer.applied, false, generation);
}

// After a move, a human's (ApplyAction's answer) or a bot's (its RecommendAction's, the move
// as the other seats see it): the next blob, the end if it came, the view, the log; then on.
async function moved(seat, answer, action, secret, generation) {
  if (generation !== game.generation) return;
  const before = game.state;
  game.blob = answer.sealedState;
  game.over = Boolean(answer.gameOver);
  game.scores = answer.scores || [];
  game.winners = answer.winners || [];
  await refreshView();
  if (generation !== game.generation) return;
  logMove(seat, action, secret, before);
  await draw();
  await step(generation);
}

// Whoever is to move moves: a bot after a visible delay, a human by a button.
async function step(generation) {
  if (generation !== game.generation) return;
  clearActions();
  if (game.over) return showScores();
  const seat = toMove(game.state);
  if (game.seats[seat].kind === "bot") {
    setStatus(`${seatLabel(seat)} is thinking…`);
    await new Promise((resolve) => setTimeout(resolve, BOT_DELAY_MS));
    if (generation !== game.generation) return;
    // The bot's ticket: the server searches from the bot's view, plays the move it chooses
    // and answers the next blob and the move as the other seats see it.
    const preset = "STRENGTH_PRESET_" + game.seats[seat].preset.toUpperCase();
    const answer = await call("RecommendAction", {
      sealed: sealed(seat), limits: { preset }, seed: String(Math.floor(Math.random() * 2 ** 31)),
    });
    return moved(seat, answer, answer.result.action, Boolean(answer.secret), generation);
  }
  const listed = await call("ListLegalActions", { sealed: sealed(seat), includeDescriptions: true });
  if (generation !== game.generation) return;
  // (Council of Four's "turn" needs no heading; every other decision, and phase, has one.)
  const decision = listed.decision === "turn" ? "your turn" : `decide: ${listed.decision}`;
  const status = game.name === "the-council"
    ? `${seatLabel(seat)} to move: ${listed.decision}` // the phase
    : `${seatLabel(seat)} to move, ${decision}`;
  game.turn = { seat, generation, actions: listed.actions, status };
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
  if (game.name !== "council-of-four") return; // (the ids are Council of Four's board's)
  const chosen = game.turn.actions.filter((action) => about(action, picked));
  if (chosen.length === 1) return humanMove(game.turn.seat, chosen[0].id || 0, game.turn.generation);
  if (chosen.length === 0) return showActions(game.turn.actions, `nothing to do with ${picked.label}`);
  showActions(chosen, `${chosen.length} actions with ${picked.label}`);
}

async function humanMove(seat, actionId, generation) {
  if (game.busy) return;
  game.busy = true;
  const secrets = game.secrets.map((secret) => ({ ...secret }));
  game.history.push({ blob: game.blob, state: game.state, logLines: $("log").children.length, secrets });
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
// The page keeps each of those positions' blob and view, so restoring one is drawing it again.
async function undo() {
  if (game.busy || game.history.length === 0) return;
  const generation = ++game.generation; // a bot move under way is dropped
  const { blob, state, logLines, secrets } = game.history.pop();
  // The bots' secret moves before it are secret again.
  for (const secret of secrets) secret.item.textContent = `${seatLabel(secret.seat)}: ${secret.hidden}`;
  game.secrets = secrets;
  showError(null);
  clearActions();
  Object.assign(game, { blob, state, over: false, scores: [], winners: [] });
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

// The elements of the board an action is about: Council of Four's pieces by id, The
// Council's cards (`card`, `reveal`) by their data-card (a card may be shown twice).
function hintedElements(action) {
  const board = $("board");
  if (game.name !== "the-council") {
    return touched(action).map((id) => board.querySelector(`[id="${id}"]`)).filter(Boolean);
  }
  const cards = [action.card, ...(action.reveal || [])].filter(Boolean);
  return cards.flatMap((card) => [...board.querySelectorAll(`[data-card="${card}"]`)]);
}

function highlight(action) {
  for (const old of $("board").querySelectorAll(".hinted")) old.classList.remove("hinted");
  if (!action) return;
  for (const element of hintedElements(action)) element.classList.add("hinted");
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
  highlight(result.action);
}

async function hint() {
  const seat = toMove(game.state);
  const generation = game.generation;
  const controller = new AbortController();
  game.hint = controller;
  $("hint-button").disabled = true;
  $("hint").textContent = "Thinking…";
  $("hint").dataset.final = "false";
  // The seat's player ticket: the server searches from that seat's view only. A second of
  // search (well past the strong preset's 5,000 iterations), reported every 0.1 s.
  const request = {
    sealed: sealed(seat), limits: { iterations: "100000", maxTime: "1s" },
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

// -- The Council's board: the viewing seat's view drawn as HTML -----------------------------

// The view of the viewing seat, drawn: the phase, the event, a table of the empire's and
// every seat's ranks, chips and bids by suit, the cards each seat drafted, the pack the
// viewer holds in the draft, and the cards spent this hand.
async function drawTheCouncil() {
  const position = game.state;
  const council = position.theCouncil;
  const board = newElement("div", "tc-board");
  board.append(newElement("p", "tc-phase", phaseLine(council)));
  if (council.event) board.append(eventSection(council.event));
  board.append(suitTable(council));
  if (council.phase === "draft") board.append(packSection(council, position.viewer || 0));
  board.append(draftedSection(council));
  board.append(spentSection(council));
  $("board").replaceChildren(board);
}

// An element with a class and a text, for the board.
function newElement(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

const THE_COUNCIL_ACTS = { draft: "picks", bid: "bids", reveal: "chooses the cards to reveal" };

function phaseLine(council) {
  const hand = `Hand ${council.hand || 1}`;
  if (council.phase === "over") return `${hand}: the game is over, the empire has fallen`;
  const who = `${seatLabel(council.current || 0)} ${THE_COUNCIL_ACTS[council.phase]}`;
  if (council.phase === "draft") {
    return `${hand}, draft round ${(council.draftRound || 0) + 1} of ${THE_COUNCIL.draftRounds}: ${who}`;
  }
  return `${hand}, event ${(council.eventsDone || 0) + 1} of ${THE_COUNCIL.eventsPerHand}: ${who}`;
}

// A card: its name, rank and suits (each suit a badge with its name), found by data-card.
function cardElement(name, tag = "li") {
  const facts = THE_COUNCIL.cards[name];
  const card = newElement(tag, "card");
  card.dataset.card = name;
  card.setAttribute("aria-label", `${name}: ${facts.rank}, ${facts.suits.join(" and ")}`);
  card.append(newElement("span", "card-name", name), newElement("span", "card-rank", facts.rank));
  for (const suit of facts.suits) card.append(suitBadge(suit));
  return card;
}

// A suit's badge; its colour by the suit's place in THE_COUNCIL.suits (style.css).
function suitBadge(suit) {
  return newElement("span", `suit suit-${THE_COUNCIL.suits.indexOf(suit)}`, suit);
}

function cardList(cards, label) {
  const list = newElement("ul", "cards");
  list.setAttribute("aria-label", label);
  for (const name of cards) list.append(cardElement(name));
  if (!cards.length) list.append(newElement("li", "no-card", "none"));
  return list;
}

function eventSection(event) {
  const section = newElement("section", "tc-event");
  section.setAttribute("aria-label", "The event");
  section.append(newElement("h3", "", "Event"));
  const card = cardElement(event, "div");
  section.append(card);
  const facts = THE_COUNCIL.cards[event];
  const needs = `succeeds with ${plural(facts.value, "chip")} of its suits bid in all`;
  section.append(newElement("p", "tc-needs", needs));
  return section;
}

// SuitCounts by suit name (JSON fields in lower case, zero counts absent).
const suitCount = (counts, suit) => (counts && counts[suit.toLowerCase()]) || 0;

// One row per seat, the empire's first: in each suit its rank, and a seat's chips and bid;
// the scores once the game is over (they are 0 before).
function suitTable(council) {
  const over = council.phase === "over";
  const table = newElement("table", "tc-suits");
  table.setAttribute("aria-label", "Ranks, chips and bids by suit");
  table.createCaption().textContent = "In each suit: the rank (large), the chips, and the chips bid";
  const head = table.createTHead().insertRow();
  head.append(newElement("th", "", "Seat"));
  for (const suit of THE_COUNCIL.suits) {
    const th = newElement("th", "");
    th.append(suitBadge(suit));
    head.append(th);
  }
  head.append(newElement("th", "", "Traitors"));
  if (over) head.append(newElement("th", "", "Score"));
  const body = table.createTBody();
  const empire = body.insertRow();
  empire.className = "empire";
  empire.append(newElement("th", "", "Empire"));
  for (const suit of THE_COUNCIL.suits) {
    const cell = empire.insertCell();
    cell.append(newElement("span", "rank", String(suitCount(council.empire, suit))));
    cell.setAttribute("aria-label", `the empire's rank in ${suit}: ${suitCount(council.empire, suit)}`);
  }
  empire.insertCell();
  if (over) empire.insertCell();
  (council.seats || []).forEach((seat, p) => {
    const row = body.insertRow();
    row.dataset.seat = String(p);
    if (!over && p === (council.current || 0)) row.className = "to-move";
    row.append(newElement("th", "", seatLabel(p)));
    for (const suit of THE_COUNCIL.suits) {
      const rank = suitCount(seat.ranks, suit);
      const chips = suitCount(seat.chips, suit);
      const bid = suitCount(seat.bid, suit);
      const cell = row.insertCell();
      // A rank above the empire's scores double at the collapse.
      if (rank > suitCount(council.empire, suit)) cell.className = "above-empire";
      cell.append(newElement("span", "rank", String(rank)), newElement("span", "chips", plural(chips, "chip")));
      if (bid) cell.append(newElement("span", "bid", `bid ${bid}`));
      const said = `${seatLabel(p)} in ${suit}: rank ${rank}, ${plural(chips, "chip")}${bid ? `, bid ${bid}` : ""}`;
      cell.setAttribute("aria-label", said);
    }
    row.insertCell().textContent = String(seat.traitors || 0);
    if (!over) return;
    const score = row.insertCell();
    score.className = "score";
    score.textContent = String(seat.score || 0);
  });
  return table;
}

// The pack the viewer holds: pack k passes to seat (k + round) % seats (docs/state-json.md).
function packSection(council, viewer) {
  const seats = council.seats.length;
  const pack = council.packs[(viewer - (council.draftRound || 0) + seats * 2) % seats] || {};
  const section = newElement("section", "tc-pack");
  const label = `The pack ${seatLabel(viewer)} holds`;
  section.setAttribute("aria-label", label);
  section.append(newElement("h3", "", `${label} (${plural(pack.size || 0, "card")})`));
  section.append(cardList(pack.cards || [], label));
  if (pack.picked) section.append(newElement("p", "", `Picked: ${pack.picked}`));
  return section;
}

function draftedSection(council) {
  const section = newElement("section", "tc-drafted");
  section.setAttribute("aria-label", "Drafted cards");
  section.append(newElement("h3", "", "Drafted cards, face up"));
  (council.seats || []).forEach((seat, p) => {
    const label = `${seatLabel(p)} drafted`;
    section.append(newElement("h4", "", seatLabel(p)));
    const list = cardList(seat.drafted || [], label);
    // Cards the seat chose to reveal (only its own view, or the end, shows them).
    for (const name of seat.toReveal || []) {
      const card = list.querySelector(`[data-card="${name}"]`);
      if (card) card.classList.add("to-reveal");
    }
    section.append(list);
    if (seat.lowestRevealed) {
      // Who starts the next event, and breaks a tie at the end (TC12, TC13).
      const note = `${seatLabel(p)}'s lowest card revealed in the last event: ${seat.lowestRevealed}`;
      section.append(newElement("p", "tc-note", note));
    }
  });
  return section;
}

function spentSection(council) {
  const section = newElement("section", "tc-spent");
  section.setAttribute("aria-label", "Spent cards and the deck");
  section.append(newElement("h3", "", "Spent this hand"));
  section.append(cardList(council.spent || [], "Spent this hand"));
  section.append(newElement("p", "tc-note", `Deck: ${plural(council.deckSize || 0, "card")}`));
  return section;
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
    const points = game.name === "council-of-four" ? `${score} VP` : plural(score, "point");
    item.textContent = `${seatLabel(seat)}: ${points}${won}`;
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
  game.secrets = [];
  $("scores").hidden = true;
  setStatus("Setting up…");
  try {
    // Sealed: the reply holds the sealed state and the tickets, not the state.
    const botSeats = game.seats.map((s, seat) => seat).filter((seat) => !isPlayerSeat(seat));
    const request = { config: { players: game.seats.length }, sealed: true, botSeats };
    if (game.name !== DEFAULT_GAME) request.config.game = GAMES[game.name].game;
    if (SEED) request.seed = SEED;
    const answer = await call("NewGame", request);
    if (generation !== game.generation) return;
    const tickets = [];
    for (const t of answer.tickets || []) tickets[t.seat || 0] = t.ticket;
    Object.assign(game, { blob: answer.sealedState, tickets, over: false, scores: [], winners: [] });
    await refreshView();
    if (generation !== game.generation) return;
    showGameName();
    await draw();
    await step(generation);
  } catch (error) {
    showError(error);
  }
}

function showGameName() {
  const label = (GAMES[game.name] || {}).displayName || game.name;
  $("game-title").textContent = label;
  document.title = label;
  // Council of Four's board is a picture (its SVG); The Council's a group of tables and lists.
  $("board").setAttribute("role", game.name === "the-council" ? "group" : "img");
}

// The game choice of the "New game" form, from GetEngineInfo's games; a choice of game sets
// the seat counts to its range (keeping the count chosen when it is in range).
async function loadGames() {
  const { games } = await call("GetEngineInfo", {});
  const choice = $("game-choice");
  choice.replaceChildren();
  for (const info of games || []) {
    GAMES[info.name] = info;
    if (info.name === "the-council") readTheCouncil(info);
    const option = document.createElement("option");
    option.value = info.name;
    option.textContent = info.displayName || info.name;
    choice.append(option);
  }
  choice.value = game.name;
  seatCounts();
}

function seatCounts() {
  const info = GAMES[$("game-choice").value];
  if (!info) return;
  const count = $("seat-count");
  const old = Number(count.value);
  count.replaceChildren();
  for (let n = info.minPlayers; n <= info.maxPlayers; n++) {
    const option = document.createElement("option");
    option.textContent = String(n);
    count.append(option);
  }
  count.value = String(Math.min(Math.max(old, info.minPlayers), info.maxPlayers));
  seatChoices();
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

document.addEventListener("DOMContentLoaded", async () => {
  seatChoices();
  $("seat-count").addEventListener("change", seatChoices);
  $("game-choice").addEventListener("change", seatCounts);
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    if (GAMES[$("game-choice").value]) game.name = $("game-choice").value;
    game.seats = readSeats();
    newGame();
  });
  $("hint-button").addEventListener("click", hint);
  $("undo-button").addEventListener("click", undo);
  $("board").addEventListener("click", boardClick);
  try {
    await loadGames();
  } catch (error) {
    showError(error); // the default game still plays
  }
  newGame();
});
