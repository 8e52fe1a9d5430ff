// Runs the page's ES modules (server/web/app.js and what it imports) in Node against a
// running service, with a minimal stand-in for the browser's DOM: no browser here (the
// headless Chromium tests are tests/server/test_browser*.py), but the page's own code makes
// the calls and updates the page. Usage (vm.SourceTextModule needs the flag):
//   node --experimental-vm-modules web_page.mjs http://127.0.0.1:PORT
// Prints one JSON line of what it saw.
import { readFileSync } from "node:fs";
import vm from "node:vm";

const base = process.argv[2];

class Element {
  constructor(tag, id) {
    Object.assign(this, { tag, id, children: [], listeners: {}, dataset: {}, style: {} });
    Object.assign(this, { hidden: false, disabled: false, value: "", className: "", title: "" });
    this._text = "";
    this.innerHTML = "";
    const classes = new Set();
    this.classList = {
      add: (name) => classes.add(name),
      remove: (name) => classes.delete(name),
      contains: (name) => classes.has(name),
      toggle: (name, on = !classes.has(name)) => (on ? classes.add(name) : classes.delete(name), on),
    };
  }
  // The board's SVG is a string here; its pieces (by id) are stand-ins made on demand.
  get innerHTML() { return this._html; }
  set innerHTML(html) { this._html = html; this.parts = {}; }
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
  querySelectorAll(tag) {
    if (tag.startsWith(".")) {
      const parts = Object.values(this.parts);
      return parts.filter((p) => p.classList.contains(tag.slice(1)));
    }
    return this.all(tag);
  }
  querySelector(tag) {
    const id = /^\[id="(.+)"\]$/.exec(tag);
    if (id) return this._html.includes(`id="${id[1]}"`) ? (this.parts[id[1]] ??= new Element("g", id[1])) : null;
    return this.all(tag)[0] ?? null;
  }
  insertRow() { const row = new Element("tr"); this.append(row); return row; }
  insertCell() { const cell = new Element("td"); this.append(cell); return cell; }
}

// Every element of the page by its id, read from index.html (a new one needs no edit here).
const page = readFileSync(new URL("../../server/web/index.html", import.meta.url), "utf8");
const ids = [...page.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
const elements = Object.fromEntries(ids.map((id) => [id, new Element("div", id)]));
elements["seat-count"].value = "2";
elements.scores.hidden = true;
const document = {
  head: new Element("head"), // (games/index.js links each game's stylesheet)
  getElementById: (id) => elements[id],
  createElement: (tag) => new Element(tag),
  addEventListener: (kind, listener) => kind === "DOMContentLoaded" && setTimeout(listener, 0),
};
const calls = {};
let streamsFail = false; // a fetch that cannot stream: the hint falls back to RecommendAction
const context = {
  document,
  console,
  setTimeout,
  Promise,
  URLSearchParams,
  URL,
  AbortController,
  TextEncoder,
  TextDecoder,
  location: { search: "?bot_delay_ms=0&seed=11" },
  // No layout, no storage here: the page's zoom and its kept game (tested in Chromium,
  // tests/server/test_browser_page.py) see an empty store and a window that never resizes.
  window: { addEventListener() {}, matchMedia: () => ({ matches: false, addEventListener() {} }) },
  localStorage: { getItem: () => null, setItem() {}, removeItem() {} },
  clearTimeout,
  setInterval,
  clearInterval,
  fetch: (path, init) => {
    const method = path.split("/").pop();
    calls[method] = (calls[method] ?? 0) + 1;
    if (streamsFail && init.headers["Content-Type"] === "application/connect+json") {
      return Promise.reject(new TypeError("streaming is not supported here"));
    }
    return fetch(base + path, init);
  },
};
// The page's focus and live region (access.js) and Council of Four's board
// (games/council_of_four_board.js: it plays on the board's SVG, which this stand-in DOM cannot
// lay out) stand aside: their hooks do nothing here; tests/server/test_browser*.py test them
// in Chromium.
const STUBS = {
  "access.js": `export const shownHint = { best: null };
    export const hasFocus = () => false;
    export const keepFocusWhile = () => () => {};
    export function holdFocus() {} export function moveFocus() {} export function announce() {}
    export function moved() {} export function showEffects() {} export function hintShown() {}
    export function setUp() {}`,
  "games/council_of_four_board.js": `export function drawn() {} export function turn() {}
    export function clear() {} export function moved() {} export function leave() {}
    export function setUp() {}`,
};
vm.createContext(context);
const WEB = new URL("../../server/web/", import.meta.url);
const modules = new Map();
// A module of the page by its address (each once, as the browser's module map keeps them).
function load(url) {
  if (!modules.has(url.href)) {
    const source = STUBS[url.href.slice(WEB.href.length)] ?? readFileSync(url, "utf8");
    modules.set(url.href, new vm.SourceTextModule(source, {
      context, identifier: url.href, initializeImportMeta: (meta) => { meta.url = url.href; },
    }));
  }
  return modules.get(url.href);
}
const entry = load(new URL("app.js", WEB));
await entry.link((specifier, referencing) => load(new URL(specifier, referencing.identifier)));
await entry.evaluate();

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
const opening = { svg: elements.board.innerHTML, log: elements.log.children.length };
// The hint streams (AnalyzePosition): each report redraws the candidates, the last is final.
const hintShown = elements.hint.replaceChildren.bind(elements.hint);
seen.hintReports = [];
elements.hint.replaceChildren = (...nodes) => {
  const state = nodes.find((n) => n.className === "hint-state");
  if (state) seen.hintReports.push([nodes[0].all("tbody")[0].all("tr").length, state.textContent]);
  hintShown(...nodes);
};
elements["hint-button"].click();
await until(() => elements.hint.dataset.final === "true", "the hint's final report");
await until(() => !elements["hint-button"].disabled, "the hint's end");
seen.hintReports = [...seen.hintReports];
elements.hint.replaceChildren = hintShown;
seen.hintRows = elements.hint.all("tbody")[0].all("tr").length;
seen.hintHeadings = elements.hint.all("th").map((c) => c.textContent);
seen.hintFirst = elements.hint.all("td").map((c) => c.textContent).slice(0, 4);
seen.hintSource = elements.hint.dataset.source;
seen.hintLine = elements.hint.all("p").map((p) => p.textContent);
seen.hintHighlighted = elements.board.querySelectorAll(".hinted").map((p) => p.id);
seen.hintBest = elements.hint.all("td")[0].textContent;
const allCount = buttons().length;
// A payment decision: acquiring a permit tile asks which cards pay its council.
const paying = buttons().find((b) => /^(acquire|king) /.test(b.textContent));
seen.payFrom = paying?.textContent ?? null;
if (paying) {
  paying.click();
  seen.moves++; // (every click of seat 0 is counted: the bot's moves are the others)
  await until(() => buttons().length > 0, "the payment's options");
  seen.payHeading = elements.decision.hidden ? null : elements.decision.textContent;
  seen.payGroups = elements.actions.children.map((li) => li.dataset.group).filter(Boolean);
  seen.payOptions = buttons().map((b) => b.textContent);
  buttons()[0].click(); // pays; then end the turn so that the bot moves
  seen.moves++;
  await until(() => buttons().length > 0, "the actions after paying");
  seen.afterPayHeading = elements.decision.hidden ? null : elements.decision.textContent;
  const log = elements.log.children.length;
  for (let i = 0; i < 20 && elements.log.children.length === log + i; i++) {
    const end = buttons().find((b) => b.textContent === "end") ?? buttons()[0];
    end.click();
    seen.moves++;
    await until(() => buttons().length > 0 || !elements.scores.hidden, "the next actions");
  }
  seen.botMoved = elements.log.children.map((c) => c.textContent).some((t) => t.includes("bot"));
  // Undo, move by move, back to the opening: the same board as before the first move.
  seen.undos = 0;
  seen.undoneLines = elements.log.children.length - opening.log;
  while (!elements["undo-button"].disabled) {
    elements["undo-button"].click();
    seen.undos++;
    await until(() => buttons().length > 0, "the actions after undo");
  }
  seen.undoSameBoard = elements.board.innerHTML === opening.svg;
  seen.undoSameLog = elements.log.children.length === opening.log;
  seen.undoAllActions = buttons().length === allCount;
}
// Play seat 0 by clicking the first listed action until the final scoring.
while (elements.scores.hidden) {
  await until(() => buttons().length > 0 || !elements.scores.hidden, "actions or the end", 60);
  if (!elements.scores.hidden) break;
  if (elements.error.hidden === false) throw new Error(elements.error.textContent);
  if (seen.fallbackHint === undefined && elements.decision.hidden) {
    streamsFail = true;
    elements["hint-button"].click();
    await until(() => elements.hint.dataset.final === "true", "the fallback hint");
    await until(() => !elements["hint-button"].disabled, "the fallback hint's end");
    streamsFail = false;
    seen.fallbackHint = [elements.hint.dataset.source, elements.hint.all("tbody")[0].all("tr").length];
  }
  const list = buttons();
  list[seen.moves % list.length].click();
  seen.moves++;
  await until(() => buttons().length === 0 || !elements.scores.hidden, "the click to be taken");
  if (seen.moves > 2000) throw new Error("the game did not end");
}
seen.status = elements["game-status"].textContent;
seen.scores = elements["score-list"].children.map((c) => c.textContent);
seen.logLines = elements.log.children.length;
seen.finalCities = (elements.board.innerHTML.match(/class="city"/g) ?? []).length;
seen.calls = calls;
// The page's game is sealed: a blob and tickets, the board seat 0's view, no full state.
const { game } = load(new URL("page.js", WEB)).namespace; // (an export of page.js, not a global)
seen.sealed = typeof game.blob === "string" && game.tickets.length === 2 && !("rng" in game.state);
seen.viewers = [game.state.viewer || 0];
seen.takebacks = elements.takebacks.textContent;
seen.error = elements.error.hidden ? null : elements.error.textContent;
console.log(JSON.stringify(seen));
