// The page's shell (index.html loads this module): the game on screen played through the
// public RPCs of council.v1.CouncilService (page.js's `call`), whatever the game. It plays
// sealed games (docs/service.md, "Sealed games"): the page never holds the full state, only
// the server's sealed blob of it, a ticket per seat (a player ticket for each human seat, a
// bot ticket for each bot, whose RecommendAction the server answers by playing the bot's move,
// so the page never sees its hand nor its secret moves) and the view of the human seat it
// shows. Nothing in its memory, storage or the replies it gets shows another seat's hand, the
// deck or the rng. Each game's own part (its board, its words, its targets) is its view
// module (games/index.js registers them): this file names no game.
import * as access from "./access.js";
import { DEFAULT_GAME, viewOf, views } from "./games/index.js";
import {
  $, BOT_SPEEDS, GAMES, PRESETS, SEED, SERVER, STORAGE, botDelayMs, call, game, isPlayerSeat,
  keepSettings, newElement, partOf, plural, presetValue, readStored, sealed, seatLabel, setStatus,
  settings, showError, stream,
} from "./page.js";
import * as review from "./review.js";
import { fitBoard, markParts, setUpZoom } from "./svg_board.js";

/** @typedef {import("./page.js").Json} Json */

const HINT_CANDIDATES = 5;
game.name = DEFAULT_GAME;

// The view of the game being played.
const view = () => viewOf(game.name);

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
  if (!game.blob || exploring.back) return; // (an explored line is not kept: exploring below)
  try {
    localStorage.setItem(STORAGE.game, JSON.stringify(keptGame()));
  } catch (error) {
    console.warn("the game could not be kept in localStorage:", error);
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
    if (effects.length) access.showEffects(item, effects);
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
    const opened = JSON.parse(await file.text());
    endExploring();
    await resumeGame(opened);
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

// A move's line in the log; a secret move (a view's `secrets`) kept until its period is over,
// then told.
function logMove(seat, action, secret, before) {
  const item = log(seat, action.text);
  const secrets = view().secrets;
  if (!secrets) return;
  if (secret) game.secrets.push({ item, seat, hidden: action.text, kind: action.kind, ...secrets.facts(before, seat) });
  if (secrets.period(game.state) === secrets.period(before)) return;
  for (const pending of game.secrets) {
    const told = secrets.told(pending, game.state);
    if (told) setLogText(pending.item, `${seatLabel(pending.seat)}: ${told}`);
  }
  game.secrets = [];
}

// The seat to move (zero values are absent from Connect JSON): the view's, else its game's
// part says it as `current`.
function toMove(state) {
  const toMoveOf = view().toMove;
  return toMoveOf ? toMoveOf(state) : (partOf(state) || {}).current || 0;
}

// The view the board shows, after each move: the human to move's, else the first human's.
async function refreshView() {
  // (An Undo meanwhile bumps the generation and sets the state itself: this view, of the
  // move it took back, is then dropped instead of drawn over it.)
  const generation = game.generation;
  const first = game.seats.findIndex((s, seat) => isPlayerSeat(seat));
  let { state } = await call("GetView", { sealed: sealed(first) });
  const mover = toMove(state);
  if (mover !== first && isPlayerSeat(mover) && !game.over) {
    ({ state } = await call("GetView", { sealed: sealed(mover) }));
  }
  if (generation === game.generation) game.state = state;
}

// The seat whose view the board shows (game.state's viewer).
function viewingSeat() {
  return game.state.viewer || 0;
}

// The board: the view's own HTML of the position (no zoom), else RenderPosition's SVG of it,
// zoomed in its viewport; then the view's pieces made reachable (its `drawn`).
let drawnView = /** @type {import("./games/index.js").GameView | null} */ (null);

async function draw() {
  const shown = view();
  const drawHtml = shown.draw;
  /** @type {string | null} */
  let svg = null;
  if (!drawHtml) ({ svg } = await call("RenderPosition", { sealed: sealed(viewingSeat()) }));
  if (drawnView && drawnView !== shown) drawnView.leave?.();
  drawnView = shown;
  $("board-panel").classList.toggle("svg-board", !drawHtml);
  $("zoom-tools").hidden = Boolean(drawHtml);
  const board = $("board");
  board.setAttribute("role", "group");
  board.setAttribute("aria-label", "Board");
  board.tabIndex = -1; // (holds the focus while the board is drawn anew)
  access.holdFocus(); // (the focus waits on the board while it is drawn anew)
  if (drawHtml) {
    $("player-panels").replaceChildren();
    await drawHtml();
  } else {
    board.innerHTML = svg;
    fitBoard(shown.boardParts);
  }
  // The seat's own area (its hand...), where its view shows one.
  $("own-area").replaceChildren();
  $("own-area").hidden = true;
  shown.drawn?.(); // (its pieces made buttons, the board in words, its own area)
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
  view().clear?.(); // no targets on the board
  markParts();
}

// What a pending decision chooses (ListLegalActions' `decision`), said above the options.

function decisionWords(decision) {
  return (view().decisionWords || {})[decision] || (decision || "").replace(/_/g, " ");
}

// An action's description in the rules' words ("2 cards", not "2 card(s)").
function inWords(text) {
  const words = view().words;
  return (words ? words(text) : text).replace(/(\d+) (\w+)\(s\)/g, (_, n, word) => `${n} ${word}${n === "1" ? "" : "s"}`);
}

function showDecision(decision) {
  const heading = $("decision");
  const said = view().decisions;
  heading.textContent = !decision ? "" : decision in said ? said[decision] : `Decide: ${decisionWords(decision)}`;
  heading.hidden = !heading.textContent;
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
  access.moved(seat, action, answer.effects); // its effects in the log, a bot's move said
  view().moved?.(seat, action); // (shown on the board a moment)
  keepGame(); // (again: with the effect lines put under the move's line)
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
  game.turn = {
    seat, generation, actions: listed.actions,
    status: `${seatLabel(seat)} to move: ${decisionWords(listed.decision)}`,
    play: (actionId) => humanMove(seat, actionId, generation),
  };
  showDecision(listed.decision);
  showActions(listed.actions);
  view().turn?.(listed.actions, listed.decision); // each action's target marked on the board
  markParts(); // (and where they are)
  $("hint-button").disabled = false;
  $("undo-button").disabled = !canUndo();
}

// The list of buttons: all the legal actions, or those of what was clicked on the board.
function showActions(actions, picked) {
  const { seat, generation } = game.turn;
  setStatus(picked ? `${game.turn.status}: ${picked}` : game.turn.status);
  const list = $("actions");
  list.replaceChildren();
  // The view's order and groups (a payment's cost, say), each group's label once.
  const { optionGroup = () => "", sortOptions } = view();
  if (sortOptions) actions = sortOptions(actions);
  let group = "";
  for (const action of actions) {
    const item = document.createElement("li");
    const itsGroup = optionGroup(action);
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
  if (first && !access.hasFocus()) first.focus({ preventScroll: true }); // (or kept on the board)
}

async function humanMove(seat, actionId, generation) {
  if (game.busy) return;
  const move = { seat, actionId }; // (busy while this move is applied: step() frees it for the bots)
  game.busy = move;
  const secrets = game.secrets.map((secret) => ({ ...secret }));
  game.history.push({ moves: game.moves, seat, logLines: $("log").children.length, secrets });
  access.holdFocus(); // (the button pressed goes: the focus waits on the board or the list)
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
function highlight(action) {
  for (const old of $("board").querySelectorAll(".hinted")) old.classList.remove("hinted");
  if (!action) return;
  for (const element of (view().hinted || (() => []))(action)) element.classList.add("hinted");
}


// A hint's candidates as rows: the probability the bot plays each (the candidate's
// `policy`, the chance the search plays it, else its share of the visits), its chance to
// win and its points; the recommended move first, then by that probability.
function hintRows(result) {
  const candidates = result.candidates || [];
  const visits = candidates.reduce((sum, c) => sum + Number(c.visits || 0), 0);
  const withPolicy = candidates.some((c) => c.policy); // (0 is left out of JSON)
  const points = view().points;
  const best = result.action ? result.action.id || 0 : null;
  return candidates
    .map((c) => ({
      action: c.action,
      played: withPolicy ? c.policy || 0 : (visits ? Number(c.visits || 0) / visits : 0),
      win: c.winProbability || 0,
      points: (c.vpMargin || 0) * points.factor,
    }))
    .sort((a, b) => Number((b.action.id || 0) === best) - Number((a.action.id || 0) === best) || b.played - a.played);
}

const signed = (value) => `${value < 0 ? "−" : "+"}${Math.abs(value).toFixed(1)}`;

// One report of the hint's search: a table of the candidates (move, the probability the bot
// plays it, win % with a bar, points), the principal line without the bare "end" steps, and
// the best candidate's pieces highlighted on the board.
function showHint(result, final) {
  const points = view().points;
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
  access.hintShown(result, final); // marked in the list; the final one's candidates playable
}

async function hint() {
  const seat = toMove(game.state);
  const generation = game.generation;
  const controller = new AbortController();
  game.hint = controller;
  game.hintsUsed += 1;
  keepGame();
  // (board.js: the focus waits on the hint while the button is disabled, then comes back)
  const refocus = access.keepFocusWhile($("hint-button"), $("hint"));
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

function showScores() {
  setStatus("Game over");
  $("undo-button").disabled = !canUndo();
  const list = $("score-list");
  list.replaceChildren();
  const order = game.scores.map((score, seat) => ({ score, seat })).sort((a, b) => b.score - a.score);
  for (const { score, seat } of order) {
    const item = document.createElement("li");
    const won = game.winners.includes(seat) ? " — winner" : "";
    const points = view().scoreText?.(score) ?? plural(score, "point");
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
    const parts = view().scoreParts?.(seat);
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
  $("next-hand-button").hidden = !view().nextHand;
  $("scores").hidden = false;
}

// "Next hand" (a game whose view plays a match of hands): the hand just ended counted in the
// match, and a new sealed game dealt.
function nextHand() {
  const next = view().nextHand;
  if (!game.over || !next) return;
  next();
  newGame({ keepMatch: true });
}

// A new game; `keepMatch`: a match's next hand (else a new match); `start`: from a position
// (NewGame's start_position: {state, seat}), not a new deal.
async function newGame({ keepMatch = false, start = null } = {}) {
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
    /** @type {Json} */
    const request = { sealed: true, botSeats, botPresets };
    if (start) request.startPosition = start; // (its config the position's, its deal the server's)
    else {
      request.config = { players: game.seats.length };
      if (game.name !== DEFAULT_GAME) request.config.game = GAMES[game.name].game;
      if (SEED) request.seed = SEED;
    }
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
    views[info.name]?.readInfo?.(info);
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

// -- Exploring from the review -----------------------------------------------------------------

// "Explore from here" (review.js): a sealed game the server starts from the reviewed position
// (NewGame's start_position: the seat's view kept, every other hidden card dealt afresh), the
// reader in that seat and the review's bots in the others, played as any game (the board,
// the log with the bots' replies, hints, Undo). The game the page had is set aside, storage
// keeps it meanwhile (a reload resumes it), and it is back when the reader returns to the
// review (`back`, review.js's).
const exploring = {
  /** @type {Json | null} */
  setAside: null, // the page's game, as keptGame() keeps it
  /** @type {(() => void) | null} */
  back: null,
};

/**
 * @param {import("./review.js").ExploreStart} start
 * @param {() => void} back
 */
async function explore(start, back) {
  if (!exploring.back) exploring.setAside = game.blob ? keptGame() : null;
  exploring.back = back;
  $("exploring").hidden = false;
  document.body.classList.add("exploring");
  game.name = start.name;
  game.seats = Array.from({ length: start.players }, (_, seat) =>
    seat === start.seat ? { kind: "human" } : { kind: "bot", preset: start.preset });
  await newGame({ start: { state: start.state, seat: start.seat } });
}

// No longer exploring; the game set aside dropped (a new game or another one replaces it).
function endExploring() {
  exploring.setAside = null;
  exploring.back = null;
  $("exploring").hidden = true;
  document.body.classList.remove("exploring");
}

// "Back to the review": the review where it was, and the page's own game back behind it.
async function backToReview() {
  const { setAside, back } = exploring;
  if (!back) return;
  endExploring();
  ++game.generation; // (the explored line's bot move or hint under way is dropped)
  clearActions();
  back();
  if (!setAside) return;
  try {
    await resumeGame(setAside);
  } catch (error) {
    showError(error);
  }
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
  endExploring(); // (storage holds the page's game, not the line explored)
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
  access.setUp();
  for (const each of Object.values(views)) each.setUp?.();
  review.setUp(explore);
  $("back-to-review").addEventListener("click", backToReview);
  seatChoices();
  $("take-over").addEventListener("click", takeOver);
  claimGame();
  $("seat-count").addEventListener("change", seatChoices);
  $("game-choice").addEventListener("change", seatCounts);
  $("new-game").addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!(await confirmLeaving("Start a new game? The game in progress will be lost (save it first to keep it)."))) return;
    endExploring();
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
