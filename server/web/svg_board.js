// A board drawn by the server (RenderPosition's SVG), zoomed and panned in its viewport; the
// seats' panels (g.player, in a row below the board) shown apart, each a small SVG of its own
// that the page reflows (side by side on a desktop, one above the other on a phone); the
// board's SVG is cropped above them. No text is drawn below READABLE_PX at any zoom: a text
// smaller than that on screen is drawn larger (legible), and moved apart from the texts and
// shapes it would then run into (spreadApart). The default zoom shows the whole board where
// it is at least WHOLE_MIN of its size (a desktop, whose viewport is then as tall as the
// board); on a phone, one part of it across the viewport's width (the view's first part). The parts (a view's
// `boardParts`: the groups of the SVG, the seats' panels) are a row of buttons, each telling
// how many targets of the move to make it holds, that bring the part into view; "Next
// target" brings each target in turn. The user's zoom, once chosen, stays from move to move.
import { $, newElement, seatLabel } from "./page.js";

const READABLE_PX = 11;
const ZOOM_MAX = 4;
const WHOLE_MIN = 0.5; // (an 8-unit text is then drawn at most 2.75 times its size)
const PART_MARGIN = 6; // around a part shown across the viewport (SVG units)
const PART_MIN = 0.8; // a part wider than the viewport at this zoom is panned across
const PANELS = "panels"; // a part that is the seats' panels, not a group of the board's SVG
const WIDER_MAX = 1.3; // a text drawn larger runs at most this much wider than it was drawn...
const SQUEEZE_MIN = 0.65; // ...unless its letters would be narrower than this
const SQUEEZE_LEAST = 0.5; // a text narrowed to make room keeps this much of its letters' width
const SPREAD_ROUNDS = 8; // rounds of moving apart the texts that a larger drawing made overlap
const OVERLAP_PX = 0.5; // texts closer than this on screen do not overlap
const ROOM_MIN_PX = 360; // the least height of a desktop's board viewport...
const ROOM_MARGIN_PX = 16; // ...which ends this far above the window's foot
const zoom = {
  /** @type {number | null} */
  scale: null, // the user's
  current: 0,
  width: 0,
  height: 0,
  /** @type {{id: string, label: string}[]} */
  parts: [],
  nextTarget: 0,
};

/**
 * A text of `svg` drawn at READABLE_PX at least, whatever the zoom and the transforms it is
 * under (its size on screen: its font size times its screen matrix's scale); its own size
 * (the SVG's font-size) where that is enough. A text made much larger keeps to a little more
 * than its own width (its letters narrowed, down to SQUEEZE_MIN of their width), so that it
 * runs less over its neighbours; those it still runs over are then moved apart (spreadApart).
 * @param {SVGSVGElement} svg
 */
function legible(svg) {
  const texts = [...svg.querySelectorAll("text")];
  for (const text of texts) {
    if (text.dataset.size === undefined) {
      text.dataset.size = String(parseFloat(getComputedStyle(text).fontSize) || 0);
      text.dataset.width = String(text.textContent.trim() ? text.getComputedTextLength() : 0);
    }
    text.removeAttribute("dy");
    const own = Number(text.dataset.size);
    const larger = own ? Math.max(1, READABLE_PX / (perUnit(text) || 1) / own) : 1;
    text.style.fontSize = larger > 1 ? `${(own * larger).toFixed(2)}px` : "";
    const width = Number(text.dataset.width);
    if (larger > WIDER_MAX && width > 0) {
      text.setAttribute("textLength", (width * Math.max(WIDER_MAX, larger * SQUEEZE_MIN)).toFixed(1));
      text.setAttribute("lengthAdjust", "spacingAndGlyphs");
    } else if (text.hasAttribute("lengthAdjust")) {
      text.removeAttribute("textLength");
      text.removeAttribute("lengthAdjust");
    }
  }
  spreadApart(svg, texts);
}

// An SVG's shapes: those that paint (paints) may hide a text drawn before them.
const PAINTED = "rect, circle, ellipse, polygon, path, image, use";

/**
 * What a shape paints: "fill", an "outline" (a rectangle's stroke alone: a mark around a
 * piece, which hides only the texts it runs across), or "" (the pieces' buttons laid over
 * the drawings, transparent).
 * @param {Element} shape
 */
function paints(shape) {
  if (shape.closest("defs, clipPath, mask, pattern, marker, symbol")) return "";
  const style = getComputedStyle(shape);
  if (Number(style.opacity) === 0 || style.visibility === "hidden") return "";
  if (style.fill !== "none" && Number(style.fillOpacity) > 0) return "fill";
  return shape.tagName === "rect" && style.stroke !== "none" ? "outline" : "";
}

/**
 * Whether box `a` lies within box `b`.
 * @param {DOMRect} a
 * @param {DOMRect} b
 */
const boxWithin = (a, b) => a.left >= b.left && a.right <= b.right && a.top >= b.top && a.bottom <= b.bottom;

/**
 * The screen's pixels per unit of a text's own coordinates (its transforms and the zoom).
 * @param {SVGGraphicsElement} element
 */
function perUnit(element) {
  const matrix = element.getScreenCTM();
  return matrix ? Math.hypot(matrix.a, matrix.b) : 1;
}

/**
 * The texts drawn larger (legible) that now run into another text, or under a shape painted
 * after them (a council's box beside its label), moved apart: one above the other, each text
 * moves half the overlap away (the whole of it from a shape; the larger the overlap, the
 * more rounds); side by side, a text drawn larger is narrowed (down to SQUEEZE_LEAST of its
 * letters' width). A text drawn twice at one place (a white halo under it) moves as one.
 * @param {SVGSVGElement} svg
 * @param {SVGTextElement[]} texts
 */
function spreadApart(svg, texts) {
  /** @type {SVGTextElement[][]} */
  const units = [];
  for (const text of texts) {
    const last = units.at(-1)?.at(-1);
    const halo = last && last.nextElementSibling === text && last.textContent === text.textContent
      && ["x", "y"].every((a) => last.getAttribute(a) === text.getAttribute(a));
    if (halo) units[units.length - 1].push(text);
    else if (text.textContent.trim()) units.push([text]);
  }
  const larger = units.map((unit) => unit[0].style.fontSize !== "");
  if (!larger.some(Boolean)) return;
  // The shapes that paint, each with its place in the drawing order (a later one on top).
  const drawn = [...svg.querySelectorAll(`text, ${PAINTED}`)];
  const order = new Map(drawn.map((element, i) => [element, i]));
  const shapes = drawn.map((shape) => ({ shape, paint: shape.tagName === "text" ? "" : paints(shape) }))
    .filter(({ paint }) => paint)
    .map(({ shape, paint }) => ({ at: order.get(shape) ?? 0, box: shape.getBoundingClientRect(), outline: paint === "outline" }));
  for (let round = 0; round < SPREAD_ROUNDS; round++) {
    const boxes = units.map((unit) => /** @type {SVGTextElement} */ (unit.at(-1)).getBoundingClientRect());
    const up = units.map(() => 0);
    const down = units.map(() => 0);
    const narrower = units.map(() => 0);
    let moved = false;
    units.forEach((unit, i) => {
      if (!larger[i]) return;
      const a = boxes[i];
      const after = order.get(/** @type {SVGTextElement} */ (unit.at(-1))) ?? 0;
      for (const { at, box: b, outline } of shapes) {
        if (at < after || (outline && boxWithin(a, b))) continue;
        const across = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const high = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (across <= OVERLAP_PX || high <= OVERLAP_PX) continue;
        // Beside the shape (its middle within the shape's height): narrowed; else moved off.
        const beside = a.top + a.bottom > 2 * b.top && a.top + a.bottom < 2 * b.bottom;
        if (outline && !beside) continue; // (a mark's edge along a text hides a line of it at most)
        moved = true;
        if (beside) narrower[i] = Math.max(narrower[i], across + OVERLAP_PX);
        else if (a.top + a.bottom <= b.top + b.bottom) up[i] = Math.max(up[i], high + OVERLAP_PX);
        else down[i] = Math.max(down[i], high + OVERLAP_PX);
      }
    });
    for (let i = 0; i < units.length; i++) {
      for (let j = i + 1; j < units.length; j++) {
        if (!larger[i] && !larger[j]) continue; // (as the server drew them)
        const [a, b] = [boxes[i], boxes[j]];
        const across = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const high = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (across <= OVERLAP_PX || high <= OVERLAP_PX) continue;
        moved = true;
        if (high <= across) {
          const [above, below] = a.top + a.bottom <= b.top + b.bottom ? [i, j] : [j, i];
          up[above] = Math.max(up[above], high / 2 + OVERLAP_PX);
          down[below] = Math.max(down[below], high / 2 + OVERLAP_PX);
        } else {
          const both = larger[i] && larger[j] ? 2 : 1;
          for (const k of [i, j]) if (larger[k]) narrower[k] = Math.max(narrower[k], across / both + OVERLAP_PX);
        }
      }
    }
    if (!moved) return;
    units.forEach((unit, k) => {
      const scale = perUnit(unit[0]) || 1;
      const shift = (down[k] - up[k]) / scale;
      const width = narrower[k] ? Math.max(
        Number(unit[0].dataset.width) * (parseFloat(unit[0].style.fontSize) / Number(unit[0].dataset.size)) * SQUEEZE_LEAST,
        boxes[k].width / scale - narrower[k] / scale) : 0;
      for (const text of unit) {
        if (shift) text.setAttribute("dy", (Number(text.getAttribute("dy") || 0) + shift).toFixed(2));
        if (width) {
          text.setAttribute("textLength", width.toFixed(1));
          text.setAttribute("lengthAdjust", "spacingAndGlyphs");
        }
      }
    });
  }
}

/** @returns {SVGSVGElement | null} */
const boardSvg = () => $("board").querySelector("svg");

/**
 * After the board's SVG is put in #board: cropped, zoomed, its panels apart, its parts (the
 * view's `boardParts`: an SVG group's id, or "panels", and a label) a row of buttons.
 * @param {{id: string, label: string}[]} [parts]
 */
export function fitBoard(parts = []) {
  const svg = boardSvg();
  if (!svg) return;
  const [, , width, fullHeight] = (svg.getAttribute("viewBox") || "").split(/\s+/).map(Number);
  const panels = [...svg.querySelectorAll("g.player")];
  const top = Math.min(...panels.map((g) => Number(g.querySelector("rect")?.getAttribute("y") ?? fullHeight)));
  const height = Number.isFinite(top) && top < fullHeight ? top - 6 : fullHeight;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("preserveAspectRatio", "xMinYMin meet");
  Object.assign(zoom, { width, height, parts: parts.filter((part) => part.id === PANELS || svg.getElementById(part.id)) });
  showParts();
  // The new drawing at the zoom of the one it replaces, so that the view stays where it was.
  if (zoom.current) svg.setAttribute("width", String(Math.round(width * zoom.current)));
  setZoom(zoom.scale ?? defaultZoom(), 0, 0, false);
  showPanels(svg, panels);
}

// The whole board, where it is large enough; else (a phone) the first part across the width.
function defaultZoom() {
  const whole = wholeBoardZoom();
  const first = zoom.parts.map((part) => partBox(part.id)).find(Boolean);
  return whole >= WHOLE_MIN || !first ? whole : partZoom(first);
}

/**
 * A part of the board's SVG, in its units, with a margin; null for the panels (or none).
 * @param {string} id
 * @returns {{x: number, y: number, width: number, height: number} | null}
 */
function partBox(id) {
  const group = id === PANELS ? null : /** @type {SVGGraphicsElement | null} */ (boardSvg()?.getElementById(id) ?? null);
  if (!group) return null;
  const box = group.getBBox();
  return {
    x: box.x - PART_MARGIN, y: box.y - PART_MARGIN,
    width: box.width + 2 * PART_MARGIN, height: box.height + 2 * PART_MARGIN,
  };
}

/**
 * The zoom that shows a part whole in the viewport; a part too wide for that at PART_MIN
 * (the king's board on a phone) at PART_MIN, from its left edge.
 * @param {{width: number, height: number}} box
 */
function partZoom(box) {
  const viewport = $("board-viewport");
  return Math.min(roomHeight() / box.height, Math.max(viewport.clientWidth / box.width, PART_MIN));
}

/**
 * A part brought into view: the board zoomed to it (the user's zoom from then on) and
 * scrolled to it, the viewport in the window; the panels scrolled to.
 * @param {string} id
 */
function showPart(id) {
  if (id === PANELS) {
    $("player-panels").scrollIntoView({ block: "start" });
    return;
  }
  const box = partBox(id);
  if (!box) return;
  const viewport = $("board-viewport");
  setZoom(partZoom(box));
  viewport.scrollLeft = box.x * zoom.current;
  viewport.scrollTop = box.y * zoom.current;
  viewport.scrollIntoView({ block: "nearest" });
}

// The row of the parts' buttons (and "Next target") above the board's viewport.
function showParts() {
  let nav = $("board-parts");
  if (!nav) {
    nav = newElement("nav", "board-parts");
    nav.id = "board-parts";
    nav.setAttribute("aria-label", "Parts of the board");
    $("board-viewport").before(nav);
  }
  nav.hidden = !zoom.parts.length;
  const ids = zoom.parts.map((part) => part.id).join(" ");
  if (nav.dataset.parts === ids) return markParts(); // (the same buttons: the focus stays)
  nav.dataset.parts = ids;
  nav.replaceChildren();
  for (const part of zoom.parts) {
    const button = newElement("button", "part", part.label);
    button.type = "button";
    button.dataset.part = part.id;
    button.addEventListener("click", () => showPart(part.id));
    nav.append(button);
  }
  const next = newElement("button", "next-target", "Next target");
  next.type = "button";
  next.id = "next-target";
  next.addEventListener("click", nextTarget);
  nav.append(next);
  markParts();
}

// The board's pieces that play a move now (a view marks them: [data-piece].target).
const targets = () => /** @type {SVGGraphicsElement[]} */ ([...$("board-panel").querySelectorAll("[data-piece].target")]);

/**
 * After the targets change (a view's `turn` or `clear`): each part's button says how many
 * targets it holds, "Next target" how many there are.
 */
export function markParts() {
  const svg = boardSvg();
  if (svg) legible(svg); // (the marks the view drew since, their text too)
  const nav = $("board-parts");
  if (!nav) return;
  const all = targets();
  zoom.nextTarget = 0;
  for (const button of nav.querySelectorAll("button.part")) {
    const id = button.dataset.part;
    const box = partBox(id);
    const inside = all.filter((target) => {
      if (id === PANELS) return Boolean(target.closest("#player-panels"));
      if (!box || target.closest("#player-panels")) return false;
      const at = target.getBBox();
      const [x, y] = [at.x + at.width / 2, at.y + at.height / 2];
      return x >= box.x && x <= box.x + box.width && y >= box.y && y <= box.y + box.height;
    });
    const label = zoom.parts.find((part) => part.id === id)?.label || id;
    button.textContent = inside.length ? `${label} (${inside.length})` : label;
    button.classList.toggle("has-targets", inside.length > 0);
    button.dataset.targets = inside.map((target) => target.getAttribute("data-piece")).join(" ");
  }
  const next = $("next-target");
  next.disabled = !all.length;
  next.textContent = all.length ? `Next target (${all.length})` : "Next target";
}

// "Next target": each target in turn brought into view (a part's zoom at least) and focused.
function nextTarget() {
  const all = targets();
  if (!all.length) return;
  const target = all[zoom.nextTarget % all.length];
  zoom.nextTarget += 1;
  if (!target.closest("#player-panels")) {
    const box = zoom.parts.map((part) => partBox(part.id)).find(Boolean);
    if (box && zoom.current < partZoom(box)) setZoom(partZoom(box));
  }
  target.scrollIntoView({ block: "center", inline: "center" });
  target.focus({ preventScroll: true });
}

// The whole board in the viewport.
function wholeBoardZoom() {
  const viewport = $("board-viewport");
  return Math.min(viewport.clientWidth / zoom.width, roomHeight() / zoom.height);
}

// The height the viewport gives the board: on a phone its own; on a desktop, where it takes
// the board's height (no empty band below a board that the width limits), the most it may
// grow to: the window's height below its top (--board-room, style.css's max-height).
function roomHeight() {
  const viewport = $("board-viewport");
  const top = viewport.getBoundingClientRect().top + scrollY;
  viewport.style.setProperty("--board-room", `${Math.max(ROOM_MIN_PX, innerHeight - top - ROOM_MARGIN_PX)}px`);
  const most = parseFloat(getComputedStyle(viewport).maxHeight);
  return Number.isFinite(most) ? most : viewport.clientHeight;
}

/**
 * Zooms to `scale`, keeping the board's point under (x, y) of the viewport where it was;
 * `chosen`: the user's zoom, kept for the next drawings.
 * @param {number} scale
 * @param {number} [x]
 * @param {number} [y]
 * @param {boolean} [chosen]
 */
function setZoom(scale, x = 0, y = 0, chosen = true) {
  const svg = boardSvg();
  if (!svg || !zoom.width) return;
  const viewport = $("board-viewport");
  const old = svg.width.baseVal.value / zoom.width || scale;
  scale = Math.min(Math.max(scale, wholeBoardZoom()), ZOOM_MAX);
  const pointX = (viewport.scrollLeft + x) / old;
  const pointY = (viewport.scrollTop + y) / old;
  svg.setAttribute("width", String(Math.round(zoom.width * scale)));
  svg.setAttribute("height", String(Math.round(zoom.height * scale)));
  viewport.scrollLeft = pointX * scale - x;
  viewport.scrollTop = pointY * scale - y;
  if (chosen) zoom.scale = scale;
  zoom.current = scale;
  $("board").dataset.zoom = scale.toFixed(3);
  legible(svg);
}

/**
 * @param {number} factor
 * @param {number} [x]
 * @param {number} [y]
 */
function zoomBy(factor, x, y) {
  const viewport = $("board-viewport");
  const svg = boardSvg();
  if (!svg) return;
  const current = svg.width.baseVal.value / zoom.width;
  setZoom(current * factor, x ?? viewport.clientWidth / 2, y ?? viewport.clientHeight / 2);
}

/**
 * @param {SVGSVGElement} svg
 * @param {Element[]} panels
 */
function showPanels(svg, panels) {
  const box = $("player-panels");
  box.replaceChildren();
  for (const g of panels) {
    const rect = /** @type {Element} */ (g.querySelector("rect"));
    const [x, y, w, h] = ["x", "y", "width", "height"].map((a) => Number(rect.getAttribute(a)));
    const panel = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    panel.setAttribute("viewBox", `${x - 3} ${y - 3} ${w + 6} ${h + 6}`);
    panel.setAttribute("font-family", svg.getAttribute("font-family") || "sans-serif");
    panel.setAttribute("role", "img");
    const seat = Number(g.getAttribute("data-seat") || 0);
    panel.setAttribute("aria-label", `${seatLabel(seat)}: the seat's panel`);
    const copy = /** @type {Element} */ (g.cloneNode(true)); // (ids dropped: the board's SVG holds the originals)
    for (const element of [copy, ...copy.querySelectorAll("[id]")]) element.removeAttribute("id");
    panel.append(copy);
    const wrapper = newElement("div", "panel");
    wrapper.dataset.seat = String(seat);
    wrapper.append(panel);
    box.append(wrapper);
    legible(panel);
  }
}

// The zoom's buttons, Ctrl+wheel (a trackpad's pinch), two fingers' pinch, a mouse's drag.
export function setUpZoom() {
  const viewport = $("board-viewport");
  /** @param {{clientX: number, clientY: number}} event */
  const within = (event) => {
    const box = viewport.getBoundingClientRect();
    return /** @type {[number, number]} */ ([event.clientX - box.left, event.clientY - box.top]);
  };
  $("zoom-in").addEventListener("click", () => zoomBy(1.25));
  $("zoom-out").addEventListener("click", () => zoomBy(0.8));
  $("zoom-reset").addEventListener("click", () => {
    zoom.scale = null;
    setZoom(defaultZoom(), 0, 0, false);
    viewport.scrollTo(0, 0);
  });
  $("zoom-fit").addEventListener("click", () => setZoom(wholeBoardZoom()));
  viewport.addEventListener("wheel", (/** @type {WheelEvent} */ event) => {
    if (!event.ctrlKey || !boardSvg()) return;
    event.preventDefault();
    zoomBy(Math.exp(-event.deltaY / 300), ...within(event));
  }, { passive: false });
  /** @type {{spread: number, scale: number} | null} */
  let pinch = null;
  /** @param {TouchList} touches */
  const spread = (touches) => Math.hypot(touches[0].clientX - touches[1].clientX, touches[0].clientY - touches[1].clientY);
  viewport.addEventListener("touchstart", (/** @type {TouchEvent} */ event) => {
    const svg = boardSvg();
    if (event.touches.length !== 2 || !svg) return;
    pinch = { spread: spread(event.touches), scale: svg.width.baseVal.value / zoom.width };
  }, { passive: true });
  viewport.addEventListener("touchmove", (/** @type {TouchEvent} */ event) => {
    if (!pinch || event.touches.length !== 2) return;
    event.preventDefault();
    const [a, b] = event.touches;
    const middle = { clientX: (a.clientX + b.clientX) / 2, clientY: (a.clientY + b.clientY) / 2 };
    setZoom(pinch.scale * spread(event.touches) / pinch.spread, ...within(middle));
  }, { passive: false });
  viewport.addEventListener("touchend", () => { pinch = null; });
  // A mouse drag pans (a click that did not move still picks on the board).
  /** @type {{x: number, y: number, left: number, top: number, moved: boolean} | null} */
  let drag = null;
  viewport.addEventListener("pointerdown", (/** @type {PointerEvent} */ event) => {
    if (event.pointerType !== "mouse" || event.button !== 0) return;
    drag = { x: event.clientX, y: event.clientY, left: viewport.scrollLeft, top: viewport.scrollTop, moved: false };
  });
  viewport.addEventListener("pointermove", (/** @type {PointerEvent} */ event) => {
    if (!drag || !(event.buttons & 1)) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 5) return;
    drag.moved = true;
    viewport.scrollLeft = drag.left - dx;
    viewport.scrollTop = drag.top - dy;
  });
  viewport.addEventListener("click", (/** @type {MouseEvent} */ event) => {
    if (drag && drag.moved) event.stopPropagation(); // (a drag is no click on the board)
    drag = null;
  }, true);
  window.addEventListener("resize", () => {
    const svg = boardSvg();
    if (!svg) return;
    if (zoom.scale === null) setZoom(defaultZoom(), 0, 0, false);
    legible(svg);
    for (const panel of $("player-panels").querySelectorAll("svg")) legible(panel);
  });
}
