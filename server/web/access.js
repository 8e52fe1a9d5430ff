// The page's accessibility across every game (issue #30): the focus kept across a move and
// across a board drawn anew, the skip links, the polite live region that says each bot move,
// the final hint and the end once, a move's effect lines under its line of the log, and the
// final hint's candidates made buttons (a click plays the move at once: Undo takes it back).
// A game's board makes its own pieces reachable (its view module, games/).
import { $, game, newElement, seatLabel } from "./page.js";

// Before what has the focus is taken away (a move clears the actions; each drawing replaces
// the board): the focus waits on the board, or on the action list, and comes back to the
// board's targets (a view's `turn`) or the first action (app.js's showActions).
export function holdFocus() {
  const active = document.activeElement;
  if (!active || active === document.body) return;
  if ($("board-panel").contains(active)) {
    $("board").focus({ preventScroll: true });
  } else if ($("play").contains(active)) {
    $("actions").tabIndex = -1;
    $("actions").focus({ preventScroll: true });
  }
}

/**
 * Around a button disabled for a while (Hint): the focus waits on `place` (the focus would
 * drop to the page's body), and the function returned brings it back.
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} place
 * @returns {() => void}
 */
export function keepFocusWhile(button, place) {
  if (document.activeElement !== button) return () => {};
  place.tabIndex = -1;
  place.focus({ preventScroll: true });
  return () => {
    const active = document.activeElement;
    if (!button.disabled && (active === place || active === document.body)) button.focus({ preventScroll: true });
  };
}

/**
 * The focus on `element`, made focusable (not a Tab stop) where it is not.
 * @param {HTMLElement | SVGElement} element
 */
export function moveFocus(element) {
  if (element.tabIndex < 0 && !element.hasAttribute("tabindex")) element.tabIndex = -1;
  element.focus();
}

// Whether the board holds the focus (app.js's showActions then leaves it there).
export const hasFocus = () => $("board-panel").contains(document.activeElement);

/**
 * Said once by a screen reader: each message its own line of the polite live region.
 * @param {string} text
 */
export function announce(text) {
  const region = $("announcer");
  if (!region) return;
  region.append(newElement("p", "", text));
  while (region.children.length > 6) region.firstChild.remove();
}

/**
 * After a move (the human's or a bot's, as the other seats see it): what it did (ApplyAction's
 * effects for a human's move, RecommendAction's for a bot's, as every seat may know it) in
 * the log under the move's line, each line about a seat named as the log names it; a bot's
 * move said once, and the end.
 * @param {number} seat
 * @param {{text: string}} action
 * @param {{lines?: {seat?: number, text: string}[]}} [effects]
 */
export function moved(seat, action, effects) {
  const bot = game.seats[seat] && game.seats[seat].kind === "bot";
  const lines = ((effects && effects.lines) || []).map((line) =>
    (line.seat === undefined ? line.text : `${seatLabel(line.seat)}: ${line.text}`));
  const item = $("log").lastElementChild;
  if (lines.length && item) {
    showEffects(item, lines);
    $("log").scrollTop = $("log").scrollHeight; // (its last lines in sight, as app.js's log)
  }
  if (bot || lines.length) announce([`${seatLabel(seat)}: ${action.text}`, ...lines].join(". "));
  if (game.over) {
    const order = game.scores.map((score, p) => ({ score, p })).sort((a, b) => b.score - a.score);
    announce(`Game over. ${order.map(({ score, p }) => `${seatLabel(p)} ${score}`).join(", ")}.`);
  }
}

/**
 * A move's effect lines under its line of the log, in a shadow tree: shown and read like the
 * rest of the page, but out of the line's textContent, which is the move's text alone (what
 * app.js keeps of the log, and what the page's tests read). Kept on the line
 * (`effectLines`) for app.js, which keeps them with the game and draws them again on a reload.
 * @param {HTMLElement & {effectLines?: string[]}} item
 * @param {string[]} lines
 */
export function showEffects(item, lines) {
  item.effectLines = lines;
  item.append(effectsList(lines));
}

/** @param {string[]} lines */
function effectsList(lines) {
  const holder = newElement("span", "effects");
  const shadow = holder.attachShadow({ mode: "open" });
  const style = document.createElement("style");
  style.textContent = "div { margin: 0.1rem 0 0.3rem 1rem; font-size: 0.85rem; color: #444; } span { display: block; }";
  // (Lines, not list items: the log's items are its moves, which #log li counts.)
  const list = newElement("div");
  for (const line of lines) list.append(newElement("span", "", line));
  shadow.append(style, list);
  return holder;
}

// The hint's best move on show (its action id), which a board's chooser marks too.
export const shownHint = { best: /** @type {number | null} */ (null) };

/**
 * Each report of a hint: its best move marked in the action list (and a board's chooser,
 * whose buttons carry data-choice-id); the final one said once, and its candidates made
 * buttons that play the move.
 * @param {import("./page.js").Json} result
 * @param {boolean} final
 */
export function hintShown(result, final) {
  const best = result.action;
  const hinted = best ? best.id || 0 : null;
  shownHint.best = hinted;
  for (const old of document.querySelectorAll("#actions .hinted, #board-chooser .hinted")) old.classList.remove("hinted");
  if (best) {
    const selector = `#actions button[data-action-id="${hinted}"], #board-chooser button[data-choice-id="${hinted}"]`;
    for (const button of document.querySelectorAll(selector)) {
      button.classList.add("hinted");
      if (!button.querySelector(".hint-badge")) button.prepend(newElement("span", "hint-badge", "hint"));
    }
  }
  if (!final) return;
  const legal = new Set(game.turn ? game.turn.actions.map((a) => a.id || 0) : []);
  for (const candidate of result.candidates || []) {
    const id = candidate.action.id || 0;
    const row = $("hint").querySelector(`table tbody tr[data-action-id="${id}"]`);
    const cell = row && row.cells[0];
    if (!cell || !legal.has(id)) continue;
    const button = newElement("button", "candidate", candidate.action.text);
    button.type = "button";
    button.dataset.candidateId = String(id);
    button.setAttribute("aria-label", `Play ${candidate.action.text}`);
    button.addEventListener("click", () => {
      if (!game.turn || game.busy || game.turn.generation !== game.generation) return;
      holdFocus();
      game.turn.play(id);
    });
    cell.replaceChildren(button);
  }
  if (best) {
    announce(`Hint: ${best.text}${$("hint").dataset.summary ? `, ${$("hint").dataset.summary}` : ""}.`);
  }
}

// The live region, and the page's first Tab stops (index.html's skip links), past the
// header's form: to the actions (the first one, else their section while a bot thinks), and
// to the board (its tab stop: a piece with tabindex 0, else its first button; else the board
// itself). A link's own jump would only scroll: the focus is moved here.
export function setUp() {
  const said = newElement("div", "visually-hidden");
  said.id = "announcer";
  said.setAttribute("aria-live", "polite");
  $("board-panel").append(said);
  $("skip-to-actions").addEventListener("click", (/** @type {Event} */ event) => {
    event.preventDefault();
    const first = $("play").querySelector("#reveal-picker:not([hidden]) button, #actions button");
    moveFocus(first || $("play"));
  });
  $("skip-to-board").addEventListener("click", (/** @type {Event} */ event) => {
    event.preventDefault();
    const stop = $("board-panel").querySelector('[data-piece][tabindex="0"]');
    if (stop) {
      stop.focus({ preventScroll: false });
      return;
    }
    moveFocus($("board").querySelector("[data-piece], button") || $("board"));
  });
}
