// The web page (server/web) playing The Council in headless Chromium (launch.mjs).
// Usage: node the_council.mjs http://127.0.0.1:PORT SCREENSHOT_DIR
// Chooses The Council in the New game form (3 seats: seat 0 human, seats 1 and 2 beginner
// bots), then as seat 0: the opening board (its pack only), a Hint, a pick and Undo, then the
// first listed action each time up to the final scoring; then Council of Four again. Writes
// page-the-council.png (the board at seat 0's first bid) into SCREENSHOT_DIR and prints one
// JSON line of what it saw, with the sealed blobs of the opening and the end (the page holds
// no full state: tests/server/test_browser.py opens them with the server's key) and checks it.
import { join } from "node:path";
import { askHint, duplicateIds, endOfGame, nextTurn, withPage } from "./launch.mjs";

const [base, shots] = process.argv.slice(2);
const MAX_MOVES = 1000;
const BUTTONS = "#actions button[data-action-id]";

await withPage(base, async (page, seen) => {
  await page.goto(`${base}/?bot_delay_ms=0&seed=7`);
  await page.locator(BUTTONS).first().waitFor(); // Council of Four's opening, by default
  seen.gameChoices = await page.locator("#game-choice option").evaluateAll(
    (options) => options.map((o) => [o.value, o.textContent]));
  await page.selectOption("#game-choice", "the-council");
  seen.seatCounts = await page.locator("#seat-count option").allTextContents();
  await page.selectOption("#seat-count", "3");
  await page.selectOption('#seat-choices select[name="seat-1"]', "beginner");
  await page.selectOption('#seat-choices select[name="seat-2"]', "beginner");
  await page.locator("#new-game-button").click();
  await page.locator("#board .tc-board").waitFor();
  await page.locator(BUTTONS).first().waitFor();

  // The opening: seat 0 picks from its pack, and sees no other pack.
  seen.title = await page.title();
  seen.heading = await page.locator("#game-title").textContent();
  seen.boardRole = await page.locator("#board").getAttribute("role");
  seen.phaseLine = await page.locator(".tc-phase").textContent();
  seen.decision = await page.locator("#decision").textContent();
  seen.openingStatus = await page.locator("#game-status").textContent();
  seen.suitHeads = await page.locator(".tc-suits thead th").allTextContents();
  seen.empire = await page.locator(".tc-suits .empire td .rank").allTextContents();
  seen.seatRows = await page.locator(".tc-suits tbody tr[data-seat] th").allTextContents();
  seen.pack = await page.locator(".tc-pack .card").evaluateAll(
    (cards) => cards.map((c) => [c.dataset.card, c.getAttribute("aria-label") || c.textContent]));
  seen.picks = await page.locator(`${BUTTONS} .text`).allTextContents();
  seen.boardText = await page.locator("#board").textContent();
  seen.opening = await page.evaluate(() => game.state); // the page's view (seat 0's)
  seen.openingBlob = await page.evaluate(() => game.blob); // the sealed full state
  seen.duplicateIds = await duplicateIds(page);
  const board = () => page.locator("#board").innerHTML();
  const opening = await board();

  // A hint: candidates with visits and bars; the best pick's card marked in the pack.
  await askHint(page, seen);
  seen.hinted = await page.locator("#board .hinted").evaluateAll((cards) => cards.map((c) => c.dataset.card));

  // A pick, then Undo: the opening again; then the same pick.
  await page.locator(BUTTONS).first().click();
  await page.locator("#log li").first().waitFor();
  seen.firstLog = await page.locator("#log li").first().textContent();
  await page.locator("#undo-button:enabled").click();
  await page.locator(BUTTONS).first().waitFor();
  // (Undo is answered after the bots' replies it takes back: the board is the opening's once
  // it is drawn again, not at the first button seen, which may be the old board's.)
  await page.waitForFunction((html) => document.getElementById("board").innerHTML === html,
    opening, { timeout: 10_000, polling: 50 }).catch(() => {});
  seen.undoSameBoard = (await board()) === opening;
  seen.undoLogLines = await page.locator("#log li").count();
  await page.locator(BUTTONS).first().click();

  // The rest: the first listed action each time; the board at seat 0's first bid is the
  // screenshot.
  let moves = 1;
  seen.decisions = [];
  seen.secrecy = []; // at each of seat 0's moves: the phase, seats that bid, the log's secrets
  for (;;) {
    if ((await nextTurn(page)) !== "move") break;
    if (moves >= MAX_MOVES) throw new Error(`no end after ${moves} moves`);
    seen.secrecy.push(await secrecy(page));
    const decision = await page.locator("#decision").textContent();
    if (!seen.decisions.includes(decision)) {
      seen.decisions.push(decision);
      if (decision.startsWith("Offer chips")) {
        seen.bidBoard = {
          event: await page.locator(".tc-event .card").getAttribute("data-card"),
          drafted: await page.locator('.tc-drafted ul[aria-label^="Seat 0"] .card').count(),
          pack: await page.locator(".tc-pack").count(),
          bids: await page.locator(`${BUTTONS} .text`).allTextContents(),
        };
        await page.screenshot({ path: join(shots, "page-the-council.png") });
      }
    }
    await page.locator(BUTTONS).first().click();
    moves += 1;
  }
  seen.moves = moves;
  await endOfGame(page, seen);
  seen.boardScores = await page.locator(".tc-suits tbody tr[data-seat] .score").allTextContents();
  seen.finalPhase = await page.locator(".tc-phase").textContent();
  seen.finalBlob = await page.evaluate(() => game.blob);
  seen.finalSecrecy = await secrecy(page);
  seen.duplicateIds.push(...(await duplicateIds(page)));

  // Back to Council of Four: its seat range and its SVG board again.
  await page.selectOption("#game-choice", "council-of-four");
  seen.backSeatCounts = await page.locator("#seat-count option").allTextContents();
  await page.locator("#new-game-button").click();
  await page.locator('#board svg g.city[id^="city-"]').first().waitFor();
  seen.backTitle = await page.title();
  seen.backCities = await page.locator('#board svg g.city[id^="city-"]').count();
  seen.backBoardRole = await page.locator("#board").getAttribute("role");
});

// The bots' secret moves in the log: how many lines show the public text ("picks a card",
// "chooses the cards to reveal") or tell the move ("picks X", "reveals ..."), the ones the
// page holds as not yet public (game.secrets) and whether their lines show the public text,
// and the seats that have bid in this event (from the page's state).
function secrecy(page) {
  return page.evaluate(() => {
    const lines = [...document.querySelectorAll("#log li")].map((li) => li.textContent);
    const council = game.state.theCouncil;
    const pending = (kind) => game.secrets.filter((s) => s.kind === kind).length;
    return {
      phase: council.phase,
      hand: council.hand || 0,
      bidsDone: council.bidsDone || 0,
      hiddenPicks: lines.filter((line) => line.endsWith(": picks a card")).length,
      hiddenReveals: lines.filter((line) => line.endsWith(": chooses the cards to reveal")).length,
      toldPicks: lines.filter((line) => / bot\): picks (?!a card$)/.test(line)).length,
      toldReveals: lines.filter((line) => / bot\): reveals /.test(line)).length,
      pendingPicks: pending("ACTION_KIND_PICK"),
      pendingReveals: pending("ACTION_KIND_REVEAL"),
      pendingShowPublicText: game.secrets.every((s) => s.item.textContent.endsWith(`: ${s.hidden}`)),
    };
  });
}
