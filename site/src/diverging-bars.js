// Signed contributions as horizontal bars either side of a zero line, one row per part: HTML, so the labels
// stay readable on a phone. Rows for which choose(item) is given are buttons (click, tap, Enter or Space
// selects them; aria-pressed says which is chosen). Positions and widths go through the CSSOM (the
// Content-Security-Policy refuses style attributes).
import { el } from './dom.js';

// → { node, update(items, chosen) } with items [{ key, label, value, text, choose? }] in the order shown;
// chosen: the key of the pressed row. Rows are kept per key, so the button under the learner's focus stays.
export function divergingBars(caption) {
  const list = el('ol', { class: 'dla-bars', 'aria-label': caption });
  const rows = new Map();  // key → { li, row, bar, zero, label, value }
  const rowFor = (item) => {
    if (rows.has(item.key)) return rows.get(item.key);
    const parts = { label: el('span', { class: 'dla-label' }), zero: el('span', { class: 'dla-zero' }), bar: el('span', { class: 'dla-bar' }),
      value: el('span', { class: 'dla-value' }) };
    const track = el('span', { class: 'dla-track' }, parts.zero, parts.bar);
    parts.row = item.choose
      ? el('button', { type: 'button', class: 'dla-row', 'aria-pressed': 'false', on: { click: (event) => item.choose(event) } }, parts.label, track, parts.value)
      : el('span', { class: 'dla-row' }, parts.label, track, parts.value);
    parts.li = el('li', {}, parts.row);
    rows.set(item.key, parts);
    return parts;
  };
  return {
    node: el('figure', { class: 'bars-figure' }, el('figcaption', { text: caption }), list),
    update(items, chosen) {
      const below = Math.max(1e-12, ...items.map((i) => -i.value)), above = Math.max(1e-12, ...items.map((i) => i.value));
      const range = Math.max(0, below) + Math.max(0, above);
      const zero = Math.max(0, below) / range;  // where 0 sits along the track, as a share of its width
      const shown = items.map((item) => {
        const r = rowFor(item);
        r.label.textContent = item.label;
        r.value.textContent = item.text;
        const share = Math.abs(item.value) / range;
        r.zero.style.left = `${(zero * 100).toFixed(2)}%`;
        r.bar.style.left = `${((item.value < 0 ? zero - share : zero) * 100).toFixed(2)}%`;
        r.bar.style.width = `${(share * 100).toFixed(2)}%`;
        r.bar.classList.toggle('negative', item.value < 0);
        if (r.row.tagName === 'BUTTON') {
          r.row.setAttribute('aria-pressed', String(item.key === chosen));
          r.row.setAttribute('aria-label', `${item.label}: ${item.text}. Show its attention`);
        }
        return r.li;
      });
      for (const [key, r] of rows) if (!items.some((i) => i.key === key)) { r.li.remove(); rows.delete(key); }
      // moved only when the order changed: a row moved in the DOM would lose the learner's focus
      if (shown.some((li, i) => list.children[i] !== li)) list.replaceChildren(...shown);
    },
  };
}
