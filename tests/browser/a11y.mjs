// axe-core (tests/browser/node_modules/axe-core) on every screen of both games, at a phone's
// and two desktops' sizes, in headless Chromium (launch.mjs), and the page's keyboard and
// screen reader promises around a hint. Usage: node a11y.mjs http://127.0.0.1:PORT SHOTS_DIR
// Council of Four (2 seats, the beginner bot) and The Council (3 seats, beginner bots), each:
// the opening, a hint shown, a chooser open on the board (Council of Four), the middle of the
// game, the game over; each opening checked at 390x844, 1280x720 and 1440x900, each later
// screen at one of them in turn (so every size sees every kind of screen of some game, at a
// third of the axe runs: they were most of CI's longest browser test). Prints one JSON
// line: the serious and critical violations found (none expected), the heading-order ones
// (moderate to axe; none expected either), and what the hint did.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { endOfGame, nextTurn, withPage } from "./launch.mjs";

const [base, shots] = process.argv.slice(2);
const AXE = readFileSync(new URL("./node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
const SIZES = [[390, 844], [1280, 720], [1440, 900]];
const BUTTONS = "#actions button[data-action-id]";
const MAX_MOVES = 400;

// axe on the page at `sizes`: the serious and critical violations, by screen and size.
async function check(page, seen, screen, sizes = SIZES) {
  for (const [width, height] of sizes) {
    await page.setViewportSize({ width, height });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
    if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE);
    const found = await page.evaluate(async () => {
      const result = await window.axe.run(document, { resultTypes: ["violations"] });
      return result.violations.map((v) => ({
        id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help,
        targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
      }));
    });
    seen.checked.push(`${screen} ${width}x${height}`);
    for (const v of found) {
      if (v.impact === "serious" || v.impact === "critical") seen.serious.push({ screen, size: `${width}x${height}`, ...v });
      else if (v.id === "heading-order") seen.headingOrder.push({ screen, size: `${width}x${height}`, ...v });
      else seen.minor.push(`${screen} ${width}x${height}: ${v.id} (${v.impact})`);
    }
    if (width === 390 || width === 1440) {
      await page.screenshot({ path: join(shots, `a11y-${screen}-${width}.png`) });
    }
  }
  await page.setViewportSize({ width: 1280, height: 720 });
}

// Hint by the keyboard: where the focus is once it is shown, the hinted action marked in the
// list, the announcer's lines, and the candidates made buttons.
async function hintByKeyboard(page) {
  const told = await page.locator("#announcer p").count();
  await page.locator("#hint-button").focus();
  await page.keyboard.press("Enter");
  await page.locator('#hint[data-final="true"] table tr').first().waitFor();
  await page.locator("#hint-button:enabled").waitFor();
  return page.evaluate((before) => ({
    focus: document.activeElement.id,
    hintLive: document.getElementById("hint").getAttribute("aria-live"),
    markedInList: [...document.querySelectorAll("#actions button.hinted")].map((b) => b.dataset.actionId),
    best: document.querySelector("#hint table tr td").textContent,
    candidates: [...document.querySelectorAll("#hint button.candidate")].map((b) => b.textContent),
    announced: [...document.querySelectorAll("#announcer p")].slice(before).map((p) => p.textContent),
  }), told);
}

// The first listed action, until `until` says stop or the game ends; the moves played.
async function playOn(page, until) {
  let moves = 0;
  while ((await nextTurn(page)) === "move" && !(await until(moves))) {
    if (++moves > MAX_MOVES) throw new Error(`no end after ${moves} moves`);
    await page.locator(BUTTONS).first().click();
  }
  return moves;
}

await withPage(base, async (page, seen) => {
  seen.checked = [];
  seen.serious = [];
  seen.headingOrder = [];
  seen.minor = [];
  await page.setViewportSize({ width: 1280, height: 720 });
  // Every message the live region is given, as it is given (it keeps only the last few).
  await page.addInitScript(() => {
    window.announced = [];
    document.addEventListener("DOMContentLoaded", () => new MutationObserver((changes) => {
      for (const change of changes) {
        if (change.target.id !== "announcer") continue;
        for (const node of change.addedNodes) window.announced.push(node.textContent);
      }
    }).observe(document.body, { childList: true, subtree: true }));
  });
  await page.goto(`${base}/?bot_delay_ms=0&seed=11`);
  const bots = page.locator("#seat-choices select");

  // Council of Four.
  await page.locator(BUTTONS).first().waitFor();
  await check(page, seen, "four-opening");
  seen.fourHint = await hintByKeyboard(page);
  await check(page, seen, "four-hint", [SIZES[0]]);
  // A candidate of the final hint plays its move.
  const first = page.locator("#hint button.candidate").first();
  seen.fourCandidate = await first.textContent();
  await first.click();
  await page.locator("#log li").first().waitFor();
  seen.fourFirstLog = await page.locator("#log li").first().textContent();
  seen.fourFocusAfterMove = await page.evaluate(() => document.activeElement.id || document.activeElement.tagName);
  await playOn(page, async (moves) => moves >= 6);
  // The bots' moves, each said once in the live region (the log's bot lines, in order).
  await page.locator('[data-piece^="balcony-"].target').first().click();
  await page.locator("#board-chooser button[data-choice-id]").first().waitFor();
  await check(page, seen, "four-chooser", [SIZES[1]]);
  await page.keyboard.press("Escape");
  await check(page, seen, "four-mid", [SIZES[2]]);
  seen.fourSummary = await page.locator("#board-summary").evaluate((s) => ({
    headings: [...s.querySelectorAll("h2, h3")].map((h) => h.textContent), items: s.querySelectorAll("li").length,
  }));
  seen.fourPanels = await page.locator("#player-panels svg").evaluateAll((panels) =>
    panels.map((p) => [p.getAttribute("role"), p.getAttribute("aria-label")]));
  seen.fourMoves = await playOn(page, async () => false);
  await check(page, seen, "four-over", [SIZES[0]]);
  seen.four = {};
  await endOfGame(page, seen.four);
  // Each bot move said once; the effects of the moves under their lines of the log.
  seen.fourAnnounced = await page.evaluate(() => window.announced);
  seen.fourLog = await page.locator("#log > li").allTextContents();
  seen.fourEffects = await page.locator("#log > li .effects").count();

  // The Council.
  await page.selectOption("#game-choice", "the-council");
  await page.selectOption("#seat-count", "3");
  for (let seat = 1; seat < 3; seat++) await bots.nth(seat).selectOption("beginner");
  await page.locator("#new-game-button").click();
  await page.locator("#board .tc-board").waitFor();
  await page.locator(BUTTONS).first().waitFor();
  await check(page, seen, "council-opening");
  seen.councilHint = await hintByKeyboard(page);
  await check(page, seen, "council-hint", [SIZES[1]]);
  // On to a bid and a reveal: the phases' own screens.
  await playOn(page, async () => (await page.locator("#decision").textContent()).startsWith("Offer"));
  await check(page, seen, "council-bid", [SIZES[2]]);
  await playOn(page, async () => (await page.locator("#decision").textContent()).startsWith("Choose"));
  await check(page, seen, "council-reveal", [SIZES[0]]);
  seen.councilMoves = await playOn(page, async () => false);
  await check(page, seen, "council-over", [SIZES[1]]);
  seen.council = {};
  await endOfGame(page, seen.council);
});
