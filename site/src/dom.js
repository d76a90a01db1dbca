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
  const node = el('select', { on: { change: (e) => onChange(e.target.value) } });
  return setOptions(node, options, value);
}

// A select's options and chosen value set in place: the element stays, so the learner's keyboard
// focus stays on it (a select rebuilt on every change dropped it), and options that did not change
// are not touched. options: [[value, text], …].
export function setOptions(node, options, value) {
  while (node.options.length > options.length) node.lastElementChild.remove();
  options.forEach(([v, text], i) => {
    const option = node.options[i] ?? node.appendChild(el('option'));
    if (option.value !== String(v)) option.value = String(v);
    if (option.textContent !== text) option.textContent = text;
  });
  // a value that is not among the options shows the first, as a newly built select does
  const chosen = Math.max(0, options.findIndex(([v]) => String(v) === String(value)));
  if (node.selectedIndex !== chosen) node.selectedIndex = chosen;
  return node;
}

// Notes under a text box, each under its own name (the box's own "cut" note, the lesson's note on what
// it did with the text), shown together in the box's hint, in the order of `names`.
const boxNotes = new WeakMap();  // a box's field → its hint and its notes
export function keepNotes(box, hint, names) {
  boxNotes.set(box, { hint, notes: Object.fromEntries(names.map((name) => [name, ''])) });
}
// Sets one of a box's notes (name 'tokens': the lesson's own); a box without notes is left as it is.
export function noteUnder(box, text, name = 'tokens') {
  const held = boxNotes.get(box);
  if (!held) return;
  held.notes[name] = text;
  held.hint.textContent = Object.values(held.notes).filter(Boolean).join(' ');
  held.hint.hidden = held.hint.textContent === '';
}

// The largest difference between two computations that should agree: "0 (exactly equal)" when they
// agree bit for bit (never "0.0e+0"), otherwise two significant digits, "3.0e-8".
export const formatDifference = (x) => (x === 0 ? '0 (exactly equal)' : x.toExponential(1));

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

// What a cut left out, in words that agree with the count: "the last character was left out", "the last
// 3 were left out" (the sentence has named what they are; verb: 'not translated', say, for another outcome).
export function lastLeftOut(n, noun, verb = 'left out') {
  return n === 1 ? `the last ${noun} was ${verb}` : `the last ${n.toLocaleString('en')} were ${verb}`;
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
