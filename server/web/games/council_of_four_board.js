// Council of Four's board as the place to play (issue #30): RenderPosition's SVG (drawn by the
// shell's svg_board.js, whose pieces have the stable ids of docs/render.md), through the
// hooks of its view (council_of_four.js):
// - marks on the board the target of each legal action (ListLegalActions' structured fields
//   mapped to a piece: targetOf) and plays it on a click, Enter or Space; a target of several
//   actions opens a small chooser (grouped: main or quick action, payments by cost), which
//   Escape closes; a click on a piece with no move (or out of turn) only says what it is;
// - makes the pieces buttons with one roving tab stop (arrow keys, Home and End move between
//   the targets, or every piece when there is none), and writes the board in words (a
//   visually hidden summary of the view: every seat's panel, the councils, the tiles, the
//   cities, the king);
// - shows the last move on the board for a moment.
import { holdFocus, hasFocus, shownHint } from "../access.js";
import { $, game, newElement, plural, seatLabel } from "../page.js";
import { FACTS, byCost, kingCost, paymentGroup, touched } from "./council_of_four_facts.js";

/** @typedef {import("../page.js").Json} Json */

// The pieces a click or a key acts on (docs/render.md's ids): the board's in its SVG; the
// seats' headers and held tiles in the seats' panels (svg_board.js's #player-panels shows
// each panel apart, copied without ids), else in the SVG.
const BOARD_PIECES = ["city", "balcony", "tile", "deck"].map((kind) => `svg [id^="${kind}-"]`).join(", ");
const PANEL_PIECES = "svg .seat-head, svg .permit.owned";
const SVG_NS = "http://www.w3.org/2000/svg";
const LAST_MOVE_MS = 3000; // how long a move stays marked on the board

// What this file knows of the position on show: the targets of the seat to move (piece id
// -> {label, actions}), the piece holding the tab stop, the last move's pieces.
/** @typedef {{seat: number, ids: string[], until: number, played: number}} LastMove */
const shown = {
  targets: new Map(), drawings: new Map(), stop: null, lastTimer: 0, opener: null,
  /** @type {LastMove | null} */
  lastMove: null,
  active: false, // the board on show is this game's (drawn, until the view is left)
};

const ours = () => shown.active;
const svg = () => $("board").querySelector("svg");
// Each piece is a button laid over its drawing (drawn() lays them: a button's name must
// hold the text inside it, and a drawing's letters and numbers are no name), which carries
// the piece's key (data-piece: the SVG's id, "seat-0", "permit-23").
const piece = (key) => (key ? $("board-panel").querySelector(`[data-piece="${key}"]`) : null);
// The drawing of a piece, by its key.
const drawingOf = (key) => shown.drawings.get(key) || null;
const pieces = () => [...$("board-panel").querySelectorAll("[data-piece]")];
const pieceOf = (node) => (node && node.closest ? node.closest("[data-piece]") : null);
const keyOf = (element) => element.getAttribute("data-piece");

// The key of a piece of a seat's panel: its header, or a tile it holds.
function panelKey(element) {
  const tile = element.getAttribute("data-tile");
  if (tile !== null) return `permit-${tile}`;
  const seat = element.getAttribute("data-seat") ?? element.closest("[data-seat]")?.getAttribute("data-seat");
  return `seat-${seat}`;
}
const myTurn = () => Boolean(game.turn && !game.busy && game.turn.generation === game.generation);

// -- what an action is about ------------------------------------------------------------

// The board piece whose click plays `action` (every action has one: those about no piece,
// ending the turn, engaging an assistant, an extra main action, are the seat's own header).
function targetOf(action, seat) {
  const region = FACTS.regions[action.region];
  switch (action.kind) {
    case "ACTION_KIND_BUILD_PERMIT": case "ACTION_KIND_BUILD_KING": case "ACTION_KIND_CHOOSE_TOKEN":
      return `city-${FACTS.cities[action.city]}`;
    case "ACTION_KIND_ELECT": case "ACTION_KIND_QUICK_ELECT":
      return `balcony-${FACTS.balconies[action.balcony]}`;
    case "ACTION_KIND_ACQUIRE": case "ACTION_KIND_CHOOSE_FREE_PERMIT":
      return `tile-${region}-${action.slot || 0}`;
    case "ACTION_KIND_CHANGE":
      return `deck-${region}`;
    case "ACTION_KIND_CHOOSE_PERMIT_BONUS":
      return `permit-${action.tile}`;
    case "ACTION_KIND_PAY":
      return `balcony-${paidBalcony()}`;
    default:
      return `seat-${seat}`;
  }
}

// The council a pending payment pays (turn.pending's first entry: a permit's region, or
// the king's).
function paidBalcony() {
  const pending = ((game.state.turn || {}).pending || [])[0] || {};
  if (pending.kind !== "pay_permit" || !pending.permit) return "king";
  const region = pending.permit.region;
  return typeof region === "string" ? region : FACTS.regions[region || 0];
}

// The chooser's group of an action: a payment's cost, else what kind of move it is.
const KIND_GROUPS = {
  ACTION_KIND_ELECT: "Main action: elect, +4 coins",
  ACTION_KIND_QUICK_ELECT: "Quick action: elect for 1 assistant",
  ACTION_KIND_BUILD_PERMIT: "Build here with a permit tile",
  ACTION_KIND_BUILD_KING: "Move the king here and build",
  ACTION_KIND_CHOOSE_TOKEN: "Take this city's token bonus",
  ACTION_KIND_ACQUIRE: "Main action: acquire this tile",
  ACTION_KIND_CHOOSE_FREE_PERMIT: "Take this tile for free",
  ACTION_KIND_CHANGE: "Quick action",
};
const groupName = (action) => (action.kind === "ACTION_KIND_PAY" ? paymentGroup(action) : KIND_GROUPS[action.kind] || "Your turn");

// The king's journey in a BUILD_KING description: "(1 road(s), 2 coins)", "costs 1 assistant(s)".
// A piece's name as said: "Arkon", "the coast council", "coast face-up permit 1", ...
function labelOf(element) {
  const [kind, name, slot] = keyOf(element).split("-");
  if (kind === "city") return name;
  if (kind === "balcony") return name === "king" ? "the king's council" : `the ${name} council`;
  if (kind === "tile") {
    const tile = drawingOf(keyOf(element))?.getAttribute("data-tile") ?? null;
    return `${name} face-up permit ${Number(slot) + 1}` + (tile === null ? " (empty)" : `, tile ${tile}`);
  }
  if (kind === "deck") return `the ${name} permit deck`;
  if (kind === "seat") return seatLabel(Number(name));
  if (kind === "permit") return `permit tile ${name} held`;
  return keyOf(element);
}

// What the SVG's own title says of a drawing (the first <title> in it).
function titleOf(drawing) {
  const title = drawing && drawing.querySelector("title");
  return title ? title.textContent : "";
}

// -- drawing marks over the SVG ---------------------------------------------------------

// The layer of marks of the SVG a piece is in (the board's, or a seat's panel's).
function marksLayer(element) {
  const drawing = element ? element.ownerSVGElement : svg();
  if (!drawing) return null;
  let layer = drawing.querySelector(":scope > .board-marks");
  if (!layer) {
    layer = document.createElementNS(SVG_NS, "g");
    layer.setAttribute("class", "board-marks");
    layer.setAttribute("aria-hidden", "true");
    layer.setAttribute("pointer-events", "none");
    drawing.append(layer);
  }
  return layer;
}

function svgElement(tag, attrs, text) {
  const made = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) made.setAttribute(key, String(value));
  if (text !== undefined) made.textContent = text;
  return made;
}

// A rectangle around a piece, of a class (board.css draws it).
function ring(element, className, pad = 5) {
  const layer = marksLayer(element);
  if (!layer || !element) return null;
  const box = element.getBBox();
  const mark = svgElement("rect", {
    x: box.x - pad, y: box.y - pad, width: box.width + 2 * pad, height: box.height + 2 * pad,
    rx: 8, class: className, "data-for": keyOf(element),
  });
  layer.append(mark);
  return mark;
}

function clearMarks(className) {
  for (const mark of $("board-panel").querySelectorAll(`.board-marks .${className}`)) mark.remove();
}

// -- the pieces as buttons, one tab stop ------------------------------------------------

// After each drawing of Council of Four's board: the pieces become buttons (no tab stop
// yet), the board in words is written, and a move still fresh is marked again.
export function drawn() {
  shown.active = true;
  shown.targets = new Map();
  closeChooser(false);
  const drawing = svg();
  if (drawing) {
    drawing.setAttribute("role", "group");
    drawing.setAttribute("aria-label", drawing.querySelector("title")?.textContent || "Board");
    drawing.setAttribute("aria-describedby", "board-keys");
  }
  const panels = [...$("board-panel").querySelectorAll("#player-panels svg")];
  shown.drawings = new Map();
  for (const element of drawing ? drawing.querySelectorAll(BOARD_PIECES) : []) shown.drawings.set(element.id, element);
  for (const element of (panels.length ? panels : [drawing]).flatMap((s) => (s ? [...s.querySelectorAll(PANEL_PIECES)] : []))) {
    shown.drawings.set(panelKey(element), element);
  }
  for (const [key, element] of shown.drawings) layButton(key, element);
  setStop(shown.stop && piece(shown.stop) ? shown.stop : keyOf(pieces()[0] || document.body));
  summary(game.state);
  panels.forEach((panel, seat) => {
    // A seat's panel in words (its SVG holds buttons: a group, not an image).
    panel.setAttribute("role", "group");
    panel.setAttribute("aria-label", seatWords(game.state, Number(panel.parentElement?.dataset.seat ?? seat)));
  });
  // (Marked again on the same position only: not after Undo took the move back.)
  const last = shown.lastMove;
  if (last && Date.now() < last.until && last.played === ((game.state.turn || {}).actionCount || 0)) markLastMove();
}

// The button of a piece: a transparent rectangle over its drawing (a city's disc and name),
// in a layer above everything in the drawing's SVG.
function layButton(key, element) {
  const owner = element.ownerSVGElement;
  let layer = owner.querySelector(":scope > .board-buttons");
  if (!layer) {
    layer = svgElement("g", { class: "board-buttons" });
    owner.append(layer);
  }
  let box = element.getBBox();
  if (key.startsWith("city-")) {
    const parts = [element.querySelector("circle"), ...element.querySelectorAll(":scope > text")].map((e) => e.getBBox());
    const left = Math.min(...parts.map((b) => b.x));
    const top = Math.min(...parts.map((b) => b.y));
    const right = Math.max(...parts.map((b) => b.x + b.width));
    const bottom = Math.max(...parts.map((b) => b.y + b.height));
    box = { x: left, y: top, width: right - left, height: bottom - top };
  }
  const button = svgElement("rect", {
    x: box.x, y: box.y, width: box.width, height: box.height, rx: 6, class: "piece",
    "data-piece": key, role: "button", tabindex: -1,
  });
  layer.append(button);
  button.setAttribute("aria-label", labelOf(button));
}

// The legal actions of the human seat to move: each piece they are about is a target.
export function turn(actions) {
  if (!ours() || !svg() || !game.turn) return;
  const seat = game.turn.seat;
  shown.targets = new Map();
  for (const action of actions) {
    let id = targetOf(action, seat);
    if (!piece(id)) id = `seat-${seat}`;
    if (!shown.targets.has(id)) shown.targets.set(id, { actions: [] });
    shown.targets.get(id).actions.push(action);
  }
  clearMarks("mark-target");
  clearMarks("mark-cost");
  for (const [id, target] of shown.targets) {
    const element = piece(id);
    element.classList.add("target");
    const moves = target.actions;
    const said = moves.length === 1 ? moves[0].text : `${moves.length} moves`;
    element.setAttribute("aria-label", `${labelOf(element)}: ${said}`);
    element.setAttribute("aria-haspopup", moves.length > 1 ? "dialog" : "false");
    ring(element, "mark-target");
    const king = moves.find((a) => a.kind === "ACTION_KIND_BUILD_KING");
    if (king) costBadge(element, kingCost(king));
  }
  const ids = [...shown.targets.keys()];
  const held = hasFocus();
  const next = ids.includes(shown.stop) ? shown.stop : ids[0];
  setStop(next);
  if (held) focusPiece(next);
}

// The coins (and assistants) the king's move to a city costs, beside the city.
function costBadge(city, cost) {
  const layer = marksLayer(city);
  if (!cost || !layer) return;
  // Up and to the left of the city's disc (its token is on the right, its name below).
  const disc = drawingOf(keyOf(city)).querySelector("circle");
  const [x, y, r] = ["cx", "cy", "r"].map((name) => Number(disc.getAttribute(name)));
  const text = `♔ ${cost.coins}c`;
  const width = 12 + 9 * text.length;
  const badge = svgElement("g", { class: "mark-cost", "data-for": keyOf(city) });
  badge.append(svgElement("rect", { x: x - r - width + 10, y: y - r - 12, width, height: 20, rx: 5 }));
  badge.append(svgElement("text", { x: x - r - width + 16, y: y - r + 3 }, text));
  layer.append(badge);
  const label = city.getAttribute("aria-label");
  const said = `king's journey ${cost.roads} road${cost.roads === 1 ? "" : "s"}, ${cost.coins} coins`
    + (cost.assistants ? `, ${cost.assistants} assistant${cost.assistants === 1 ? "" : "s"}` : "");
  city.setAttribute("aria-label", `${label} (${said})`);
}

// No human seat to move any more (a move was made, a new game, Undo): no targets.
export function clear() {
  closeChooser(false);
  for (const element of $("board-panel").querySelectorAll(".target[data-piece]")) {
    element.classList.remove("target");
    element.setAttribute("aria-label", labelOf(element));
    element.removeAttribute("aria-haspopup");
  }
  shown.targets = new Map();
  clearMarks("mark-target");
  clearMarks("mark-cost");
  for (const old of document.querySelectorAll("#actions .hinted")) old.classList.remove("hinted");
}

// The one tab stop of the board.
function setStop(id) {
  for (const element of $("board-panel").querySelectorAll('[data-piece][tabindex="0"]')) element.setAttribute("tabindex", "-1");
  const element = piece(id);
  if (!element) return;
  element.setAttribute("tabindex", "0");
  shown.stop = id;
}

function focusPiece(id) {
  const element = piece(id);
  if (!element) return false;
  setStop(id);
  element.focus({ preventScroll: false });
  return true;
}

// The focus ring, drawn over the SVG (an outline does not show on SVG groups everywhere).
function showFocus(event) {
  clearMarks("mark-focus");
  const element = pieceOf(event.target);
  if (element) {
    setStop(keyOf(element));
    ring(element, "mark-focus", 9);
  }
}

// Arrow keys: the next or previous target (or piece, when nothing is to play), in the
// board's order; Home and End: the first and last; Enter and Space: what a click does.
function onKey(event) {
  const element = pieceOf(event.target);
  if (!element || !ours()) return;
  const order = shown.targets.size ? pieces().filter((p) => shown.targets.has(keyOf(p))) : pieces();
  const at = order.indexOf(element);
  let next;
  if (event.key === "ArrowRight" || event.key === "ArrowDown") next = order[(at + 1) % order.length];
  else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = order[(at - 1 + order.length) % order.length];
  else if (event.key === "Home") next = order[0];
  else if (event.key === "End") next = order[order.length - 1];
  else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    activate(element);
    return;
  } else return;
  event.preventDefault();
  if (next) focusPiece(keyOf(next));
}

function onClick(event) {
  const element = pieceOf(event.target);
  if (!element || !ours()) return;
  activate(element);
}

// A target's move is played (or its chooser opened); any other piece is only described.
function activate(element) {
  setStop(keyOf(element));
  const target = myTurn() ? shown.targets.get(keyOf(element)) : null;
  if (!target) return inspect(element);
  if (target.actions.length === 1) return play(target.actions[0].id || 0);
  openChooser(element, target.actions);
}

function play(actionId) {
  if (!myTurn()) return;
  holdFocus(); // (before the chooser, which may have the focus, goes)
  closeChooser(false);
  game.turn?.play(actionId);
}

// -- the chooser ------------------------------------------------------------------------

function chooser() {
  let box = $("board-chooser");
  if (!box) {
    box = document.createElement("div");
    box.id = "board-chooser";
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-labelledby", "board-chooser-title");
    box.hidden = true;
    box.addEventListener("keydown", chooserKey);
    $("board-panel").append(box);
  }
  return box;
}

// The moves of one target, grouped (payments by their cost, fewest cards and coins first).
function openChooser(element, actions) {
  const box = chooser();
  box.replaceChildren();
  box.append(newElement("h3", "", `${labelOf(element)}: choose a move`));
  box.lastChild.id = "board-chooser-title";
  const sorted = actions.every((a) => a.kind === "ACTION_KIND_PAY") ? byCost(actions) : actions;
  const groups = new Map();
  for (const action of sorted) {
    const name = groupName(action);
    if (!groups.has(name)) groups.set(name, []);
    groups.get(name).push(action);
  }
  for (const [name, members] of groups) {
    const group = newElement("div", "choice-group");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", name);
    group.append(newElement("p", "choice-group-name", name));
    group.lastChild.setAttribute("aria-hidden", "true");
    for (const action of members) group.append(choiceButton(action));
    box.append(group);
  }
  box.append(closeButton());
  show(box, element);
  box.querySelector("button").focus();
}

function choiceButton(action) {
  const button = newElement("button", "choice");
  button.type = "button";
  button.dataset.choiceId = String(action.id || 0);
  if (action.colour !== undefined && action.kind !== "ACTION_KIND_PAY") {
    const swatch = newElement("span", "swatch");
    swatch.style.background = FACTS.cardFills[FACTS.colours[action.colour]] || "";
    swatch.setAttribute("aria-hidden", "true");
    button.append(swatch);
  }
  button.append(newElement("span", "choice-text", action.text));
  const cost = action.kind === "ACTION_KIND_BUILD_KING" && kingCost(action);
  if (cost) button.append(newElement("span", "choice-note", ` (${cost.coins} coins for the king's journey)`));
  if (shownHint.best === (action.id || 0)) button.classList.add("hinted");
  button.addEventListener("click", () => play(action.id || 0));
  return button;
}

function closeButton() {
  const close = newElement("button", "choice-close", "Close");
  close.type = "button";
  close.addEventListener("click", () => closeChooser(true));
  return close;
}

// A piece with no move now: what it is, and why nothing plays. Plays nothing.
function inspect(element) {
  const box = chooser();
  box.replaceChildren();
  box.append(newElement("h3", "", labelOf(element)));
  box.lastChild.id = "board-chooser-title";
  const title = titleOf(drawingOf(keyOf(element)));
  if (title) box.append(newElement("p", "", title));
  const why = !game.turn ? "It is not your turn." : myTurn() ? "No legal move here now." : "Wait for the move under way.";
  box.append(newElement("p", "chooser-note", why));
  box.append(closeButton());
  show(box, element);
  box.querySelector("button").focus();
}

// The chooser below the piece, else above it, else as low as the window lets it, always
// inside the window (style.css caps its height at the window's: a long list of payments
// scrolls inside it). Placed in the panel's coordinates, so it scrolls with the page.
function show(box, element) {
  shown.opener = keyOf(element);
  box.hidden = false;
  const MARGIN = 6;
  const panel = $("board-panel").getBoundingClientRect();
  const at = element.getBoundingClientRect();
  const width = Math.min(box.offsetWidth, panel.width);
  const left = Math.max(0, Math.min(at.left - panel.left, panel.width - width));
  box.style.left = `${left}px`;
  const height = box.offsetHeight;
  const windowBottom = window.innerHeight - MARGIN;
  let top = at.bottom + MARGIN; // (in the window's coordinates)
  if (top + height > windowBottom) top = at.top - MARGIN - height;
  if (top < MARGIN) top = Math.max(MARGIN, windowBottom - height);
  box.style.top = `${top - panel.top}px`;
}

function closeChooser(refocus) {
  const box = $("board-chooser");
  if (!box || box.hidden) return;
  box.hidden = true;
  box.replaceChildren();
  if (refocus && shown.opener) focusPiece(shown.opener);
}

// Escape closes; the arrow keys move between the chooser's buttons.
function chooserKey(event) {
  const buttons = [...chooser().querySelectorAll("button")];
  const at = buttons.indexOf(document.activeElement);
  if (event.key === "Escape") {
    event.preventDefault();
    closeChooser(true);
  } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    event.preventDefault();
    const step = event.key === "ArrowDown" ? 1 : -1;
    buttons[(at + step + buttons.length) % buttons.length].focus();
  }
}

// A press outside the chooser (and outside the board's pieces) closes it.
function pressOutside(event) {
  const box = $("board-chooser");
  if (!box || box.hidden || box.contains(event.target)) return;
  if (pieceOf(event.target)) return;
  closeChooser(false);
}

/**
 * After a move (the human's or a bot's, as the other seats see it): its pieces marked for a
 * moment.
 * @param {number} seat
 * @param {Json} action
 */
export function moved(seat, action) {
  const played = (game.state.turn || {}).actionCount || 0;
  shown.lastMove = { seat, ids: touched(action), until: Date.now() + LAST_MOVE_MS, played };
  markLastMove();
}

function markLastMove() {
  clearMarks("mark-last");
  clearTimeout(shown.lastTimer);
  if (!shown.lastMove) return;
  const { seat, ids, until } = shown.lastMove;
  for (const id of ids) {
    const mark = ring(piece(id), `mark-last seat-${seat}`, 12);
    if (mark) mark.setAttribute("stroke-dasharray", "14 7");
  }
  shown.lastTimer = setTimeout(() => clearMarks("mark-last"), Math.max(0, until - Date.now()));
}

// Each report of a hint: its best move marked in the action list (and the chooser); the
// final one said once, and its candidates made buttons that play the move.
// -- the board in words -----------------------------------------------------------------

const counts = (cards) => Object.entries(cards || {}).filter(([, n]) => n).map(([kind, n]) => `${n} ${kind}`);

// A seat's panel in words: VP, coins, assistants, nobility, emporiums, hand, tiles.
function seatWords(state, p) {
  const player = (state.players || [])[p] || {};
  const vp = $("board").querySelector(`svg #player-${p} .stat.vp title`);
  const hand = p === (state.viewer || 0) ? counts(player.hand).join(", ") || "no cards"
    : `${plural(player.handSize || 0, "card")}, hidden`;
  const built = player.emporiums || [];
  const won = [...(player.bonusTiles || []), ...(player.kingTiles || []).map((tile) => `king ${tile}`)];
  const facts = [
    vp ? vp.textContent : `VP ${player.vp || 0}`,
    plural(player.coins || 0, "coin"),
    plural(player.assistants || 0, "assistant"),
    `nobility ${player.nobility || 0}`,
    `${built.length} of 10 emporiums` + (built.length ? ` (${built.join(", ")})` : ""),
    `hand: ${hand}`,
    `permit tiles face up: ${(player.permitsFaceUp || []).join(", ") || "none"}`,
    `used: ${(player.permitsFaceDown || []).join(", ") || "none"}`,
    `tiles won: ${won.join(", ") || "none"}`,
  ];
  return `${seatLabel(p)}: ${facts.join("; ")}`;
}

// The view as text: the turn, each seat's panel, the councils, the face-up tiles, the king,
// the cities. (Council of Four only: The Council's board is HTML already.)
function summary(state) {
  const box = $("board-summary");
  if (!box) return;
  box.replaceChildren();
  box.hidden = !state;
  if (!state) return;
  const board = state.board || {};
  const players = state.players || [];
  box.append(newElement("h2", "", "The board in words"));
  const header = $("board").querySelector("svg #status title, svg #status text");
  box.append(newElement("p", "", header ? header.textContent : `Turn ${(state.turn || {}).number || 1}`));
  box.append(newElement("h3", "", "Seats"));
  const seats = newElement("ul");
  players.forEach((_, p) => seats.append(newElement("li", "", seatWords(state, p))));
  box.append(seats);
  box.append(newElement("h3", "", "Councils (newest first)"));
  const councils = newElement("ul");
  for (const name of FACTS.balconies) {
    councils.append(newElement("li", "", `${name}: ${((board.balconies || {})[name] || []).join(", ")}`));
  }
  const pool = counts(board.pool).join(", ");
  councils.append(newElement("li", "", `pool: ${pool || "empty"}`));
  box.append(councils);
  box.append(newElement("h3", "", "Face-up permit tiles"));
  const tiles = newElement("ul");
  for (const region of FACTS.regions) {
    for (const slot of [0, 1]) {
      const element = drawingOf(`tile-${region}-${slot}`);
      const text = element && titleOf(element.querySelector("g") || element);
      tiles.append(newElement("li", "", `${region} ${slot + 1}: ${text || "empty"}`));
    }
    const deck = drawingOf(`deck-${region}`);
    if (deck) tiles.append(newElement("li", "", titleOf(deck)));
  }
  box.append(tiles);
  box.append(newElement("h3", "", "Cities"));
  box.append(newElement("p", "", `The king is in ${board.kingCity || "?"}.`));
  const cities = newElement("ul");
  const neutral = board.neutralEmporiums || [];
  for (const name of FACTS.cities) {
    const element = drawingOf(`city-${name}`);
    const built = players.map((player, p) => ((player.emporiums || []).includes(name) ? seatLabel(p) : null)).filter(Boolean);
    if (neutral.includes(name)) built.push("neutral");
    const text = `${element ? titleOf(element) : name}; emporiums: ${built.join(", ") || "none"}`;
    cities.append(newElement("li", "", text));
  }
  box.append(cities);
  const left = (board.bonusTilesLeft || []).join(", ");
  box.append(newElement("p", "", `Bonus tiles left: ${left || "none"}. King reward tiles taken: ${board.kingTilesTaken || 0}.`));
}

// Another game's board on show: no targets, no chooser, no board in words.
export function leave() {
  shown.active = false;
  shown.targets = new Map();
  closeChooser(false);
  summary(null);
}

// Once, as the page starts: the keys said to a screen reader, the board in words, the chooser,
// the board's clicks and keys.
export function setUp() {
  const panel = $("board-panel");
  const keys = newElement("p", "visually-hidden", "Your legal moves are buttons on the board: "
    + "the arrow keys move between them, Enter or Space plays one, Escape closes a choice.");
  keys.id = "board-keys";
  const words = newElement("section", "visually-hidden");
  words.id = "board-summary";
  words.setAttribute("aria-label", "The board in words");
  panel.append(keys, words);
  chooser();
  panel.addEventListener("click", onClick);
  panel.addEventListener("keydown", onKey);
  panel.addEventListener("focusin", showFocus);
  panel.addEventListener("focusout", () => clearMarks("mark-focus"));
  document.addEventListener("pointerdown", pressOutside);
}
