// Runs the page's script (server/web/app.js) in Node against a running service, with a
// minimal stand-in for the browser's DOM: no browser here (the headless Chromium tests are
// a later increment), but app.js's own code makes the calls and updates the page.
// Usage: node web_page.mjs http://127.0.0.1:PORT   Prints one JSON line of what it saw.
import { readFileSync } from "node:fs";
import vm from "node:vm";

const base = process.argv[2];

class Element {
  constructor(tag, id) {
    Object.assign(this, { tag, id, children: [], listeners: {}, dataset: {}, style: {} });
    Object.assign(this, { hidden: false, disabled: false, value: "", className: "", title: "" });
    this._text = "";
    this.innerHTML = "";
  }
  get textContent() { return this._text + this.children.map((c) => c.textContent).join(""); }
  set textContent(text) { this._text = String(text); this.children = []; }
  append(...nodes) { this.children.push(...nodes); }
  replaceChildren(...nodes) { this.children = nodes; this._text = ""; }
  addEventListener(kind, listener) { (this.listeners[kind] ??= []).push(listener); }
  dispatch(kind, event = {}) {
    for (const l of this.listeners[kind] ?? []) l({ preventDefault() {}, ...event });
  }
  click() { this.dispatch("click"); }
  focus() {}
  scrollIntoView() {}
  setAttribute(name, value) { this[name] = value; }
  all(tag) {
    return this.children.flatMap((c) => [...(c.tag === tag ? [c] : []), ...c.all(tag)]);
  }
  querySelectorAll(tag) { return this.all(tag); }
  querySelector(tag) { return this.all(tag)[0] ?? null; }
  insertRow() { const row = new Element("tr"); this.append(row); return row; }
  insertCell() { const cell = new Element("td"); this.append(cell); return cell; }
}

const ids = [
  "new-game", "seat-count", "seat-choices", "new-game-button", "board", "status", "actions",
  "hint-button", "hint", "scores", "score-list", "log", "error",
];
const elements = Object.fromEntries(ids.map((id) => [id, new Element("div", id)]));
elements["seat-count"].value = "2";
elements.scores.hidden = true;
const document = {
  getElementById: (id) => elements[id],
  createElement: (tag) => new Element(tag),
  addEventListener: (kind, listener) => kind === "DOMContentLoaded" && setTimeout(listener, 0),
};
const calls = {};
const context = {
  document,
  console,
  setTimeout,
  Promise,
  URLSearchParams,
  location: { search: "?bot_delay_ms=0" },
  fetch: (path, init) => {
    const method = path.split("/").pop();
    calls[method] = (calls[method] ?? 0) + 1;
    return fetch(base + path, init);
  },
};
vm.createContext(context);
vm.runInContext(readFileSync(new URL("../../server/web/app.js", import.meta.url), "utf8"), context);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition, what, seconds = 30) {
  for (let i = 0; i < seconds * 100; i++) {
    if (condition()) return;
    await sleep(10);
  }
  throw new Error(`timed out waiting for ${what}; error: ${elements.error.textContent}`);
}

const seen = { cities: 0, moves: 0, hintRows: 0 };
const buttons = () => elements.actions.all("button");
await until(() => buttons().length > 0, "the first actions");
seen.cities = (elements.board.innerHTML.match(/class="city"/g) ?? []).length;
seen.seatChoices = elements["seat-choices"].all("select").length;
seen.firstAction = buttons()[0].textContent;
elements["hint-button"].click();
await until(() => elements.hint.all("tr").length > 0, "the hint");
seen.hintRows = elements.hint.all("tr").length;
seen.hintFirst = elements.hint.all("td").map((c) => c.textContent).slice(0, 4);
// A click on the coast balcony lists the actions about it; "Show all actions" lists all.
const allCount = buttons().length;
const click = (id, data = {}) => elements.board.dispatch("click", {
  target: { closest: () => ({ id, dataset: data, getAttribute: () => null }) },
});
click("balcony-coast");
const picked = buttons().map((b) => b.textContent);
seen.balconyPicked = picked.length - 1;
seen.balconyAllCoast = picked.slice(0, -1).every((text) => text.includes("coast"));
seen.balconyStatus = elements.status.textContent;
buttons().at(-1).click();
seen.showAllRestores = buttons().length === allCount;
// A face-up tile: buying it or changing its region's tiles (one legal action: played).
click("tile-mountains-1");
if (buttons().length === 0) {
  seen.tilePlayed = true;
  seen.moves++; // a move of seat 0, played by the click
} else {
  seen.tilePicked = buttons().map((b) => b.textContent).slice(0, -1);
  buttons().at(-1).click();
}
// Play seat 0 by clicking the first listed action until the final scoring.
while (elements.scores.hidden) {
  await until(() => buttons().length > 0 || !elements.scores.hidden, "actions or the end", 60);
  if (!elements.scores.hidden) break;
  if (elements.error.hidden === false) throw new Error(elements.error.textContent);
  const list = buttons();
  list[seen.moves % list.length].click();
  seen.moves++;
  await until(() => buttons().length === 0 || !elements.scores.hidden, "the click to be taken");
  if (seen.moves > 2000) throw new Error("the game did not end");
}
seen.status = elements.status.textContent;
seen.scores = elements["score-list"].children.map((c) => c.textContent);
seen.logLines = elements.log.children.length;
seen.finalCities = (elements.board.innerHTML.match(/class="city"/g) ?? []).length;
seen.calls = calls;
seen.error = elements.error.hidden ? null : elements.error.textContent;
console.log(JSON.stringify(seen));
