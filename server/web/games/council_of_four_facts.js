// Council of Four's facts as its actions and its board's SVG name them (docs/render.md's
// ids), the pieces an action is about, and what a payment or the king's journey costs (from
// the descriptions). Shared by its view (council_of_four.js) and its board
// (council_of_four_board.js).

/** @typedef {import("../page.js").Json} Json */

/**
 * The names its actions' numbers stand for (the regions, balconies, cities and colours, by
 * number), the SVG's names of its pieces too, and the colours the SVG draws the cards in:
 * the server's (GetEngineInfo's GameInfo `councilOfFour`, read as the page starts), not a
 * copy here.
 */
export const FACTS = {
  /** @type {string[]} */ regions: [],
  /** @type {string[]} */ balconies: [],
  /** @type {string[]} */ cities: [],
  /** @type {string[]} */ colours: [],
  /** @type {Record<string, string>} */ cardFills: {},
};

/**
 * Reads the facts from the game's GameInfo.
 * @param {Json} info
 */
export function readInfo(info) {
  const facts = info.councilOfFour || {};
  FACTS.regions = facts.regions || [];
  FACTS.balconies = facts.balconies || [];
  FACTS.cities = facts.cities || [];
  FACTS.colours = facts.colours || [];
  FACTS.cardFills = facts.cardFills || {};
}

/**
 * The board's pieces an action is about (their SVG ids), marked for a hint, the last move
 * and the review.
 * @param {Json} action
 * @returns {string[]}
 */
export function touched(action) {
  const ids = [];
  if (action.city !== undefined) ids.push(`city-${FACTS.cities[action.city]}`);
  if (action.balcony !== undefined) ids.push(`balcony-${FACTS.balconies[action.balcony]}`);
  if (action.kind === "ACTION_KIND_BUILD_KING") ids.push("balcony-king");
  if (action.region !== undefined) {
    const region = FACTS.regions[action.region];
    if (action.slot !== undefined) ids.push(`tile-${region}-${action.slot}`);
    else ids.push(`tile-${region}-0`, `tile-${region}-1`); // changing the face-up tiles
    if (action.kind === "ACTION_KIND_ACQUIRE") ids.push(`balcony-${region}`); // paid
  }
  return ids;
}

/**
 * A payment's number of cards and coins, from its description ("pay white+joker: 2 card(s),
 * 8 coin(s)"); null for any other action.
 * @param {Json} action
 * @returns {[number, number] | null}
 */
export function paymentCost(action) {
  const cost = /(\d+) card\(s\), (\d+) coin\(s\)/.exec(action.description || "");
  return cost ? [Number(cost[1]), Number(cost[2])] : null;
}

/**
 * The group of a payment, shown once before the first of the group: "2 cards, 8 coins".
 * @param {Json} action
 */
export function paymentGroup(action) {
  const cost = paymentCost(action);
  if (!cost) return "";
  const [cards, coins] = cost;
  return `${cards} card${cards === 1 ? "" : "s"}, ${coins} coin${coins === 1 ? "" : "s"}`;
}

/**
 * Payments, fewest cards first, then cheapest (ids order them by cards, not by coins).
 * @param {Json[]} actions
 */
export function byCost(actions) {
  const cost = (/** @type {Json} */ action) => paymentCost(action) || [0, 0];
  return [...actions].sort((a, b) => cost(a)[0] - cost(b)[0] || cost(a)[1] - cost(b)[1]);
}

/**
 * The king's journey in a BUILD_KING description: "(1 road(s), 2 coins)", "costs 1 assistant(s)".
 * @param {Json} action
 */
export function kingCost(action) {
  const road = /\((\d+) road\(s\), (\d+) coins\)/.exec(action.description || "");
  const helpers = /costs (\d+) assistant/.exec(action.description || "");
  if (!road) return null;
  return { roads: Number(road[1]), coins: Number(road[2]), assistants: helpers ? Number(helpers[1]) : 0 };
}
