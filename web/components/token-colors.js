// <attn-token-colors>: the sentence as text, its tokens shaded by attention. Point at, tap or focus a token
// and every token is shaded by the weight it receives from that one, on the weight scale with its
// legend; a line below names the largest weights. The reading view of attention: no grid to decode.
// With a `link` group it shades by the query row hovered or picked in the group's other views, and
// they show its own (link.js). It holds one matrix, so it knows no layer or head.
import { attributeProperties, RenderedElement } from './base.js';
import { figureShell } from './figure.js';
import { LINK_PROPERTY, LINKED, QUERY_PROPERTY } from './link.js';
import { textColorOn } from './palettes.js';
import { describeRow, QueryPicker } from './query-picker.js';
import { weightColor, weightLegend } from './weight-scale.js';
import { checkTokens, checkWeights, indexProblem, tokenProblem } from './weights-input.js';

const TAG = 'attn-token-colors';
const CSS = `
.sentence { margin: 0; line-height: 2.1; font-size: 1.05rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.sentence:focus { outline: none; }
.sentence:focus-visible { outline: 2px solid var(--attnlab-focus, currentColor); outline-offset: 4px; border-radius: 2px; }
.token { padding: 0.15em 0.05em; border-radius: 3px; cursor: pointer; box-decoration-break: clone; -webkit-box-decoration-break: clone; }
/* The query token: outlined in the text colour, so it shows on its own shade and on the page. */
.token.query { outline: 2px solid currentColor; outline-offset: 1px; }
.readout { margin: 0.4rem 0 0.2rem; font-size: 0.9rem; min-height: 1.3em; }
.legend-row svg { max-width: 100%; height: auto; }
`;

export class AttnTokenColors extends RenderedElement {
  static upgradedProperties = ['attention', 'tokens'];

  #matrix = null;
  #tokens = null;
  #sentence = document.createElement('p');
  #readout = document.createElement('p');
  #spans = [];
  #query = new QueryPicker(this, { back: 'ArrowLeft', forward: 'ArrowRight' });
  #caption;
  #report;

  constructor() {
    super();
    const { caption, body, report } = figureShell(this, CSS, null, 'tokens');
    this.#caption = caption;
    this.#report = report;
    Object.assign(this.#sentence, { className: 'sentence', tabIndex: 0 });
    this.#sentence.setAttribute('role', 'listbox');
    this.#sentence.setAttribute('aria-orientation', 'horizontal');
    this.#sentence.setAttribute('part', 'sentence');
    this.#readout.className = 'readout';
    this.#readout.setAttribute('aria-live', 'polite');
    this.#readout.setAttribute('part', 'readout');
    const legend = document.createElement('div');
    legend.className = 'legend-row';
    legend.append(weightLegend('Weight from the chosen token'));
    body.append(this.#sentence, this.#readout, legend);
    this.#sentence.addEventListener('keydown', (event) => { if (this.#query.key(event, this.#spans.length)) this.#shade(); });
    this.#sentence.addEventListener('focus', () => { this.#query.focused = true; this.#shade(); });
    this.#sentence.addEventListener('blur', () => { this.#query.focused = false; this.#shade(); });
    this.#sentence.addEventListener('pointerleave', () => { this.#query.hovered = null; this.#shade(); });
  }

  get attention() { return this.#matrix; }
  // One n×n Matrix of weights in [0, 1] (a head's attention); anything else throws, naming it.
  set attention(m) {
    this.#matrix = m == null ? null : checkWeights(TAG, 'attention', m);
    this.requestRender();
  }

  get tokens() { return this.#tokens; }
  // The tokens' texts as they read in the sentence (with their spaces: ' cat').
  set tokens(list) {
    this.#tokens = checkTokens(TAG, list);
    this.requestRender();
  }

  // A row hovered or picked in a linked view shades the sentence as if chosen here.
  [LINKED](message) {
    if (this.#query.receive(message, this.#matrix?.rows ?? 0)) this.#shade();
  }

  render() {
    this.#caption.textContent = this.caption;
    const m = this.#matrix;
    const n = m?.rows ?? 0;
    const problem = m ? indexProblem(TAG, 'query', this.getAttribute('query'), n, 'tokens') ?? tokenProblem(TAG, this.#tokens, n) : null;
    this.#report(problem);
    if (problem) return;
    const texts = this.#tokens ?? Array.from({ length: n }, (_, i) => `${i} `);
    while (this.#spans.length > n) this.#spans.pop().remove();
    while (this.#spans.length < n) {
      const i = this.#spans.length;
      const span = document.createElement('span');
      span.className = 'token';
      span.id = `t${i}`;
      span.setAttribute('role', 'option');
      span.setAttribute('part', 'token');
      span.addEventListener('pointerenter', () => { this.#query.hovered = i; this.#shade(); });
      span.addEventListener('pointerdown', () => { this.#query.pick(i); this.#shade(); });
      this.#sentence.append(span);
      this.#spans.push(span);
    }
    this.#spans.forEach((span, i) => { if (span.textContent !== texts[i]) span.textContent = texts[i]; });
    this.#query.active = Math.min(this.#query.active, Math.max(0, n - 1));
    this.#shade();
  }

  #shade() {
    const m = this.#matrix;
    const query = m ? this.#query.shown() : null;
    const texts = this.#spans.map((s) => s.textContent.trim() || s.textContent);
    this.#spans.forEach((span, j) => {
      const w = query === null ? null : m.data[query * m.cols + j];
      const fill = w === null ? '' : weightColor(w);
      span.style.backgroundColor = fill;
      span.style.color = fill && textColorOn(fill);
      span.classList.toggle('query', query === j);
      span.setAttribute('aria-selected', String(query === j));
      span.setAttribute('aria-label', w === null ? texts[j] : `${texts[j]}: weight ${w.toFixed(2)} from ${texts[query]}`);
    });
    this.#readout.textContent = query === null
      ? (m ? 'Point at, tap or focus a token to shade the sentence by its attention.' : '')
      : describeRow(`From “${texts[query]}”`, texts.map((t) => `“${t}”`), m, query);
    if (this.#query.focused && this.#spans.length) this.#sentence.setAttribute('aria-activedescendant', `t${this.#query.active}`);
    else this.#sentence.removeAttribute('aria-activedescendant');
    this.#sentence.setAttribute('aria-label', `${this.caption || 'Tokens'}: choose one to shade the others by its attention`);
    this.#query.announce();
  }
}

// query: the token whose attention is shown when none is hovered or chosen (absent: none); link: the
// link group; caption.
attributeProperties(AttnTokenColors, {
  caption: { attr: 'caption', fallback: '' },
  query: QUERY_PROPERTY,
  link: LINK_PROPERTY,
});
Object.defineProperty(AttnTokenColors, 'observedAttributes', { configurable: true, get: () => ['caption', 'query'] });
