// Leduc poker's part of the page (its view: games/index.js registers it): its board is
// RenderPosition's SVG (the shell's svg_board.js), its hint and its scores in chips.
import { signedPlural } from "../page.js";

/** @type {import("./index.js").GameView} */
export const view = {
  // Its decisions (ListLegalActions' `decision`, the core's decision_name), said above the options.
  decisions: {
    bet: "Check, or raise",
    call: "Facing a raise: fold, call or raise again",
  },
  decisionWords: { bet: "check or raise", call: "fold, call or raise" },
  // Its points are its chips rescaled to 0..1, as Kuhn poker's: a hint in chips alone.
  points: { unit: "chips", factor: 0.5, win: false },
  scoreText: (score) => signedPlural(score, "chip"),
};
