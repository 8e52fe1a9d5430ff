// The page's review view (server/web/review.js) in headless Chromium (launch.mjs).
// Usage: node review.mjs http://127.0.0.1:PORT SHOTS_DIR RECORD.json [PHONE_SHOTS_DIR]
// Opens RECORD.json by "Open record…", analyses seat 0 at 30 iterations a move (AnalyzeGame,
// streamed), clicks the graph's first mistake (or blunder) mark, steps with the arrow keys,
// explores from there (a game of the page: moves on the board until a bot has replied, a
// hint, Undo) and comes back to the review; axe-core and the page's width at 390x844 and
// 1440x900, with screenshots (page-review.png; review-390x844.png in PHONE_SHOTS_DIR, default
// SHOTS_DIR); then a Kuhn poker game played on the page, reviewed by "Review game"
// (GetGameRecord). Prints one JSON line.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { askHint, newGame, nextTurn, withPage } from "./launch.mjs";

const [base, shots, record, phoneShots = shots] = process.argv.slice(2);
const AXE = readFileSync(new URL("./node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
const SIZES = [[390, 844, join(phoneShots, "review-390x844.png")], [1440, 900, join(shots, "page-review.png")]];

const BOT = "Seat 1 (casual bot): ";
const logLines = (page) => page.locator("#log > li").evaluateAll((items) => items.map((i) => i.firstChild.textContent));

// The reader's turn in the game on the page ("move": the board's targets marked), its end
// ("over") or an error.
async function boardTurn(page) {
  const next = await page.waitForFunction(() => {
    if (!document.getElementById("scores").hidden) return "over";
    if (!document.getElementById("error").hidden) return "error";
    return document.querySelector("[data-piece].target") ? "move" : null;
  }, null, { timeout: 60_000, polling: 20 });
  return next.jsonValue();
}

// A move on the board: a target clicked (the seat's own header, which ends a turn, where it
// is one), then in its chooser "end" where offered, else the first move; done once logged.
async function boardMove(page) {
  const keys = await page.locator("[data-piece].target").evaluateAll((ns) => ns.map((n) => n.getAttribute("data-piece")));
  const key = keys.find((k) => k.startsWith("seat-")) ?? keys[0];
  const logged = await page.locator("#log > li").count();
  await page.locator(`[data-piece="${key}"]`).click();
  const chose = await page.waitForFunction((n) => {
    const box = document.getElementById("board-chooser");
    if (box && !box.hidden && box.querySelector("button[data-choice-id]")) return "chooser";
    return document.querySelectorAll("#log > li").length > n ? "played" : null;
  }, logged, { polling: 20 });
  if ((await chose.jsonValue()) === "chooser") {
    const choices = page.locator("#board-chooser button[data-choice-id]");
    const end = (await choices.allTextContents()).findIndex((t) => t.trim() === "end");
    await choices.nth(Math.max(end, 0)).click();
    await page.waitForFunction((n) => document.querySelectorAll("#log > li").length > n, logged, { polling: 20 });
  }
}

const boardIndex = (page) => page.locator("#rv-board").getAttribute("data-index").then(Number);
const waitIndex = (page, index) => page.waitForFunction(
  (i) => document.getElementById("rv-board").dataset.index === String(i), index, { polling: 20 });

async function checkSizes(page, seen) {
  for (const [width, height, shot] of SIZES) {
    await page.setViewportSize({ width, height });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
    const layout = await page.evaluate(() => ({
      pageWidth: document.documentElement.scrollWidth, windowWidth: window.innerWidth,
    }));
    if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE);
    const found = await page.evaluate(async () => {
      const result = await window.axe.run(document, { resultTypes: ["violations"] });
      return result.violations.map((v) => ({
        id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
      }));
    });
    seen.layouts[`${width}x${height}`] = layout;
    seen.serious.push(...found.filter((v) => ["serious", "critical"].includes(v.impact)));
    seen.minor.push(...found.filter((v) => !["serious", "critical"].includes(v.impact)).map((v) => v.id));
    await page.screenshot({ path: shot });
  }
}

await withPage(base, async (page, seen) => {
  Object.assign(seen, { progress: [], layouts: {}, serious: [], minor: [] });
  await page.goto(`${base}/?bot_delay_ms=0&seed=7`);
  await page.locator("#board svg").first().waitFor();
  await page.locator("#open-record-file").setInputFiles(record);
  await page.locator("#review").waitFor({ state: "visible" });
  await waitIndex(page, 0);
  seen.title = await page.locator("#rv-title").textContent();
  seen.moves = await page.locator("#rv-moves li").count();
  seen.mainHidden = await page.locator("#board-panel").isHidden();
  await page.selectOption("#rv-budget", "iterations");
  await page.fill("#rv-iterations", "30");
  await page.selectOption("#rv-seat", "0");
  // Each text of the progress line, with the graph's points then, as the review streams.
  await page.evaluate(() => {
    window.progressSeen = [];
    const line = document.getElementById("rv-progress");
    new MutationObserver(() => window.progressSeen.push(
      [line.textContent, document.querySelectorAll("#rv-graph .rv-point").length],
    )).observe(line, { childList: true, characterData: true, subtree: true });
  });
  await page.locator("#rv-analyse").click();
  await page.waitForFunction(() => document.getElementById("rv-progress").textContent.startsWith("Analysis done")
    || !document.getElementById("rv-error").hidden, null, { polling: 20 });
  seen.progress = await page.evaluate(() => window.progressSeen);
  seen.error = (await page.locator("#rv-error").isHidden()) ? null : await page.locator("#rv-error").textContent();
  seen.points = await page.locator("#rv-graph .rv-point").count();
  seen.pointIndices = await page.locator("#rv-graph .rv-point").evaluateAll((gs) => gs.map((g) => Number(g.dataset.index)));
  seen.marks = {};
  for (const key of ["inaccuracy", "mistake", "blunder"]) {
    seen.marks[key] = await page.locator(`#rv-graph .rv-mark.${key}`).count();
  }
  seen.labelled = await page.locator("#rv-moves button[data-label]:not([data-label=''])").evaluateAll(
    (bs) => bs.map((b) => [Number(b.dataset.index), b.dataset.label, b.querySelector(".rv-label").textContent]));
  seen.summary = await page.locator("#rv-summary tbody tr").evaluateAll(
    (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  // A mistake's mark on the graph: the board goes to that move.
  const mark = page.locator("#rv-graph .rv-mark.mistake, #rv-graph .rv-mark.blunder").first();
  seen.markIndex = Number(await mark.getAttribute("data-index"));
  await mark.click();
  await waitIndex(page, seen.markIndex);
  seen.current = await page.locator("#rv-moves [aria-current]").getAttribute("data-index").then(Number);
  seen.moveLine = await page.locator("#rv-move-line").textContent();
  seen.marked = await page.locator("#rv-board .rv-played, #rv-board .rv-best").count();
  await checkSizes(page, seen);
  // The arrow keys step.
  await page.keyboard.press("ArrowRight");
  await waitIndex(page, seen.markIndex + 1);
  seen.afterRight = await boardIndex(page);
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await waitIndex(page, seen.markIndex - 1);
  seen.afterLeft = await boardIndex(page);
  // Explore: the position played on as a game of the page, moves made on the board until a
  // bot has replied to one (its reply in the log), a hint, Undo, then back to the review.
  seen.blobBefore = await page.evaluate(() => window.game.blob);
  await page.locator("#rv-explore-button").click();
  await page.locator("#exploring").waitFor({ state: "visible" });
  seen.exploreReviewHidden = await page.locator("#review").isHidden();
  seen.exploreLog = [];
  for (let moves = 0; moves < 12; moves++) {
    if ((await boardTurn(page)) !== "move") break;
    if (seen.exploreFirstMine !== undefined && seen.exploreLog.slice(seen.exploreFirstMine).some((l) => l.startsWith(BOT))) break;
    if (seen.exploreFirstMine === undefined) {
      seen.exploreFirstMine = await page.locator("#log > li").count();
      await askHint(page, seen);
      seen.exploreTargets = await page.locator("[data-piece].target").count();
    }
    await boardMove(page);
    seen.exploreLog = await logLines(page);
  }
  seen.exploreLog = await logLines(page);
  seen.exploreBlob = await page.evaluate(() => window.game.blob); // (its history: the start dealt)
  seen.exploreStored = await page.evaluate(() => JSON.parse(localStorage.getItem("council-ai.game")).blob);
  await page.locator("#undo-button:enabled").click();
  await page.waitForFunction((n) => document.querySelectorAll("#log > li").length < n, seen.exploreLog.length);
  await boardTurn(page);
  seen.afterUndo = await logLines(page);
  await page.locator("#back-to-review").click();
  await waitIndex(page, seen.markIndex - 1);
  seen.backAt = await boardIndex(page);
  seen.exploringHidden = await page.locator("#exploring").isHidden();
  await page.waitForFunction((blob) => window.game.blob === blob, seen.blobBefore);
  // Home and End: the first and the final position.
  await page.locator("#rv-board").focus();
  await page.keyboard.press("End");
  await waitIndex(page, seen.moves);
  seen.afterEnd = await boardIndex(page);
  await page.keyboard.press("Home");
  await waitIndex(page, 0);
  seen.afterHome = await boardIndex(page);
  // Back to the game.
  await page.locator("#rv-close").click();
  seen.gameShownAgain = await page.locator("#board-panel").isVisible();
  // "Review game" once the page's own game is over: Kuhn poker, seat 0 playing the first
  // move listed each time against the beginner bot.
  await page.selectOption("#game-choice", "kuhn-poker");
  await page.selectOption("#seat-choices select[name=seat-0]", "human");
  await page.selectOption("#seat-choices select[name=seat-1]", "beginner");
  await newGame(page);
  for (let next = await nextTurn(page); next !== "over"; next = await nextTurn(page)) {
    if (next === "error") throw new Error(`the game failed: ${await page.locator("#error").textContent()}`);
    await page.locator("#actions button[data-action-id]").first().click();
  }
  seen.pageGameMoves = await page.locator("#log li").count();
  await page.locator("#review-game-button").click();
  await page.locator("#review").waitFor({ state: "visible" });
  await waitIndex(page, 0);
  seen.pageReview = {
    title: await page.locator("#rv-title").textContent(), seat: await page.locator("#rv-seat").inputValue(),
    seats: await page.locator("#rv-seat option").allTextContents(),
  };
  await page.locator("#rv-analyse").click();
  await page.waitForFunction(() => document.getElementById("rv-progress").textContent.startsWith("Analysis done")
    || !document.getElementById("rv-error").hidden);
  seen.pageReview.error = (await page.locator("#rv-error").isHidden()) ? null : await page.locator("#rv-error").textContent();
  seen.pageReview.progress = await page.locator("#rv-progress").textContent();
  seen.pageReview.points = await page.locator("#rv-graph .rv-point").count();
  // The same game saved by "Save game" and opened by "Open record…": its seats named as the
  // page named them in play, not by the record's agents.
  await page.locator("#rv-close").click();
  const download = page.waitForEvent("download");
  await page.locator("#save-button").click();
  const saved = join(phoneShots, "saved-kuhn-poker.json"); // (a temporary folder, never docs/)
  await (await download).saveAs(saved);
  await page.locator("#open-record-file").setInputFiles(saved);
  await page.locator("#review").waitFor({ state: "visible" });
  await waitIndex(page, 0);
  seen.savedReview = {
    seats: await page.locator("#rv-seat option").allTextContents(),
    moveLine: await page.locator("#rv-move-line").textContent(),
  };
});
