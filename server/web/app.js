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
// The pause before a bot's move, so that a person sees it: the Bot speed setting's, unless
// the address says ?bot_delay_ms=N (the tests' 0: none).
const BOT_SPEEDS = { instant: 0, normal: 500, slow: 1500 };
const BOT_DELAY_PARAM = new URLSearchParams(location.search).get("bot_delay_ms");
const botDelayMs = () => (BOT_DELAY_PARAM !== null ? Number(BOT_DELAY_PARAM) : BOT_SPEEDS[settings.botSpeed] ?? 500);
// What the page keeps in localStorage: the settings, and the game in progress (its sealed
// blob, which only the server opens, the tickets, the log), so that a reload resumes it.
const STORAGE = { settings: "council-ai.settings", game: "council-ai.game" };
const settings = { botSpeed: "normal", ...readStored(STORAGE.settings) };
// A lost connection is retried after 1 s, then twice as long each time, up to this.
const RETRY_MAX_MS = 30_000;
// ?seed=N: the games' setup seed (a decimal string), for a repeatable opening; absent, the
// server draws a random one.
const SEED = new URLSearchParams(location.search).get("seed");
const PRESETS = ["beginner", "casual", "strong"];
const HINT_CANDIDATES = 5;

const $ = (id) => document.getElementById(id);

function readStored(key) {
  try {
    return JSON.parse(localStorage.getItem(key)) || {};
  } catch {
    return {};
  }
}

// One call of the service; rejects with an Error carrying the Connect error's code/message.
// A call that gets no answer (the server stopped, the network down) is tried again, after
// 1 s, 2 s, 4 s... (RETRY_MAX_MS at most), the wait shown, until it is answered: every RPC
// is free of side effects, so the game goes on where it was once the server is back.
async function call(method, request) {
  const answer = await fetchRetrying(SERVICE + method, {
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

const connection = { lost: false };

async function fetchRetrying(url, init) {
  for (let wait = 1000; ; wait = Math.min(wait * 2, RETRY_MAX_MS)) {
    try {
      const answer = await fetch(url, init);
      // A proxy's answer while the service is down (502-504) is waited out the same way.
      if (![502, 503, 504].includes(answer.status) || answer.headers.get("Content-Type") === "application/json") {
        connectionBack();
        return answer;
      }
    } catch (error) {
      if (error.name === "AbortError") throw error;
    }
    await connectionLost(wait);
  }
}

// "Connection lost — retrying in Ns", counting down.
async function connectionLost(wait) {
  connection.lost = true;
  const banner = $("connection");
  banner.hidden = false;
  showStatus(); // (the status line says it too, not "your turn")
  for (let left = Math.ceil(wait / 1000); left > 0; left--) {
    banner.textContent = `Connection lost — retrying in ${left} s`;
    await new Promise((resolve) => setTimeout(resolve, Math.min(1000, wait)));
  }
  banner.textContent = "Connection lost — retrying now…";
}

function connectionBack() {
  if (!connection.lost) return;
  connection.lost = false;
  $("connection").hidden = true;
  showStatus();
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
const SERVER = { noRewind: false }; // GetEngineInfo's: this server refuses takebacks

// The StrengthPreset enum value of a preset's name ("casual").
function presetValue(name) {
  return "STRENGTH_PRESET_" + name.toUpperCase();
}

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
  moves: 0,         // the moves played so far (the blob's): where a takeback returns to
  takebacks: [],    // the game's takebacks by seat, as the server counts them (TakeBack)
  history: [],      // before each human move: {moves, seat, logLines, secrets}; Undo takes back to the last
  secrets: [],      // The Council: log lines of bots' secret moves not yet public (below)
  hint: null,       // the AbortController of the hint being streamed
  startedAt: 0,     // when the game was set up (ms since the epoch), for its statistics
  hintsUsed: 0,
  match: null,      // Kuhn poker: the hands finished before this one, {hands, chips by seat}
};

// -- The game kept in the browser: resumed on reload, saved to and opened from a file -------

// What is kept of the game: enough to go on from where it was (the blob is the server's
// sealed state, which only the server opens; the tickets are this screen's seats'). The
// log's lines and the bots' secret moves not yet public (by their line's place), and Undo's
// positions (their move numbers and log lengths), the last UNDO_KEPT.
const UNDO_KEPT = 50;
const SAVE_FORMAT = "council-ai-page-game/1";

function keptGame() {
  const lines = [...$("log").children];
  const secretsOf = (secrets) => secrets.map(({ item, ...rest }) => ({ ...rest, line: lines.indexOf(item) }));
  return {
    format: SAVE_FORMAT,
    name: game.name, seats: game.seats, blob: game.blob, tickets: game.tickets,
    over: game.over, scores: game.scores, winners: game.winners,
    log: lines.map((line) => line.textContent),
    logEffects: lines.map((line) => line.effectLines || []), // (board.js's, by the log's line)
    secrets: secretsOf(game.secrets),
    moves: game.moves, takebacks: game.takebacks, finalLines: game.finalLines || [], match: game.match,
    history: game.history.slice(-UNDO_KEPT).map(({ moves, seat, logLines, secrets }) =>
      ({ moves, seat, logLines, secrets: secretsOf(secrets) })),
    startedAt: game.startedAt, hintsUsed: game.hintsUsed, endedAt: game.endedAt || 0,
    savedAt: Date.now(),
  };
}

// After each change of the game: kept in localStorage (a full storage only loses the kept
// copy, never the game on screen).
function keepGame() {
  if (!game.blob) return;
  try {
    localStorage.setItem(STORAGE.game, JSON.stringify(keptGame()));
  } catch (error) {
    console.warn("the game could not be kept in localStorage:", error);
  }
}

function keepSettings() {
  try {
    localStorage.setItem(STORAGE.settings, JSON.stringify(settings));
  } catch {
    // (the setting still holds for this page)
  }
}

// A kept or saved game back on the page: its log, then its view, board and next move.
async function resumeGame(kept) {
  if (!kept || kept.format !== SAVE_FORMAT || !kept.blob || !GAMES[kept.name]) {
    throw new Error("not a saved game of this page");
  }
  const generation = ++game.generation;
  showError(null);
  clearActions();
  $("scores").hidden = true;
  $("log").replaceChildren();
  Object.assign(game, {
    name: kept.name, seats: kept.seats, blob: kept.blob, tickets: kept.tickets,
    over: Boolean(kept.over), scores: kept.scores || [], winners: kept.winners || [],
    startedAt: kept.startedAt || Date.now(), hintsUsed: kept.hintsUsed || 0, endedAt: kept.endedAt || 0,
    moves: Number.isInteger(kept.moves) ? kept.moves : null, takebacks: kept.takebacks || [],
    finalLines: kept.finalLines || [], match: kept.match || null,
  });
  const items = (kept.log || []).map((text, line) => {
    const item = document.createElement("li");
    item.textContent = text;
    const effects = (kept.logEffects || [])[line] || [];
    if (effects.length) Board.showEffects(item, effects);
    return item;
  });
  $("log").append(...items);
  const secretsOf = (secrets) => (secrets || []).filter((s) => items[s.line])
    .map(({ line, ...rest }) => ({ ...rest, item: items[line] }));
  game.secrets = secretsOf(kept.secrets);
  // (A game kept before takebacks were the server's has no move numbers: no Undo for it.)
  game.history = (kept.history || []).filter((h) => Number.isInteger(h.moves) && game.moves !== null)
    .map((h) => ({ moves: h.moves, seat: h.seat, logLines: h.logLines, secrets: secretsOf(h.secrets) }));
  showTakebacks();
  formFromGame();
  setStatus("Resuming the game…");
  await refreshView();
  if (generation !== game.generation) return;
  showGameName();
  await draw();
  keepGame();
  await step(generation);
}

// The New game form shows the game being played.
function formFromGame() {
  $("game-choice").value = game.name;
  seatCounts();
  $("seat-count").value = String(game.seats.length);
  seatChoices();
  $("seat-choices").querySelectorAll("select").forEach((select, seat) => {
    const s = game.seats[seat];
    select.value = s.kind === "human" ? "human" : s.preset;
  });
}

// "Save game": a file with the sealed game, which "Open game" takes back.
function saveGameFile() {
  if (!game.blob) return;
  const kept = keptGame();
  const blob = new Blob([JSON.stringify(kept, null, 1)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  const day = new Date(kept.savedAt).toISOString().slice(0, 19).replace(/[:T]/g, "-");
  link.download = `${game.name}-${day}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

async function openGameFile(file) {
  if (!file) return;
  if (!(await confirmLeaving("Open this saved game? The game in progress will be lost (save it first to keep it)."))) return;
  try {
    await resumeGame(JSON.parse(await file.text()));
  } catch (error) {
    showError(`Could not open ${file.name}: ${error.message || error}`);
  }
}

// Asks before a game in progress is left (New game, Open game): a <dialog> (not
// window.confirm, which a page's tests cannot answer). Nothing to lose, nothing asked: no
// game, a game over, or one where nothing was played yet.
function confirmLeaving(text) {
  if (!game.blob || game.over || !$("log").children.length) return Promise.resolve(true);
  const dialog = $("confirm-dialog");
  $("confirm-text").textContent = text;
  dialog.returnValue = "";
  dialog.showModal();
  $("confirm-cancel").focus();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
  });
}

function seatLabel(seat) {
  const s = game.seats[seat];
  return s.kind === "human" ? `Seat ${seat} (you)` : `Seat ${seat} (${s.preset} bot)`;
}

function showError(error) {
  const box = $("error");
  box.textContent = error ? String(error.message || error) : "";
  box.hidden = !error;
}

// (Not "status": the board's SVG, inside the page, has a <g id="status">.) While the
// connection is lost the status line says so; the game's own status comes back with it.
let statusText = "";
function setStatus(text) {
  statusText = text;
  showStatus();
}

function showStatus() {
  $("game-status").textContent = connection.lost ? "Connection lost: waiting for the server" : statusText;
}

function log(seat, text) {
  const item = document.createElement("li");
  item.textContent = `${seatLabel(seat)}: ${text}`;
  $("log").append(item);
  // The log scrolls to its last line; the page stays where it is (on a phone the log is
  // below the board).
  $("log").scrollTop = $("log").scrollHeight;
  return item;
}

// A line of the log says another text; the effects under it stay.
function setLogText(item, text) {
  item.firstChild.textContent = text;
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
    if (told) setLogText(pending.item, `${seatLabel(pending.seat)}: ${told}`);
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

// Council of Four: RenderPosition's SVG of the view. The Council and Kuhn poker: the page's
// own HTML of it (a table; no zoom).
async function draw() {
  const drawHtml = { "the-council": drawTheCouncil, "kuhn-poker": drawKuhnPoker }[game.name];
  $("board-panel").classList.toggle("svg-board", !drawHtml);
  $("zoom-tools").hidden = Boolean(drawHtml);
  if (drawHtml) {
    $("player-panels").replaceChildren();
    Board.holdFocus();
    await drawHtml();
    return Board.drawn();
  }
  const { svg } = await call("RenderPosition", { sealed: sealed(viewingSeat()) });
  Board.holdFocus(); // (board.js: the focus waits on the board while it is drawn anew)
  $("board").innerHTML = svg;
  fitBoard();
  Board.drawn(); // its pieces made buttons, the board in words
}

// -- Council of Four's board: zoomed and panned in its viewport; the seats' panels apart ---

// The SVG's seats' panels (g.player, in a row below the board) are shown apart, each a
// small SVG of its own that the page reflows (side by side on a desktop, one above the
// other on a phone); the board's SVG is cropped above them. Its default zoom makes its
// smallest text READABLE_PX (at least the viewport's width); the user's zoom, once chosen,
// stays from move to move.
const READABLE_PX = 11;
const ZOOM_MAX = 4;
const zoom = { scale: null, current: 0, width: 0, height: 0, readable: 1 }; // scale: the user's

function fitBoard() {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  const [, , width, fullHeight] = (svg.getAttribute("viewBox") || "").split(/\s+/).map(Number);
  const panels = [...svg.querySelectorAll("g.player")];
  const top = Math.min(...panels.map((g) => Number(g.querySelector("rect")?.getAttribute("y") ?? fullHeight)));
  const height = Number.isFinite(top) && top < fullHeight ? top - 6 : fullHeight;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("preserveAspectRatio", "xMinYMin meet");
  Object.assign(zoom, { width, height });
  // The smallest text of the board (the panels apart) at scale 1.
  const sizes = [...svg.querySelectorAll("text")].filter((t) => !t.closest("g.player"))
    .map((t) => parseFloat(getComputedStyle(t).fontSize)).filter((size) => size > 0);
  zoom.readable = sizes.length ? READABLE_PX / Math.min(...sizes) : 1;
  // The new drawing at the zoom of the one it replaces, so that the view stays where it was.
  if (zoom.current) svg.setAttribute("width", String(Math.round(width * zoom.current)));
  setZoom(zoom.scale ?? defaultZoom(), 0, 0, false);
  showPanels(svg, panels);
}

function defaultZoom() {
  return Math.max(zoom.readable, $("board-viewport").clientWidth / zoom.width || 0);
}

// The whole board in the viewport.
function wholeBoardZoom() {
  const viewport = $("board-viewport");
  return Math.min(viewport.clientWidth / zoom.width, viewport.clientHeight / zoom.height);
}

// Zooms to `scale`, keeping the board's point under (x, y) of the viewport where it was;
// `chosen`: the user's zoom, kept for the next drawings.
function setZoom(scale, x = 0, y = 0, chosen = true) {
  const svg = $("board").querySelector("svg");
  if (!svg || !zoom.width) return;
  const viewport = $("board-viewport");
  const old = svg.width.baseVal.value / zoom.width || scale;
  scale = Math.min(Math.max(scale, Math.min(wholeBoardZoom(), zoom.readable)), ZOOM_MAX);
  const pointX = (viewport.scrollLeft + x) / old;
  const pointY = (viewport.scrollTop + y) / old;
  svg.setAttribute("width", String(Math.round(zoom.width * scale)));
  svg.setAttribute("height", String(Math.round(zoom.height * scale)));
  viewport.scrollLeft = pointX * scale - x;
  viewport.scrollTop = pointY * scale - y;
  if (chosen) zoom.scale = scale;
  zoom.current = scale;
  $("board").dataset.zoom = scale.toFixed(3);
}

function zoomBy(factor, x, y) {
  const viewport = $("board-viewport");
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  const current = svg.width.baseVal.value / zoom.width;
  setZoom(current * factor, x ?? viewport.clientWidth / 2, y ?? viewport.clientHeight / 2);
}

function showPanels(svg, panels) {
  const box = $("player-panels");
  box.replaceChildren();
  for (const g of panels) {
    const rect = g.querySelector("rect");
    const [x, y, w, h] = ["x", "y", "width", "height"].map((a) => Number(rect.getAttribute(a)));
    const panel = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    panel.setAttribute("viewBox", `${x - 3} ${y - 3} ${w + 6} ${h + 6}`);
    panel.setAttribute("font-family", svg.getAttribute("font-family") || "sans-serif");
    panel.setAttribute("role", "img");
    const seat = Number(g.dataset.seat || 0);
    panel.setAttribute("aria-label", `${seatLabel(seat)}: the seat's panel`);
    const copy = g.cloneNode(true); // (ids dropped: the board's SVG holds the originals)
    for (const element of [copy, ...copy.querySelectorAll("[id]")]) element.removeAttribute("id");
    panel.append(copy);
    const wrapper = newElement("div", "panel");
    wrapper.dataset.seat = String(seat);
    wrapper.append(panel);
    box.append(wrapper);
  }
}

// The zoom's buttons, Ctrl+wheel (a trackpad's pinch), two fingers' pinch, a mouse's drag.
function setUpZoom() {
  const viewport = $("board-viewport");
  const within = (event) => {
    const box = viewport.getBoundingClientRect();
    return [event.clientX - box.left, event.clientY - box.top];
  };
  $("zoom-in").addEventListener("click", () => zoomBy(1.25));
  $("zoom-out").addEventListener("click", () => zoomBy(0.8));
  $("zoom-reset").addEventListener("click", () => {
    zoom.scale = null;
    setZoom(defaultZoom(), 0, 0, false);
    viewport.scrollTo(0, 0);
  });
  $("zoom-fit").addEventListener("click", () => setZoom(wholeBoardZoom()));
  viewport.addEventListener("wheel", (event) => {
    if (!event.ctrlKey || !$("board").querySelector("svg")) return;
    event.preventDefault();
    zoomBy(Math.exp(-event.deltaY / 300), ...within(event));
  }, { passive: false });
  let pinch = null;
  const spread = (touches) => Math.hypot(touches[0].clientX - touches[1].clientX, touches[0].clientY - touches[1].clientY);
  viewport.addEventListener("touchstart", (event) => {
    if (event.touches.length !== 2 || !$("board").querySelector("svg")) return;
    const svg = $("board").querySelector("svg");
    pinch = { spread: spread(event.touches), scale: svg.width.baseVal.value / zoom.width };
  }, { passive: true });
  viewport.addEventListener("touchmove", (event) => {
    if (!pinch || event.touches.length !== 2) return;
    event.preventDefault();
    const [a, b] = event.touches;
    const middle = { clientX: (a.clientX + b.clientX) / 2, clientY: (a.clientY + b.clientY) / 2 };
    setZoom(pinch.scale * spread(event.touches) / pinch.spread, ...within(middle));
  }, { passive: false });
  viewport.addEventListener("touchend", () => { pinch = null; });
  // A mouse drag pans (a click that did not move still picks on the board).
  let drag = null;
  viewport.addEventListener("pointerdown", (event) => {
    if (event.pointerType !== "mouse" || event.button !== 0) return;
    drag = { x: event.clientX, y: event.clientY, left: viewport.scrollLeft, top: viewport.scrollTop, moved: false };
  });
  viewport.addEventListener("pointermove", (event) => {
    if (!drag || !(event.buttons & 1)) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 5) return;
    drag.moved = true;
    viewport.scrollLeft = drag.left - dx;
    viewport.scrollTop = drag.top - dy;
  });
  viewport.addEventListener("click", (event) => {
    if (drag && drag.moved) event.stopPropagation(); // (a drag is no click on the board)
    drag = null;
  }, true);
  window.addEventListener("resize", () => {
    if ($("board").querySelector("svg") && zoom.scale === null) setZoom(defaultZoom(), 0, 0, false);
  });
}

function clearActions() {
  game.turn = null;
  $("actions").replaceChildren();
  $("reveal-picker").replaceChildren();
  $("reveal-picker").hidden = true;
  $("hint").replaceChildren();
  $("hint-button").disabled = true;
  $("undo-button").disabled = true;
  showDecision("");
  if (game.hint) game.hint.abort(); // a hint of a position left behind is dropped
  game.hint = null;
  Board.clear(); // no targets on the board
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

// Kuhn poker's decisions, said the same way.
const KUHN_POKER_DECISIONS = {
  bet: "Pass, or bet 1 chip",
  call: "Facing a bet: fold, or call it with 1 chip",
};

// The status line's words for a decision: a few words, never its internal name.
const DECISION_WORDS = {
  turn: "your turn", pay_permit: "pay for the permit tile", pay_king: "pay the king's council",
  city_token: "choose a city token bonus", first_of_two_city_tokens: "choose two city token bonuses",
  second_of_two_city_tokens: "choose the second city token bonus", free_permit: "take a free permit tile",
  permit_bonus: "choose a permit tile's bonus again",
  draft: "pick a card", bid: "bid", reveal: "choose the cards to reveal",
  bet: "pass or bet", call: "fold or call", // (Kuhn poker's)
};

function decisionWords(decision) {
  return DECISION_WORDS[decision] || (decision || "").replace(/_/g, " ");
}

// The server's descriptions in the rules' words: a bonus is "+2 coins", not "coins +2"
// (engine/actions.py's keys: VP, coins, assistants, politics, nobility, main_action), and
// "2 cards", not "2 card(s)".
const BONUS_WORDS = {
  VP: ["VP", "VP"], coins: ["coin", "coins"], assistants: ["assistant", "assistants"],
  politics: ["politics card", "politics cards"], nobility: ["nobility step", "nobility steps"],
  main_action: ["main action", "main actions"],
};

function inWords(text) {
  return text
    .replace(/\b(VP|coins|assistants|politics|nobility|main_action) \+(\d+)/g,
      (_, key, n) => `+${n} ${BONUS_WORDS[key][n === "1" ? 0 : 1]}`)
    .replace(/(\d+) (\w+)\(s\)/g, (_, n, word) => `${n} ${word}${n === "1" ? "" : "s"}`)
    .replace(/\b(pay_permit|pay_king|city_token|free_permit|permit_bonus|main_action)\b/g, (name) => name.replace(/_/g, " "));
}

function showDecision(decision) {
  const heading = $("decision");
  const said = { "the-council": THE_COUNCIL_DECISIONS, "kuhn-poker": KUHN_POKER_DECISIONS }[game.name] || DECISIONS;
  heading.textContent = decision ? said[decision] || `Decide: ${decisionWords(decision)}` : "";
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
  if (game.moves !== null) game.moves += 1;
  game.over = Boolean(answer.gameOver);
  game.scores = answer.scores || [];
  game.winners = answer.winners || [];
  // The game-ending move's lines tell each seat's final score in parts (showScores).
  game.finalLines = game.over ? ((answer.effects || {}).lines || []) : [];
  await refreshView();
  if (generation !== game.generation) return;
  logMove(seat, action, secret, before);
  keepGame();
  await draw();
  Board.moved(seat, action, answer.effects); // shown on the board a moment, a bot's move said
  keepGame(); // (again: with the effect lines Board.moved put under the move's line)
  await step(generation);
}

// Whoever is to move moves: a bot after a visible delay, a human by a button.
async function step(generation) {
  if (generation !== game.generation) return;
  clearActions();
  $("actions-title").hidden = game.over; // (no actions once the game is over)
  if (game.over) return showScores();
  const seat = toMove(game.state);
  if (game.seats[seat].kind === "bot") {
    setStatus(`${seatLabel(seat)} is thinking…`);
    // The human's move is done: Undo may take it back while the bot thinks (undo() bumps the
    // generation, so the bot's move, once it comes, is dropped).
    game.busy = false;
    $("undo-button").disabled = !canUndo();
    await new Promise((resolve) => setTimeout(resolve, botDelayMs()));
    if (generation !== game.generation) return;
    // The bot's ticket: the server searches from the bot's view, plays the move it chooses
    // and answers the next blob and the move as the other seats see it.
    // Its budget and search seed are the game's (its preset chosen at NewGame): a bot
    // ticket's request names neither.
    const request = { sealed: sealed(seat) };
    if (isPlayerSeat(seat)) {
      request.limits = { preset: presetValue(game.seats[seat].preset) };
      request.seed = String(Math.floor(Math.random() * 2 ** 31));
    }
    const answer = await call("RecommendAction", request);
    if (isPlayerSeat(seat)) {
      // The watched seat of a game with no human holds a player ticket (the board shows its
      // view), which RecommendAction answers with a hint only: the page plays that move.
      if (generation !== game.generation) return;
      const played = await call("ApplyAction", { sealed: sealed(seat), actionId: answer.result.action.id || 0 });
      return moved(seat, played, played.applied, false, generation);
    }
    return moved(seat, answer, answer.result.action, Boolean(answer.secret), generation);
  }
  const listed = await call("ListLegalActions", { sealed: sealed(seat), includeDescriptions: true });
  if (generation !== game.generation) return;
  // (Council of Four's "turn" needs no heading; every other decision, and phase, has one.)
  game.turn = { seat, generation, actions: listed.actions, status: `${seatLabel(seat)} to move: ${decisionWords(listed.decision)}` };
  showDecision(listed.decision === "turn" ? "" : listed.decision);
  showRevealPicker(listed.decision === "reveal" && game.name === "the-council" ? listed.actions : null);
  showActions(listed.actions);
  Board.turn(listed.actions); // each action's target marked on the board
  if (game.name === "the-council") tableTargets(listed.actions);
  $("hint-button").disabled = false;
  $("undo-button").disabled = !canUndo();
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
      more.textContent = inWords(action.description);
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
  if (first && !Board.hasFocus()) first.focus({ preventScroll: true }); // (or kept on the board)
}

// Council of Four's regions and balconies, as the actions number them (board.js plays a
// move by a click on its piece).
const REGIONS = ["coast", "hills", "mountains"];
const BALCONIES = [...REGIONS, "king"];

async function humanMove(seat, actionId, generation) {
  if (game.busy) return;
  const move = { seat, actionId }; // (busy while this move is applied: step() frees it for the bots)
  game.busy = move;
  const secrets = game.secrets.map((secret) => ({ ...secret }));
  game.history.push({ moves: game.moves, seat, logLines: $("log").children.length, secrets });
  Board.holdFocus(); // (the button pressed goes: the focus waits on the board or the list)
  clearActions();
  try {
    await apply(seat, actionId, generation);
  } catch (error) {
    if (generation === game.generation) showError(error);
  } finally {
    if (game.busy === move) game.busy = false;
  }
}

// Undo: a takeback (TakeBack) to the position before the human's last move (the bot moves
// after it go too), which the server counts in the game's record; draws after it are made
// afresh when the game goes on. A server that refuses rewinds (--no-rewind) refuses it.
function canUndo() {
  return game.history.length > 0 && game.moves !== null && !SERVER.noRewind;
}

function showTakebacks() {
  const count = (game.takebacks || []).reduce((sum, n) => sum + (n || 0), 0);
  $("takebacks").hidden = count === 0;
  $("takebacks").textContent = `Takebacks: ${count}`;
  $("undo-button").title = SERVER.noRewind ? "This server refuses takebacks" : "";
}

async function undo() {
  if (game.busy || !canUndo()) return;
  const generation = ++game.generation; // a bot move under way is dropped
  const { moves, seat, logLines, secrets } = game.history[game.history.length - 1];
  showError(null);
  clearActions();
  try {
    game.busy = true;
    let answer;
    try {
      answer = await call("TakeBack", { sealed: sealed(seat), toMove: moves });
    } finally {
      game.busy = false;
    }
    if (generation !== game.generation) return;
    game.history.pop();
    // The bots' secret moves before it are secret again.
    for (const secret of secrets) setLogText(secret.item, `${seatLabel(secret.seat)}: ${secret.hidden}`);
    game.secrets = secrets;
    Object.assign(game, {
      blob: answer.sealedState, state: answer.state, moves, takebacks: answer.takebacks || [],
      over: false, scores: [], winners: [], endedAt: 0,
    });
    $("scores").hidden = true;
    $("log").replaceChildren(...[...$("log").children].slice(0, logLines));
    showTakebacks();
    keepGame();
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

// Each game's points in a hint (as council.mcts.review.POINTS_UNITS): the unit, the factor
// on a candidate's vpMargin (the seat's expected score less the best other seat's), and
// whether its win probability is a chance to win. Kuhn poker's is its chips rescaled to
// 0..1 (a loss of one chip reads 25%), so its hint is in chips alone.
const HINT_POINTS = {
  "council-of-four": { unit: "VP", factor: 1, win: true },
  "the-council": { unit: "points", factor: 1, win: true },
  "kuhn-poker": { unit: "chips", factor: 0.5, win: false },
  "leduc-poker": { unit: "chips", factor: 0.5, win: false },
};

// A hint's candidates as rows: the probability the bot plays each (the candidate's
// `policy`, the chance the search plays it, else its share of the visits), its chance to
// win and its points; the recommended move first, then by that probability.
function hintRows(result) {
  const candidates = result.candidates || [];
  const visits = candidates.reduce((sum, c) => sum + Number(c.visits || 0), 0);
  const withPolicy = candidates.some((c) => c.policy); // (0 is left out of JSON)
  const points = HINT_POINTS[game.name] || HINT_POINTS["council-of-four"];
  const best = result.action ? result.action.id || 0 : null;
  return candidates
    .map((c) => ({
      action: c.action,
      played: withPolicy ? c.policy || 0 : (visits ? Number(c.visits || 0) / visits : 0),
      win: c.winProbability || 0,
      points: (c.vpMargin || 0) * points.factor,
    }))
    .sort((a, b) => ((b.action.id || 0) === best) - ((a.action.id || 0) === best) || b.played - a.played);
}

const signed = (value) => `${value < 0 ? "−" : "+"}${Math.abs(value).toFixed(1)}`;

// One report of the hint's search: a table of the candidates (move, the probability the bot
// plays it, win % with a bar, points), the principal line without the bare "end" steps, and
// the best candidate's pieces highlighted on the board.
function showHint(result, final) {
  const points = HINT_POINTS[game.name] || HINT_POINTS["council-of-four"];
  const table = document.createElement("table");
  table.setAttribute("aria-label", "Hint: the best candidates");
  const thead = document.createElement("thead");
  const head = thead.insertRow();
  const titles = {
    Move: "", "Plays it": "how likely the bot is to play the move",
    ...(points.win ? { "Win %": "the chance to win after the move" } : {}),
    [points.unit]: `expected ${points.unit}: the seat's final score less the best other seat's`,
  };
  for (const [title, tip] of Object.entries(titles)) {
    const th = document.createElement("th");
    th.textContent = title;
    th.title = tip;
    if (title === "Win %") th.setAttribute("colspan", "2");
    head.append(th);
  }
  const body = document.createElement("tbody");
  table.append(thead, body);
  const rows = hintRows(result);
  for (const c of rows) {
    const row = body.insertRow();
    row.dataset.actionId = String(c.action.id || 0);
    row.insertCell().textContent = c.action.text;
    row.insertCell().textContent = `${Math.round(c.played * 100)}%`;
    if (points.win) {
      const barCell = row.insertCell();
      barCell.className = "bar-box";
      const bar = document.createElement("span");
      bar.className = "bar";
      bar.style.width = `${Math.round(c.win * 100)}%`;
      barCell.append(bar);
      barCell.title = `win probability ${(c.win * 100).toFixed(0)}%`;
      row.insertCell().textContent = `${(c.win * 100).toFixed(0)}%`;
    }
    row.insertCell().textContent = signed(c.points);
  }
  const line = document.createElement("p");
  line.className = "principal";
  const moves = (result.principalVariation || []).map((a) => a.text).filter((text) => text !== "end");
  line.textContent = moves.length ? `Line: ${moves.join(" → ")}` : "";
  const state = document.createElement("p");
  state.className = "hint-state";
  const iterations = (result.stats && result.stats.iterations) || 0;
  state.textContent = final ? `Final, ${iterations} iterations` : `Searching… ${iterations} iterations`;
  $("hint").replaceChildren(table, line, state);
  $("hint").dataset.final = final ? "true" : "false";
  // What a screen reader says of the best move (board.js).
  const top = rows[0];
  $("hint").dataset.summary = !top ? "" : points.win
    ? `${(top.win * 100).toFixed(0)}% to win` : `${signed(top.points)} ${points.unit} expected`;
  highlight(result.action);
  Board.hintShown(result, final); // marked in the list; the final one's candidates playable
}

async function hint() {
  const seat = toMove(game.state);
  const generation = game.generation;
  const controller = new AbortController();
  game.hint = controller;
  game.hintsUsed += 1;
  keepGame();
  // (board.js: the focus waits on the hint while the button is disabled, then comes back)
  const refocus = Board.keepFocusWhile($("hint-button"), $("hint"));
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
      refocus();
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
  // (The last event's card stays in the state through the next draft: not shown then.)
  if (council.event && council.phase !== "draft") board.append(eventSection(council.event));
  const table = newElement("div", "tc-table");
  // (It scrolls sideways on a phone: a tab stop, so that the keys scroll it.)
  table.tabIndex = 0;
  table.setAttribute("role", "region");
  table.setAttribute("aria-label", "Ranks, chips and bids by suit");
  table.append(suitTable(council));
  board.append(table);
  if (council.phase === "draft") board.append(packSection(council, position.viewer || 0));
  board.append(draftedSection(council));
  board.append(spentSection(council));
  board.append(cardKindsHelp());
  $("board").replaceChildren(board);
}

// What each kind of card does (docs/the-council.md, "Events", from the rules text): the one
// place the page says it.
const CARD_KINDS_HELP = [
  ["Drafting", "a card you pick gives you one chip of each of its suits."],
  ["The event", "succeeds if the chips bid in its suits, all seats together, reach its rank: an Ace 1, a number its value, a Pawn, Court or Crown 0 (it cannot fail)."],
  ["Ace", "revealed: adds unlimited chips of its suit to your bid, if the event has that suit."],
  ["Number (2–9)", "revealed: breaks ties in its event suits; the lower number is better."],
  ["Pawn", "revealed: adds one chip of each of its event suits to your bid."],
  ["Court", "revealed: gives you a traitor chip if the event fails."],
  ["Crown", "revealed: gives you a rank in its suit."],
  ["Success", "the highest bidder in each event suit gains a rank in it (a tie with no number to break it: nobody)."],
  ["Failure", "the lowest bidder in each event suit trades a rank in it for a traitor chip; the empire loses a rank in each event suit."],
];

function cardKindsHelp() {
  const help = newElement("details", "tc-help");
  help.append(newElement("summary", "", "What the cards do"));
  const list = newElement("dl", "");
  for (const [term, text] of CARD_KINDS_HELP) list.append(newElement("dt", "", term), newElement("dd", "", text));
  help.append(list);
  // (Open or closed as the player left it, across the drawings.)
  help.open = cardKindsHelp.open;
  help.addEventListener("toggle", () => { cardKindsHelp.open = help.open; });
  return help;
}
cardKindsHelp.open = false;

// The Council's reveal: the viewer's drafted cards as toggles; the cards toggled make the one
// legal action revealing exactly them, played by the button below them. (The list of every
// combination stays below, the keyboard's route.)
function showRevealPicker(actions) {
  const box = $("reveal-picker");
  box.replaceChildren();
  box.hidden = !actions;
  if (!actions) return;
  const { seat, generation } = game.turn;
  const key = (cards) => [...cards].sort().join("|");
  const byCards = new Map(actions.map((action) => [key(action.reveal || []), action]));
  const cards = [...new Set(actions.flatMap((action) => action.reveal || []))];
  const chosen = new Set();
  const list = newElement("ul", "cards");
  list.setAttribute("aria-label", "Your drafted cards: press those to reveal");
  const confirm = newElement("button", "");
  confirm.type = "button";
  confirm.id = "reveal-confirm";
  const note = newElement("p", "reveal-note");
  const update = () => {
    const action = byCards.get(key(chosen));
    confirm.disabled = !action;
    confirm.textContent = chosen.size ? `Reveal ${[...chosen].join(", ")}` : "Reveal no card";
    note.textContent = action ? "" : "No move reveals exactly these cards.";
  };
  for (const name of cards) {
    const item = newElement("li", "");
    const card = cardElement(name, "button");
    card.type = "button";
    card.setAttribute("aria-pressed", "false");
    card.addEventListener("click", () => {
      if (chosen.has(name)) chosen.delete(name);
      else chosen.add(name);
      card.setAttribute("aria-pressed", String(chosen.has(name)));
      update();
    });
    item.append(card);
    list.append(item);
  }
  confirm.addEventListener("click", () => {
    const action = byCards.get(key(chosen));
    if (action) humanMove(seat, action.id || 0, generation);
  });
  update();
  box.append(list, confirm, note);
}

// The Council played on its table: the cards of the pack picked, a chip bid in a suit of
// the seat's row, the bid ended on the event, the drafted cards to reveal toggled (the
// reveal picker's toggles, pressed through) and revealed: each a button (the keyboard's
// too), class tc-target. (The list of actions stays, the same moves.)
function tableTargets(actions) {
  const { seat, generation } = game.turn;
  const board = $("board");
  const play = (action) => () => humanMove(seat, action.id || 0, generation);
  const target = (text, className = "") => {
    const button = newElement("button", `tc-target ${className}`.trim(), text);
    button.type = "button";
    return button;
  };
  const cardButton = (list, name) => {
    const item = list && list.querySelector(`li[data-card="${CSS.escape(name)}"]`);
    if (!item) return null;
    const button = cardElement(name, "button");
    button.type = "button";
    button.classList.add("tc-target");
    const slot = newElement("li", "");
    item.replaceWith(slot);
    slot.append(button);
    return button;
  };
  const row = board.querySelector(`.tc-suits tr[data-seat="${seat}"]`);
  for (const action of actions) {
    if (action.kind === "ACTION_KIND_PICK") {
      const button = cardButton(board.querySelector(".tc-pack ul.cards"), action.card);
      if (button) button.addEventListener("click", play(action));
    } else if (action.kind === "ACTION_KIND_BID" && row) {
      const button = target(`Bid a ${action.suit} chip`);
      button.addEventListener("click", play(action));
      row.cells[1 + THE_COUNCIL.suits.indexOf(action.suit)].append(button);
    } else if (action.kind === "ACTION_KIND_END_BID") {
      const button = target("End the bid", "tc-end-bid");
      button.addEventListener("click", play(action));
      (board.querySelector(".tc-event") || board.querySelector(".tc-board")).append(button);
    }
  }
  const picker = $("reveal-picker");
  if (picker.hidden) return;
  const reveal = target($("reveal-confirm").textContent, "tc-reveal");
  reveal.disabled = $("reveal-confirm").disabled;
  reveal.addEventListener("click", () => $("reveal-confirm").click());
  (board.querySelector(".tc-event") || board.querySelector(".tc-board")).append(reveal);
  const drafted = board.querySelector(`.tc-drafted ul[aria-label="${CSS.escape(`${seatLabel(seat)} drafted`)}"]`);
  for (const toggle of picker.querySelectorAll("button.card")) {
    const button = cardButton(drafted, toggle.dataset.card);
    if (!button) continue;
    button.setAttribute("aria-pressed", "false");
    button.addEventListener("click", () => {
      toggle.click();
      button.setAttribute("aria-pressed", toggle.getAttribute("aria-pressed"));
      reveal.disabled = $("reveal-confirm").disabled;
      reveal.textContent = $("reveal-confirm").textContent;
    });
  }
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
  // (A button is named by its text, the parts apart by spaces; a label would have to hold
  // that text word for word. A plain div takes no label: a group.)
  if (tag !== "button") card.setAttribute("aria-label", `${name}: ${facts.rank}, ${facts.suits.join(" and ")}`);
  if (tag === "div") card.setAttribute("role", "group");
  card.append(newElement("span", "card-name", name), " ", newElement("span", "card-rank", facts.rank));
  for (const suit of facts.suits) card.append(" ", suitBadge(suit));
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
      // (A bid stays in the state after its event: shown during the events only.)
      const bid = council.phase === "bid" || council.phase === "reveal" ? suitCount(seat.bid, suit) : 0;
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

// -- Kuhn poker's table: a match of hands ----------------------------------------------------

// Each hand is a sealed game of its own; the match is the page's: the hands finished before
// this one and each seat's chips over them (kept with the game, so across reloads). "Next
// hand" adds the hand just ended and deals the next; New game starts a new match.
const newMatch = () => ({ hands: 0, chips: [] });

// Each seat's chips over the match so far, this hand's included once it is over.
function matchChips() {
  const match = game.match || newMatch();
  return game.seats.map((_, p) => (match.chips[p] || 0) + (game.over ? game.scores[p] || 0 : 0));
}

const signedChips = (n) => `${n > 0 ? "+" : n < 0 ? "−" : ""}${plural(Math.abs(n), "chip")}`;

// The betting in the rules' words: a pass facing a bet is a fold, a bet facing one a call.
// Seat 0 acts first, then they alternate.
function kuhnBetting(history) {
  let facingBet = false;
  return history.map((act, i) => {
    const word = act === "bet" ? (facingBet ? "call" : "bet") : facingBet ? "fold" : "pass";
    if (act === "bet") facingBet = !facingBet;
    return { seat: i % 2, act, word };
  });
}

// The viewer's card face up, the other's face down until the showdown shows it; the pot and
// what each seat put in it (its ante and bets); the betting; whose turn; the match's chips.
function drawKuhnPoker() {
  const kuhn = partOf(game.state) || {};
  const cards = kuhn.cards || [];
  const betting = kuhnBetting(kuhn.history || []);
  const putIn = game.seats.map((_, p) => 1 + betting.filter((b) => b.seat === p && b.act === "bet").length);
  const pot = putIn.reduce((sum, n) => sum + n, 0);
  const match = game.match || newMatch();
  const totals = matchChips();
  const board = newElement("div", "kp-table");
  board.append(newElement("p", "kp-phase", kuhnPhase(kuhn, betting, pot, match.hands + 1)));
  const seats = newElement("div", "kp-seats");
  game.seats.forEach((_, p) => {
    const seat = newElement("section", "kp-seat");
    seat.dataset.seat = String(p);
    if (!game.over && p === (kuhn.current || 0)) seat.classList.add("to-move");
    seat.setAttribute("aria-label", seatLabel(p));
    seat.append(newElement("h3", "", seatLabel(p)));
    const card = cards[p];
    const face = newElement("div", `kp-card ${card ? "face-up" : "face-down"}`, card || "?");
    face.setAttribute("role", "img");
    face.setAttribute("aria-label", card ? `card ${card}` : "card face down");
    seat.append(face);
    seat.append(newElement("p", "kp-in-pot", `in the pot: ${plural(putIn[p], "chip")}`));
    seat.append(newElement("p", "kp-match", `match: ${signedChips(totals[p])}`));
    seats.append(seat);
  });
  const potBox = newElement("div", "kp-pot", `Pot: ${plural(pot, "chip")}`);
  seats.insertBefore(potBox, seats.children[1] || null);
  board.append(seats);
  board.append(newElement("h3", "", "Betting"));
  const list = newElement("ol", "kp-betting");
  for (const { seat, word } of betting) list.append(newElement("li", "", `${seatLabel(seat)}: ${word}`));
  if (!betting.length) list.append(newElement("li", "kp-none", "no bet yet: each seat has put in its ante of 1 chip"));
  board.append(list);
  const hands = match.hands + (game.over ? 1 : 0);
  board.append(newElement("p", "kp-note", `Match: ${plural(hands, "hand")} played. Each hand: an ante of 1 chip each; ` +
    "a bet or a call is 1 chip more; at the showdown the higher card (K > Q > J) takes the pot."));
  $("board").replaceChildren(board);
}

function kuhnPhase(kuhn, betting, pot, hand) {
  if (!game.over) return `Hand ${hand}: ${seatLabel(kuhn.current || 0)} to act`;
  const last = betting[betting.length - 1];
  const winner = game.scores.findIndex((score) => score > 0);
  if (last && last.word === "fold") {
    return `Hand ${hand}: ${seatLabel(last.seat)} folds; ${seatLabel(winner)} takes the pot of ${plural(pot, "chip")}`;
  }
  const cards = kuhn.cards || [];
  return `Hand ${hand}, showdown: ${seatLabel(winner)}'s ${cards[winner]} beats ` +
    `${cards[1 - winner]}; it takes the pot of ${plural(pot, "chip")}`;
}

// "Next hand": the hand just ended counted in the match, and a new sealed game dealt.
function nextHand() {
  if (!game.over || game.name !== "kuhn-poker") return;
  const chips = matchChips();
  game.match = { hands: (game.match || newMatch()).hands + 1, chips };
  newGame({ keepMatch: true });
}

function showScores() {
  setStatus("Game over");
  $("undo-button").disabled = !canUndo();
  const list = $("score-list");
  list.replaceChildren();
  const order = game.scores.map((score, seat) => ({ score, seat })).sort((a, b) => b.score - a.score);
  for (const { score, seat } of order) {
    const item = document.createElement("li");
    const won = game.winners.includes(seat) ? " — winner" : "";
    const points = { "council-of-four": `${score} VP`, "kuhn-poker": signedChips(score) }[game.name] || plural(score, "point");
    item.textContent = `${seatLabel(seat)}: ${points}${won}`;
    list.append(item);
  }
  // A tie for the top: what decided it, in the rules' words (the game-ending move's line).
  const tieBreak = (game.finalLines || []).find((line) => line.text.startsWith("tie-break: "));
  $("tie-break").hidden = !tieBreak;
  $("tie-break").textContent = tieBreak ? tieBreak.text.replace(/^tie-break: /, "Tie-break: ") : "";
  // What each score is made of, a line per seat, after the ranking.
  const breakdown = $("score-parts");
  breakdown.replaceChildren();
  for (const { seat } of order) {
    const parts = scoredParts(seat) || scoreParts(seat);
    if (parts) breakdown.append(newElement("dt", "", seatLabel(seat)), newElement("dd", "", parts));
  }
  if (!game.endedAt) {
    game.endedAt = Date.now();
    keepGame();
  }
  const seconds = Math.round((game.endedAt - (game.startedAt || game.endedAt)) / 1000);
  const took = seconds < 120 ? plural(seconds, "second") : plural(Math.round(seconds / 60), "minute");
  $("game-stats").textContent = `${plural($("log").children.length, "move")} in ${took}; ` +
    `${plural(game.hintsUsed || 0, "hint")} used.`;
  $("next-hand-button").hidden = game.name !== "kuhn-poker";
  $("scores").hidden = false;
}

// What a seat's final score is made of, in VP, as the game-ending move's effects tell it
// (Council of Four: "final scoring: VP track, 17 VP", then each tile and award, "final
// scoring: most permit tiles, +3 VP"): the parts and their sum. "" where they do not say.
function scoredParts(seat) {
  const parts = (game.finalLines || [])
    .filter((line) => line.seat === seat)
    .map((line) => /^final scoring: (.+), \+?(\d+) VP$/.exec(line.text))
    .filter(Boolean)
    .map(([, what, vp]) => ({ what, vp: Number(vp) }));
  if (!parts.length) return "";
  const total = parts.reduce((sum, part) => sum + part.vp, 0);
  return `${parts.map(({ what, vp }) => `${what} ${vp}`).join(" + ")} = ${total} VP`;
}

// What a seat's final score is made of, as far as the final view tells it (a game resumed
// at its end, whose last move's effects the page no longer has). Council of Four:
// the king tiles (by their VP), the bonus tiles won, the nobility track and the permit tiles
// (with the places that final scoring rewards), the emporiums; the service does not say the
// VP of each part (the bonus tiles' and the end awards'), so those are not summed here.
// The Council: the traitor chips and the ranks in the suits where the empire fell below a seat.
function scoreParts(seat) {
  if (game.name === "council-of-four") {
    const players = game.state.players || [];
    const player = players[seat];
    if (!player) return "";
    const nobility = players.map((p) => p.nobility || 0);
    const permits = players.map((p) => (p.permitsFaceUp || []).length + (p.permitsFaceDown || []).length);
    const best = (values) => Math.max(...values);
    const second = (values) => Math.max(-1, ...values.filter((v) => v < best(values)));
    const place = nobility[seat] === best(nobility) ? " (first)" : nobility[seat] === second(nobility) ? " (second)" : "";
    const kings = player.kingTiles || [];
    return [
      kings.length ? `king tiles ${kings.join(" + ")} VP` : "no king tile",
      (player.bonusTiles || []).length ? `bonus tiles: ${player.bonusTiles.join(", ")}` : "no bonus tile",
      `nobility ${nobility[seat]}${place}`,
      `${plural(permits[seat], "permit tile")}${permits[seat] === best(permits) ? " (most)" : ""}`,
      plural((player.emporiums || []).length, "emporium"),
    ].join(" · ");
  }
  if (game.name === "the-council") {
    const council = game.state.theCouncil;
    const it = (council.seats || [])[seat];
    if (!it) return "";
    const fallen = THE_COUNCIL.suits.filter((suit) =>
      (council.seats || []).some((other) => suitCount(other.ranks, suit) > suitCount(council.empire, suit)));
    const ranks = fallen.map((suit) => {
      const rank = suitCount(it.ranks, suit);
      return `${suit} ${rank}${rank > suitCount(council.empire, suit) ? " (above the empire: doubled)" : ""}`;
    });
    return [plural(it.traitors || 0, "traitor chip"), ...ranks].join(" · ");
  }
  return "";
}

// A new game; `keepMatch`: Kuhn poker's next hand of the match (else a new match).
async function newGame({ keepMatch = false } = {}) {
  const generation = ++game.generation;
  if (!keepMatch) game.match = null;
  showError(null);
  clearActions();
  $("log").replaceChildren();
  game.history = [];
  game.secrets = [];
  Object.assign(game, { moves: 0, takebacks: [] });
  showTakebacks();
  $("scores").hidden = true;
  setStatus("Setting up…");
  try {
    // Sealed: the reply holds the sealed state and the tickets, not the state.
    const botSeats = game.seats.map((s, seat) => seat).filter((seat) => !isPlayerSeat(seat));
    const botPresets = Object.fromEntries(botSeats.map((seat) => [seat, presetValue(game.seats[seat].preset)]));
    const request = { config: { players: game.seats.length }, sealed: true, botSeats, botPresets };
    if (game.name !== DEFAULT_GAME) request.config.game = GAMES[game.name].game;
    if (SEED) request.seed = SEED;
    const answer = await call("NewGame", request);
    if (generation !== game.generation) return;
    const tickets = [];
    for (const t of answer.tickets || []) tickets[t.seat || 0] = t.ticket;
    Object.assign(game, {
      blob: answer.sealedState, tickets, over: false, scores: [], winners: [], startedAt: Date.now(), hintsUsed: 0, endedAt: 0,
    });
    await refreshView();
    if (generation !== game.generation) return;
    keepGame();
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
}

// The game choice of the "New game" form, from GetEngineInfo's games; a choice of game sets
// the seat counts to its range (keeping the count chosen when it is in range).
async function loadGames() {
  const { games, noRewind } = await call("GetEngineInfo", {});
  SERVER.noRewind = Boolean(noRewind);
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

// -- One game, one tab in charge --------------------------------------------------------------

// Every tab of this page keeps its game in the same storage. The tab opened (or taken over)
// last is in charge; another tab of the page is told so, stops playing (its controls inert)
// and offers "Play here", which takes the game over from storage, the other tab's moves
// included. So two tabs never fork a game silently, and no move is lost.
const TAB_ID = Math.random().toString(36).slice(2);
const tabs = "BroadcastChannel" in window ? new BroadcastChannel("council-ai.page") : null;

function claimGame() {
  tabs?.postMessage({ type: "claim", tab: TAB_ID });
  setPassive(false);
}

let passiveTab = false; // another tab plays this page's game

function setPassive(passive) {
  if (passive === passiveTab) return;
  passiveTab = passive;
  $("other-tab").hidden = !passive;
  for (const part of [document.querySelector("main"), document.querySelector("header")]) part.inert = passive;
  if (!passive) return;
  game.generation++; // this tab's bot move or hint under way is dropped
  clearActions();
  setStatus("This game is being played in another tab");
}

async function takeOver() {
  claimGame();
  const kept = readStored(STORAGE.game);
  try {
    if (kept.blob) await resumeGame(kept);
    else await newGame();
  } catch (error) {
    showError(error);
  }
}

tabs?.addEventListener("message", ({ data }) => {
  if (data && data.type === "claim" && data.tab !== TAB_ID) setPassive(true);
});

document.addEventListener("DOMContentLoaded", async () => {
  seatChoices();
  $("take-over").addEventListener("click", takeOver);
  claimGame();
  $("seat-count").addEventListener("change", seatChoices);
  $("game-choice").addEventListener("change", seatCounts);
  $("new-game").addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!(await confirmLeaving("Start a new game? The game in progress will be lost (save it first to keep it)."))) return;
    if (GAMES[$("game-choice").value]) game.name = $("game-choice").value;
    game.seats = readSeats();
    newGame();
  });
  $("hint-button").addEventListener("click", hint);
  $("undo-button").addEventListener("click", undo);
  $("next-hand-button").addEventListener("click", nextHand);
  $("bot-speed").value = settings.botSpeed in BOT_SPEEDS ? settings.botSpeed : "normal";
  $("bot-speed").addEventListener("change", () => {
    settings.botSpeed = $("bot-speed").value;
    keepSettings();
  });
  $("save-button").addEventListener("click", saveGameFile);
  $("open-button").addEventListener("click", () => $("open-file").click());
  $("open-file").addEventListener("change", () => {
    openGameFile($("open-file").files[0]);
    $("open-file").value = "";
  });
  setUpZoom();
  try {
    await loadGames();
  } catch (error) {
    showError(error); // the default game still plays
  }
  // The game kept from the last visit goes on; else a new one.
  const kept = readStored(STORAGE.game);
  if (kept.blob) {
    try {
      return await resumeGame(kept);
    } catch (error) {
      await newGame();
      return showError(`The last game could not be resumed (${error.message || error}): a new game started.`);
    }
  }
  newGame();
});
