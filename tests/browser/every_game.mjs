// The web page (server/web) playing each game GetEngineInfo lists, in headless Chromium
// (launch.mjs). Usage: node every_game.mjs http://127.0.0.1:PORT SCREENSHOT_DIR MOVES
// For every game of the New game form: its fewest seats, seat 0 human and the others beginner
// bots; then the first listed action each time, up to MOVES of seat 0's moves or the end, at a
// phone's size (390 x 844). Writes every-game-<name>.png and prints one JSON line: per game,
// its label, seat counts offered, moves played, whether it ended, the status line and scores.
import { join } from "node:path";
import { endOfGame, newGame, nextTurn, withPage } from "./launch.mjs";

const [base, shots, moves] = process.argv.slice(2);
const BUTTONS = "#actions button[data-action-id]";

await withPage(base, async (page, seen) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/?bot_delay_ms=0&seed=3`);
  await page.locator(BUTTONS).first().waitFor();
  const games = await page.locator("#game-choice option").evaluateAll(
    (options) => options.map((o) => [o.value, o.textContent]));
  seen.games = {};
  for (const [name, label] of games) {
    const played = { label };
    await page.selectOption("#game-choice", name);
    played.seatCounts = await page.locator("#seat-count option").allTextContents();
    await page.selectOption("#seat-count", played.seatCounts[0]);
    const bots = page.locator("#seat-choices select");
    for (let seat = 1; seat < (await bots.count()); seat++) {
      await bots.nth(seat).selectOption("beginner");
    }
    await newGame(page); // (asks while the last game is in progress)
    played.moves = 0;
    let next = await nextTurn(page);
    while (next === "move" && played.moves < Number(moves)) {
      await page.locator(BUTTONS).first().click();
      played.moves += 1;
      next = await nextTurn(page);
    }
    played.ended = next === "over";
    await endOfGame(page, played);
    await page.screenshot({ path: join(shots, `every-game-${name}.png`), fullPage: true });
    seen.games[name] = played;
  }
  // A game with no human: every seat a bot, seat 0 watched (its ticket a player's, so the
  // page plays the move its RecommendAction hints). Kuhn poker, short, to its end.
  await page.selectOption("#game-choice", "kuhn-poker");
  const seats = page.locator("#seat-choices select");
  for (let seat = 0; seat < (await seats.count()); seat++) {
    await seats.nth(seat).selectOption("beginner");
  }
  await newGame(page);
  // The last game's action buttons gone first (A War of Whispers, mid-game): nextTurn saw
  // them before the new game was drawn and called it a move of seat 0's.
  await page.waitForFunction((buttons) => !document.querySelector(buttons), BUTTONS,
    { timeout: 60_000, polling: 20 });
  const watched = { ended: (await nextTurn(page)) === "over" };
  await endOfGame(page, watched);
  seen.watched = watched;
});
