// The page's review view (issue #29): a finished game's record (council.v1.GameRecord: the
// page's own game by GetGameRecord, or a record file from `council-ai arena --record`,
// self-play or the ladder) reviewed by AnalyzeGame, streamed: the board at each move (the
// record's full states, replayed by ApplyAction from its start and drawn by RenderPosition
// as the reviewed seat saw them), a graph of each seat's win probability with its
// inaccuracies, mistakes and blunders marked, the moves with their labels (a word and a
// sign, not a colour alone), the played and the better move of each decision with its line
// and the points each keeps, the arrow keys stepping through the moves (Home and End to the
// ends); and "Explore from here": the position played on as a game of the page (app.js's
// `explore`: a sealed game the server starts from it), then back to the review.
import { DEFAULT_GAME, viewOf } from "./games/index.js";
import { $, GAMES, PRESETS, call, game, isPlayerSeat, newElement, seatLabel, showError, stream } from "./page.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const LABELS = {
  MOVE_LABEL_INACCURACY: { key: "inaccuracy", sign: "?!", word: "inaccuracy" },
  MOVE_LABEL_MISTAKE: { key: "mistake", sign: "?", word: "mistake" },
  MOVE_LABEL_BLUNDER: { key: "blunder", sign: "??", word: "blunder" },
};
// The seats' lines on the graph (Okabe-Ito: told apart without red-green).
const SEAT_COLOURS = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9"];
const GRAPH = { width: 640, height: 170, left: 34, right: 8, top: 8, bottom: 22 };
const STOPS = {
  STOP_REASON_TIME: "the review's time budget was spent",
  STOP_REASON_DEADLINE: "the call's deadline was near",
  STOP_REASON_CANCELLED: "the server is stopping",
};

/**
 * A position to explore from (app.js's `explore`): the game, its full state, the reader's seat,
 * the number of seats and the bots' preset.
 * @typedef {{name: string, state: import("./page.js").Json, seat: number, players: number, preset: string}} ExploreStart
 */

const view = {
  record: null,      // the record under review (JSON: proto or JSON names, both read)
  gameName: DEFAULT_GAME,
  positions: [],     // the full state before each move (and after the last), as replayed
  filling: Promise.resolve(),
  drawings: new Map(), // "index/seat" -> RenderPosition's SVG
  analyses: [],      // MoveAnalysis by the move's index
  summary: null,
  current: 0,        // the position shown: before move `current` (moves.length: the end)
  shown: 0,          // bumped by each show(): a stale drawing is dropped
  controller: null,  // the analysis' AbortController
  explore: false,    // exploring from the position shown (the game on the page: app.js)
  /** @type {(start: ExploreStart, back: () => void) => Promise<void>} */
  startGame: async () => {}, // app.js's `explore`
  players: 2,        // the record's number of seats
  defaultSeat: "all",
  /** @type {import("./page.js").Seat[] | null} */
  seats: null,       // a game the page played: its seats, named as in play ("you", "casual bot")
};

const moves = () => (view.record && view.record.moves) || [];
const field = (object, camel, snake) => (object ? object[camel] ?? object[snake] : undefined);
const actionIdOf = (move) => field(move, "actionId", "action_id") || 0;
const reviewedSeat = () => ($("rv-seat").value === "all" ? null : Number($("rv-seat").value));
const percent = (p) => `${Math.round((p || 0) * 100)}%`;

function svgElement(tag, attributes) {
  const made = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, String(value));
  return made;
}

// An error said where it is seen: the review's own line while it is shown, else the game's.
function fail(error) {
  if (!document.body.classList.contains("reviewing")) return showError(error);
  $("rv-error").textContent = error ? String(error.message || error) : "";
  $("rv-error").hidden = !error;
}

function seatName(seat) {
  if (view.seats && view.seats[seat]) return seatLabel(seat, view.seats);
  const player = (view.record.players || []).find((p) => (p.seat || 0) === seat);
  const who = player ? player.name || player.agent : "";
  return who ? `Seat ${seat} (${who})` : `Seat ${seat}`;
}

// -- the view's elements, made once ----------------------------------------------------

function build() {
  if ($("review")) return;
  const section = newElement("section", "review");
  section.id = "review";
  section.setAttribute("aria-labelledby", "rv-title");
  section.innerHTML = `
    <div class="rv-head">
      <h2 id="rv-title">Game review</h2>
      <button type="button" id="rv-close">Back to the game</button>
    </div>
    <form id="rv-settings" aria-label="Review settings">
      <label>Budget per move
        <select id="rv-budget">
          ${PRESETS.map((p) => `<option value="${p}"${p === "casual" ? " selected" : ""}>${p}</option>`).join("")}
          <option value="iterations">iterations…</option>
        </select>
      </label>
      <label id="rv-iterations-label" hidden>Iterations
        <input id="rv-iterations" type="number" min="1" max="100000" value="300" inputmode="numeric">
      </label>
      <label>Seat <select id="rv-seat"></select></label>
      <label class="rv-check"><input type="checkbox" id="rv-hindsight"> with hindsight (knows every hand — study only)</label>
      <button type="submit" id="rv-analyse">Analyse</button>
      <button type="button" id="rv-cancel" disabled>Cancel</button>
    </form>
    <p id="rv-progress" role="status" aria-live="polite"></p>
    <p id="rv-error" role="alert" hidden></p>
    <div class="rv-layout">
      <div class="rv-main">
        <div id="rv-board" class="rv-board" role="region" aria-label="The position" tabindex="0"></div>
        <p id="rv-move-line" class="rv-move-line"></p>
        <div class="rv-nav">
          <button type="button" id="rv-first" aria-label="First position">◀◀</button>
          <button type="button" id="rv-prev" aria-label="Previous move">◀ Previous</button>
          <span id="rv-where"></span>
          <button type="button" id="rv-next" aria-label="Next move">Next ▶</button>
          <button type="button" id="rv-last" aria-label="Last position">▶▶</button>
          <button type="button" id="rv-explore-button">Explore from here</button>
        </div>
        <figure class="rv-graph-box">
          <figcaption>Win probability before each move (click a point to go to it)</figcaption>
          <div id="rv-graph"></div>
          <p class="rv-legend">Marks:
            <span class="rv-key inaccuracy"><svg viewBox="-7 -7 14 14" aria-hidden="true"><path d="M0 -6L6 0L0 6L-6 0Z"/></svg><span class="rv-label inaccuracy">?! inaccuracy</span></span>
            <span class="rv-key mistake"><svg viewBox="-7 -7 14 14" aria-hidden="true"><rect x="-5" y="-5" width="10" height="10"/></svg><span class="rv-label mistake">? mistake</span></span>
            <span class="rv-key blunder"><svg viewBox="-7 -7 14 14" aria-hidden="true"><path d="M0 -7L7 6L-7 6Z"/></svg><span class="rv-label blunder">?? blunder</span></span></p>
        </figure>
      </div>
      <div class="rv-side">
        <div id="rv-summary"></div>
        <h3>Moves</h3>
        <ol id="rv-moves" aria-label="Moves of the game"></ol>
      </div>
    </div>`;
  document.querySelector("main").append(section);
  $("rv-budget").addEventListener("change", () => {
    $("rv-iterations-label").hidden = $("rv-budget").value !== "iterations";
  });
  $("rv-settings").addEventListener("submit", (event) => {
    event.preventDefault();
    analyse();
  });
  $("rv-seat").addEventListener("change", () => show(view.current));
  $("rv-cancel").addEventListener("click", cancel);
  $("rv-close").addEventListener("click", close);
  $("rv-first").addEventListener("click", () => show(0));
  $("rv-prev").addEventListener("click", () => show(view.current - 1));
  $("rv-next").addEventListener("click", () => show(view.current + 1));
  $("rv-last").addEventListener("click", () => show(moves().length));
  $("rv-explore-button").addEventListener("click", startExploring);
  document.addEventListener("keydown", onKey);
  let width = 0;
  window.addEventListener("resize", () => {
    const now = $("rv-graph").clientWidth;
    if (document.body.classList.contains("reviewing") && now !== width) drawGraph();
    width = now;
  });
}

// Left and right step through the moves, Home and End go to the first and the last
// position (not while typing, choosing or exploring).
function onKey(event) {
  if (!document.body.classList.contains("reviewing") || view.explore) return;
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target.closest && event.target.closest("input, select, textarea, dialog")) return;
  const target = {
    ArrowLeft: view.current - 1, ArrowRight: view.current + 1, Home: 0, End: moves().length,
  }[event.key];
  if (target === undefined) return;
  event.preventDefault();
  show(target);
}

// -- opening a record ------------------------------------------------------------------

function gameNameOf(record) {
  const enumName = field(record.config || {}, "game", "game");
  if (!enumName || enumName === "GAME_UNSPECIFIED") return DEFAULT_GAME;
  const info = Object.values(GAMES).find((g) => g.game === enumName);
  return info ? info.name : String(enumName).replace(/^GAME_/, "").toLowerCase().replace(/_/g, "-");
}

// Opens the review of `record`; `seat`: the seat reviewed first ("all", or a number);
// `seats`: the page's seats of the game (one it played: its seats named as in play).
/**
 * @param {import("./page.js").Json} record
 * @param {string | number} [seat]
 * @param {import("./page.js").Seat[] | null} [seats]
 */
function open(record, seat = "all", seats = null) {
  if (!record || typeof record !== "object" || !record.start || !Array.isArray(record.moves)) {
    throw new Error("not a game record (council.v1.GameRecord in its JSON form: start, moves, players…)");
  }
  build();
  cancel();
  view.explore = false;
  Object.assign(view, {
    record, gameName: gameNameOf(record), positions: [record.start], filling: Promise.resolve(),
    drawings: new Map(), analyses: [], summary: null, current: 0, seats: seats && seats.map((s) => ({ ...s })),
    players: (record.config && record.config.players) || (record.players || []).length || 2,
  });
  const players = view.players;
  const select = $("rv-seat");
  select.replaceChildren(new Option("every seat", "all"));
  for (let s = 0; s < players; s++) select.append(new Option(seatName(s), String(s)));
  select.value = String(seat);
  const label = (GAMES[view.gameName] || {}).displayName || view.gameName;
  $("rv-title").textContent = `Game review: ${label}, ${moves().length} moves`;
  $("rv-progress").textContent = "Choose a budget and the seat, then Analyse.";
  $("rv-summary").replaceChildren();
  document.body.classList.add("reviewing");
  fail(null);
  listMoves();
  drawGraph();
  show(0);
  $("rv-title").scrollIntoView({ block: "start" });
}

function close() {
  if (!$("review")) return;
  cancel();
  view.explore = false;
  document.body.classList.remove("reviewing");
}

// "Open record…": a GameRecord's JSON file, or a game the page saved once it is over (its
// record asked of the server).
async function openFile(file) {
  if (!file) return;
  try {
    const read = JSON.parse(await file.text());
    if (read.format && read.blob) {
      const seat = (read.seats || []).findIndex((s) => s.kind === "human");
      const ticket = read.tickets[Math.max(seat, 0)];
      return open(await recordOf(read.blob, ticket), Math.max(seat, 0), read.seats || null);
    }
    open(read);
  } catch (error) {
    fail(`Could not open ${file.name}: ${error.message || error}`);
  }
}

async function recordOf(blob, ticket) {
  try {
    return (await call("GetGameRecord", { sealed: { blob, ticket } })).record;
  } catch (error) {
    if (["unimplemented", "not_found"].includes(error.code) || /\b404\b/.test(error.message)) {
      throw new Error("this server cannot give a game's record yet (no GetGameRecord): open a record file instead", { cause: error });
    }
    throw error;
  }
}

// "Review game", once the page's game is over: its record from the server.
async function reviewGame() {
  const seat = game.seats.findIndex((s, k) => isPlayerSeat(k));
  try {
    open(await recordOf(game.blob, game.tickets[seat]), seat, game.seats);
  } catch (error) {
    fail(`Could not review the game: ${error.message || error}`);
  }
}

// -- positions, replayed from the start and kept -----------------------------------------

// The full state before move `index`: ApplyAction on the full state (its own rng, or the
// move's recorded chance seed, so the chance replays as recorded), from the last position
// kept.
function positionAt(index) {
  const record = view.record;
  const done = view.filling.then(async () => {
    while (view.record === record && view.positions.length <= index) {
      const at = view.positions.length - 1;
      const move = moves()[at];
      const request = { state: view.positions[at], actionId: actionIdOf(move) };
      const chance = move.chanceSeed ?? move.chance_seed;
      if (chance && chance !== "0") request.seed = chance;
      const { state } = await call("ApplyAction", request);
      if (view.record === record) view.positions.push(state);
    }
    return view.positions[index];
  });
  view.filling = done.catch(() => {});
  return done;
}

// The SVG with its ids made the review's own ("rv-"): the game's board may be on the page too.
async function drawing(state, seat, key) {
  if (key && view.drawings.has(key)) return view.drawings.get(key);
  const request = seat === null ? { state } : { state, seat };
  const { svg } = await call("RenderPosition", request);
  const own = svg.replace(/\bid="/g, 'id="rv-').replace(/url\(#/g, "url(#rv-");
  if (key) view.drawings.set(key, own);
  return own;
}

function putBoard(svg, label) {
  const board = $("rv-board");
  board.innerHTML = svg;
  const drawn = board.querySelector("svg");
  if (drawn) {
    drawn.setAttribute("role", "img");
    drawn.setAttribute("aria-label", label);
    drawn.removeAttribute("width");
    drawn.removeAttribute("height");
  }
}

// A move's pieces on the board (its game's view's `touched`: the SVG's ids).
function mark(action, className) {
  const touched = viewOf(view.gameName).touched;
  if (!action || !touched) return;
  for (const id of touched(action)) {
    const element = $("rv-board").querySelector(`[id="rv-${id}"]`);
    if (element) element.classList.add(className);
  }
}

// -- showing a position ----------------------------------------------------------------

async function show(index) {
  if (!view.record || view.explore) return;
  const count = moves().length;
  index = Math.max(0, Math.min(count, index));
  view.current = index;
  const shown = ++view.shown;
  $("rv-where").textContent = index < count ? `Move ${index + 1} of ${count}` : `End (${count} moves)`;
  $("rv-prev").disabled = $("rv-first").disabled = index === 0;
  $("rv-next").disabled = $("rv-last").disabled = index === count;
  $("rv-explore-button").disabled = index === count;
  markCurrent();
  moveLine();
  try {
    const state = await positionAt(index);
    const seat = reviewedSeat();
    const svg = await drawing(state, seat, `${index}/${seat}`);
    if (shown !== view.shown || view.explore) return;
    const whose = seat === null ? "every hand shown" : `${seatName(seat)}'s view`;
    putBoard(svg, index < count ? `The position before move ${index + 1}, ${whose}` : `The final position, ${whose}`);
    const analysis = view.analyses[index];
    if (analysis) {
      mark(analysis.played, "rv-played");
      if ((analysis.best.id || 0) !== (analysis.played.id || 0)) mark(analysis.best, "rv-best");
    }
    $("rv-board").dataset.index = String(index);
  } catch (error) {
    if (shown === view.shown) fail(error);
  }
}

// Points in the move's game unit, signed: "+3.5 VP", "−1 chips".
function points(value, unit) {
  const rounded = Math.round((value || 0) * 10) / 10;
  return `${rounded < 0 ? "−" : "+"}${Math.abs(rounded)} ${unit || "points"}`;
}

// A line for people: each step with the seat that takes it (as far as the review knows),
// the turns' bare "end" steps left out.
function readableLine(analysis) {
  const seats = analysis.lineSeats || [];
  return (analysis.line || [])
    .map((text, i) => ({ text, seat: seats[i] }))
    .filter((step) => step.text !== "end")
    .slice(0, 8)
    .map((step) => (step.seat === undefined ? step.text : `${seatName(step.seat)}: ${step.text}`));
}

// "Played X: mistake ?. Better: Y, which keeps +3 VP against −2 VP and 40% to win against
// 25%. Line: …", or the move alone before it is analysed.
function moveLine() {
  const index = view.current;
  const line = $("rv-move-line");
  const move = moves()[index];
  if (!move) {
    const scores = (view.record.scores || []).map((s, seat) => `${seatName(seat)} ${s}`).join(", ");
    line.textContent = `Game over. Scores: ${scores}.`;
    return;
  }
  const analysis = view.analyses[index];
  const who = seatName(move.seat || 0);
  if (!analysis) {
    line.textContent = `${who} played ${move.text}.`;
    return;
  }
  const label = LABELS[analysis.label];
  const unit = analysis.pointsUnit;
  let text = `${who} played ${analysis.played.text}`;
  if (analysis.onlyMove) text += " (the only move).";
  else {
    if (label) text += `: ${label.word} ${label.sign}`;
    const same = (analysis.best.id || 0) === (analysis.played.id || 0);
    text += same
      ? `, the move the review recommends: ${points(analysis.pointsBest, unit)} expected, ${percent(analysis.winProbabilityBest)} to win.`
      : `. Better: ${analysis.best.text}, ${points(analysis.pointsBest, unit)} expected against ${points(analysis.pointsPlayed, unit)}` +
        ` (${(analysis.pointsLost || 0).toFixed(1)} ${unit || "points"} lost), ${percent(analysis.winProbabilityBest)} to win against ${percent(analysis.winProbabilityPlayed)}.`;
  }
  text += ` Win probability before the move: ${percent(analysis.winProbabilityBefore)}.`;
  const steps = readableLine(analysis);
  if (steps.length && !analysis.onlyMove) text += ` Its line: ${steps.join(" → ")}.`;
  if (analysis.hindsight) text += " (With hindsight.)";
  line.textContent = text;
}

// -- the move list -----------------------------------------------------------------------

function listMoves() {
  const list = $("rv-moves");
  list.replaceChildren();
  moves().forEach((move, index) => {
    const item = newElement("li", "");
    item.value = index + 1;
    const button = newElement("button", "rv-move");
    button.type = "button";
    button.dataset.index = String(index);
    button.append(newElement("span", "rv-text", `${seatName(move.seat || 0)}: ${move.text}`));
    button.addEventListener("click", () => show(index));
    item.append(button);
    list.append(item);
  });
}

function labelMove(analysis) {
  const button = $("rv-moves").querySelector(`button[data-index="${analysis.index || 0}"]`);
  if (!button) return;
  button.querySelector(".rv-label")?.remove();
  const label = LABELS[analysis.label];
  let badge;
  if (label) badge = newElement("span", `rv-label ${label.key}`, `${label.sign} ${label.word}`);
  else if (analysis.onlyMove) badge = newElement("span", "rv-label rv-note", "only move");
  else badge = newElement("span", "rv-label rv-note", `${percent(analysis.winProbabilityBefore)}`);
  button.append(" ", badge);
  button.dataset.label = label ? label.key : "";
}

function markCurrent() {
  const list = $("rv-moves");
  for (const old of list.querySelectorAll("[aria-current]")) old.removeAttribute("aria-current");
  const button = list.querySelector(`button[data-index="${view.current}"]`);
  if (button) {
    button.setAttribute("aria-current", "step");
    // (The list scrolls in its own box; the page stays where it is.)
    const top = button.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - button.offsetHeight) {
      list.scrollTop = top - list.clientHeight / 2;
    }
  }
  const cursor = $("rv-graph").querySelector(".rv-cursor");
  if (cursor) {
    const x = graphX(view.current);
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
  }
}

// -- the win-probability graph -----------------------------------------------------------

function graphX(index) {
  const span = Math.max(1, moves().length);
  return GRAPH.left + (index / span) * (GRAPH.width - GRAPH.left - GRAPH.right);
}

function graphY(p) {
  return GRAPH.top + (1 - (p || 0)) * (GRAPH.height - GRAPH.top - GRAPH.bottom);
}

// Each seat's line through its decisions; a point per decision, a labelled one marked by a
// shape of its own (inaccuracy: a diamond, mistake: a square, blunder: a triangle).
function drawGraph() {
  // (Its units are the box's pixels: the text is as large on a phone as on a desktop.)
  GRAPH.width = Math.max(300, Math.min(1000, $("rv-graph").clientWidth || 640));
  const analyses = view.analyses.filter(Boolean);
  const graph = svgElement("svg", {
    viewBox: `0 0 ${GRAPH.width} ${GRAPH.height}`, role: "img", class: "rv-graph",
    "aria-label": graphSummary(analyses),
  });
  for (const p of [0, 0.5, 1]) {
    graph.append(svgElement("line", { x1: GRAPH.left, x2: GRAPH.width - GRAPH.right, y1: graphY(p), y2: graphY(p), class: "rv-grid" }));
    const tick = svgElement("text", { x: GRAPH.left - 4, y: graphY(p) + 4, "text-anchor": "end", class: "rv-tick" });
    tick.textContent = percent(p);
    graph.append(tick);
  }
  const axis = svgElement("text", { x: GRAPH.width - GRAPH.right, y: GRAPH.height - 6, "text-anchor": "end", class: "rv-tick" });
  axis.textContent = `move ${moves().length}`;
  graph.append(axis);
  const cursor = svgElement("line", { x1: graphX(view.current), x2: graphX(view.current), y1: GRAPH.top, y2: GRAPH.height - GRAPH.bottom, class: "rv-cursor" });
  graph.append(cursor);
  const seats = [...new Set(analyses.map((a) => a.seat || 0))].sort();
  for (const seat of seats) {
    const mine = analyses.filter((a) => (a.seat || 0) === seat).sort((a, b) => (a.index || 0) - (b.index || 0));
    const colour = SEAT_COLOURS[seat % SEAT_COLOURS.length];
    const line = mine.map((a) => `${graphX(a.index || 0).toFixed(1)},${graphY(a.winProbabilityBefore).toFixed(1)}`);
    graph.append(svgElement("polyline", { points: line.join(" "), fill: "none", stroke: colour, "stroke-width": 2, class: "rv-line" }));
    for (const a of mine) graph.append(point(a, colour));
  }
  $("rv-graph").replaceChildren(graph);
  if (seats.length > 1) {
    const key = newElement("p", "rv-seats");
    for (const seat of seats) {
      const swatch = newElement("span", "rv-swatch");
      swatch.style.background = SEAT_COLOURS[seat % SEAT_COLOURS.length];
      key.append(swatch, ` ${seatName(seat)} `);
    }
    $("rv-graph").append(key);
  }
}

function point(analysis, colour) {
  const index = analysis.index || 0;
  const x = graphX(index);
  const y = graphY(analysis.winProbabilityBefore);
  const label = LABELS[analysis.label];
  const g = svgElement("g", { class: `rv-point${label ? ` rv-mark ${label.key}` : ""}`, "data-index": index });
  // A wide transparent target around the point: easy to click.
  g.append(svgElement("circle", { cx: x, cy: y, r: 7, class: "rv-hit" }));
  if (!label) g.append(svgElement("circle", { cx: x, cy: y, r: 2.5, fill: colour }));
  else if (label.key === "inaccuracy") g.append(svgElement("path", { d: `M${x} ${y - 6}L${x + 6} ${y}L${x} ${y + 6}L${x - 6} ${y}Z` }));
  else if (label.key === "mistake") g.append(svgElement("rect", { x: x - 5, y: y - 5, width: 10, height: 10 }));
  else g.append(svgElement("path", { d: `M${x} ${y - 7}L${x + 7} ${y + 6}L${x - 7} ${y + 6}Z` }));
  const title = svgElement("title", {});
  title.textContent = `Move ${index + 1}, ${seatName(analysis.seat || 0)}: ${percent(analysis.winProbabilityBefore)}${label ? `, ${label.word}` : ""}`;
  g.append(title);
  g.addEventListener("click", () => show(index));
  return g;
}

function graphSummary(analyses) {
  if (!analyses.length) return "Win probability graph: no move analysed yet";
  const counts = Object.values(LABELS).map((l) => `${analyses.filter((a) => LABELS[a.label] === l).length} ${l.word}`);
  return `Win probability over ${analyses.length} analysed moves: ${counts.join(", ")}`;
}

// -- the analysis, streamed --------------------------------------------------------------

function limits() {
  const budget = $("rv-budget").value;
  if (budget === "iterations") return { iterations: String(Math.max(1, Number($("rv-iterations").value) || 1)) };
  return { preset: `STRENGTH_PRESET_${budget.toUpperCase()}` };
}

async function analyse() {
  cancel();
  const controller = new AbortController();
  view.controller = controller;
  view.analyses = [];
  view.summary = null;
  listMoves();
  drawGraph();
  $("rv-summary").replaceChildren();
  const seat = reviewedSeat();
  const hindsight = $("rv-hindsight").checked;
  const request = { record: view.record, seats: seat === null ? [] : [seat], limits: limits(), hindsight, seed: "0" };
  $("rv-cancel").disabled = false;
  $("rv-analyse").disabled = true;
  const progress = $("rv-progress");
  progress.textContent = "Starting the analysis…";
  let done = 0;
  let total = 0;
  try {
    for await (const message of stream("AnalyzeGame", request, controller.signal)) {
      if (view.controller !== controller) return;
      done = (message.progress && message.progress.decisionsDone) || 0;
      total = (message.progress && message.progress.decisionsTotal) || 0;
      if (message.move) {
        view.analyses[message.move.index || 0] = message.move;
        labelMove(message.move);
        drawGraph();
        if ((message.move.index || 0) === view.current) {
          moveLine();
          show(view.current);
        }
      }
      if (message.final) {
        view.summary = message.seats || [];
        summarise(message.stopReason, hindsight);
        progress.textContent = `Analysis done: ${done} of ${total} moves analysed` +
          (STOPS[message.stopReason] ? ` (stopped: ${STOPS[message.stopReason]}).` : ".");
      } else {
        progress.textContent = done < total ? `Analysing move ${done + 1} of ${total}…` : `Analysed ${done} of ${total}…`;
      }
    }
    show(view.current);
  } catch (error) {
    if (view.controller !== controller) return;
    if (error.name === "AbortError") progress.textContent = `Analysis cancelled (${done} of ${total} moves analysed).`;
    else {
      progress.textContent = "The analysis failed.";
      fail(error);
    }
  } finally {
    if (view.controller === controller) {
      view.controller = null;
      $("rv-cancel").disabled = true;
      $("rv-analyse").disabled = false;
    }
  }
}

function cancel() {
  if (!view.controller) return;
  view.controller.abort();
  // (analyse()'s catch says so; a new analysis or the view's close drops it.)
}

function summarise(stopReason, hindsight) {
  const table = newElement("table", "rv-summary-table");
  table.createCaption().textContent = hindsight ? "Summary (with hindsight: every hand known)" : "Summary";
  const head = table.createTHead().insertRow();
  const unit = ((view.analyses.find(Boolean) || {}).pointsUnit) || "points";
  for (const title of ["Seat", "Accuracy", "Avg win loss", `Avg ${unit} lost`, "?!", "?", "??"]) head.append(newElement("th", "", title));
  head.cells[4].setAttribute("aria-label", "inaccuracies");
  head.cells[5].setAttribute("aria-label", "mistakes");
  head.cells[6].setAttribute("aria-label", "blunders");
  const body = table.createTBody();
  for (const s of view.summary) {
    const row = body.insertRow();
    row.append(newElement("th", "", seatName(s.seat || 0)));
    row.insertCell().textContent = `${(s.accuracy || 0).toFixed(1)}`;
    row.insertCell().textContent = (s.averageLoss || 0).toFixed(3);
    row.insertCell().textContent = (s.averagePointsLost || 0).toFixed(2);
    row.insertCell().textContent = String(s.inaccuracies || 0);
    row.insertCell().textContent = String(s.mistakes || 0);
    row.insertCell().textContent = String(s.blunders || 0);
  }
  $("rv-summary").replaceChildren(table);
}

// -- exploring from a position -----------------------------------------------------------

// The position played on as a game of the page: the reader in the reviewed seat (or,
// reviewing every seat, the seat to move there), the other seats the bots of the review's
// budget (the casual bot for a budget in iterations). The server keeps only that seat's view
// of the position and deals the rest afresh; the analysis goes on meanwhile.
async function startExploring() {
  if (view.current >= moves().length || view.explore) return;
  try {
    const state = await positionAt(view.current);
    const seat = reviewedSeat() ?? (moves()[view.current].seat || 0);
    const budget = $("rv-budget").value;
    view.explore = true;
    document.body.classList.remove("reviewing");
    await view.startGame({
      name: view.gameName, state, seat, players: view.players, preset: PRESETS.includes(budget) ? budget : "casual",
    }, backFromExploring);
  } catch (error) {
    fail(error);
  }
}

// "Back to the review" (app.js): the review as it was, at the position explored from.
function backFromExploring() {
  view.explore = false;
  document.body.classList.add("reviewing");
  show(view.current);
  $("rv-explore-button").focus();
}

// -- the entry points ----------------------------------------------------------------------

// The entry points (app.js calls it once, as the page starts, with its `explore`).
/** @param {(start: ExploreStart, back: () => void) => Promise<void>} explore */
export function setUp(explore) {
  view.startGame = explore;
  $("open-record-button").addEventListener("click", () => $("open-record-file").click());
  $("open-record-file").addEventListener("change", () => {
    openFile($("open-record-file").files[0]);
    $("open-record-file").value = "";
  });
  $("review-game-button").addEventListener("click", reviewGame);
  // A new game, or a saved one opened, leaves the review for the game.
  $("new-game").addEventListener("submit", close);
  $("open-button").addEventListener("click", close);
}

