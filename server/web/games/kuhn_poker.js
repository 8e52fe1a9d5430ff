// Kuhn poker's part of the page (its view: games/index.js registers it): its table drawn as
// HTML from the viewing seat's view, and its match of hands.
import { $, game, newElement, partOf, plural, seatLabel, signedPlural } from "../page.js";

// Each hand is a sealed game of its own; the match is the page's: the hands finished before
// this one and each seat's chips over them (kept with the game, so across reloads). "Next
// hand" adds the hand just ended and deals the next; New game starts a new match.
const newMatch = () => ({ hands: 0, chips: [] });

// Each seat's chips over the match so far, this hand's included once it is over.
function matchChips() {
  const match = game.match || newMatch();
  return game.seats.map((_, p) => (match.chips[p] || 0) + (game.over ? game.scores[p] || 0 : 0));
}

const signedChips = (n) => signedPlural(n, "chip");

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

/** @type {import("./index.js").GameView} */
export const view = {
  // Its decisions (ListLegalActions' `decision`), said above the options.
  decisions: {
    bet: "Pass, or bet 1 chip",
    call: "Facing a bet: fold, or call it with 1 chip",
  },
  decisionWords: { bet: "pass or bet", call: "fold or call" },
  // Its points are its chips rescaled to 0..1 (a loss of one chip reads 25%): a hint in chips alone.
  points: { unit: "chips", factor: 0.5, win: false },
  draw: drawKuhnPoker,
  scoreText: signedChips,
  // "Next hand": the hand just ended counted in the match (a new sealed game is then dealt).
  nextHand: () => {
    game.match = { hands: (game.match || newMatch()).hands + 1, chips: matchChips() };
  },
};
