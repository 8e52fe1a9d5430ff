// The Council's part of the page (its view: games/index.js registers it): its board drawn as
// HTML from the viewing seat's view (the phase, the event, a table of the empire's and every
// seat's ranks, chips and bids by suit, the cards each seat drafted, the pack the viewer holds
// in the draft, and the cards spent this hand), its moves played on that table, its reveal
// picker, and its secret moves told in the log once their period is over. Its cards and
// suits are GetEngineInfo's (readInfo): no copy of the engine's table is in the page.
import { $, game, newElement, plural, seatLabel } from "../page.js";

/** @typedef {import("../page.js").Json} Json */

// The game's facts, from its GameInfo (no game of it is set up before): its suits in the
// core's order, the draft rounds and events of a hand, and each card's rank, value (what it
// asks of a bid as the event) and suits, by name as the position names it.
const FACTS = {
  /** @type {string[]} */
  suits: [],
  draftRounds: 0,
  eventsPerHand: 0,
  /** @type {Record<string, {rank: string, value: number, suits: string[]}>} */
  cards: {},
};

/** @param {Json} info */
function readInfo(info) {
  FACTS.suits = info.suits || [];
  FACTS.draftRounds = info.draftRounds || 0;
  FACTS.eventsPerHand = info.eventsPerHand || 0;
  FACTS.cards = {};
  for (const card of info.cards || []) { // (zero values are absent from Connect JSON)
    FACTS.cards[card.name] = { rank: card.rank, value: card.value || 0, suits: card.suits || [] };
  }
}

// The secret moves (TC15): a pick is hidden until the round's picks are revealed together, a
// choice of cards to reveal until the event's reveal. The server plays a bot's move and
// answers a secret one as the other seats see it (`secret`, a text such as "picks a card" and
// no card), which is logged; once the period is over the line tells what the view then
// shows: the card the seat drafted, or the drafted cards it no longer has (revealed). The
// cards revealed in a hand's last event go back to the deck with the hand: those lines keep
// their public text. (A human's own moves are shown: the players here saw them made.)

/** @param {Json} state */
const draftedOf = (state, seat) => ((state.theCouncil.seats || [])[seat] || {}).drafted || [];

const secrets = {
  // Changes exactly when a draft round or an event ends (or the game does).
  period: (/** @type {Json} */ state) => {
    const c = state.theCouncil;
    return c ? [c.hand, c.draftRound, c.eventsDone, c.phase === "over"].join("/") : "";
  },
  // What the page keeps of a secret move, from the view before it.
  facts: (/** @type {Json} */ before, /** @type {number} */ seat) =>
    ({ hand: before.theCouncil.hand || 0, drafted: draftedOf(before, seat) }),
  // What a secret move was, from the views before it and after its period: null if untold.
  told: (/** @type {Json} */ secret, /** @type {Json} */ after) => {
    if ((after.theCouncil.hand || 0) !== secret.hand) return null;
    const now = draftedOf(after, secret.seat);
    if (secret.kind === "ACTION_KIND_PICK") {
      const gained = now.filter((/** @type {string} */ card) => !secret.drafted.includes(card));
      return gained.length === 1 ? `picks ${gained[0]}` : null;
    }
    const revealed = secret.drafted.filter((/** @type {string} */ card) => !now.includes(card));
    return revealed.length ? `reveals ${revealed.join(", ")}` : "reveals no card";
  },
};

// The view of the viewing seat, drawn: the phase, the event, a table of the empire's and
// every seat's ranks, chips and bids by suit, the cards each seat drafted, the pack the
// viewer holds in the draft, and the cards spent this hand.
function drawTheCouncil() {
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
  const turn = /** @type {import("../page.js").Turn} */ (game.turn);
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
    if (action) turn.play(action.id || 0);
  });
  update();
  box.append(list, confirm, note);
}

// The Council played on its table: the cards of the pack picked, a chip bid in a suit of
// the seat's row, the bid ended on the event, the drafted cards to reveal toggled (the
// reveal picker's toggles, pressed through) and revealed: each a button (the keyboard's
// too), class tc-target. (The list of actions stays, the same moves.)
function tableTargets(actions) {
  const { seat, play: playId } = /** @type {import("../page.js").Turn} */ (game.turn);
  const board = $("board");
  const play = (action) => () => playId(action.id || 0);
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
      row.cells[1 + FACTS.suits.indexOf(action.suit)].append(button);
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

const THE_COUNCIL_ACTS = { draft: "picks", bid: "bids", reveal: "chooses the cards to reveal" };

function phaseLine(council) {
  const hand = `Hand ${council.hand || 1}`;
  if (council.phase === "over") return `${hand}: the game is over, the empire has fallen`;
  const who = `${seatLabel(council.current || 0)} ${THE_COUNCIL_ACTS[council.phase]}`;
  if (council.phase === "draft") {
    return `${hand}, draft round ${(council.draftRound || 0) + 1} of ${FACTS.draftRounds}: ${who}`;
  }
  return `${hand}, event ${(council.eventsDone || 0) + 1} of ${FACTS.eventsPerHand}: ${who}`;
}

// A card: its name, rank and suits (each suit a badge with its name), found by data-card.
function cardElement(name, tag = "li") {
  const facts = FACTS.cards[name];
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

// A suit's badge; its colour by the suit's place in FACTS.suits (the_council.css).
function suitBadge(suit) {
  return newElement("span", `suit suit-${FACTS.suits.indexOf(suit)}`, suit);
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
  const facts = FACTS.cards[event];
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
  for (const suit of FACTS.suits) {
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
  for (const suit of FACTS.suits) {
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
    for (const suit of FACTS.suits) {
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

// What a seat's final score is made of, as far as the final view tells it: the traitor chips
// and the ranks in the suits where the empire fell below a seat.
function scoreParts(seat) {
  const council = game.state.theCouncil;
  const it = (council.seats || [])[seat];
  if (!it) return "";
  const fallen = FACTS.suits.filter((suit) =>
    (council.seats || []).some((other) => suitCount(other.ranks, suit) > suitCount(council.empire, suit)));
  const ranks = fallen.map((suit) => {
    const rank = suitCount(it.ranks, suit);
    return `${suit} ${rank}${rank > suitCount(council.empire, suit) ? " (above the empire: doubled)" : ""}`;
  });
  return [plural(it.traitors || 0, "traitor chip"), ...ranks].join(" · ");
}

/** @type {import("./index.js").GameView} */
export const view = {
  // Its phases (ListLegalActions' `decision`), said above the options.
  decisions: {
    draft: "Pick a card of the pack you hold: the picks are revealed together",
    bid: "Offer chips of the event's suits, one at a time, then end the bid",
    reveal: "Choose in secret the drafted cards to reveal when every seat has bid",
  },
  decisionWords: { draft: "pick a card", bid: "bid", reveal: "choose the cards to reveal" },
  points: { unit: "points", factor: 1, win: true },
  readInfo,
  draw: drawTheCouncil,
  secrets,
  // The reveal's picker, then every move on the table.
  turn: (actions, decision) => {
    showRevealPicker(decision === "reveal" ? actions : null);
    tableTargets(actions);
  },
  // A card an action is about (`card`, `reveal`), by its data-card (a card may be shown twice).
  hinted: (action) => {
    const cards = [action.card, ...(action.reveal || [])].filter(Boolean);
    return cards.flatMap((card) => [...$("board").querySelectorAll(`[data-card="${card}"]`)]);
  },
  scoreParts,
};
