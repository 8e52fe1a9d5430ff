// The web page (server/web) holds no secret of a sealed game, in headless Chromium
// (launch.mjs). Usage: node sealed.mjs http://127.0.0.1:PORT OUT_DIR
// Plays a 3-seat Council of Four game (seat 0 human, seats 1 and 2 beginner bots) for a few
// of seat 0's moves (the first listed action each time) and a hint, while recording every
// reply of the service the page received; then a 3-seat game of The Council the same way,
// through its draft and into its events. Writes OUT_DIR/sealed-replies.json: the replies
// (method and body, base64), the page's game object, its localStorage and sessionStorage;
// and OUT_DIR/sealed-the-council-replies.json, the replies of The Council's game; prints
// one JSON line of what it saw. tests/server/test_browser.py opens the games' blobs with the
// server's key and checks that none of it shows another seat's hand, the deck or the rng,
// nor a bot's secret pick or reveal before it is public.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { newGame, nextTurn, withPage } from "./launch.mjs";

const [base, out] = process.argv.slice(2);
const BUTTONS = "#actions button[data-action-id]";
const HUMAN_MOVES = 8;
// The Council: five picks, then seat 0's bids and reveals (the bots pick and reveal between).
const THE_COUNCIL_HUMAN_MOVES = 16;

await withPage(base, async (page, seen) => {
  let replies = [];
  page.on("response", (r) => {
    if (!r.url().includes("/council.v1.CouncilService/")) return;
    const method = r.url().split("/").pop();
    replies.push(r.body().then((body) => ({ method, body: body.toString("base64") }), () => null));
  });
  await page.goto(`${base}/?bot_delay_ms=0`);
  await page.locator(BUTTONS).first().waitFor(); // the default game (2 seats) is sealed too
  await page.selectOption("#seat-count", "3");
  await page.selectOption('#seat-choices select[name="seat-1"]', "beginner");
  await page.selectOption('#seat-choices select[name="seat-2"]', "beginner");
  await page.locator("#new-game-button").click();
  await page.locator("#seat-choices select").nth(2).waitFor();
  await page.waitForFunction(() => game.tickets.length === 3 && document.querySelector("#actions button[data-action-id]"));
  await page.locator("#hint-button").click();
  await page.locator("#hint table tr").first().waitFor();
  await page.locator("#hint-button:enabled").waitFor();
  let moves = 0;
  while (moves < HUMAN_MOVES && (await nextTurn(page)) === "move") {
    await page.locator(BUTTONS).first().click();
    moves += 1;
  }
  await nextTurn(page);
  seen.moves = moves;
  seen.logLines = await page.locator("#log li").count();
  seen.error = (await page.locator("#error").isVisible()) ? await page.locator("#error").textContent() : null;
  const memory = await page.evaluate(() => {
    const storage = (s) => Object.fromEntries(Object.keys(s).map((k) => [k, s.getItem(k)]));
    // The game object as JSON (its DOM nodes, the log's items, come out as {}).
    return { game: JSON.stringify(game), local: storage(localStorage), session: storage(sessionStorage) };
  });
  const bodies = (await Promise.all(replies)).filter(Boolean);
  seen.replies = bodies.length;
  seen.methods = [...new Set(bodies.map((r) => r.method))].sort();
  writeFileSync(join(out, "sealed-replies.json"), JSON.stringify({ replies: bodies, ...memory }));

  // The Council, from its New game: every reply recorded from there on.
  replies = [];
  await page.selectOption("#game-choice", "the-council");
  await page.selectOption("#seat-count", "3");
  await page.selectOption('#seat-choices select[name="seat-1"]', "beginner");
  await page.selectOption('#seat-choices select[name="seat-2"]', "beginner");
  await newGame(page); // (asks: the game before is in progress)
  await page.locator("#board .tc-board").waitFor();
  let councilMoves = 0;
  while (councilMoves < THE_COUNCIL_HUMAN_MOVES && (await nextTurn(page)) === "move") {
    await page.locator(BUTTONS).first().click();
    councilMoves += 1;
  }
  await nextTurn(page);
  seen.councilMoves = councilMoves;
  seen.councilError = (await page.locator("#error").isVisible()) ? await page.locator("#error").textContent() : null;
  seen.councilLog = await page.locator("#log li").allTextContents();
  const councilBodies = (await Promise.all(replies)).filter(Boolean);
  writeFileSync(join(out, "sealed-the-council-replies.json"), JSON.stringify({ replies: councilBodies }));
});
