// The browser of the page's tests: Debian's chromium (/usr/bin/chromium, or
// $COUNCIL_CHROMIUM), headless, driven by Playwright-core (which downloads no browser), with
// a new, empty profile each run. `withPage(base, play)` opens a page, runs `play(page, seen)`
// and prints `seen` as one JSON line, with what went wrong on the way: console errors, page
// errors, failed requests and answers >= 400, and whether every request went to `base`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const executablePath = process.env.COUNCIL_CHROMIUM || "/usr/bin/chromium";
// Headless, and none of Chromium's own network traffic (this project's machines have none).
const ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

export async function withPage(base, play) {
  const profile = mkdtempSync(join(tmpdir(), "council-chromium-")); // a new, empty user-data-dir
  const context = await chromium.launchPersistentContext(profile, {
    executablePath, headless: true, args: ARGS, viewport: { width: 1280, height: 900 },
  });
  const seen = { consoleErrors: [], pageErrors: [], failedRequests: [] };
  // The page's ES modules keep their state to themselves: the tests read the game on screen
  // (`game`) and the bots' pause (`botDelayMs`) as page.js exports them, the same module
  // instance as the page's (one per address), put on window for the tests only.
  await context.addInitScript(() => {
    if (location.pathname !== "/") return;
    import("/web/page.js").then((page) => Object.assign(window, { game: page.game, botDelayMs: page.botDelayMs }), () => {});
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(60_000); // generous: a first start on a fresh machine is slow
    page.on("console", (m) => m.type() === "error" && seen.consoleErrors.push(m.text()));
    page.on("pageerror", (e) => seen.pageErrors.push(String(e)));
    page.on("requestfailed", (r) => seen.failedRequests.push(`${r.url()} ${r.failure()?.errorText}`));
    page.on("response", (r) => r.status() >= 400 && seen.failedRequests.push(`${r.url()} ${r.status()}`));
    const sameOrigin = [];
    page.on("request", (r) => sameOrigin.push(r.url().startsWith(base)));
    await play(page, seen);
    seen.allSameOrigin = sameOrigin.every(Boolean);
    seen.requests = sameOrigin.length;
  } catch (error) {
    console.error(`failed after seeing: ${JSON.stringify(seen)}`);
    throw error;
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
  console.log(JSON.stringify(seen));
}

// Ids are unique in the whole document, the board included (getElementById).
export function duplicateIds(page) {
  return page.evaluate(() => {
    const ids = [...document.querySelectorAll("[id]")].map((e) => e.id);
    return [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
  });
}

// Waits until the game is over ("over"), an error is shown ("error") or a human seat has
// action buttons ("move").
export async function nextTurn(page) {
  const next = await page.waitForFunction(() => {
    if (!document.getElementById("scores").hidden) return "over";
    if (!document.getElementById("error").hidden) return "error";
    return document.querySelector("#actions button[data-action-id]") ? "move" : null;
  }, null, { timeout: 60_000, polling: 20 });
  return next.jsonValue();
}

// What the page shows once a game has ended, the same for both games: the status line, an
// error if one is shown, the final scores, the log's length and whether Hint is disabled.
export async function endOfGame(page, seen) {
  seen.status = await page.locator("#game-status").textContent();
  seen.error = (await page.locator("#error").isVisible()) ? await page.locator("#error").textContent() : null;
  seen.scores = await page.locator("#score-list li").allTextContents();
  seen.logLines = await page.locator("#log li").count();
  seen.hintDisabled = await page.locator("#hint-button").isDisabled();
  seen.actionsTitleShown = await page.locator("#actions-title").isVisible();
  // Each seat's final score in parts (dt: the seat, dd: its parts).
  seen.scoreParts = await page.locator("#score-parts").evaluate((list) =>
    [...list.querySelectorAll("dt")].map((dt) => [dt.textContent, dt.nextElementSibling.textContent]));
  // Each line of the log with the effects shown under it (board.js: in a shadow tree).
  seen.logEffects = await page.locator("#log > li").evaluateAll((items) => items.map((item) => {
    const holder = item.querySelector(".effects");
    const lines = holder ? [...holder.shadowRoot.querySelectorAll("span")].map((s) => s.textContent) : [];
    return [item.firstChild.textContent, lines];
  }));
}

// Asks for a hint and waits for it: `seen.hintRows` (the candidates' rows),
// `seen.hintHeadings` (the table's column headings) and `seen.hintBars` (their
// win-probability bars).
export async function askHint(page, seen) {
  await page.locator("#hint-button").click();
  await page.locator("#hint table tr").first().waitFor();
  await page.locator("#hint-button:enabled").waitFor();
  seen.hintRows = await page.locator("#hint table tbody tr").evaluateAll(
    (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  seen.hintHeadings = await page.locator("#hint table th").allTextContents();
  seen.hintBars = await page.locator("#hint .bar").count();
}

// Clicks "New game", answering its question (asked while a game is in progress: the page's
// <dialog>, open once the click is handled) with "Start a new game".
export async function newGame(page) {
  await page.locator("#new-game-button").click();
  if (await page.locator("#confirm-dialog").evaluate((dialog) => dialog.open)) {
    await page.locator("#confirm-ok").click();
  }
}
