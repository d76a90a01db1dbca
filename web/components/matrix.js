// Checking what a page hands to a component: a Matrix is { rows, cols, data } row-major, where data
// may be a Float32Array or a plain number array. A wrong shape throws at once, naming the property,
// rather than drawing a misleading picture.
export function checkMatrix(element, property, m) {
  const ok = m && Number.isInteger(m.rows) && Number.isInteger(m.cols) && m.rows > 0 && m.cols > 0
    && m.data && typeof m.data.length === 'number' && m.data.length === m.rows * m.cols;
  if (!ok) {
    const shape = m && m.data ? `${m.rows}×${m.cols} with ${m.data.length} values` : typeof m;
    throw new TypeError(`<${element}>.${property} must be { rows, cols, data } with rows·cols values, got ${shape}`);
  }
  return m;
}

// Labels for an axis of `count` entries: the page's labels when there is one per entry, else indices.
export function axisLabels(labels, count) {
  if (Array.isArray(labels) && labels.length === count) return { texts: labels.map(String), custom: true };
  return { texts: Array.from({ length: count }, (_, i) => String(i)), custom: false };
}
