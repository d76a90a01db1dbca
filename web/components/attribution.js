// <attn-attribution>: signed contributions (direct logit attribution's terms, or any signed parts of a
// whole) as horizontal bars either side of one zero line, one row per item, in the order given: HTML,
// so the labels wrap and stay readable on a phone. Positive bars are blue, negative red (the ends of
// RdBu, the diverging palette of signed values); the scale is shared by every row, so a bar's length is
// its |value| over the largest reach on either side.
//
// With `selectable`, rows are buttons (click, tap, Enter or Space): the one pressed becomes `chosen`
// (aria-pressed) and item-select fires. Rows are kept per key and moved only when the order changes,
// so the button under the reader's focus stays when the page redraws. Positions and widths go through
// the CSSOM: a page whose Content-Security-Policy refuses style attributes still draws them.
import { attributeProperties, RenderedElement } from './base.js';
import { figureShell } from './figure.js';
import { formatFixed } from './format.js';
import { checkItems } from './interp-input.js';

const TAG = 'attn-attribution';
const CSS = `
figure { width: 100%; }
.rows { list-style: none; padding: 0; margin: 0; display: grid; gap: 0.15rem; }
.row { display: grid; grid-template-columns: minmax(4.5rem, 7rem) 1fr 4.5rem; gap: 0.5rem; align-items: center;
  box-sizing: border-box; width: 100%; font: inherit; font-size: 0.9rem; line-height: 1.2; text-align: left;
  padding: 0.2rem 0.3rem; border: 1px solid transparent; border-radius: 4px; }
button.row { background: none; cursor: pointer; min-height: 2.75rem; border-color: var(--attnlab-ink-grid); }
button.row:hover:not(:disabled) { background: none; border-color: var(--attnlab-ink-muted); }
button.row[aria-pressed="true"] { border: 2px solid currentColor; font-weight: 700; }
.label { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
.track { position: relative; height: 1rem; background: color-mix(in srgb, currentColor 8%, transparent); border-radius: 3px; }
.zero { position: absolute; top: -0.2rem; bottom: -0.2rem; width: 0; border-left: 2px solid currentColor; margin-left: -1px; }
.bar { position: absolute; top: 0; bottom: 0; background: #2166ac; border-radius: 2px; }
.bar.negative { background: #b2182b; }
.value { font-variant-numeric: tabular-nums; text-align: right; }
`;

// A value as a row prints it by default: signed, 3 decimals, a true minus sign.
const signed = (value) => `${value > 0 ? '+' : ''}${formatFixed(value, 3)}`;

const span = (className, part = className) => {
  const node = document.createElement('span');
  node.className = className;
  if (part) node.setAttribute('part', part);
  return node;
};

export class AttnAttribution extends RenderedElement {
  static upgradedProperties = ['items'];

  #items = [];
  #list = document.createElement('ol');
  #rows = new Map(); // key → { li, row, label, zero, bar, value, button }
  #caption;

  constructor() {
    super();
    const { caption, body } = figureShell(this, CSS, null, 'attribution');
    this.#caption = caption;
    this.#list.className = 'rows';
    this.#list.setAttribute('part', 'list');
    body.append(this.#list);
  }

  get items() { return this.#items; }
  // [{ key, label, value, text?, selectable? }] in the order shown; anything else throws, naming it.
  set items(list) {
    this.#items = list == null ? [] : checkItems(TAG, 'items', list);
    this.requestRender();
  }

  render() {
    this.#caption.textContent = this.caption;
    this.#list.setAttribute('aria-label', this.caption || 'Contributions');
    const items = this.#items;
    // The track spans the largest reach below 0 and the largest above it (a sliver where a side is empty).
    const below = Math.max(1e-12, ...items.map((i) => -i.value));
    const above = Math.max(1e-12, ...items.map((i) => i.value));
    const range = below + above;
    const zero = below / range; // where 0 sits along the track, as a share of its width
    const chosen = this.chosen;
    const shown = items.map((item) => {
      const r = this.#rowFor(item);
      const text = item.text ?? signed(item.value);
      const share = Math.abs(item.value) / range;
      r.label.textContent = item.label;
      r.value.textContent = text;
      r.zero.style.left = `${(zero * 100).toFixed(4)}%`;
      r.bar.style.left = `${((item.value < 0 ? zero - share : zero) * 100).toFixed(4)}%`;
      r.bar.style.width = `${(share * 100).toFixed(4)}%`;
      r.bar.classList.toggle('negative', item.value < 0);
      r.bar.setAttribute('part', item.value < 0 ? 'bar negative' : 'bar');
      if (r.button) r.row.setAttribute('aria-pressed', String(item.key === chosen));
      return r.li;
    });
    for (const [key, r] of this.#rows) if (!items.some((i) => i.key === key)) { r.li.remove(); this.#rows.delete(key); }
    // Moved only when the order changed: a row moved in the DOM would lose the reader's focus.
    if (shown.some((li, i) => this.#list.children[i] !== li) || this.#list.children.length !== shown.length) this.#list.replaceChildren(...shown);
  }

  // The row of item.key, made on first use and again when it turns from text into a button or back.
  #rowFor(item) {
    const button = item.selectable ?? this.selectable;
    const kept = this.#rows.get(item.key);
    if (kept && kept.button === button) return kept;
    const r = { button, label: span('label'), zero: span('zero'), bar: span('bar'), value: span('value') };
    const track = span('track');
    track.append(r.zero, r.bar);
    r.row = document.createElement(button ? 'button' : 'span');
    r.row.className = 'row';
    r.row.setAttribute('part', 'row');
    if (button) {
      r.row.type = 'button';
      r.row.setAttribute('aria-pressed', 'false');
      // A click from Enter or Space has detail 0; a pointer's counts its clicks.
      r.row.addEventListener('click', (event) => this.#select(item.key, event.detail === 0));
    }
    // The row reads "L1H2: +0.413" to a screen reader: its name is its text, with a separator not drawn.
    const separator = span('sr-only', null);
    separator.textContent = ': ';
    r.row.append(r.label, separator, track, r.value);
    r.li = document.createElement('li');
    r.li.append(r.row);
    kept?.li.replaceWith(r.li);
    this.#rows.set(item.key, r);
    return r;
  }

  #select(key, keyboard) {
    this.chosen = key;
    this.renderNow();
    this.dispatchEvent(new CustomEvent('item-select', { detail: { key, keyboard }, bubbles: true, composed: true }));
  }
}

// chosen: the key of the pressed row (reflects the attribute; null: none); selectable: rows are buttons
// (an item's own `selectable` overrides it); caption.
attributeProperties(AttnAttribution, {
  chosen: { attr: 'chosen', fallback: null },
  selectable: { attr: 'selectable', fallback: false, parse: (text) => text !== 'false' },
  caption: { attr: 'caption', fallback: '' },
});
