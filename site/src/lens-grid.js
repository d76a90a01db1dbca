// The logit lens as a table: one row per point of the residual stream (resid_pre and resid_mid of each
// block, the final resid_post), one column per position; each cell names the token that point favours
// there (on a light label, readable on any colour), its background the probability (YlOrRd, as the site's
// attention maps). A column's header is a button that chooses the position (a cell is one too, on a phone
// the larger target).
import { interpolateYlOrRd } from 'd3-scale-chromatic';

import { el, formatPercent, isolated } from './dom.js';
import { pointLabel } from './lens-points.js';


// → { node, update(lens, labels, chosen, choose, tokenText) }: lens from model.logitLens (every position),
// labels the prompt's tokens as text, chosen the position drawn as chosen, choose(position) called when a
// header or cell is pressed, tokenText(id) a token's text. The table is built once per shape (points ×
// positions) and its cells rewritten in place after that, so a pressed button keeps the keyboard focus.
export function lensGrid(caption) {
  const table = el('table', { class: 'data lens-grid' });
  const node = el('figure', { class: 'lens-figure' }, el('figcaption', { text: caption }), el('div', { class: 'table-wrap' }, table));
  let shape = '';
  let choosePosition = () => {};
  let headers = [], cells = [];  // the column headers' cells; cells[point][position] → the td
  const build = (points, count) => {
    const pick = (p) => () => choosePosition(p);
    headers = Array.from({ length: count }, (_, p) => el('th', { scope: 'col' }, el('button', { type: 'button', on: { click: pick(p) } })));
    cells = points.map(() => Array.from({ length: count }, (_, p) =>
      el('td', {}, el('button', { type: 'button', class: 'lens-cell', on: { click: pick(p) } }, el('span', { class: 'lens-token' })))));
    table.replaceChildren(el('tr', {}, el('th', { scope: 'col', text: 'point \\ position' }), ...headers),
      ...points.map((point, i) => el('tr', {}, el('th', { scope: 'row', text: pointLabel(point) }), ...cells[i])));
  };
  return {
    node,
    update(lens, labels, chosen, choose, tokenText) {
      choosePosition = choose;
      const count = lens.positions.length;
      if (shape !== `${lens.points.join()}|${count}`) {
        shape = `${lens.points.join()}|${count}`;
        build(lens.points, count);
      }
      headers.forEach((th, p) => {
        th.classList.toggle('chosen', p === chosen);
        th.firstElementChild.textContent = `${p}: ${isolated(labels[p])}`;
        th.firstElementChild.setAttribute('aria-pressed', String(p === chosen));
      });
      lens.points.forEach((point, i) => lens.cells[i].forEach((cell, p) => {
        const { id, probability } = cell.top[0];
        const text = tokenText(id);
        const td = cells[i][p];
        const button = td.firstElementChild;
        td.classList.toggle('chosen', p === chosen);
        button.firstElementChild.textContent = isolated(text);  // dark text on a light label: readable on every colour
        button.setAttribute('aria-label', `${pointLabel(point)}, position ${p}: “${text}” ${formatPercent(probability)}`);
        button.dataset.id = String(id);
        button.style.backgroundColor = interpolateYlOrRd(probability);
      }));
    },
  };
}
