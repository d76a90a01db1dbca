// Probabilities as horizontal bars, one row per item: HTML, so the labels stay readable on a phone.
// Bar widths are set through the CSSOM (the Content-Security-Policy refuses style attributes).
import { el, formatPercent } from './dom.js';

// → { node, update(items, scale = 1) } with items [{ label, value in [0, 1], marked? }] (marked: drawn
// as the chosen one, with "chosen" read out); a bar is full width at value = scale (pass the same scale
// to charts that sit side by side, so equal bars mean equal probabilities).
export function probabilityBars(caption) {
  const list = el('ol', { class: 'bars', 'aria-label': caption });
  return {
    node: el('figure', { class: 'bars-figure' }, el('figcaption', { text: caption }), list),
    update(items, scale = 1) {
      while (list.children.length > items.length) list.lastElementChild.remove();
      items.forEach((item, i) => {
        const row = list.children[i] ?? list.appendChild(el('li', {},
          el('span', { class: 'bar-label' }), el('span', { class: 'bar-track' }, el('span', { class: 'bar' })), el('span', { class: 'bar-value' })));
        const [label, track, value] = row.children;
        label.textContent = item.label;
        track.firstElementChild.style.width = `${(Math.max(0, Math.min(1, item.value / scale)) * 100).toFixed(2)}%`;
        value.textContent = `${formatPercent(item.value)}${item.marked ? ' (chosen)' : ''}`;
        row.classList.toggle('marked', Boolean(item.marked));
      });
    },
  };
}

// The k most likely ids of a distribution, most likely first (ties: the smaller id).
export function topIds(probabilities, k) {
  return Array.from(probabilities.keys()).sort((a, b) => probabilities[b] - probabilities[a] || a - b).slice(0, k);
}
