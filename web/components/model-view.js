// <attn-model-view>: every head of a model at once, as BertViz's model view draws it — layers × heads
// small multiples of the attention weights on the one weight scale, one shared legend, a hover linked
// across all of them (the query row under the pointer is marked in every head), and a head enlarged
// with its tokens on the axes when chosen.
//
// The thumbnails are canvases with one pixel per weight, scaled up without smoothing: 16 heads of a
// 128-token prompt repaint in a few milliseconds, where 16 full heatmaps would each build labels and
// a legend nobody can read at that size. The enlarged head is an <attn-heatmap>, so its exact values,
// tooltip, keyboard grid and export come with it.
//
// Keyboard: the thumbnails are one tab stop (a roving tabindex); the arrow keys, Home and End move
// between heads, Enter or Space enlarges one. Picking a cell of the enlarged heatmap (click, keys)
// makes its row the `query`, marked in every thumbnail while no row is hovered.
//
// With a `link` group, the row hovered or picked and the head chosen travel to the group's other
// views and back (link.js).
//
// Cross-attention (an encoder–decoder's decoder reading the source): with `keyTokens` set to the
// source words, each head is target queries × source keys, any shape; the thumbnails keep its aspect.
import { AttnLabError } from '../lib/errors.js';
import { attributeProperties, RenderedElement } from './base.js';
import { figureShell } from './figure.js';
import { followPick, hoverRow, LINK_PROPERTY, LINKED, QUERY_PROPERTY, tellLinked } from './link.js';
import { WEIGHT_STEPS, weightLegend } from './weight-scale.js';
import { checkModel, checkTokens, indexProblem, tokenProblem } from './weights-input.js';
import { isTensorInput, layerTensorsBatch, checkLayerTensors } from './tensor-slice.js';

const TAG = 'attn-model-view';
const CSS = `
.views { display: grid; gap: 0.3rem 0.35rem; align-items: center; width: 100%; }
.head-title { grid-column: 2 / -1; text-align: center; }
.title { font-size: 0.75rem; font-weight: 600; color: var(--attnlab-ink-muted); text-align: center; white-space: nowrap; }
.thumb { position: relative; display: block; width: 100%; padding: 2px; border: 2px solid transparent; border-radius: 5px;
  background: none; line-height: 0; }
.thumb:hover:not(:disabled) { background: none; border-color: var(--attnlab-ink-grid); }
.thumb[aria-pressed="true"] { border-color: currentColor; }
.thumb canvas { display: block; width: 100%; aspect-ratio: 1; image-rendering: pixelated; }
/* The linked query row: the same two-tone outline as a heatmap's, legible on every weight's colour. */
.mark { position: absolute; left: 2px; right: 2px; pointer-events: none; outline: 1.5px solid #000; box-shadow: 0 0 0 2.5px #fff; }
.mark[hidden] { display: none; }
.legend-row { margin: 0.5rem 0 0.75rem; }
.legend-row svg { max-width: 100%; height: auto; }
`;

const MOVES = { ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowDown: [1, 0], ArrowUp: [-1, 0] };

export class AttnModelView extends RenderedElement {
  static upgradedProperties = ['attention', 'tokens', 'keyTokens'];

  #given = null; // what the page set: Matrix[layer][head], or one (batch, heads, n, n) tensor per layer
  #attention = null; // Matrix[layer][head] drawn: the given one, or the tensors' batch item
  #slicedFor = -1; // the batch item #attention holds when tensors were given
  #tokens = null;
  #keyTokens = null; // the keys' labels when they are not the queries' (cross-attention)
  #painted = null; // the attention the thumbnails show (a new array repaints them)
  #shape = '';
  #views = document.createElement('div');
  #thumbs = []; // [layer][head] → { button, canvas, mark }
  #enlarged = document.createElement('attn-heatmap');
  #focus = { layer: 0, head: 0 }; // the thumbnail that holds the tab stop
  #hover = null; // the row under the pointer here: { row, layer, head, inEnlarged }, or null
  #linkedRow = null; // the row hovered in a linked view, or null
  #marked = ''; // what the marks and the enlarged outline show now, so an unchanged row is not redrawn
  #caption;
  #report;

  constructor() {
    super();
    const { caption, body, report } = figureShell(this, CSS, null, 'model');
    this.#caption = caption;
    this.#report = report;
    this.#views.className = 'views';
    this.#views.setAttribute('role', 'group');
    this.#views.setAttribute('part', 'views');
    const legend = document.createElement('div');
    legend.className = 'legend-row';
    legend.append(weightLegend());
    // The enlarged head: the site's weight scale; properties rescued on upgrade, titles as attributes.
    this.#enlarged.setAttribute('part', 'enlarged');
    this.#enlarged.setAttribute('palette', 'YlOrRd');
    this.#enlarged.domain = [0, 1];
    this.#enlarged.hidden = true;
    body.append(this.#views, legend, this.#enlarged);

    this.#views.addEventListener('keydown', (event) => this.#onKey(event));
    this.#views.addEventListener('pointerleave', () => this.#hoverAt(null));
    this.#enlarged.addEventListener('cell-hover', (event) => this.#hoverAt(event.detail.row, this.selected, true));
    this.#enlarged.addEventListener('cell-leave', () => this.#hoverAt(null));
    this.#enlarged.addEventListener('cell-focus', (event) => this.#pick(event.detail.row));
  }

  get attention() { return this.#given; }
  // Matrix[layer][head] of n×n weights in [0, 1], or one weights tensor (batch, heads, n, n) per layer
  // (the batch attribute picks the sequence drawn); anything else throws an AttnLabError naming it.
  // null clears it; undefined is the likeliest mistake (forward(ids) without { attention: true }
  // returns no attention), so it is an error that says so rather than an empty figure.
  set attention(layers) {
    if (layers === undefined) {
      throw new AttnLabError(`<${TAG}>.attention is undefined: give Matrix[layer][head], as GPTModel.forward(ids, { attention: true }) `
        + 'returns it (without attention: true, forward returns no attention), or null for none');
    }
    const tensors = Array.isArray(layers) && layers.length > 0 && layers.every(isTensorInput);
    this.#given = layers === null ? null : tensors ? checkLayerTensors(TAG, 'attention', layers, checkModel)
      : checkModel(TAG, 'attention', layers, { square: false });  // a non-square one needs keyTokens: checked when drawing
    this.#attention = tensors ? null : this.#given;
    this.#slicedFor = -1;
    this.requestRender();
  }

  get tokens() { return this.#tokens; }
  set tokens(list) {
    this.#tokens = checkTokens(TAG, list);
    this.requestRender();
  }

  // The keys' labels when they are another sequence's (cross-attention: the source words), or null.
  get keyTokens() { return this.#keyTokens; }
  set keyTokens(list) {
    this.#keyTokens = checkTokens(TAG, list, 'keyTokens');
    this.requestRender();
  }

  // The enlarged head ({ layer, head }), or null: the `layer` and `head` attributes.
  get selected() {
    const layer = this.getAttribute('layer');
    const head = this.getAttribute('head');
    return layer === null || head === null ? null : { layer: Number(layer), head: Number(head) };
  }

  set selected(value) {
    if (value == null) {
      this.removeAttribute('layer');
      this.removeAttribute('head');
      return;
    }
    this.setAttribute('layer', String(value.layer));
    this.setAttribute('head', String(value.head));
  }

  // With tensors given: the batch attribute's sequence as Matrix[layer][head] (sliced again only when
  // the batch item changes, so the thumbnails repaint only then). → a problem to report, or null.
  #sliceBatch() {
    if (!this.#given || this.#attention === this.#given) return null;
    const batch = this.getAttribute('batch') ?? '0';
    const size = this.#given[0].shape[0];
    const problem = indexProblem(TAG, 'batch', batch, size, 'sequences in the batch');
    if (problem) return problem;
    if (this.#slicedFor !== Number(batch)) {
      this.#attention = layerTensorsBatch(this.#given, Number(batch));
      this.#slicedFor = Number(batch);
    }
    return null;
  }

  render() {
    this.#caption.textContent = this.caption;
    this.#enlarged.toggleAttribute('no-export', this.hasAttribute('no-export'));
    const batchProblem = this.#sliceBatch();
    if (batchProblem) {
      this.#report(batchProblem);
      return;
    }
    const layers = this.#attention;
    if (!layers) {
      this.#report(null);
      this.#views.replaceChildren();
      this.#thumbs = [];
      this.#shape = '';
      this.#enlarged.hidden = true;
      return;
    }
    const { rows: n, cols } = layers[0][0];
    const size = `${n}×${cols}`;
    const problem = indexProblem(TAG, 'layer', this.getAttribute('layer'), layers.length, 'layers')
      ?? indexProblem(TAG, 'head', this.getAttribute('head'), layers[0].length, 'heads per layer')
      ?? indexProblem(TAG, 'query', this.getAttribute('query'), n, 'tokens')
      ?? tokenProblem(TAG, this.#tokens, n, { shape: size })
      ?? (this.#keyTokens ? tokenProblem(TAG, this.#keyTokens, cols, { property: 'keyTokens', shape: size })
        : n === cols ? null : `<${TAG}>.attention is ${size}: queries and keys differ, so give keyTokens (the ${cols} keys' labels)`);
    this.#report(problem);
    if (problem) return;
    const shape = `${layers.length}×${layers[0].length}`;
    if (shape !== this.#shape) this.#build(layers.length, layers[0].length);
    if (this.#painted !== layers || shape !== this.#shape) this.#paint(layers);
    this.#shape = shape;
    this.#painted = layers;
    this.#showSelected(layers, n);
    this.#markRow();
  }

  #build(numLayers, numHeads) {
    this.#views.setAttribute('aria-label', `${numLayers} layers × ${numHeads} heads: choose one to enlarge`);
    this.#views.style.gridTemplateColumns = `auto repeat(${numHeads}, minmax(0, 8rem))`;
    const title = (text, extra = '') => Object.assign(document.createElement('span'), { className: `title ${extra}`, textContent: text });
    const nodes = [document.createElement('span'), title('Head', 'head-title'), document.createElement('span')];
    for (let h = 0; h < numHeads; h++) nodes.push(title(String(h)));
    this.#focus = { layer: Math.min(this.#focus.layer, numLayers - 1), head: Math.min(this.#focus.head, numHeads - 1) };
    this.#thumbs = Array.from({ length: numLayers }, (_, l) => {
      nodes.push(title(`Layer ${l}`));
      return Array.from({ length: numHeads }, (_, h) => {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'thumb';
        button.setAttribute('part', 'thumb');
        button.setAttribute('aria-label', `Enlarge layer ${l}, head ${h}`);
        button.tabIndex = l === this.#focus.layer && h === this.#focus.head ? 0 : -1;
        const canvas = document.createElement('canvas');
        canvas.setAttribute('aria-hidden', 'true');
        const mark = document.createElement('span');
        mark.className = 'mark';
        mark.hidden = true;
        button.append(canvas, mark);
        button.addEventListener('click', () => this.#choose(l, h));
        button.addEventListener('focus', () => this.#moveFocus(l, h, false));
        button.addEventListener('pointermove', (event) => this.#hoverAt(this.#rowAt(button, event), { layer: l, head: h }, false));
        nodes.push(button);
        return { button, canvas, mark };
      });
    });
    this.#views.replaceChildren(...nodes);
    this.#marked = ''; // new marks, hidden: mark the row again
  }

  // One pixel per weight, coloured from the weight scale's 256 steps.
  #paint(layers) {
    layers.forEach((heads, l) => heads.forEach((m, h) => {
      const { canvas } = this.#thumbs[l][h];
      const { rows, cols } = m;
      if (canvas.width !== cols || canvas.height !== rows) {
        canvas.width = cols;
        canvas.height = rows;
        canvas.style.aspectRatio = `${cols} / ${rows}`;
      }
      const context = canvas.getContext('2d');
      const image = context.createImageData(cols, rows);
      for (let i = 0; i < rows * cols; i++) {
        const v = m.data[i];
        const rgb = WEIGHT_STEPS[Math.round(Math.min(1, Math.max(0, v)) * 255)];
        image.data.set(rgb, 4 * i);
        image.data[4 * i + 3] = 255;
      }
      context.putImageData(image, 0, 0);
    }));
  }

  #showSelected(layers, n) {
    const chosen = this.selected;
    this.#thumbs.forEach((row, l) => row.forEach(({ button }, h) => {
      button.setAttribute('aria-pressed', String(chosen?.layer === l && chosen?.head === h));
    }));
    this.#enlarged.hidden = !chosen;
    if (!chosen) return;
    const labels = this.#tokens ?? null;
    const matrix = layers[chosen.layer][chosen.head];
    Object.assign(this.#enlarged, { matrix, rowLabels: labels, colLabels: this.#keyTokens ?? labels });
    this.#enlarged.setAttribute('caption', `Layer ${chosen.layer}, head ${chosen.head}: ${n} × ${matrix.cols} weights`);
  }

  #choose(layer, head) {
    this.selected = { layer, head };
    this.dispatchEvent(new CustomEvent('head-select', { detail: { layer, head }, bubbles: true, composed: true }));
    tellLinked(this, { kind: 'head', layer, head });
  }

  // A row hovered or picked in a linked view is marked as if here; a head picked in one is enlarged
  // when the view knows its layer (a head view without `layer` names only a head of some layer).
  [LINKED](message) {
    const layers = this.#attention;
    const n = layers?.[0][0].rows ?? 0;
    if (message.kind === 'hover') {
      this.#linkedRow = message.row !== null && message.row < n ? message.row : null;
      this.#markRow();
    } else if (message.kind === 'pick') {
      followPick(this, message.row, n);
    } else if (message.kind === 'head' && layers && message.layer !== null && message.layer < layers.length && message.head < layers[0].length) {
      this.selected = { layer: message.layer, head: message.head };
    }
  }

  // The pointer is over query row `row` of head `where` (null: it left); inEnlarged: over the enlarged
  // heatmap. row-hover fires when the row or the head changes.
  #hoverAt(row, where = null, inEnlarged = false) {
    const hover = row === null ? null : { row, layer: where.layer, head: where.head, inEnlarged };
    const last = this.#hover;
    this.#hover = hover;
    if (hover?.row === last?.row && hover?.layer === last?.layer && hover?.head === last?.head) return;
    hoverRow(this, row, hover ?? {});
    this.#markRow();
  }

  // A cell picked in the enlarged head: its row becomes the query, here and in the linked views.
  #pick(row) {
    followPick(this, row, Infinity);
    tellLinked(this, { kind: 'pick', row });
  }

  // The query row under the pointer in a thumbnail (its canvas fills the button inside a 2 px padding).
  #rowAt(button, event) {
    const box = button.getBoundingClientRect();
    const n = this.#attention[0][0].rows;
    const row = Math.floor(((event.clientY - box.top - 4) / (box.height - 8)) * n);
    return Math.max(0, Math.min(n - 1, row));
  }

  // Marks the query row shown — hovered here, else hovered in a linked view, else the `query` — in
  // every thumbnail, and outlines it in the enlarged head unless the pointer is there (the heatmap
  // already rings the cell under it).
  #markRow() {
    const n = this.#attention?.[0][0].rows ?? 0;
    const query = this.query;
    const row = this.#hover?.row ?? this.#linkedRow ?? (query !== null && query < n ? query : null);
    const outline = this.#hover?.inEnlarged ? null : row;
    const key = `${row} ${outline} ${n}`;
    if (key === this.#marked) return;
    this.#marked = key;
    for (const { mark } of this.#thumbs.flat()) {
      mark.hidden = row === null;
      if (row === null) continue;
      mark.style.top = `calc(4px + (100% - 8px) * ${row / n})`;
      mark.style.height = `calc((100% - 8px) / ${n})`;
    }
    this.#enlarged.highlight = outline === null ? null : { rows: [outline] };
  }

  #onKey(event) {
    if (event.altKey || event.metaKey || !this.#thumbs.length) return;
    const numLayers = this.#thumbs.length;
    const numHeads = this.#thumbs[0].length;
    let { layer, head } = this.#focus;
    if (MOVES[event.key]) {
      layer = Math.max(0, Math.min(numLayers - 1, layer + MOVES[event.key][0]));
      head = Math.max(0, Math.min(numHeads - 1, head + MOVES[event.key][1]));
    } else if (event.key === 'Home') {
      head = 0;
      if (event.ctrlKey) layer = 0;
    } else if (event.key === 'End') {
      head = numHeads - 1;
      if (event.ctrlKey) layer = numLayers - 1;
    } else return;
    event.preventDefault();
    this.#moveFocus(layer, head, true);
  }

  #moveFocus(layer, head, focus) {
    this.#thumbs[this.#focus.layer]?.[this.#focus.head]?.button.setAttribute('tabindex', '-1');
    this.#focus = { layer, head };
    const { button } = this.#thumbs[layer][head];
    button.tabIndex = 0;
    if (focus) button.focus();
  }
}

// layer, head: the enlarged head (both, or neither); query: the row marked when none is hovered;
// link: the link group; caption; no-export (passed to the enlarged heatmap).
attributeProperties(AttnModelView, {
  caption: { attr: 'caption', fallback: '' },
  query: QUERY_PROPERTY,
  link: LINK_PROPERTY,
});
Object.defineProperty(AttnModelView, 'observedAttributes', { configurable: true, get: () => ['caption', 'layer', 'head', 'query', 'batch', 'no-export'] });
