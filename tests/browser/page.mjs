// The web page (server/web) in a real headless Chromium: Debian's chromium (/usr/bin/chromium,
// or $COUNCIL_CHROMIUM), driven by Playwright-core, which downloads no browser.
// Usage: node page.mjs http://127.0.0.1:PORT SCREENSHOT_DIR
// Plays a 2-player game against the page's casual bot (seat 1) as the human seat 0: the Hint
// button, a click on the board (the coast balcony, then the first action it lists), Undo and
// that move again, then the first listed action each time, up to the final scoring. Writes page-opening.png,
// page-hint.png and page-final.png (1280x900) into SCREENSHOT_DIR and prints one JSON line
// of what it saw; tests/server/test_browser.py checks it.
import { join } from "node:path";
import { askHint, duplicateIds, endOfGame, nextTurn, withPage } from "./launch.mjs";

const [base, shots] = process.argv.slice(2);
const MAX_MOVES = 1000;

await withPage(base, async (page, seen) => {
  const started = Date.now();
  await page.goto(`${base}/?bot_delay_ms=0&seed=7`); // seed: the same opening each time
  // The board is drawn at once, and seat 0 (the human) is to move; the title is the game's
  // (GetEngineInfo's label, once the games are loaded).
  await page.locator("#actions button[data-action-id]").first().waitFor();
  seen.title = await page.title();
  seen.cities = await page.locator('#board svg g.city[id^="city-"]').count();
  seen.balconies = await page.locator('#board svg [id^="balcony-"]').evaluateAll(
    (nodes) => nodes.map((n) => n.id));
  seen.status = await page.locator("#game-status").textContent();
  seen.seatChoices = await page.locator("#seat-choices select").count();
  seen.openingMs = Date.now() - started;
  // The board's drawing (without board.js's marks and buttons, which follow the focus).
  const board = () => page.locator("#board").evaluate((b) => {
    const copy = b.cloneNode(true);
    for (const layer of copy.querySelectorAll(".board-marks, .board-buttons")) layer.remove();
    return copy.innerHTML;
  });
  const opening = await board();
  seen.duplicateIds = await duplicateIds(page);
  await page.screenshot({ path: join(shots, "page-opening.png") });

  // A hint: the candidates with visits and win-probability bars.
  await askHint(page, seen);
  await page.screenshot({ path: join(shots, "page-hint.png") });

  // A main action by clicking the board: the coast balcony's chooser lists its moves.
  await page.locator('[data-piece="balcony-coast"]').click();
  const listed = page.locator("#board-chooser button[data-choice-id]");
  await listed.first().waitFor();
  seen.balconyActions = await listed.allTextContents();
  const firstText = seen.balconyActions[0];
  await listed.first().click();
  await page.locator("#log li").first().waitFor();
  seen.firstLog = await page.locator("#log li").first().textContent();
  seen.firstPlayed = firstText;
  // Undo: back to the opening (the same board, an empty log); then the same move again.
  await page.locator("#undo-button:enabled").click();
  await page.locator("#actions button[data-action-id]").first().waitFor();
  seen.undoSameBoard = (await board()) === opening;
  seen.undoLogLines = await page.locator("#log li").count();
  seen.undoDisabled = await page.locator("#undo-button").isDisabled();
  await page.locator('[data-piece="balcony-coast"]').click();
  await listed.first().click();
  await page.locator("#log li").first().waitFor();
  seen.replayed = await page.locator("#log li").first().textContent();

  // The rest of the game: the first listed action each time, the bot answering at once.
  let moves = 1;
  for (;;) {
    if ((await nextTurn(page)) !== "move") break;
    if (moves >= MAX_MOVES) throw new Error(`no end after ${moves} moves`);
    await page.locator("#actions button[data-action-id]").first().click();
    moves += 1;
  }
  seen.moves = moves;
  await endOfGame(page, seen);
  seen.finalCities = await page.locator('#board svg g.city[id^="city-"]').count();
  seen.duplicateIds.push(...(await duplicateIds(page)));
  await page.locator("#scores").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "page-final.png") });
  seen.gameMs = Date.now() - started;
});
