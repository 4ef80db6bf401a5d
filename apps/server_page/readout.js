// The readout of a heat map, the same on the translation page's maps and the ViT page's: the
// pointer over a cell, or the arrow keys on a focused map (starting where the pointer last
// was), outline that cell (#cell-outline) and say what it holds in the tooltip (#tooltip).
// The tooltip sits beside the pointer (or beside the cell, from the keyboard), turned to the
// pointer's other side where it would leave the map's figure, and kept inside that figure:
// it never covers another map. Both elements are children of <body> (which has no
// positioning of its own), placed in page coordinates. Escape or leaving the map hides them;
// when the window is resized they move with the cell (replaceReadout).
// For tests, the map's canvas says which cell is highlighted in data-highlight="ROW,COL".
// Loaded first: page.js and vit.js use it.
"use strict";

// Page coordinates of a rectangle in the viewport's (getBoundingClientRect's).
function onPage(r) {
  return { left: r.left + window.scrollX, top: r.top + window.scrollY, right: r.right + window.scrollX,
           bottom: r.bottom + window.scrollY, width: r.right - r.left, height: r.bottom - r.top };
}

// The cell the readout shows: {canvas, grid, i, j}, or null.
let shownReadout = null;

function hideReadout() {
  shownReadout = null;
  for (const id of ["tooltip", "cell-outline"]) {
    const element = document.getElementById(id);
    if (element) element.hidden = true;
  }
  document.querySelectorAll("canvas[data-highlight]").forEach((c) => { delete c.dataset.highlight; });
}

// Outlines cell (i, j) of `canvas` and writes its text in the tooltip, beside `pointer` (a
// point in the viewport) or, without one, beside the cell.
function showReadout(canvas, grid, i, j, pointer) {
  const tip = document.getElementById("tooltip"), outline = document.getElementById("cell-outline");
  document.querySelectorAll("canvas[data-highlight]").forEach((c) => { if (c !== canvas) delete c.dataset.highlight; });
  const c = canvas.getBoundingClientRect();
  const r = grid.cellRect(i, j);  // in the canvas's CSS pixels
  const cell = onPage({ left: c.left + r.left, top: c.top + r.top, right: c.left + r.left + r.width,
                        bottom: c.top + r.top + r.height });
  Object.assign(outline.style, { left: `${cell.left}px`, top: `${cell.top}px`, width: `${cell.width}px`,
                                 height: `${cell.height}px` });
  outline.hidden = false;

  // Measured where it cannot wrap against the window's edge, at most the figure's width.
  const bounds = onPage((canvas.closest("figure") || canvas).getBoundingClientRect());
  tip.textContent = grid.text(i, j);
  Object.assign(tip.style, { left: "0px", top: "0px", maxWidth: `${Math.max(60, Math.floor(bounds.width))}px` });
  tip.hidden = false;
  const w = tip.offsetWidth, h = tip.offsetHeight;
  const gap = pointer ? 12 : 4;
  const anchor = pointer
    ? onPage({ left: pointer.x, right: pointer.x, top: pointer.y, bottom: pointer.y })
    : cell;
  let x = anchor.right + gap;
  if (x + w > bounds.right) x = anchor.left - gap - w;
  x = Math.max(bounds.left, Math.min(x, bounds.right - w));
  let y = anchor.bottom + gap;
  if (y + h > bounds.bottom) y = anchor.top - gap - h;
  y = Math.max(bounds.top, Math.min(y, bounds.bottom - h));
  tip.style.left = `${Math.round(x)}px`;
  tip.style.top = `${Math.round(y)}px`;
  canvas.dataset.highlight = `${i},${j}`;
  shownReadout = { canvas, grid, i, j };
}

// After the layout changed (the window resized): the readout again beside its cell, or
// hidden when its map is gone or hidden.
function replaceReadout() {
  const shown = shownReadout;
  if (shown && shown.canvas.isConnected && shown.canvas.getBoundingClientRect().width > 0) {
    showReadout(shown.canvas, shown.grid, shown.i, shown.j, null);
  } else {
    hideReadout();
  }
}

// Hover and arrow keys on `canvas`. grid: rows(), cols(), cellAt(x, y) -> [i, j] or null for a
// point in the canvas's CSS pixels, cellRect(i, j) -> {left, top, width, height} in them, and
// text(i, j), the cell's reading.
function attachReadout(canvas, grid) {
  let at = [0, 0];
  canvas.addEventListener("mousemove", (event) => {
    const r = canvas.getBoundingClientRect();
    const cell = grid.cellAt(event.clientX - r.left, event.clientY - r.top);
    if (!cell) {
      hideReadout();
      return;
    }
    at = cell;
    showReadout(canvas, grid, at[0], at[1], { x: event.clientX, y: event.clientY });
  });
  canvas.addEventListener("mouseleave", hideReadout);
  canvas.addEventListener("blur", hideReadout);
  canvas.addEventListener("focus", () => {
    if (canvas.matches(":focus-visible")) showReadout(canvas, grid, at[0], at[1], null);
  });
  canvas.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      hideReadout();
      return;
    }
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const move = moves[event.key];
    if (!move || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();  // the arrow keys move the cell, not the page
    at = [Math.min(grid.rows() - 1, Math.max(0, at[0] + move[0])), Math.min(grid.cols() - 1, Math.max(0, at[1] + move[1]))];
    showReadout(canvas, grid, at[0], at[1], null);
  });
}
