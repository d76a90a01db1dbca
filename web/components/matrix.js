import { AttnLabError } from '../lib/errors.js';

// Checking what a page hands to a component: a Matrix is { rows, cols, data } row-major, where data
// may be a Float32Array or a plain number array. A wrong shape throws at once, naming the property,
// rather than drawing a misleading picture; so does a NaN (no picture of it would be true), and with
// `finite`, ±Infinity too (a line chart cannot draw them; a heatmap draws −∞ as a masked cell).
export function checkMatrix(element, property, m, { finite = false } = {}) {
  const ok = m && Number.isInteger(m.rows) && Number.isInteger(m.cols) && m.rows > 0 && m.cols > 0
    && m.data && typeof m.data.length === 'number' && m.data.length === m.rows * m.cols;
  if (!ok) {
    const shape = m && m.data ? `${m.rows}×${m.cols} with ${m.data.length} values` : typeof m;
    throw new AttnLabError(`<${element}>.${property} must be { rows, cols, data } with rows·cols values, got ${shape}`);
  }
  // A plain array may hold anything: every entry must be a number.
  if (!ArrayBuffer.isView(m.data)) {
    const bad = Array.prototype.findIndex.call(m.data, (v) => typeof v !== 'number');
    if (bad >= 0) {
      const v = m.data[bad];
      throw new AttnLabError(`<${element}>.${property}.data[${bad}] must be a number, got ${typeof v === 'string' ? JSON.stringify(v) : String(v)} (${typeof v})`);
    }
  }
  const unfit = firstUnfit(m.data, finite);
  if (unfit >= 0) {
    const row = Math.floor(unfit / m.cols);
    throw new AttnLabError(`<${element}>.${property} holds ${m.data[unfit]} at row ${row}, column ${unfit - row * m.cols}: `
      + `${finite ? 'every value must be finite' : 'a NaN has no colour (−∞ and +∞ are drawn, as masked and saturated cells)'}`);
  }
  return m;
}

// The index of the first NaN (with `finite`, the first NaN or ±Infinity), or -1. A plain loop:
// Array.prototype.findIndex over a 2000 × 2000 matrix took 200 ms of the heatmap's first draw.
function firstUnfit(data, finite) {
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (finite ? !Number.isFinite(v) : Number.isNaN(v)) return i;
  }
  return -1;
}

// Labels for an axis of `count` entries: the page's labels (one per entry), or indices when none are
// given (null). → { texts, custom } or { problem } for a list of the wrong length.
export function axisLabels(labels, count, { element, property, axis }) {
  if (labels == null) return { texts: Array.from({ length: count }, (_, i) => String(i)), custom: false };
  if (!Array.isArray(labels) || labels.length !== count) {
    const got = Array.isArray(labels) ? `${labels.length} label${labels.length === 1 ? '' : 's'}` : `a ${typeof labels}`;
    return { problem: `<${element}>.${property} has ${got} but the matrix has ${count} ${axis}` };
  }
  return { texts: labels.map(String), custom: true };
}
