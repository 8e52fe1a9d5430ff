// A board drawn by the server (RenderPosition's SVG), zoomed and panned in its viewport; the
// seats' panels (g.player, in a row below the board) shown apart, each a small SVG of its own
// that the page reflows (side by side on a desktop, one above the other on a phone); the
// board's SVG is cropped above them. Its default zoom makes its smallest text READABLE_PX (at
// least the viewport's width); the user's zoom, once chosen, stays from move to move.
import { $, newElement, seatLabel } from "./page.js";

const READABLE_PX = 11;
const ZOOM_MAX = 4;
const zoom = {
  /** @type {number | null} */
  scale: null, // the user's
  current: 0,
  width: 0,
  height: 0,
  readable: 1,
};

/** @returns {SVGSVGElement | null} */
const boardSvg = () => $("board").querySelector("svg");

// After the board's SVG is put in #board: cropped, zoomed, its panels apart.
export function fitBoard() {
  const svg = boardSvg();
  if (!svg) return;
  const [, , width, fullHeight] = (svg.getAttribute("viewBox") || "").split(/\s+/).map(Number);
  const panels = [...svg.querySelectorAll("g.player")];
  const top = Math.min(...panels.map((g) => Number(g.querySelector("rect")?.getAttribute("y") ?? fullHeight)));
  const height = Number.isFinite(top) && top < fullHeight ? top - 6 : fullHeight;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("preserveAspectRatio", "xMinYMin meet");
  Object.assign(zoom, { width, height });
  // The smallest text of the board (the panels apart) at scale 1.
  const sizes = [...svg.querySelectorAll("text")].filter((t) => !t.closest("g.player"))
    .map((t) => parseFloat(getComputedStyle(t).fontSize)).filter((size) => size > 0);
  zoom.readable = sizes.length ? READABLE_PX / Math.min(...sizes) : 1;
  // The new drawing at the zoom of the one it replaces, so that the view stays where it was.
  if (zoom.current) svg.setAttribute("width", String(Math.round(width * zoom.current)));
  setZoom(zoom.scale ?? defaultZoom(), 0, 0, false);
  showPanels(svg, panels);
}

function defaultZoom() {
  return Math.max(zoom.readable, $("board-viewport").clientWidth / zoom.width || 0);
}

// The whole board in the viewport.
function wholeBoardZoom() {
  const viewport = $("board-viewport");
  return Math.min(viewport.clientWidth / zoom.width, viewport.clientHeight / zoom.height);
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
  scale = Math.min(Math.max(scale, Math.min(wholeBoardZoom(), zoom.readable)), ZOOM_MAX);
  const pointX = (viewport.scrollLeft + x) / old;
  const pointY = (viewport.scrollTop + y) / old;
  svg.setAttribute("width", String(Math.round(zoom.width * scale)));
  svg.setAttribute("height", String(Math.round(zoom.height * scale)));
  viewport.scrollLeft = pointX * scale - x;
  viewport.scrollTop = pointY * scale - y;
  if (chosen) zoom.scale = scale;
  zoom.current = scale;
  $("board").dataset.zoom = scale.toFixed(3);
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
    if (boardSvg() && zoom.scale === null) setZoom(defaultZoom(), 0, 0, false);
  });
}
