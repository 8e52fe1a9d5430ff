// Council of Four's part of the page (its view: games/index.js registers it): its decisions
// in words, its payments grouped by cost, the pieces an action is about, its final scores in
// parts, and its board as the place to play (council_of_four_board.js) over RenderPosition's
// SVG. Its part of a GameState is the message's own top-level fields (turn, players, board):
// what the page reads of them is here.
import { $, game, newElement, plural } from "../page.js";
import * as board from "./council_of_four_board.js";
import { FACTS, byCost, paymentGroup, readInfo, touched } from "./council_of_four_facts.js";

/** @typedef {import("../page.js").Json} Json */

// The server's descriptions in the rules' words: a bonus is "+2 coins", not "coins +2"
// (engine/council_of_four_actions.py's keys: VP, coins, assistants, politics, nobility,
// main_action).
const BONUS_WORDS = /** @type {Record<string, string[]>} */ ({
  VP: ["VP", "VP"], coins: ["coin", "coins"], assistants: ["assistant", "assistants"],
  politics: ["politics card", "politics cards"], nobility: ["nobility step", "nobility steps"],
  main_action: ["main action", "main actions"],
});

/**
 * What a seat's final score is made of, in VP, as the game-ending move's effects tell it
 * ("final scoring: VP track, 17 VP", then each tile and award, "final scoring: most permit
 * tiles, +3 VP"): the parts and their sum. "" where they do not say.
 * @param {number} seat
 */
function scoredParts(seat) {
  const parts = (game.finalLines || [])
    .filter((line) => line.seat === seat)
    .map((line) => /^final scoring: (.+), \+?(\d+) VP$/.exec(line.text))
    .filter((found) => found !== null)
    .map(([, what, vp]) => ({ what, vp: Number(vp) }));
  if (!parts.length) return "";
  const total = parts.reduce((sum, part) => sum + part.vp, 0);
  return `${parts.map(({ what, vp }) => `${what} ${vp}`).join(" + ")} = ${total} VP`;
}

/**
 * What a seat's final score is made of, as far as the final view tells it (a game resumed at
 * its end, whose last move's effects the page no longer has): the king tiles (by their VP),
 * the bonus tiles won, the nobility track and the permit tiles (with the places that final
 * scoring rewards), the emporiums; the service does not say the VP of each part (the bonus
 * tiles' and the end awards'), so those are not summed here.
 * @param {number} seat
 */
function viewParts(seat) {
  const players = game.state.players || [];
  const player = players[seat];
  if (!player) return "";
  const nobility = players.map((/** @type {Json} */ p) => p.nobility || 0);
  const permits = players.map((/** @type {Json} */ p) => (p.permitsFaceUp || []).length + (p.permitsFaceDown || []).length);
  const best = (/** @type {number[]} */ values) => Math.max(...values);
  const second = (/** @type {number[]} */ values) => Math.max(-1, ...values.filter((v) => v < best(values)));
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

/**
 * The viewing seat's own area, kept in sight beside the actions (on a phone, at the foot of
 * the window): its hand (a count per colour, the jokers last), its coins and assistants.
 */
function ownArea() {
  const player = (game.state.players || [])[game.state.viewer || 0];
  if (!player) return;
  const hand = player.hand || {};
  const box = $("own-area");
  const cards = newElement("ul", "hand");
  cards.setAttribute("aria-label", "Your politics cards");
  for (const kind of [...FACTS.colours, "joker"]) {
    if (!hand[kind]) continue;
    const card = newElement("li", "hand-card");
    const swatch = newElement("span", `swatch swatch-${kind}`);
    // (A joker matches every colour: all of them.)
    const fill = kind === "joker"
      ? `linear-gradient(90deg, ${FACTS.colours.map((colour) => FACTS.cardFills[colour]).join(", ")})`
      : FACTS.cardFills[kind];
    if (fill) swatch.style.background = fill;
    swatch.setAttribute("aria-hidden", "true");
    card.append(swatch, `${kind} ×${hand[kind]}`);
    cards.append(card);
  }
  if (!cards.children.length) cards.append(newElement("li", "hand-card", "no card"));
  const total = Object.values(hand).reduce((sum, n) => sum + Number(n || 0), 0);
  box.append(newElement("h2", "", `Your hand (${total})`), cards,
    newElement("p", "means", `${plural(player.coins || 0, "coin")} · ${plural(player.assistants || 0, "assistant")}`));
  box.hidden = false;
}

/** @type {import("./index.js").GameView} */
export const view = {
  // What a pending decision chooses (ListLegalActions' `decision`), said above the options;
  // a turn needs no heading.
  decisions: {
    turn: "",
    pay_permit: "Pay the council for the permit tile: choose the politics cards",
    pay_king: "Pay the king's council to build: choose the politics cards",
    city_token: "Choose a city whose token bonus you gain",
    first_of_two_city_tokens: "Choose the first of two city token bonuses",
    second_of_two_city_tokens: "Choose the second of two city token bonuses",
    free_permit: "Choose a face-up permit tile to take for free",
    permit_bonus: "Choose a permit tile whose bonus you gain again",
  },
  // The status line's words for a decision: a few words, never its internal name.
  decisionWords: {
    turn: "your turn", pay_permit: "pay for the permit tile", pay_king: "pay the king's council",
    city_token: "choose a city token bonus", first_of_two_city_tokens: "choose two city token bonuses",
    second_of_two_city_tokens: "choose the second city token bonus", free_permit: "take a free permit tile",
    permit_bonus: "choose a permit tile's bonus again",
  },
  points: { unit: "VP", factor: 1, win: true },
  readInfo,
  // The seat to move: the message's own `turn`.
  toMove: (state) => (state.turn || {}).current || 0,
  words: (text) => text
    .replace(/\b(VP|coins|assistants|politics|nobility|main_action) \+(\d+)/g,
      (_, key, n) => `+${n} ${BONUS_WORDS[key][n === "1" ? 0 : 1]}`)
    .replace(/\b(pay_permit|pay_king|city_token|free_permit|permit_bonus|main_action)\b/g, (name) => name.replace(/_/g, " ")),
  optionGroup: paymentGroup,
  sortOptions: (actions) => (actions.length && actions.every((action) => paymentGroup(action)) ? byCost(actions) : actions),
  hinted: (action) => touched(action).map((id) => $("board").querySelector(`[id="${id}"]`)).filter(Boolean),
  touched,
  scoreText: (score) => `${score} VP`,
  scoreParts: (seat) => scoredParts(seat) || viewParts(seat),
  setUp: board.setUp,
  drawn: () => {
    board.drawn();
    ownArea();
  },
  // A phone shows the board one part at a time: the three regions, the king's board, the
  // seats' panels (the player's own among them).
  boardParts: [
    { id: "region-coast", label: "Coast" },
    { id: "region-hills", label: "Hills" },
    { id: "region-mountains", label: "Mountains" },
    { id: "king-board", label: "King's board" },
    { id: "panels", label: "Seats" },
  ],
  leave: board.leave,
  turn: (actions) => board.turn(actions),
  clear: board.clear,
  moved: board.moved,
};
