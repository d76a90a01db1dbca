// <attn-logit-lens>: the logit lens (GPTModel.logitLens) as a table. One row per point of the residual
// stream (each block's resid_pre and resid_mid, the last resid_post), one column per position; each cell
// names the token that point favours there, its background that token's probability on the palette's
// [0, 1] scale (the colour language of weights and probabilities), with the legend below.
//
// Choosing: a column's header and every cell of it are buttons (a cell is the larger target on a phone);
// pressing one makes its position the `position` and fires position-change. The table is built once per
// shape (points × positions) and rewritten in place after that, so the button pressed keeps the focus
// when the page redraws with the new position. The grid is one tab stop, as <attn-heatmap> is: the arrow
// keys move between the headers and cells, Home and End to the ends of a row (a roving tabindex), so that
// crossing a 32-token lens takes one Tab, not hundreds.
import { attributeProperties, RenderedElement } from './base.js';
import { figureShell } from './figure.js';
import { formatFixed } from './format.js';
import { checkLens, checkTokenText } from './interp-input.js';
import { pointLabel } from './lens-points.js';
import { colorScale, DEFAULT_PALETTE, PALETTES, textColorOn } from './palettes.js';
import { unitLegend } from './weight-scale.js';
import { checkTokens } from './weights-input.js';

const TAG = 'attn-logit-lens';
const CSS = `
.wrap { overflow-x: auto; max-width: 100%; }
/* Separate borders: a collapsed border does not move with a sticky cell, and cells scrolled under it showed. */
table { border-collapse: separate; border-spacing: 0; font-size: 0.85rem; font-variant-numeric: tabular-nums; }
th, td { padding: 0.15rem 0.25rem; text-align: center; border-bottom: 1px solid var(--attnlab-ink-grid); }
th { font-weight: 600; white-space: nowrap; }
/* The point names (and the corner above them) stay in view while a long prompt scrolls sideways. */
th[scope="row"], th.corner { position: sticky; left: 0; z-index: 1; text-align: left; background: var(--attnlab-ink-background);
  border-right: 1px solid var(--attnlab-ink-grid); }
th button { white-space: pre; }
th button[aria-pressed="true"] { font-weight: 700; border-width: 2px; border-color: currentColor; }
td.chosen, th.chosen { background: color-mix(in srgb, currentColor 12%, transparent); }
.cell { min-width: 2.75rem; min-height: 2.75rem; font-size: 0.85rem; white-space: pre; border-color: var(--attnlab-ink-grid); }
.legend-row svg { max-width: 100%; height: auto; margin-top: 0.35rem; }
`;
// The sequential palettes: a probability's colour runs from light (0) to dark (1) on [0, 1].
const SEQUENTIAL = Object.keys(PALETTES).filter((name) => !PALETTES[name].diverging);
const MOVES = { ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowDown: [1, 0], ArrowUp: [-1, 0] };

export class AttnLogitLens extends RenderedElement {
  static upgradedProperties = ['lens', 'tokens', 'tokenText'];

  #lens = null;
  #tokens = null;
  #tokenText = null; // id → text, or null (the id is shown)
  #tokenTextGiven = null;
  #table = document.createElement('table');
  #legend = document.createElement('div');
  #legendPalette = '';
  #shape = '';
  #headers = []; // the column headers' <th>
  #cells = []; // cells[point][column] → the <td>
  #active = null; // [row, column] of the one button in the tab order: row 0 the headers, row r + 1 point r
  #caption;
  #report;

  constructor() {
    super();
    const { caption, body, report } = figureShell(this, CSS, null, 'lens');
    this.#caption = caption;
    this.#report = report;
    this.#table.setAttribute('part', 'grid');
    const wrap = document.createElement('div');
    wrap.className = 'wrap';
    wrap.append(this.#table);
    this.#legend.className = 'legend-row';
    const help = document.createElement('p');
    help.id = 'lens-help';
    help.hidden = true;
    help.textContent = 'Arrow keys move between the positions and points; Home and End go to the first and last position.';
    this.#table.setAttribute('aria-describedby', 'lens-help');
    this.#table.addEventListener('keydown', (event) => this.#onKey(event));
    body.append(wrap, help, this.#legend);
  }

  get lens() { return this.#lens; }
  // What model.logitLens(ids, { k }) returns (every position, or some); anything else throws, naming it.
  set lens(value) {
    this.#lens = value == null ? null : checkLens(TAG, 'lens', value);
    this.requestRender();
  }

  get tokens() { return this.#tokens; }
  // The prompt's token texts, indexed by position: the column headers.
  set tokens(list) {
    this.#tokens = checkTokens(TAG, list);
    this.requestRender();
  }

  get tokenText() { return this.#tokenTextGiven; }
  // How a favoured token id reads: (id) => text (e.g. tokenizer.decode([id])), a list of texts indexed
  // by id, or null (the id is shown as #id).
  set tokenText(value) {
    this.#tokenText = checkTokenText(TAG, 'tokenText', value);
    this.#tokenTextGiven = value ?? null;
    this.requestRender();
  }

  render() {
    this.#caption.textContent = this.caption;
    const lens = this.#lens;
    const problem = lens ? this.#problem(lens) : null;
    this.#report(problem);
    if (problem || !lens) {
      if (!lens) { this.#table.replaceChildren(); this.#shape = ''; }
      return;
    }
    const key = `${lens.points.join()}|${lens.positions.join()}`;
    if (key !== this.#shape) {
      this.#shape = key;
      this.#build(lens);
    }
    const palette = this.palette;
    const color = colorScale(palette, [0, 1]);
    if (palette !== this.#legendPalette) {
      this.#legendPalette = palette;
      this.#legend.replaceChildren(unitLegend('Probability of the favoured token', color));
    }
    const chosen = this.position;
    const name = (id) => (this.#tokenText ? this.#tokenText(id) : `#${id}`);
    lens.positions.forEach((p, i) => {
      const th = this.#headers[i];
      th.classList.toggle('chosen', p === chosen);
      const button = th.firstElementChild;
      button.firstChild.data = this.#tokens ? `${p}: ` : String(p);
      button.lastChild.textContent = this.#tokens ? this.#tokens[p] : '';
      button.setAttribute('aria-pressed', String(p === chosen));
    });
    if (!this.#active) this.#active = [0, Math.max(0, lens.positions.indexOf(chosen))];
    this.#rove();
    lens.points.forEach((point, r) => lens.cells[r].forEach((cell, i) => {
      const { id, probability } = cell.top[0];
      const p = lens.positions[i];
      const text = name(id);
      const td = this.#cells[r][i];
      const button = td.firstElementChild;
      const fill = color(probability);
      td.classList.toggle('chosen', p === chosen);
      button.firstElementChild.textContent = text;
      button.dataset.id = String(id);
      button.dataset.probability = String(probability);
      button.setAttribute('aria-label', `${pointLabel(point)}, position ${p}: “${text}”, probability ${formatFixed(probability * 100, 1)}%`);
      // Through the CSSOM: a page's Content-Security-Policy may refuse style attributes, not this.
      button.style.backgroundColor = fill;
      button.style.color = textColorOn(fill);
    }));
  }

  // The first setting this element cannot draw honestly, described, or null.
  #problem(lens) {
    const name = this.getAttribute('palette');
    if (name !== null && !SEQUENTIAL.includes(name)) {
      return `<${TAG}> palette="${name}" is not a sequential palette; probabilities are drawn on one of ${SEQUENTIAL.join(', ')}`;
    }
    const text = this.getAttribute('position');
    if (text !== null && !(/^\d+$/.test(text) && lens.positions.includes(Number(text)))) {
      return `<${TAG}> position="${text}" is not one of the lens's positions (${lens.positions.join(', ')})`;
    }
    const last = Math.max(...lens.positions);
    if (this.#tokens && this.#tokens.length <= last) {
      return `<${TAG}>.tokens has ${this.#tokens.length} label${this.#tokens.length === 1 ? '' : 's'} but the lens reaches position ${last}`;
    }
    return null;
  }

  #build({ points, positions }) {
    const button = (position, className) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.tabIndex = -1;
      if (className) b.className = className;
      b.addEventListener('click', () => this.#choose(position));
      b.addEventListener('focus', () => { this.#active = this.#find(b); this.#rove(); });
      return b;
    };
    const cell = (tag, attributes, ...children) => {
      const node = document.createElement(tag);
      for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v);
      node.append(...children);
      return node;
    };
    this.#headers = positions.map((p) => {
      const b = button(p);
      b.setAttribute('part', 'header');
      b.append(document.createTextNode(''), document.createElement('bdi'));  // "3: " and the token, isolated
      return cell('th', { scope: 'col' }, b);
    });
    this.#cells = points.map(() => positions.map((p) => {
      const b = button(p, 'cell');
      b.setAttribute('part', 'cell');
      b.append(document.createElement('bdi'));  // a right-to-left token stays inside its cell's text
      return cell('td', {}, b);
    }));
    const rows = points.map((point, r) => cell('tr', {}, cell('th', { scope: 'row' }, pointLabel(point)), ...this.#cells[r]));
    this.#table.replaceChildren(cell('tr', {}, cell('th', { scope: 'col', class: 'corner' }, 'point \\ position'), ...this.#headers), ...rows);
    if (this.#active) this.#active = [Math.min(this.#active[0], points.length), Math.min(this.#active[1], positions.length - 1)];
  }

  // The grid's buttons by row: the headers, then each point's cells.
  #button(row, column) {
    return (row === 0 ? this.#headers[column] : this.#cells[row - 1][column]).firstElementChild;
  }

  #find(button) {
    const column = this.#headers.findIndex((th) => th.firstElementChild === button);
    if (column >= 0) return [0, column];
    for (let r = 0; r < this.#cells.length; r++) {
      const c = this.#cells[r].findIndex((td) => td.firstElementChild === button);
      if (c >= 0) return [r + 1, c];
    }
    return this.#active;
  }

  // Exactly one button of the grid in the tab order: the active one.
  #rove() {
    const [row, column] = this.#active;
    for (let r = 0; r <= this.#cells.length; r++) {
      for (let c = 0; c < this.#headers.length; c++) this.#button(r, c).tabIndex = r === row && c === column ? 0 : -1;
    }
  }

  #onKey(event) {
    if (!this.#active || event.altKey || event.ctrlKey || event.metaKey) return;
    const [row, column] = this.#active;
    const last = this.#headers.length - 1;
    let next = null;
    if (MOVES[event.key]) {
      const [dr, dc] = MOVES[event.key];
      next = [Math.min(Math.max(row + dr, 0), this.#cells.length), Math.min(Math.max(column + dc, 0), last)];
    } else if (event.key === 'Home') next = [row, 0];
    else if (event.key === 'End') next = [row, last];
    if (!next) return;
    event.preventDefault();
    this.#active = next;
    this.#rove();
    this.#button(...next).focus();
  }

  #choose(position) {
    this.position = position;
    this.renderNow();
    this.dispatchEvent(new CustomEvent('position-change', { detail: { position }, bubbles: true, composed: true }));
  }
}

// position: the chosen column's position (reflects the attribute; null: none); palette: a sequential
// palette's name; caption.
attributeProperties(AttnLogitLens, {
  position: { attr: 'position', fallback: null, parse: (text) => (/^\d+$/.test(text) ? Number(text) : null) },
  palette: { attr: 'palette', fallback: DEFAULT_PALETTE, parse: (text) => (SEQUENTIAL.includes(text) ? text : DEFAULT_PALETTE) },
  caption: { attr: 'caption', fallback: '' },
});
