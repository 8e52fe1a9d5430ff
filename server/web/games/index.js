// The one place the page's games are registered: each game's view module by GetEngineInfo's
// name, and its stylesheet. A new game's page part is a file here (its drawing, its targets,
// its words) and a line below; the shell (app.js, page.js, access.js, svg_board.js,
// review.js) names no game (tests/server/test_web.py checks it).
import { view as aWarOfWhispers } from "./a_war_of_whispers.js";
import { view as councilOfFour } from "./council_of_four.js";
import { view as kuhnPoker } from "./kuhn_poker.js";
import { view as leducPoker } from "./leduc_poker.js";
import { view as theCouncil } from "./the_council.js";

/** @typedef {import("../page.js").Json} Json */

/**
 * A game's part of the page. Every hook is optional but `decisions` and `points`; what a
 * view leaves out, the shell does the same for every game (a board drawn by RenderPosition,
 * the seat to move as its part of the state's `current`, no grouping of options...).
 * @typedef {object} GameView
 * @property {Record<string, string>} decisions a pending decision's heading above the options
 *   (ListLegalActions' `decision`); "" for none
 * @property {Record<string, string>} [decisionWords] the status line's words for a decision
 * @property {{unit: string, factor: number, win: boolean}} points a hint's points: the unit,
 *   the factor on a candidate's vpMargin, whether its win probability is a chance to win
 *   (as council.mcts.review.POINTS_UNITS)
 * @property {(info: Json) => void} [readInfo] reads the game's facts from its GameInfo
 * @property {() => void | Promise<void>} [draw] draws the board as HTML into #board; absent:
 *   RenderPosition's SVG, zoomed in its viewport (svg_board.js)
 * @property {(state: Json) => number} [toMove] the seat to move in a view
 * @property {(text: string) => string} [words] an action's description in the rules' words
 * @property {(action: Json) => string} [optionGroup] the group of an option ("" for none)
 * @property {(actions: Json[]) => Json[]} [sortOptions] the options in the order listed
 * @property {(action: Json) => Element[]} [hinted] the board's elements an action is about
 * @property {(action: Json) => string[]} [touched] the ids of the SVG's pieces an action is
 *   about (the review marks them on its board, whose ids are prefixed "rv-")
 * @property {(score: number) => string} [scoreText] a final score ("12 VP"; else "12 points")
 * @property {(seat: number) => string} [scoreParts] what a seat's final score is made of
 * @property {() => void} [setUp] once, as the page starts
 * @property {() => void} [drawn] after each drawing of its board (it may fill #own-area: the
 *   seat's own hand and means, kept in sight)
 * @property {{id: string, label: string}[]} [boardParts] the parts of its SVG board (a group's
 *   id, or "panels": the seats' panels) that a phone shows one at a time
 * @property {() => void} [leave] another game's board is drawn in place of its own
 * @property {(actions: Json[], decision: string) => void} [turn] the human seat's legal
 *   actions on its board (game.turn.play plays one)
 * @property {() => void} [clear] no human seat to move any more: no targets
 * @property {(seat: number, action: Json) => void} [moved] after a move, on its board
 * @property {{period: (state: Json) => string, facts: (before: Json, seat: number) => Json,
 *   told: (secret: Json, after: Json) => string | null}} [secrets] its secret moves: `period`
 *   changes when they are told, `facts` what is kept of one, `told` what it was
 * @property {() => void} [nextHand] its match's next hand: the hand just ended counted
 */

/** @type {Record<string, GameView>} */
export const views = {
  "council-of-four": councilOfFour,
  "the-council": theCouncil,
  "kuhn-poker": kuhnPoker,
  "leduc-poker": leducPoker,
  "a-war-of-whispers": aWarOfWhispers,
};

// GAME_UNSPECIFIED's game: the one played before GetEngineInfo's list loads, and a record's
// with no game named.
export const DEFAULT_GAME = "council-of-four";

// Each game's own stylesheet (games/<file>.css), linked once.
for (const sheet of ["council_of_four.css", "the_council.css", "kuhn_poker.css"]) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL(sheet, import.meta.url).pathname;
  document.head.append(link);
}

/**
 * A game's view (a game the page has no view of: the shell's defaults alone).
 * @param {string} name
 * @returns {GameView}
 */
export function viewOf(name) {
  return views[name] || { decisions: {}, points: { unit: "points", factor: 1, win: true } };
}
