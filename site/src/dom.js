// Building DOM without HTML strings: learner text only ever becomes textContent.
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'on') for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    else if (key in node && typeof value !== 'string') node[key] = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// A labelled form control: <label>text <control></label>.
export function field(label, control, hint) {
  return el('label', { class: 'field' }, el('span', { class: 'field-label', text: label }), control,
    hint ? el('span', { class: 'field-hint', text: hint }) : null);
}

export function select(options, value, onChange) {
  const node = el('select', { on: { change: (e) => onChange(e.target.value) } },
    options.map(([v, text]) => el('option', { value: v, text, selected: String(v) === String(value) })));
  return node;
}

export function formatNumber(x, decimals = 2) {
  if (x === -Infinity) return '−∞';
  if (x === Infinity) return '∞';
  const text = x.toFixed(decimals);
  // a value that rounds to zero is shown as 0, never "−0.00"
  return Number(text) === 0 ? (0).toFixed(decimals) : text.replace('-', '−');
}

// "1 piece", "2 pieces": a count with its noun (plural: the noun's plural when it is not noun + s).
export function count(n, noun, plural = `${noun}s`) {
  return `${n.toLocaleString('en')} ${n === 1 ? noun : plural}`;
}

// A probability as a percentage a learner can read: one decimal from 0.1% up, two significant digits
// below it (a rare token drawn reads 0.031%, not 0.0%), and 0% only for what cannot be drawn.
export function formatPercent(p) {
  const percent = p * 100;
  if (percent === 0) return '0%';
  return `${percent >= 0.1 ? formatNumber(percent, 1) : Number(percent.toPrecision(2)).toString()}%`;
}

// Learner text quoted inside one of the page's own sentences: isolated (FSI … PDI) and without its
// embedding and override controls, so a right-to-left override (U+202E) in a word cannot reverse
// the rest of the sentence, numbers included ("0.0 in every row." showed as ".wor yreve ni 0.0").
export function isolated(text) {
  return `\u2068${String(text).replace(/[\u202A-\u202E\u2066-\u2069]/g, '')}\u2069`;
}

// "5×8" for a Matrix.
export const shape = (m) => `${m.rows}×${m.cols}`;
