// A whole game of The Council played on its table only (app.js's tableTargets), in headless
// Chromium (launch.mjs), at a phone's width. Usage: node council_table.mjs
// http://127.0.0.1:PORT SCREENSHOT_DIR. 3 seats, seat 0 human, seats 1 and 2 beginner bots
// (?bot_delay_ms=0&seed=7). Seat 0 picks the first card of its pack, bids one chip where it
// can (then ends the bid), reveals its first drafted card where a move reveals it (else
// none); every other move by the keyboard (focus, Enter) instead of a click. Only buttons of
// the board (.tc-board .tc-target) are pressed. Prints one JSON line.
import { join } from "node:path";
import { endOfGame, withPage } from "./launch.mjs";

const [base, shots] = process.argv.slice(2);
const MAX_MOVES = 400;

// Seat 0's turn ("move": the table's targets shown), the end ("over") or an error.
async function tableTurn(page) {
  const next = await page.waitForFunction(() => {
    if (!document.getElementById("scores").hidden) return "over";
    if (!document.getElementById("error").hidden) return "error";
    return document.querySelector("#board .tc-target") ? "move" : null;
  }, null, { timeout: 60_000, polling: 20 });
  return next.jsonValue();
}

await withPage(base, async (page, seen) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/?bot_delay_ms=0&seed=7`);
  await page.locator("#new-game-button").waitFor();
  await page.selectOption("#game-choice", "the-council");
  await page.selectOption("#seat-count", "3");
  await page.selectOption('#seat-choices select[name="seat-1"]', "beginner");
  await page.selectOption('#seat-choices select[name="seat-2"]', "beginner");
  await page.locator("#new-game-button").click();
  await page.locator("#board .tc-board").waitFor();
  seen.kinds = {}; // the targets pressed, by kind
  seen.keyboardMoves = 0;
  let moves = 0;
  let bidTurn = null; // the log's length when seat 0 last bid a chip
  for (; moves < MAX_MOVES; moves++) {
    const state = await tableTurn(page);
    if (state !== "move") { seen.end = state; break; }
    const logLines = await page.locator("#log > li").count();
    const press = async (locator, kind) => {
      seen.kinds[kind] = (seen.kinds[kind] || 0) + 1;
      if (moves % 2) {
        await locator.focus();
        await page.keyboard.press("Enter");
        seen.keyboardMoves++;
      } else {
        await locator.click();
      }
    };
    const pack = page.locator("#board .tc-pack button.tc-target");
    const bids = page.locator("#board .tc-suits button.tc-target");
    const endBid = page.locator("#board button.tc-end-bid");
    const drafted = page.locator("#board .tc-drafted button.tc-target");
    const reveal = page.locator("#board button.tc-reveal");
    if (await pack.count()) {
      await press(pack.first(), "pick");
    } else if (await reveal.count()) {
      if (await drafted.count()) {
        await press(drafted.first(), "revealToggle");
        if (await reveal.isDisabled()) await drafted.first().click(); // no such move: back
      }
      await press(reveal, "reveal");
    } else if ((await bids.count()) && bidTurn !== logLines) {
      bidTurn = logLines + 1; // one chip, then end the bid
      await press(bids.first(), "bid");
    } else {
      await press(endBid, "endBid");
    }
    // The move applied (the log grew); the table is drawn anew before the next turn.
    await page.waitForFunction((n) => document.querySelectorAll("#log > li").length > n, logLines);
    if (moves === 20) await page.screenshot({ path: join(shots, "council-table-mid.png") });
  }
  seen.moves = moves;
  seen.final = {};
  await endOfGame(page, seen.final);
  await page.screenshot({ path: join(shots, "council-table-final.png"), fullPage: true });
});
