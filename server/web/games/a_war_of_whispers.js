// A War of Whispers' part of the page (its view: games/index.js registers it): its board is
// RenderPosition's SVG (the shell's svg_board.js: the map with banners by empire, the
// councils with their agents, the seat's loyalty tokens and hand), its hint in points.

/** @type {import("./index.js").GameView} */
export const view = {
  // Its decisions (ListLegalActions' `decision`, the core's decision_name), said above the options.
  decisions: {
    retrieve: "Take back one of your agents",
    deploy: "Place an agent on a council seat",
    choose: "Choose the seat's action, or play a card first",
    after: "Play a card after the action, or be done",
    pay: "Discard cards to pay for the ability",
    add: "Add a banner to a region",
    remove: "Remove banners from an enemy region",
    from: "The region the banners leave",
    to: "The region they enter",
    count: "How many banners go",
    seat: "The seat of the council",
    cleanup: "Discard down to five cards",
    swap: "Swap two loyalty tokens (both are revealed), or keep them",
  },
  decisionWords: {
    retrieve: "take back an agent",
    deploy: "place an agent",
    choose: "choose an action",
    after: "play a card or be done",
    pay: "pay for an ability",
    add: "add a banner",
    remove: "remove banners",
    from: "choose where from",
    to: "choose where to",
    count: "choose how many",
    seat: "choose a seat",
    cleanup: "discard",
    swap: "swap loyalty tokens or keep them",
  },
  // Its points: loyalty times cities; the search's reward is a chance to win.
  points: { unit: "points", factor: 1, win: true },
};
