// The page's shared core (every other module imports it, it imports none): the calls to
// council.v1.CouncilService over the Connect protocol with JSON (POST
// /council.v1.CouncilService/<Method>), the game on screen (`game`), the settings kept in
// localStorage, and the few helpers every view uses (the elements by id, the seats' names,
// the status line, the error line). It names no game: each game's part of the page is its
// view module in games/ (games/index.js registers them).

const SERVICE = "/council.v1.CouncilService/";

/** @typedef {Record<string, any>} Json A message in Connect JSON (zero values absent). */

/**
 * A call's error, with the Connect error's code.
 * @typedef {Error & {code?: string}} CallError
 */

// The pause before a bot's move, so that a person sees it: the Bot speed setting's, unless
// the address says ?bot_delay_ms=N (the tests' 0: none).
export const BOT_SPEEDS = /** @type {Record<string, number>} */ ({ instant: 0, normal: 500, slow: 1500 });
const BOT_DELAY_PARAM = new URLSearchParams(location.search).get("bot_delay_ms");
// What the page keeps in localStorage: the settings, and the game in progress (its sealed
// blob, which only the server opens, the tickets, the log), so that a reload resumes it.
export const STORAGE = { settings: "council-ai.settings", game: "council-ai.game" };
export const settings = { botSpeed: "normal", ...readStored(STORAGE.settings) };
export const botDelayMs = () => (BOT_DELAY_PARAM !== null ? Number(BOT_DELAY_PARAM) : BOT_SPEEDS[settings.botSpeed] ?? 500);
// A lost connection is retried after 1 s, then twice as long each time, up to this.
const RETRY_MAX_MS = 30_000;
// ?seed=N: the games' setup seed (a decimal string), for a repeatable opening; absent, the
// server draws a random one.
export const SEED = new URLSearchParams(location.search).get("seed");
export const PRESETS = ["beginner", "casual", "strong"];

/**
 * The page's element of an id (the page's own elements: index.html's, and those the views
 * make; `any`, as each is used as the element it is).
 * @param {string} id
 * @returns {any}
 */
export const $ = (id) => document.getElementById(id);

/**
 * What localStorage keeps under `key`, read back ({} if nothing or not JSON).
 * @param {string} key
 * @returns {Json}
 */
export function readStored(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null") || {};
  } catch {
    return {};
  }
}

export function keepSettings() {
  try {
    localStorage.setItem(STORAGE.settings, JSON.stringify(settings));
  } catch {
    // (the setting still holds for this page)
  }
}

/**
 * The StrengthPreset enum value of a preset's name ("casual").
 * @param {string} name
 */
export function presetValue(name) {
  return "STRENGTH_PRESET_" + name.toUpperCase();
}

// -- the service ------------------------------------------------------------------------------

export const connection = { lost: false };

/**
 * One call of the service; rejects with an Error carrying the Connect error's code/message.
 * A call that gets no answer (the server stopped, the network down) is tried again, after
 * 1 s, 2 s, 4 s... (RETRY_MAX_MS at most), the wait shown, until it is answered: every RPC
 * is free of side effects, so the game goes on where it was once the server is back.
 * @param {string} method
 * @param {Json} request
 * @returns {Promise<Json>}
 */
export async function call(method, request) {
  const answer = await fetchRetrying(SERVICE + method, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1" },
    body: JSON.stringify(request),
  });
  const body = await answer.json().catch(() => ({}));
  if (!answer.ok) {
    const error = /** @type {CallError} */ (new Error(`${method}: ${body.message || answer.statusText} (${body.code || answer.status})`));
    error.code = body.code;
    throw error;
  }
  return body;
}

/**
 * @param {string} url
 * @param {RequestInit} init
 * @returns {Promise<Response>}
 */
async function fetchRetrying(url, init) {
  for (let wait = 1000; ; wait = Math.min(wait * 2, RETRY_MAX_MS)) {
    try {
      const answer = await fetch(url, init);
      // A proxy's answer while the service is down (502-504) is waited out the same way.
      if (![502, 503, 504].includes(answer.status) || answer.headers.get("Content-Type") === "application/json") {
        connectionBack();
        return answer;
      }
    } catch (error) {
      if (error instanceof Error && error.name === "AbortError") throw error;
    }
    await connectionLost(wait);
  }
}

/**
 * "Connection lost — retrying in Ns", counting down.
 * @param {number} wait
 */
async function connectionLost(wait) {
  connection.lost = true;
  const banner = $("connection");
  banner.hidden = false;
  showStatus(); // (the status line says it too, not "your turn")
  for (let left = Math.ceil(wait / 1000); left > 0; left--) {
    banner.textContent = `Connection lost — retrying in ${left} s`;
    await new Promise((resolve) => setTimeout(resolve, Math.min(1000, wait)));
  }
  banner.textContent = "Connection lost — retrying now…";
}

function connectionBack() {
  if (!connection.lost) return;
  connection.lost = false;
  $("connection").hidden = true;
  showStatus();
}

/**
 * A server stream (AnalyzePosition, AnalyzeGame) over Connect's streaming protocol with
 * JSON: the request and each answer in an envelope (1 flag byte, 4-byte big-endian length,
 * the JSON); the last envelope (flag 0x02) is the end of the stream, {"error": ...} when the
 * call failed. Yields each message as it arrives (the body read with a ReadableStream reader).
 * @param {string} method
 * @param {Json} request
 * @param {AbortSignal} [signal]
 * @returns {AsyncGenerator<Json>}
 */
export async function* stream(method, request, signal) {
  const json = new TextEncoder().encode(JSON.stringify(request));
  const body = new Uint8Array(5 + json.length);
  new DataView(body.buffer).setUint32(1, json.length);
  body.set(json, 5);
  const answer = await fetch(SERVICE + method, {
    method: "POST",
    headers: { "Content-Type": "application/connect+json", "Connect-Protocol-Version": "1" },
    body,
    signal,
  });
  if (!answer.ok || !answer.body) throw new Error(`${method}: ${answer.statusText} (${answer.status})`);
  const reader = answer.body.getReader();
  const decoder = new TextDecoder();
  let buffer = new Uint8Array(0);
  for (;;) {
    while (buffer.length >= 5) {
      const size = new DataView(buffer.buffer, buffer.byteOffset, 5).getUint32(1);
      if (buffer.length < 5 + size) break;
      const flags = buffer[0];
      const message = JSON.parse(decoder.decode(buffer.subarray(5, 5 + size)));
      buffer = buffer.slice(5 + size);
      if (flags & 2) {
        if (!message.error) return;
        const error = /** @type {CallError} */ (new Error(`${method}: ${message.error.message || ""} (${message.error.code})`));
        error.code = message.error.code;
        throw error;
      }
      yield message;
    }
    const { done, value } = await reader.read();
    if (done) throw new Error(`${method}: the stream ended without its end message`);
    const joined = new Uint8Array(buffer.length + value.length);
    joined.set(buffer);
    joined.set(value, buffer.length);
    buffer = joined;
  }
}

// -- the games and the game on screen ---------------------------------------------------------

// The games, by GetEngineInfo's names: its `games` gives each one's enum, label
// (displayName) and seat range, once loaded (app.js's loadGames).
export const GAMES = /** @type {Record<string, Json>} */ ({});
export const SERVER = { noRewind: false }; // GetEngineInfo's: this server refuses takebacks

/**
 * A seat of the game: a human ("human"), or a bot ("bot") of a preset.
 * @typedef {{kind: string, preset?: string}} Seat
 */

/**
 * The human seat to move: its legal actions, and `play`, which plays one of them.
 * @typedef {object} Turn
 * @property {number} seat
 * @property {number} generation
 * @property {Json[]} actions
 * @property {string} status
 * @property {(actionId: number) => void} play
 */

/**
 * A secret move of a bot, logged as the other seats saw it (a view's `secrets` tells it
 * once its period is over).
 * @typedef {{item: HTMLElement, seat: number, hidden: string, kind: string} & Json} Secret
 */

export const game = {
  name: "",         // the game being played (GetEngineInfo's name; app.js sets the default)
  /** @type {Seat[]} */
  seats: [{ kind: "human" }, { kind: "bot", preset: "casual" }],
  /** @type {string | null} */
  blob: null,       // the sealed full state (base64, as the server sent it): opaque here
  /** @type {string[]} */
  tickets: [],      // each seat's ticket, by seat: a player's for humans, a bot's for bots
  /** @type {Json} */
  state: {},        // the view the board shows: a human seat's (Connect JSON), never the full state
  over: false,
  /** @type {number[]} */
  scores: [],
  /** @type {number[]} */
  winners: [],
  generation: 0,    // bumped by each new game: a stale bot move or answer is dropped
  /** @type {boolean | object} */
  busy: false,
  /** @type {Turn | null} */
  turn: null,       // the human seat to move
  /** @type {number | null} */
  moves: 0,         // the moves played so far (the blob's): where a takeback returns to
  /** @type {number[]} */
  takebacks: [],    // the game's takebacks by seat, as the server counts them (TakeBack)
  /** @type {{moves: number, seat: number, logLines: number, secrets: Secret[]}[]} */
  history: [],      // before each human move; Undo takes back to the last
  /** @type {Secret[]} */
  secrets: [],      // log lines of bots' secret moves not yet public (a view's `secrets`)
  /** @type {AbortController | null} */
  hint: null,       // the AbortController of the hint being streamed
  startedAt: 0,     // when the game was set up (ms since the epoch), for its statistics
  endedAt: 0,
  hintsUsed: 0,
  /** @type {{seat?: number, text: string}[]} */
  finalLines: [],   // the game-ending move's effect lines (the final score in parts)
  /** @type {Json | null} */
  match: null,      // a match of hands (a view's `match`): the hands finished before this one
};

/**
 * A seat as the page names it: "Seat 1 (casual bot)" (of the game on screen, or of `seats`).
 * @param {number} seat
 * @param {Seat[]} [seats]
 */
export function seatLabel(seat, seats = game.seats) {
  const s = seats[seat];
  return s.kind === "human" ? `Seat ${seat} (you)` : `Seat ${seat} (${s.preset} bot)`;
}

/**
 * The seats the page holds a player ticket of: the humans (with no human, seat 0, watched).
 * @param {number} seat
 */
export function isPlayerSeat(seat) {
  return game.seats[seat].kind === "human" || (seat === 0 && !game.seats.some((s) => s.kind === "human"));
}

/**
 * A sealed game's state for a call on behalf of `seat`: the blob and that seat's ticket.
 * @param {number} seat
 */
export function sealed(seat) {
  return { blob: game.blob, ticket: game.tickets[seat] };
}

/**
 * A game's own part of a GameState: the field named after it, as Connect JSON names it
 * ("the-game" -> theGame); undefined for a game whose part is the message itself.
 * @param {Json} state
 * @param {string} [name]
 * @returns {Json | undefined}
 */
export function partOf(state, name = game.name) {
  return state[name.replace(/-(\w)/g, (_, c) => c.toUpperCase())];
}

// -- the status line, the error line, the board's elements ------------------------------------

/**
 * @param {unknown} error
 */
export function showError(error) {
  const box = $("error");
  box.textContent = error ? String(error instanceof Error ? error.message : error) : "";
  box.hidden = !error;
}

// (Not "status": an SVG board, inside the page, may have a <g id="status">.) While the
// connection is lost the status line says so; the game's own status comes back with it.
let statusText = "";

/** @param {string} text */
export function setStatus(text) {
  statusText = text;
  showStatus();
}

export function showStatus() {
  $("game-status").textContent = connection.lost ? "Connection lost: waiting for the server" : statusText;
}

/**
 * An element with a class and a text, for the board.
 * @param {string} tag
 * @param {string} [className]
 * @param {string} [text]
 * @returns {any}
 */
export function newElement(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

/**
 * "1 chip", "2 chips".
 * @param {number} n
 * @param {string} word
 */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * A gain or a loss: "+2 chips", "−1 chip", "0 chips".
 * @param {number} n
 * @param {string} word
 */
export const signedPlural = (n, word) => `${n > 0 ? "+" : n < 0 ? "−" : ""}${plural(Math.abs(n), word)}`;
