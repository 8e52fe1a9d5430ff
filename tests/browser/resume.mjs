// The page never loses a game, in headless Chromium (launch.mjs), at a phone's size.
// Usage: node resume.mjs http://127.0.0.1:PORT OUT_DIR
// Driven with tests/server/test_browser_page.py over stdin/stdout: a line "@@stop" asks it to
// stop the server and "@@start" to start it again on the same port (same seal keys); it
// answers a line once done. Plays Council of Four (2 seats, a casual bot) with the Bot speed
// setting "instant" (no ?bot_delay_ms), reloads mid-game, opens a second tab of the game
// (which takes charge) and takes it back, stops the server before a move and
// starts it again, saves the game to a file, opens it again, asks for a New game (kept, then
// left); then The Council (3 seats) up to seat 0's first reveal, chosen by toggling cards,
// and on to the next hand's draft. Prints one JSON line of what it saw.
import { createInterface } from "node:readline";
import { join } from "node:path";
import { nextTurn, withPage } from "./launch.mjs";

const [base, out] = process.argv.slice(2);
const BUTTONS = "#actions button[data-action-id]";
const reader = createInterface({ input: process.stdin });
const lines = reader[Symbol.asyncIterator]();

async function ask(what) {
  console.log(`@@${what}`);
  const { value } = await lines.next();
  if (value !== "done") throw new Error(`${what}: ${value}`);
}

// What says where the game is: the log, the blob, the board, the status, the actions.
function position(page) {
  return page.evaluate(() => ({
    log: [...document.querySelectorAll("#log li")].map((li) => li.textContent),
    // Each move's effect lines under it (board.js: in a shadow tree).
    effects: [...document.querySelectorAll("#log li")].map((li) => {
      const holder = li.querySelector(".effects");
      return holder ? [...holder.shadowRoot.querySelectorAll("span")].map((line) => line.textContent) : [];
    }),
    blob: game.blob,
    // (The board's texts: its drawing also carries board.js's marks, the last move's a moment.)
    board: [...document.querySelectorAll("#board svg text, #board .tc-board")].map((t) => t.textContent).join("|"),
    status: document.querySelector("#game-status").textContent,
    actions: [...document.querySelectorAll("#actions button[data-action-id]")].map((b) => b.dataset.actionId),
  }));
}

async function play(page, moves) {
  for (let i = 0; i < moves; i++) {
    if ((await nextTurn(page)) !== "move") throw new Error("no move to play");
    await page.locator(BUTTONS).first().click();
  }
  await nextTurn(page);
}

await withPage(base, async (page, seen) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/?seed=7`);
  await page.locator(BUTTONS).first().waitFor();
  // Bot speed: instant, kept for the next visits.
  seen.defaultBotSpeed = await page.locator("#bot-speed").inputValue();
  seen.defaultDelay = await page.evaluate(() => botDelayMs());
  await page.selectOption("#bot-speed", "instant");
  seen.instantDelay = await page.evaluate(() => botDelayMs());
  await play(page, 3);
  const before = await position(page);
  seen.logBeforeReload = before.log.length;
  seen.effectLinesBeforeReload = before.effects.flat().length;

  // A reload resumes the game where it was.
  await page.reload();
  await page.locator(BUTTONS).first().waitFor();
  const after = await position(page);
  seen.reloadSame = Object.fromEntries(Object.keys(before).map((k) => [k, before[k] === after[k] || JSON.stringify(before[k]) === JSON.stringify(after[k])]));
  seen.botSpeedAfterReload = await page.locator("#bot-speed").inputValue();
  seen.delayAfterReload = await page.evaluate(() => botDelayMs());

  // A second tab of the game: the first is told and stops playing; a move in the second;
  // "Play here" in the first takes the game over with that move, and the second is told.
  const second = await page.context().newPage();
  await second.goto(`${base}/`);
  await second.locator(BUTTONS).first().waitFor();
  await page.locator("#other-tab").waitFor({ state: "visible" });
  seen.firstTabTold = await page.locator("#other-tab").textContent();
  seen.firstTabInert = await page.evaluate(() => document.querySelector("main").inert);
  seen.firstTabActions = await page.locator(BUTTONS).count();
  await play(second, 1);
  const moved = await position(second);
  await page.locator("#take-over").click();
  await page.locator(BUTTONS).first().waitFor();
  await second.locator("#other-tab").waitFor({ state: "visible" });
  const taken = await position(page);
  seen.takenOverWithTheMove = taken.blob === moved.blob && taken.log.join("|") === moved.log.join("|")
    && moved.log.length > after.log.length;
  seen.secondTabInert = await second.evaluate(() => document.querySelector("main").inert);
  await second.close();

  // The server stops: the move waits, "Connection lost", and goes on once it is back.
  await ask("stop");
  const logLines = after.log.length;
  await page.locator(BUTTONS).first().click();
  await page.locator("#connection").waitFor({ state: "visible" });
  seen.connectionLost = await page.locator("#connection").textContent();
  seen.statusWhileLost = await page.locator("#game-status").textContent();
  await page.waitForFunction(() => /retrying in 2 s/.test(document.querySelector("#connection").textContent), null, { timeout: 10_000 });
  seen.backoff = await page.locator("#connection").textContent();
  await ask("start");
  await page.locator("#connection").waitFor({ state: "hidden", timeout: 40_000 });
  await nextTurn(page);
  seen.statusAfterRestart = await page.locator("#game-status").textContent();
  seen.logAfterRestart = (await position(page)).log.length - logLines;
  seen.errorAfterRestart = (await page.locator("#error").isVisible()) ? await page.locator("#error").textContent() : null;
  await play(page, 1);

  // Undo while the bot thinks (the Bot speed "slow"): the move taken back, the bot's dropped.
  await page.selectOption("#bot-speed", "slow");
  let beforeUndo;
  for (let moves = 0; moves < 10; moves++) { // (the first listed actions, up to the bot's turn)
    beforeUndo = await position(page);
    await page.locator(BUTTONS).first().click();
    const next = await page.waitForFunction(() => {
      if (/ is thinking…$/.test(document.querySelector("#game-status").textContent)) return "bot";
      return document.querySelector("#actions button[data-action-id]") && !game.busy ? "human" : null;
    });
    if ((await next.jsonValue()) === "bot") break;
  }
  seen.undoWhileThinking = await page.locator("#undo-button").isEnabled();
  await page.locator("#undo-button").click();
  await page.locator(BUTTONS).first().waitFor();
  await page.waitForTimeout(1700); // (past the slow bot's pause: its move, were it made, logged)
  const afterUndo = await position(page);
  seen.undoneWhileThinking = afterUndo.log.join("|") === beforeUndo.log.join("|")
    && afterUndo.actions.join() === beforeUndo.actions.join() && afterUndo.status === beforeUndo.status;
  await page.selectOption("#bot-speed", "instant");

  // Save game: a file; two more moves; Open game takes the saved one back.
  const download = page.waitForEvent("download");
  await page.locator("#save-button").click();
  const file = join(out, "saved-game.json");
  await (await download).saveAs(file);
  const saved = await position(page);
  await play(page, 2);
  await page.locator("#open-file").setInputFiles(file);
  await page.locator("#confirm-dialog").waitFor({ state: "visible" });
  await page.locator("#confirm-ok").click();
  await page.waitForFunction((n) => document.querySelectorAll("#log li").length === n && document.querySelector("#actions button[data-action-id]"), saved.log.length);
  const opened = await position(page);
  seen.openedSame = opened.blob === saved.blob && JSON.stringify(opened.log) === JSON.stringify(saved.log) && opened.board === saved.board;

  // New game asks first: kept, then left.
  await page.locator("#new-game-button").click();
  await page.locator("#confirm-dialog").waitFor({ state: "visible" });
  seen.askText = await page.locator("#confirm-text").textContent();
  await page.locator("#confirm-cancel").click();
  await page.locator("#confirm-dialog").waitFor({ state: "hidden" });
  seen.keptAfterCancel = (await position(page)).blob === opened.blob;
  await page.locator("#new-game-button").click();
  await page.locator("#confirm-ok").click();
  await page.waitForFunction(() => document.querySelectorAll("#log li").length === 0 && document.querySelector("#actions button[data-action-id]"));
  seen.newGameLog = (await position(page)).log.length;

  // The Council: the reveal by toggling cards.
  await page.selectOption("#game-choice", "the-council");
  await page.selectOption("#seat-count", "3");
  await page.selectOption('#seat-choices select[name="seat-1"]', "beginner");
  await page.selectOption('#seat-choices select[name="seat-2"]', "beginner");
  await page.locator("#new-game-button").click();
  await page.locator("#board .tc-board").waitFor();
  seen.help = await page.locator(".tc-help summary").textContent();
  await page.locator(".tc-help summary").click();
  seen.helpTerms = await page.locator(".tc-help dt").allTextContents();
  for (let i = 0; i < 40; i++) {
    if ((await nextTurn(page)) !== "move") throw new Error("no reveal came");
    if (await page.locator("#reveal-picker .card").count()) break;
    await page.locator(BUTTONS).first().click();
  }
  seen.bidsAtReveal = await page.locator(".tc-suits .bid").count();
  const picker = page.locator("#reveal-picker button.card");
  seen.pickerCards = await picker.evaluateAll((cards) => cards.map((c) => c.dataset.card));
  seen.drafted = await page.locator('.tc-drafted ul[aria-label^="Seat 0"] .card').evaluateAll((cards) => cards.map((c) => c.dataset.card));
  seen.listed = await page.locator(`${BUTTONS} .text`).allTextContents();
  seen.confirmEmpty = await page.locator("#reveal-confirm").textContent();
  await picker.nth(0).click();
  await picker.nth(1).click();
  await picker.nth(1).click(); // (toggled off again)
  seen.pressed = await page.locator('#reveal-picker button.card[aria-pressed="true"]').evaluateAll((cards) => cards.map((c) => c.dataset.card));
  seen.confirm = await page.locator("#reveal-confirm").textContent();
  const logged = await page.locator("#log li").count();
  await page.locator("#reveal-confirm").click();
  await page.waitForFunction((n) => document.querySelectorAll("#log li").length > n, logged);
  seen.revealLogged = await page.locator("#log li").nth(logged).textContent();
  // On to the next hand's draft (or the end): the last event's bids are off the table.
  for (let i = 0; i < 60; i++) {
    const next = await nextTurn(page);
    if (next !== "move") break;
    if ((await page.evaluate(() => game.state.theCouncil.phase)) === "draft") break;
    await page.locator(BUTTONS).first().click();
  }
  seen.nextPhase = await page.evaluate(() => game.state.theCouncil.phase);
  seen.bidsAtDraft = await page.locator(".tc-suits .bid").count();
  seen.bidsInState = await page.evaluate(() => (game.state.theCouncil.seats || []).some((s) => Object.keys(s.bid || {}).length));
  seen.eventAtDraft = await page.locator(".tc-event").count();
  seen.kept = await page.evaluate(() => JSON.parse(localStorage.getItem("council-ai.game")).name);
});
reader.close(); // (stdin open would keep the script running)
process.stdin.destroy();
