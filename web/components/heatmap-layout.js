// Where everything of a heatmap goes, in SVG units (1 unit = 1 CSS pixel at natural size; the SVG
// then shrinks with its container). Pure geometry from the shape, the label texts and the font size.
//
//   row title │ row labels │ grid of cells
//                          │ column labels (flat, or rotated −45° when long)
//                          │ column title
//                          │ legend: gradient bar, min / mid / max
//                          │ "−∞ masked" swatch (only when the matrix has masked cells)
//
// The grid's size depends on the shape only; the text around it scales with `font` (12 at natural
// size). In a narrow container the heatmap asks for a larger font, so that once the SVG is shrunk
// its labels are still readable — fewer of them, but not 6 px smudges (see fitFont in heatmap.js).
import { fitText, textWidth } from './measure.js';
import { niceStep } from './ticks.js';

export const LABEL_FONT = 12;
const MAX_CELL = 44; // a 4×6 attention matrix: big enough for "−0.12" in 11 px
const GRID_TARGET = 560; // the grid's longer side when cells are smaller than MAX_CELL
const SHORT_SIDE = 160; // the least extent of a long thin matrix's short side (4×2048)
const SIN45 = Math.SQRT1_2;
const BLOCKED_KEY = '−∞  masked: weight 0';
// The room for labels comes in steps of this many units (× the font's scale), not with every pixel of
// the widest label, and a heatmap relabelling in place keeps its room (`room` below): a learner typing
// or deleting in a word then mostly moves nothing, and the heatmap rewrites its labels in place instead
// of rebuilding its skeleton (heatmap-svg.js relabelHeatmapSVG). An edit of the multi-head lesson's
// nine heatmaps took ~16 ms with a rebuild and ~6 ms with a relabel.
const LABEL_STEP = 16;

// Which labels to draw when there is not room for all: every step-th one, at a round step.
function everyNth(count, minStep) {
  const step = niceStep(Math.max(1, minStep));
  const shown = [];
  for (let i = 0; i < count; i += step) shown.push(i);
  return shown;
}

function cellSize(rows, cols) {
  let w = Math.min(MAX_CELL, GRID_TARGET / cols);
  let h = Math.min(MAX_CELL, GRID_TARGET / rows);
  // Square cells, except that a long thin matrix keeps its short side readable, not a sliver.
  if (w < h) h = Math.max(w, Math.min(h, SHORT_SIDE / rows));
  else w = Math.max(h, Math.min(w, SHORT_SIDE / cols));
  return { w, h };
}

// { rows, cols, rowLabels, colLabels, rowTitle, colTitle, blocked, font, room } → layout (fields below).
// room: an earlier layout's `room` (same font) to keep: the label room then only grows.
export function heatmapLayout({ rows, cols, rowLabels, colLabels, rowTitle, colTitle, blocked, font = LABEL_FONT,
  room: kept = null }) {
  const k = font / LABEL_FONT; // everything around the grid scales with the font
  const roomFor = (extent, keptRoom = 0) => Math.max(keptRoom, Math.ceil(extent / (LABEL_STEP * k)) * LABEL_STEP * k);
  const tickFont = 11 * k;
  const gap = 6 * k;
  const maxLabel = 110 * k; // longer labels are cut with "…" (tooltips show them whole)
  const cell = cellSize(rows, cols);

  const rowShown = everyNth(rows, (font + 2) / cell.h).map((i) => {
    const text = fitText(rowLabels[i], font, maxLabel);
    return { i, text, width: textWidth(text, font) };
  });
  const colTexts = colLabels.map((label) => fitText(label, font, maxLabel));
  const colWidths = colTexts.map((text) => textWidth(text, font));
  const widest = Math.max(0, ...colWidths);
  // Flat labels while they fit side by side; words are rotated when that shows more of them
  // (indices stay flat: thinned out to 0, 50, 100 they read better than slanted).
  const flatStep = (widest + 4 * k) / cell.w;
  const rotatedStep = (font + 2) / (cell.w * SIN45);
  const rotated = niceStep(Math.max(1, flatStep)) > niceStep(Math.max(1, rotatedStep)) && !colTexts.every((t) => /^\d+$/.test(t));
  const colShown = everyNth(cols, rotated ? rotatedStep : flatStep).map((i) => ({ i, text: colTexts[i], width: colWidths[i] }));

  const rowTitleSpace = rowTitle ? font + gap + 2 : 0;
  const rowLabelSpace = Math.max(0, ...rowShown.map((l) => l.width)) + gap;
  // The row title runs up the left edge, centred on the grid; a grid shorter than the title (one row,
  // say) would cut it at the top, so it then starts at the top and reaches down beside the column labels.
  const rowTitleWidth = rowTitle ? textWidth(rowTitle, font, 600) : 0;
  const rowTitleBelow = rowTitleWidth + 4 > rows * cell.h + 8;
  // Rotated labels hang down-left from their column: the first ones may reach past the row labels
  // (and then stay clear of a row title that reaches down beside them).
  const hang = rotated ? Math.max(0, ...colShown.map((l) => l.width * SIN45 - (l.i + 0.5) * cell.w)) : 0;
  // Label room: left of the grid, the rotated column labels' band, flat ones' overhang past gridX.
  const room = {
    left: roomFor(Math.max(rowTitleSpace + rowLabelSpace, hang + 2 + (rowTitleBelow ? rowTitleSpace : 0)), kept?.left),
    band: rotated ? roomFor(widest, kept?.band) : 0,
    right: rotated ? 0 : roomFor(Math.max(0, ...colShown.map((l) => (l.i + 0.5) * cell.w + l.width / 2)), kept?.right),
  };
  const gridX = Math.ceil(room.left + 2);
  // Room for the outline of a highlighted first row, and for the first row's label when rows are
  // thinner than a label (it is centred on its row, so half a line would stick out above the figure).
  const gridY = Math.max(4, Math.ceil(0.9 * font - cell.h / 2));
  const gridW = cols * cell.w;
  const gridH = rows * cell.h;

  let y = gridY + gridH + gap;
  const colLabelY = y;
  y += rotated ? (room.band + font) * SIN45 + gap : font + 2;
  const colTitleY = colTitle ? y + font : null;
  if (colTitle) y += font + gap;
  const legendW = Math.min(Math.max(gridW, 150 * k), 240 * k);
  const legend = { x: gridX, y: y + gap, w: legendW, h: 10 * k, tickY: y + gap + 10 * k + tickFont + 2 };
  y = legend.tickY + 4;
  const blockedKey = blocked ? { x: gridX, y: y + gap, size: font, text: BLOCKED_KEY } : null;
  if (blocked) y += gap + font;

  const colTitleWidth = colTitle ? textWidth(colTitle, font, 600) : 0;
  const blockedWidth = blocked ? font * 1.5 + textWidth(BLOCKED_KEY, tickFont) : 0;
  // A flat label centred on the last columns may stick out past the grid's right edge.
  const flatRight = rotated ? 0 : gridX + room.right;
  const width = Math.ceil(Math.max(gridX + gridW, gridX + legendW, gridX + colTitleWidth, gridX + blockedWidth, flatRight) + 6);
  return {
    font, tickFont, cell, gridX, gridY, gridW, gridH, rotated, width, height: Math.ceil(Math.max(y + 4, rowTitleWidth + 4)), room,
    rowLabels: rowShown.map(({ i, text }) => ({ i, text, x: gridX - gap, y: gridY + (i + 0.5) * cell.h })),
    colLabels: colShown.map(({ i, text }) => ({
      i, text,
      // A rotated label's baseline runs through the column's centre at the grid's edge (and its
      // glyphs rise a little above their anchor: kept off the grid).
      x: gridX + (i + 0.5) * cell.w + (rotated ? font * 0.35 : 0),
      y: rotated ? colLabelY + 4 * k : colLabelY + font * 0.8,
    })),
    rowTitle: rowTitle ? { x: font, y: Math.max(gridY + gridH / 2, rowTitleWidth / 2 + 2) } : null,
    // Centred under the grid, but never past the left edge when the grid is narrower than the title.
    colTitle: colTitle ? { x: Math.max(gridX + gridW / 2, colTitleWidth / 2 + 2), y: colTitleY } : null,
    legend,
    blockedKey,
  };
}
