// The web page (server/web) playing a whole game of A War of Whispers in headless Chromium
// (launch.mjs). Usage: node a_war_of_whispers.mjs http://127.0.0.1:PORT SCREENSHOT_DIR
// Two seats, seat 0 human and seat 1 a beginner bot; seat 0 plays the first listed action
// each time, to the end, at a desktop's size (1440 x 900) and then, from a new game, at a
// phone's (390 x 844). Writes a-war-of-whispers-<size>.png and prints one JSON line: the moves
// played, the status line, the scores (each size's), the board's regions and council seats.
import { join } from "node:path";
import { endOfGame, newGame, nextTurn, withPage } from "./launch.mjs";

const [base, shots] = process.argv.slice(2);
const BUTTONS = "#actions button[data-action-id]";

async function start(page) {
  await page.selectOption("#game-choice", "a-war-of-whispers");
  await page.selectOption("#seat-count", "2");
  await page.locator("#seat-choices select").nth(1).selectOption("beginner");
  await newGame(page);
}

await withPage(base, async (page, seen) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${base}/?bot_delay_ms=0&seed=3`);
  await page.locator(BUTTONS).first().waitFor();
  await start(page);
  seen.regions = await page.locator("#board svg g.region").count();
  seen.councilSeats = await page.locator("#board svg g.council-seat").count();
  seen.moves = 0;
  let next = await nextTurn(page);
  while (next === "move") {
    await page.locator(BUTTONS).first().click();
    seen.moves += 1;
    next = await nextTurn(page);
  }
  await endOfGame(page, seen);
  await page.screenshot({ path: join(shots, "a-war-of-whispers-1440x900.png") });
  await page.setViewportSize({ width: 390, height: 844 });
  await start(page);
  seen.phoneMoves = 0;
  next = await nextTurn(page);
  while (next === "move") {
    await page.locator(BUTTONS).first().click();
    seen.phoneMoves += 1;
    next = await nextTurn(page);
  }
  seen.phone = {};
  await endOfGame(page, seen.phone);
  await page.screenshot({ path: join(shots, "a-war-of-whispers-390x844.png") });
});
