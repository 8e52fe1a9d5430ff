// The page's layout at a phone's and two desktops' sizes, for both council games, in
// headless Chromium (launch.mjs). Usage: node layout.mjs http://127.0.0.1:PORT SCREENSHOT_DIR
// At 390x844, 1280x720 and 1440x900: Council of Four (4 seats, seat 0 human) at its opening,
// then The Council (5 seats) at seat 0's first bid. For each: the page's width against the
// window's (no sideways scrolling), the smallest text on screen at the default zoom (the
// HTML's, and the SVGs' as drawn: font size times the text's scale on screen, the SVG's zoom
// and its groups' transforms included), where the first action button is, whether the seats'
// panels are whole, and (Council of Four) where the actions are after a hint, whether the
// whole board (with no empty band below it), the hand and the first action are in the
// window, and on a phone each part of
// the board (its buttons above it) shown in turn: the targets then tappable (the element at a
// target's centre on screen is the target), the smallest text, the status line and the hand;
// in each of those views, every text's box (textLayout: none overlapping another, cut by its
// container or under a shape drawn over it). Kuhn poker's table at each size too (no zoom
// tools, text >= 11 px), and
// at 1440x900 a match of two hands: the cards (each blob kept, for the test to open), the pot,
// the betting, "Next hand" and the match's chips, kept across a reload.
// Writes layout-GAME-WxH.png (and kuhn-poker-showdown-WxH.png at 390x844 and 1440x900) into
// SCREENSHOT_DIR and prints one JSON line.
import { join } from "node:path";
import { newGame, nextTurn, withPage } from "./launch.mjs";

const [base, shots] = process.argv.slice(2);
const BUTTONS = "#actions button[data-action-id]";
const SIZES = [[390, 844], [1280, 720], [1440, 900]];

// Every piece of text the window shows: [px, where, text], smallest first.
export function textSizes(page) {
  return page.evaluate(() => {
    const shown = (el) => {
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== "hidden";
    };
    const sizes = [];
    for (const el of document.body.querySelectorAll("*")) {
      if (el.closest("svg") || !shown(el)) continue;
      const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join("").trim();
      if (text) sizes.push([parseFloat(getComputedStyle(el).fontSize), el.tagName.toLowerCase(), text.slice(0, 30)]);
    }
    for (const svg of document.querySelectorAll("svg")) {
      if (!shown(svg)) continue;
      const view = svg.viewBox.baseVal;
      for (const text of svg.querySelectorAll("text")) {
        // (The board's SVG is cropped above its seats' panels, which are shown apart.)
        if (svg.closest("#board") && text.closest("g.player")) continue;
        const box = text.getBBox();
        if (!text.textContent.trim() || box.y > view.y + view.height || box.y + box.height < view.y) continue;
        const matrix = text.getScreenCTM(); // (px per SVG unit on screen, transforms included)
        const px = parseFloat(getComputedStyle(text).fontSize) * Math.hypot(matrix.a, matrix.b);
        sizes.push([Math.round(px * 100) / 100, svg.closest("#board") ? "board svg" : "panel svg", text.textContent.slice(0, 30)]);
      }
    }
    return sizes.sort((a, b) => a[0] - b[0]);
  });
}

// Every text the page shows as laid out (the HTML's text nodes, the SVGs' texts), by its box
// on screen: `overlaps`, the pairs of texts whose boxes overlap (but a text and its halo,
// drawn twice at one place, and a bar kept in sight, sticky, over the page that scrolls under
// it); `cut`, the texts cut by a container that does not scroll to show the rest (overflow
// hidden, an SVG's edge; a text scrolled wholly out of sight is not shown, not cut); and
// `covered`, an SVG's texts under a shape painted after them (a council's box over the end of
// its label). The count of texts measured too.
export function textLayout(page) {
  return page.evaluate(() => {
    const TOLERANCE = 1; // px: boxes that touch are not overlapping
    // The part of `box` that the containers of `node` let show (overflow other than
    // visible, an SVG's viewport), and whether a container that cannot scroll to show the
    // rest cut it.
    const clipOf = (node, box) => {
      let [left, top, right, bottom] = [box.left, box.top, box.right, box.bottom];
      let cut = false;
      for (let el = node.parentElement; el && el !== document.documentElement; el = el.parentElement) {
        const style = getComputedStyle(el);
        const isSvg = el instanceof SVGSVGElement;
        if (!isSvg && style.overflowX === "visible" && style.overflowY === "visible") continue;
        const clip = el.getBoundingClientRect();
        const inner = isSvg ? clip : {
          left: clip.left + el.clientLeft, top: clip.top + el.clientTop,
          right: clip.left + el.clientLeft + el.clientWidth, bottom: clip.top + el.clientTop + el.clientHeight,
        };
        const scrollsX = !isSvg && el.scrollWidth > el.clientWidth + 1 && style.overflowX !== "hidden" && style.overflowX !== "clip";
        const scrollsY = !isSvg && el.scrollHeight > el.clientHeight + 1 && style.overflowY !== "hidden" && style.overflowY !== "clip";
        const n = [Math.max(left, inner.left), Math.max(top, inner.top), Math.min(right, inner.right), Math.min(bottom, inner.bottom)];
        if (n[2] - n[0] <= 0 || n[3] - n[1] <= 0) return null; // (scrolled out of sight, or hidden)
        if ((!scrollsX && (n[0] > left + TOLERANCE || n[2] < right - TOLERANCE))
          || (!scrollsY && (n[1] > top + TOLERANCE || n[3] < bottom - TOLERANCE))) cut = true;
        [left, top, right, bottom] = n;
      }
      return { left, top, right, bottom, cut };
    };
    const overlay = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const position = getComputedStyle(e).position;
        if (position === "sticky" || position === "fixed") return e;
      }
      return null;
    };
    const texts = [];
    const add = (node, box, where, text) => {
      if (box.width < 1 || box.height < 1) return;
      const shown = clipOf(node, box);
      if (!shown || shown.bottom < 0 || shown.right < 0) return;
      const el = node.nodeType === 3 ? node.parentElement : node;
      texts.push({ node, where, text: text.slice(0, 40), box: shown, cut: shown.cut, overlay: overlay(el) });
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!node.textContent.trim() || !el || el.closest("svg, script, style, .visually-hidden")) continue;
      if (!el.checkVisibility({ visibilityProperty: true })) continue; // (a closed <details>' content too)
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const box of range.getClientRects()) add(node, box, el.tagName.toLowerCase(), node.textContent.trim());
    }
    for (const text of document.querySelectorAll("svg text")) {
      if (!text.textContent.trim() || !text.checkVisibility({ visibilityProperty: true })) continue;
      if (text.closest(".visually-hidden")) continue;
      const where = text.closest("#board") ? "board svg" : "panel svg";
      add(text, text.getBoundingClientRect(), where, text.textContent.trim());
    }
    // An SVG's text under a shape filled after it (on top). (A mark's outline around a piece,
    // a stroke alone, hides none of the texts it runs along.)
    const fills = (shape) => {
      if (shape.closest("defs, clipPath, mask, pattern, marker, symbol")) return false;
      const style = getComputedStyle(shape);
      return Number(style.opacity) > 0 && style.visibility !== "hidden" && style.fill !== "none" && Number(style.fillOpacity) > 0;
    };
    const covered = [];
    for (const svg of document.querySelectorAll("svg")) {
      const drawn = [...svg.querySelectorAll("text, rect, circle, ellipse, polygon, path, image, use")];
      const shapes = drawn.map((el, i) => [el, i]).filter(([el]) => el.tagName !== "text" && fills(el))
        .map(([el, i]) => [el, i, el.getBoundingClientRect()]);
      drawn.forEach((text, i) => {
        const box = text.tagName === "text" && texts.find((t) => t.node === text)?.box;
        if (!box) return;
        const over = shapes.find(([, j, at]) => j > i
          && Math.min(box.right, at.right) - Math.max(box.left, at.left) > TOLERANCE
          && Math.min(box.bottom, at.bottom) - Math.max(box.top, at.top) > TOLERANCE);
        if (over) covered.push([`${texts.find((t) => t.node === text).where}: ${text.textContent.trim().slice(0, 30)}`, `${over[0].tagName} of ${over[0].closest("[id]")?.id || "the svg"}`]);
      });
    }
    const overlaps = [];
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        const [a, b] = [texts[i], texts[j]];
        if (a.overlay !== b.overlay) continue; // (a bar kept in sight over the page that scrolls under it)
        const same = ["left", "top", "right", "bottom"].every((side) => Math.abs(a.box[side] - b.box[side]) < 1);
        if (same && a.text === b.text) continue; // (a text on its halo: drawn twice)
        const width = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
        const height = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
        if (width > TOLERANCE && height > TOLERANCE) overlaps.push([`${a.where}: ${a.text}`, `${b.where}: ${b.text}`, Math.round(width), Math.round(height)]);
      }
    }
    const cut = texts.filter((t) => t.cut).map((t) => `${t.where}: ${t.text}`);
    return { measured: texts.length, overlaps, cut, covered };
  });
}

// Whether an element's box is inside the window.
const inWindow = (page, selector) => page.locator(selector).first().evaluate((element) => {
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth;
});

// The board's SVG whole in its viewport (no scrolling needed to see any of it), and the
// empty band below it in the viewport (px).
const boardFits = (page) => page.evaluate(() => {
  const viewport = document.getElementById("board-viewport");
  const svg = document.querySelector("#board svg").getBoundingClientRect();
  return svg.width <= viewport.clientWidth + 1 && svg.height <= viewport.clientHeight + 1;
});
const bandBelowBoard = (page) => page.evaluate(() =>
  document.getElementById("board-viewport").clientHeight - document.querySelector("#board svg").getBoundingClientRect().height);

// The targets a tap reaches now: on screen, and the element at the centre of each is it.
const tappable = (page) => page.evaluate(() => [...document.querySelectorAll("[data-piece].target")].filter((piece) => {
  const box = piece.getBoundingClientRect();
  const [x, y] = [box.left + box.width / 2, box.top + box.height / 2];
  return x >= 0 && y >= 0 && x < innerWidth && y < innerHeight && document.elementFromPoint(x, y) === piece;
}).map((piece) => piece.getAttribute("data-piece")));

// Each part of Council of Four's board shown by its button (a first tap): the targets a second
// tap reaches, the smallest text, the page's width, the status line and the hand in sight.
async function boardParts(page, size) {
  const parts = {};
  for (const part of await page.locator("#board-parts button.part").evaluateAll((buttons) => buttons.map((b) => b.dataset.part))) {
    await page.locator(`#board-parts button[data-part="${part}"]`).click();
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
    parts[part] = {
      tappable: await tappable(page),
      smallest: (await textSizes(page)).slice(0, 1),
      pageWidth: (await overflow(page)).pageWidth,
      statusInWindow: await inWindow(page, "#game-status"),
      handInWindow: await inWindow(page, "#own-area"),
      textLayout: await textLayout(page),
    };
    await page.screenshot({ path: join(shots, `layout-part-${part}-${size[0]}x${size[1]}.png`) });
  }
  return parts;
}

function overflow(page) {
  return page.evaluate(() => ({
    pageWidth: document.documentElement.scrollWidth,
    windowWidth: window.innerWidth,
  }));
}

async function layout(page, size, game) {
  const seen = { ...(await overflow(page)) };
  const sizes = await textSizes(page);
  seen.smallest = sizes.slice(0, 3);
  seen.texts = sizes.length;
  seen.actionsTop = await page.locator(BUTTONS).first().evaluate((b) => b.getBoundingClientRect().top + scrollY);
  seen.panels = await page.locator("#player-panels .panel").evaluateAll((panels) => panels.map((p) => {
    const box = p.getBoundingClientRect();
    return { left: box.left, right: box.right, width: box.width, height: box.height };
  }));
  seen.zoom = await page.locator("#board").getAttribute("data-zoom");
  seen.textLayout = await textLayout(page);
  await page.screenshot({ path: join(shots, `layout-${game}-${size[0]}x${size[1]}.png`) });
  return seen;
}

await withPage(base, async (page, seen) => {
  seen.layouts = {};
  for (const size of SIZES) {
    await page.setViewportSize({ width: size[0], height: size[1] });
    await page.goto(`${base}/?bot_delay_ms=0&seed=7`);
    await page.locator(BUTTONS).first().waitFor(); // (no call under way: none aborted)
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await page.locator(BUTTONS).first().waitFor();
    await page.selectOption("#seat-count", "4");
    await page.locator("#new-game-button").click();
    await page.waitForFunction(() => game.tickets.length === 4 && document.querySelector("#actions button[data-action-id]"));
    await page.locator("#player-panels .panel").nth(3).waitFor();
    const four = await layout(page, size, "council-of-four");
    four.boardFits = await boardFits(page);
    four.bandBelowBoard = await bandBelowBoard(page);
    four.handInWindow = await inWindow(page, "#own-area");
    four.hand = await page.locator("#own-area").textContent();
    four.actionInWindow = await inWindow(page, BUTTONS);
    four.targets = await page.locator("[data-piece].target").evaluateAll((pieces) => pieces.map((p) => p.getAttribute("data-piece")));
    four.tappable = await tappable(page);
    if (size[0] < 900) four.parts = await boardParts(page, size);
    // A hint's table goes below the actions: they stay where they were.
    await page.locator("#hint-button").click();
    await page.locator("#hint table tr").first().waitFor();
    await page.locator("#hint-button:enabled").waitFor();
    four.actionsTopAfterHint = await page.locator(BUTTONS).first().evaluate((b) => b.getBoundingClientRect().top + scrollY);
    four.afterHint = await overflow(page);
    four.smallestAfterHint = (await textSizes(page)).slice(0, 1);

    await page.selectOption("#game-choice", "the-council");
    await page.selectOption("#seat-count", "5");
    await page.locator("#new-game-button").click();
    await page.locator("#board .tc-board").waitFor();
    // Seat 0's five picks, up to its first bid: the table with the event and bids.
    for (let moves = 0; moves < 20; moves++) {
      if ((await nextTurn(page)) !== "move") throw new Error("The Council ended before a bid");
      if ((await page.locator("#decision").textContent()).startsWith("Offer chips")) break;
      await page.locator(BUTTONS).first().click();
      await page.waitForFunction(() => !document.querySelector("#actions button[data-action-id]") || game.busy === false);
    }
    const council = await layout(page, size, "the-council");

    await page.selectOption("#game-choice", "kuhn-poker");
    await newGame(page);
    await page.locator("#board .kp-table").waitFor();
    await page.locator(BUTTONS).first().waitFor();
    const kuhn = await layout(page, size, "kuhn-poker");
    kuhn.zoomToolsShown = await page.locator("#zoom-tools").isVisible();
    seen.layouts[`${size[0]}x${size[1]}`] = { "council-of-four": four, "the-council": council, "kuhn-poker": kuhn };
  }
  seen.kuhnMatch = await kuhnMatch(page);
});

// Kuhn poker's table as drawn: the phase, each seat's card, what it put in, its match chips,
// the pot, the betting; the blob (the full state for the test, which holds the seal key).
function kuhnTable(page) {
  return page.evaluate(() => ({
    phase: document.querySelector(".kp-phase").textContent,
    status: document.getElementById("game-status").textContent,
    decision: document.getElementById("decision").textContent,
    cards: [...document.querySelectorAll(".kp-seat .kp-card")].map((c) => c.textContent),
    faceDown: [...document.querySelectorAll(".kp-seat .kp-card")].map((c) => c.classList.contains("face-down")),
    inPot: [...document.querySelectorAll(".kp-seat .kp-in-pot")].map((p) => p.textContent),
    match: [...document.querySelectorAll(".kp-seat .kp-match")].map((p) => p.textContent),
    toMove: [...document.querySelectorAll(".kp-seat.to-move h3")].map((h) => h.textContent),
    pot: document.querySelector(".kp-pot").textContent,
    betting: [...document.querySelectorAll(".kp-betting li")].map((li) => li.textContent),
    over: game.over, scores: game.scores, blob: game.blob,
    nextHand: document.getElementById("next-hand-button").checkVisibility(),
  }));
}

// One hand: seat 0 bets, then the first listed action; the table at the start and the end.
async function kuhnHand(page, hand) {
  hand.start = await kuhnTable(page);
  await page.locator(BUTTONS, { hasText: /^bet/ }).first().click();
  while ((await nextTurn(page)) === "move") await page.locator(BUTTONS).first().click();
  hand.end = await kuhnTable(page);
  return hand;
}

async function kuhnMatch(page) {
  const match = { first: await kuhnHand(page, {}) };
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(shots, "kuhn-poker-showdown-390x844.png"), fullPage: true });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: join(shots, "kuhn-poker-showdown-1440x900.png") });
  await page.locator("#next-hand-button").click();
  await page.waitForFunction(() => !game.over && document.querySelector("#actions button[data-action-id]"));
  match.afterNextHand = await kuhnTable(page);
  await page.reload();
  await page.locator(BUTTONS).first().waitFor();
  match.afterReload = await kuhnTable(page);
  match.second = await kuhnHand(page, {});
  return match;
}
