// A whole game of Council of Four played on the board only (server/web/board.js), in headless
// Chromium (launch.mjs). Usage: node board_play.mjs http://127.0.0.1:PORT SCREENSHOT_DIR MODE
// MODE "mouse": clicks on the board's targets and on the chooser's buttons; first an
// inspecting click (a city with no move) and a chooser closed by Escape, which play nothing.
// MODE "keys": the keyboard only: Tab into the board, the arrow keys to the target, Enter,
// the arrow keys in the chooser, Enter; where the focus is after each move is recorded.
// Both: a 2-seat game against the beginner bot (?bot_delay_ms=0&seed=7), each turn the target
// of a build first, then an acquire, then an election, then the seat's own header (the end of
// the turn first); at a payment the balcony paid, its cheapest payment, and whether its
// chooser fits the window (mouse: at 1280x720, after the king's balcony's chooser at the
// window's bottom edge at 1280x720, 1440x900 and 390x844; keys: the king's balcony's by the
// keyboard, then the payments, on the phone).
// The board's header texts on the way, and (keys) the skip links reached by Tab from the top.
// Prints one JSON line.
import { join } from "node:path";
import { duplicateIds, endOfGame, withPage } from "./launch.mjs";

const [base, shots, mode] = process.argv.slice(2);
const MAX_MOVES = 600;
const PHONE = { width: 390, height: 844 };

// The human's turn on the board ("move": targets marked), the end ("over") or an error.
async function boardTurn(page) {
  const next = await page.waitForFunction(() => {
    if (!document.getElementById("scores").hidden) return "over";
    if (!document.getElementById("error").hidden) return "error";
    return document.querySelector("[data-piece].target") ? "move" : null;
  }, null, { timeout: 60_000, polling: 20 });
  return next.jsonValue();
}

// The targets as the page marks them: key, accessible name, and the kinds of their moves.
const targets = (page) => page.locator("[data-piece].target").evaluateAll((nodes) =>
  nodes.map((n) => ({ key: n.getAttribute("data-piece"), label: n.getAttribute("aria-label") })));

// The target this player presses: a build, an acquire, an election, the seat's header.
function pick(found) {
  const order = [/^city-/, /^tile-/, /^permit-/, /^balcony-/, /^deck-/, /^seat-/];
  for (const pattern of order) {
    const hit = found.find((t) => pattern.test(t.key));
    if (hit) return hit;
  }
  return found[0];
}

// A piece: its button, laid over its drawing.
const pieceToClick = (page, key) => page.locator(`[data-piece="${key}"]`);

// In the chooser: "end" first (a turn ends), else its first button (the cheapest payment:
// the chooser lists payments cheapest first).
const CHOICE = "#board-chooser button[data-choice-id]";
async function choiceIndex(page) {
  const texts = await page.locator(CHOICE).allTextContents();
  const end = texts.findIndex((t) => t.trim() === "end");
  return end >= 0 ? end : 0;
}

// The chooser's box against the window's: inside it, and scrolling inside itself when longer.
const chooserFit = (page) => page.locator("#board-chooser").evaluate((box) => {
  const at = box.getBoundingClientRect();
  return {
    size: `${innerWidth}x${innerHeight}`, buttons: box.querySelectorAll("button").length,
    inside: at.top >= 0 && at.left >= 0 && at.bottom <= innerHeight && at.right <= innerWidth,
    scrollsInside: box.scrollHeight <= box.clientHeight || getComputedStyle(box).overflowY === "auto",
  };
});

// The focus after Tab presses from the top of the page, then Enter.
async function skipLink(page, tabs) {
  await page.evaluate(() => { // (the focus, and so where Tab starts from, at the page's top)
    document.body.tabIndex = -1;
    document.body.focus();
    document.body.removeAttribute("tabindex");
  });
  for (let n = 0; n < tabs; n++) await page.keyboard.press("Tab");
  const link = await page.evaluate(() => document.activeElement.textContent);
  await page.keyboard.press("Enter");
  const focus = await page.evaluate(() => ({
    piece: document.activeElement.getAttribute("data-piece"),
    action: document.activeElement.closest("#actions") ? document.activeElement.dataset.actionId : null,
  }));
  return { link, ...focus };
}

await withPage(base, async (page, seen) => {
  await page.setViewportSize(mode === "keys" ? PHONE : { width: 1280, height: 720 });
  const applied = [];
  page.on("request", (r) => r.url().endsWith("/ApplyAction") && applied.push(Date.now()));
  await page.goto(`${base}/?bot_delay_ms=0&seed=7`);
  seen.mode = mode;
  seen.paymentFits = [];
  if ((await boardTurn(page)) !== "move") throw new Error("no first turn");
  seen.firstTargets = await targets(page);
  seen.duplicateIds = await duplicateIds(page);
  await page.screenshot({ path: join(shots, `board-play-${mode}-opening.png`) });

  if (mode === "mouse") {
    // An inspecting click: a city with no move plays nothing and says what it is.
    const idle = await page.locator('[data-piece^="city-"]:not(.target)').first();
    seen.inspected = await idle.getAttribute("data-piece");
    await pieceToClick(page, seen.inspected).click();
    await page.locator("#board-chooser:not([hidden])").waitFor();
    seen.inspectText = await page.locator("#board-chooser").innerText();
    seen.inspectButtons = await page.locator(CHOICE).count();
    await page.screenshot({ path: join(shots, "board-play-inspect.png") });
    await page.keyboard.press("Escape");
    seen.inspectClosed = await page.locator("#board-chooser").isHidden();
    // A target of several moves: its chooser, closed by Escape, the focus back on it.
    await pieceToClick(page, "balcony-coast").click();
    await page.locator(`${CHOICE}`).first().waitFor();
    seen.balconyChoices = await page.locator(CHOICE).allTextContents();
    seen.balconyGroups = await page.locator("#board-chooser [role=group]").evaluateAll(
      (groups) => groups.map((g) => g.getAttribute("aria-label")));
    await page.screenshot({ path: join(shots, "board-play-chooser.png") });
    await page.keyboard.press("Escape");
    seen.escapeFocus = await page.evaluate(() => document.activeElement.getAttribute("data-piece"));
    // The king's balcony (10 moves) low in the window, at each size: its chooser inside the
    // window all the same. (On the desktops at the window's bottom edge; on the phone at the
    // top of the board's viewport, the page at its top: the board starts low in the window
    // there, below the actions, and the panel goes on below the window's edge.)
    for (const [width, height] of [[1280, 720], [1440, 900], [390, 844]]) {
      await page.setViewportSize({ width, height });
      await pieceToClick(page, "balcony-king").evaluate((piece, phone) => {
        piece.scrollIntoView({ block: phone ? "start" : "end" });
        if (phone) window.scrollTo(0, 0);
      }, width < 900);
      await pieceToClick(page, "balcony-king").click();
      await page.locator(CHOICE).first().waitFor();
      seen.paymentFits.push({ ...(await chooserFit(page)), piece: "balcony-king" });
      await page.keyboard.press("Escape");
    }
    await page.setViewportSize({ width: 1280, height: 720 });
    seen.appliedAfterLooking = applied.length;
    seen.logAfterLooking = await page.locator("#log li").count();
  } else {
    // From the first action (where the page puts the focus), Shift+Tab back into the board.
    let tabs = 0;
    while (!(await page.evaluate(() => document.activeElement.hasAttribute("data-piece")))) {
      if (++tabs > 10) throw new Error("Shift+Tab never reached the board");
      await page.keyboard.press("Shift+Tab");
    }
    seen.shiftTabsToBoard = tabs;
    // The page's first Tab stops: the skip links, to the actions and to the board.
    seen.skipToActions = await skipLink(page, 1);
    seen.skipToBoard = await skipLink(page, 2);
    seen.firstFocus = seen.skipToBoard.piece;
    // The arrow keys to the king's balcony (10 moves), at the window's bottom edge: Enter
    // opens its chooser, inside the window all the same; Escape closes it.
    for (let n = 0; n < 60; n++) {
      if ((await page.evaluate(() => document.activeElement.getAttribute("data-piece"))) === "balcony-king") break;
      await page.keyboard.press("ArrowRight");
    }
    await pieceToClick(page, "balcony-king").evaluate((piece) => piece.scrollIntoView({ block: "end" }));
    await page.keyboard.press("Enter");
    await page.locator(CHOICE).first().waitFor();
    seen.paymentFits.push({ ...(await chooserFit(page)), piece: "balcony-king" });
    await page.keyboard.press("Escape");
  }

  let moves = 0;
  const payments = [];
  seen.focusAfterMove = {};
  const headers = new Set();
  for (;;) {
    const state = await boardTurn(page);
    if (state !== "move") break;
    headers.add(await page.locator("#board svg #status text").textContent());
    if (++moves > MAX_MOVES) throw new Error(`no end after ${moves} moves`);
    const found = await targets(page);
    const logged = await page.locator("#log > li").count();
    const target = pick(found);
    if (mode === "mouse") {
      await pieceToClick(page, target.key).click();
    } else {
      // Where the focus came back to after the last move (or after Tab), then the arrows.
      const at = await page.evaluate(() => document.activeElement.getAttribute("data-piece") || document.activeElement.id || document.activeElement.tagName);
      const place = found.some((t) => t.key === at) ? "target" : at;
      seen.focusAfterMove[place] = (seen.focusAfterMove[place] || 0) + 1;
      for (let n = 0; n <= found.length; n++) {
        if ((await page.evaluate(() => document.activeElement.getAttribute("data-piece"))) === target.key) break;
        await page.keyboard.press("ArrowRight");
      }
      await page.keyboard.press("Enter");
    }
    // A chooser when the target stands for several moves; else the move is logged.
    const chose = await page.waitForFunction((logged) => {
      const box = document.getElementById("board-chooser");
      if (box && !box.hidden && box.querySelector("button[data-choice-id]")) return "chooser";
      return document.querySelectorAll("#log > li").length > logged ? "played" : null;
    }, logged, { timeout: 30_000, polling: 20 });
    if ((await chose.jsonValue()) === "chooser") {
      const index = await choiceIndex(page);
      if (target.key.startsWith("balcony-") && (await page.locator(CHOICE).first().textContent()).startsWith("pay")) {
        payments.push(await page.locator("#board-chooser [role=group]").first().getAttribute("aria-label"));
        seen.paymentFits.push(await chooserFit(page));
      }
      if (mode === "mouse") {
        await page.locator(CHOICE).nth(index).click();
      } else {
        for (let n = 0; n < index; n++) await page.keyboard.press("ArrowDown");
        await page.keyboard.press("Enter");
      }
    }
    if (moves === 12) await page.screenshot({ path: join(shots, `board-play-${mode}-mid.png`) });
  }
  seen.moves = moves;
  seen.headers = [...headers];
  seen.payments = payments.slice(0, 5);
  seen.applied = applied.length;
  await endOfGame(page, seen);
  seen.duplicateIds.push(...(await duplicateIds(page)));
  await page.screenshot({ path: join(shots, `board-play-${mode}-final.png`) });
});
