// Type declarations for attnlab/components (hand-written, like index.d.ts). Importing the module
// registers <attn-heatmap>, <pe-plot>, <attn-stepper>, <attn-model-view>, <attn-head-view>,
// <attn-token-colors>, <attn-logit-lens> and <attn-attribution>; the elements only draw the data they
// are given and never load the wasm package.
import type { LensCell, LogitLens, Matrix, MatrixInput, NumberArray, Step, TensorStep } from './index.js';

export type { LensCell, LogitLens, Matrix, MatrixInput, Step, TensorStep };

/** A weights tensor as the package returns them, row-major: (batch, heads, n_q, n_k), (batch, n_q, n_k)
 *  or (n_q, n_k) — e.g. MultiHeadAttention.forward's weights on a batch, or one layer of a batched
 *  GPTModel.forward(ids, { attention: true }). */
export interface WeightsTensorInput {
  shape: readonly number[];
  data: NumberArray;
}

/** 'YlOrRd' (default, the tutorials' seaborn palette); 'cividis' and 'viridis' (colour-blind safe,
 *  sequential); 'RdBu' and 'PuOr' (diverging, for signed values, 0 at the neutral middle). */
export type Palette = 'YlOrRd' | 'cividis' | 'viridis' | 'RdBu' | 'PuOr';

/** Outlines drawn over a heatmap, e.g. the operands of a focused result cell. */
export interface Highlight {
  rows?: number[];
  cols?: number[];
  /** [row, col] pairs. */
  cells?: [number, number][];
}

/** detail of the `cell-focus` event: the active cell and its value (−Infinity for a masked score). */
export interface CellFocusDetail {
  row: number;
  col: number;
  value: number;
}

/** detail of the `row-hover` event of the attention views: the query row under the pointer and the head
 *  it belongs to, `null` where the view does not know it (coloured tokens hold one matrix; a head view
 *  knows its layer from its `layer` attribute); all three `null` when the hover ends. It fires on the view
 *  the pointer is in, not on the views linked to it. */
export interface RowHoverDetail {
  row: number | null;
  layer: number | null;
  head: number | null;
}

/** What the heatmap and the attention views share: a link group. Elements with the same `link` (in one
 *  document or shadow root) show a query row hovered or picked in any of them, and the attention views a
 *  head picked in any of them; a pick becomes every linked view's `query`. Reflects the `link` attribute;
 *  null: no group. */
interface Linkable {
  link: string | null;
}

/** detail of the `step-change` event. */
export interface StepChangeDetail {
  index: number;
  step: Step | TensorStep;
}

/** What every element has: a render batched per microtask, and picture export. */
interface RenderedElement extends HTMLElement {
  /** Resolves once the pending render (after property changes) has happened. */
  readonly updateComplete: Promise<void>;
  /** Renders at once if a render is pending. */
  renderNow(): void;
}

interface Exportable {
  /** A standalone SVG document (xmlns, inline presentation attributes, no external references). */
  toSVG(): string;
  /** The same picture as a PNG at `scale` pixels per SVG unit (default 2). */
  toPNG(scale?: number): Promise<Blob>;
}

/** <attn-heatmap>: a matrix as coloured cells with labels, legend, tooltip and keyboard navigation.
 *  Attributes: palette, decimals, show-values, caption, row-title, col-title, fit, batch, head, link, no-export. */
export interface AttnHeatmapElement extends RenderedElement, Exportable, Linkable {
  /** A Matrix, or a weights tensor of 2 to 4 dims of which the slice at `batch` and `head` is drawn (the
   *  caption says which slice of which shape). */
  matrix: MatrixInput | WeightsTensorInput | null;
  /** With a tensor `matrix` of 3 or 4 dims: the batch item drawn (attribute `batch`); default 0. */
  batch: number;
  /** With a (batch, heads, n_q, n_k) tensor `matrix`: the head drawn (attribute `head`); default 0. */
  head: number;
  /** One label per row (else the row indices are shown). Always rendered as text. */
  rowLabels: string[] | null;
  colLabels: string[] | null;
  /** Default 'Query'. */
  rowTitle: string;
  /** Default 'Key'. */
  colTitle: string;
  palette: Palette;
  /** [min, max] of the colour scale, or 'data' for the finite values' own range. null (the default):
   *  [0, 1] when every value lies in [0, 1] on a sequential palette (weights, probabilities), symmetric
   *  around 0 on a diverging one, else the data's range. */
  domain: [number, number] | 'data' | null;
  /** Decimal places of printed values and legend ticks; default 2. */
  decimals: number;
  /** 'auto' (default) prints values when both dimensions are at most 12. */
  showValues: 'auto' | boolean;
  /** 'natural' (default): the heatmap's own size, shrunk to fit a narrow container; 'width': as wide as
   *  its container, growing too (attribute `fit`). */
  fit: 'natural' | 'width';
  highlight: Highlight | null;
  /** The cell's name in the tooltip instead of "row → col" (a grid of heads: `(l, h) => \`L${l}H${h}\``); JS only. */
  cellName: ((row: number, col: number) => string) | null;
  caption: string;
  addEventListener<K extends keyof HTMLElementEventMap>(type: K, listener: (this: AttnHeatmapElement, ev: HTMLElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: 'cell-focus', listener: (this: AttnHeatmapElement, ev: CustomEvent<CellFocusDetail>) => unknown, options?: boolean | AddEventListenerOptions): void;
  /** The pointer moved onto another cell (same detail as cell-focus). */
  addEventListener(type: 'cell-hover', listener: (this: AttnHeatmapElement, ev: CustomEvent<CellFocusDetail>) => unknown, options?: boolean | AddEventListenerOptions): void;
  /** The pointer left the grid after hovering a cell (detail: that cell's { row, col }). */
  addEventListener(type: 'cell-leave', listener: (this: AttnHeatmapElement, ev: CustomEvent<{ row: number; col: number }>) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  /** Focuses the grid (the arrow keys then move between cells). */
  focus(options?: FocusOptions): void;
}

/** <pe-plot>: a positional-encoding table (positions × dims) as curves or as a heatmap.
 *  Attributes: mode, caption, no-export. */
export interface PePlotElement extends RenderedElement, Exportable {
  matrix: MatrixInput | null;
  /** Dimensions drawn as curves; default [0, 1, 4, 8]. */
  dims: number[];
  /** 'curves' (default) or 'heatmap' (an inner <attn-heatmap>, palette RdBu). */
  mode: 'curves' | 'heatmap';
  caption: string;
}

/** <attn-stepper>: a trace (Step[]) shown one step at a time, each tensor as a labelled heatmap.
 *  Attributes: decimals, show-values, palette, signed-palette, head, no-export. */
export interface AttnStepperElement extends RenderedElement {
  /** A Matrix call's trace, or a tensor call's (each tensor drawn as its rows, its shape in the caption).
   *  Setting new steps keeps `index` (clamped). */
  steps: Step[] | TensorStep[];
  /** The step shown; default 0. */
  index: number;
  /** Token labels for tensors whose rows (queries) or columns (keys) match their count. */
  labels: { rows?: string[]; cols?: string[] };
  /** Picking a cell of a step's result outlines the operands it came from; default true. */
  highlightOperands: boolean;
  /** Places printed in every heatmap (attribute `decimals`; a 0/1 mask always prints 0 and 1); default 2. */
  decimals: number;
  /** Printed values in every heatmap (attribute `show-values`); default 'auto'. */
  showValues: 'auto' | boolean;
  /** Sequential palette of the weights and masks, on [0, 1] (attribute `palette`); default 'YlOrRd'. */
  palette: 'YlOrRd' | 'cividis' | 'viridis';
  /** Diverging palette of every signed tensor, 0 in the middle (attribute `signed-palette`); default 'RdBu'. */
  signedPalette: 'RdBu' | 'PuOr';
  /** Show only this head's steps and the steps every head shares (attribute `head`); null: all. */
  head: number | null;
  /** The steps on show: `steps`, or with `head` set the shared ones and that head's. `index` counts these. */
  readonly shownSteps: Step[] | TensorStep[];
  addEventListener<K extends keyof HTMLElementEventMap>(type: K, listener: (this: AttnStepperElement, ev: HTMLElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: 'step-change', listener: (this: AttnStepperElement, ev: CustomEvent<StepChangeDetail>) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: 'cell-focus', listener: (this: AttnStepperElement, ev: CustomEvent<CellFocusDetail>) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/** Matrix[layer][head] of attention weights, as GPTModel.forward(ids, { attention: true }).attention
 *  (n×n; queries × keys for cross-attention, with keyTokens), or one weights tensor (batch, heads, n, n)
 *  per layer, as a batched forward returns them. */
export type ModelAttention = MatrixInput[][] | WeightsTensorInput[];

/** <attn-model-view>: layers × heads small multiples on the weight scale, one legend, a hover linked
 *  across heads, a chosen head enlarged with token labels. Attributes: layer, head, query, batch (with
 *  tensors: the sequence drawn, default 0), link, caption, no-export. Wrong data throws AttnLabError
 *  naming the property. */
export interface AttnModelViewElement extends RenderedElement, Linkable {
  attention: ModelAttention | null;
  /** n token texts (else indices); the queries' labels (and the keys', unless keyTokens is set). */
  tokens: string[] | null;
  /** Cross-attention: the keys' labels (source words) when they are not the queries' (target words). */
  keyTokens: string[] | null;
  /** The enlarged head (attributes `layer` and `head`), or null for none. */
  selected: { layer: number; head: number } | null;
  /** The query row marked in every head while none is hovered (attribute `query`); a cell picked in the
   *  enlarged head sets it. null: none. */
  query: number | null;
  caption: string;
  addEventListener<K extends keyof HTMLElementEventMap>(type: K, listener: (this: AttnModelViewElement, ev: HTMLElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  /** The reader chose a head (click, Enter or Space). */
  addEventListener(type: 'head-select', listener: (this: AttnModelViewElement, ev: CustomEvent<{ layer: number; head: number }>) => unknown, options?: boolean | AddEventListenerOptions): void;
  /** The pointer moved onto another query row or head (row null: the hover ended). */
  addEventListener(type: 'row-hover', listener: (this: AttnModelViewElement, ev: CustomEvent<RowHoverDetail>) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/** <attn-head-view>: BertViz's head view — lines from each query token to the keys, opacity = weight.
 *  Attributes: head (of a Matrix[]), layer (which layer the heads are from: row-hover's detail, and a
 *  head picked in a linked model view), query, link, caption, no-export. */
export interface AttnHeadViewElement extends RenderedElement, Exportable, Linkable {
  /** One Matrix of weights (n×n; or queries × keys with keyTokens), or a layer's heads (with a head picker). */
  attention: MatrixInput | MatrixInput[] | null;
  /** The queries' labels (and the keys', unless keyTokens is set). */
  tokens: string[] | null;
  /** Cross-attention: the keys' labels (source words) when they are not the queries' (target words). */
  keyTokens: string[] | null;
  /** The query token shown when none is hovered or chosen (attribute `query`); null: all lines. */
  query: number | null;
  caption: string;
  addEventListener<K extends keyof HTMLElementEventMap>(type: K, listener: (this: AttnHeadViewElement, ev: HTMLElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: 'head-select', listener: (this: AttnHeadViewElement, ev: CustomEvent<{ head: number }>) => unknown, options?: boolean | AddEventListenerOptions): void;
  /** The query token whose lines are shown changed (null: all lines). */
  addEventListener(type: 'query-change', listener: (this: AttnHeadViewElement, ev: CustomEvent<{ query: number | null }>) => unknown, options?: boolean | AddEventListenerOptions): void;
  /** The pointer moved onto another query token (head: the head shown; layer: the `layer` attribute). */
  addEventListener(type: 'row-hover', listener: (this: AttnHeadViewElement, ev: CustomEvent<RowHoverDetail>) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/** <attn-token-colors>: the tokens as text, shaded by the weight each receives from the chosen token.
 *  Attributes: query, link, caption. */
export interface AttnTokenColorsElement extends RenderedElement, Linkable {
  /** One n×n Matrix of weights (a head). */
  attention: MatrixInput | null;
  /** The tokens as they read, spaces included. */
  tokens: string[] | null;
  /** The token whose attention is shown when none is hovered or focused (attribute `query`); null: none. */
  query: number | null;
  caption: string;
  addEventListener<K extends keyof HTMLElementEventMap>(type: K, listener: (this: AttnTokenColorsElement, ev: HTMLElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: 'query-change', listener: (this: AttnTokenColorsElement, ev: CustomEvent<{ query: number | null }>) => unknown, options?: boolean | AddEventListenerOptions): void;
  /** The pointer moved onto another token (layer and head are null: one matrix, no known head). */
  addEventListener(type: 'row-hover', listener: (this: AttnTokenColorsElement, ev: CustomEvent<RowHoverDetail>) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/** The sequential palettes, for values on [0, 1] (probabilities). */
export type SequentialPalette = 'YlOrRd' | 'cividis' | 'viridis';

/** <attn-logit-lens>'s data: a `LogitLens` as the GPT module returns it, or the same shape written out
 *  (cells[point][i] is the lens at positions[i]; its top[0] is drawn). */
export interface LensInput {
  points: readonly string[];
  positions: readonly number[];
  cells: readonly (readonly { top: readonly { id: number; probability: number }[] }[])[];
}

/** How <attn-logit-lens> names a token id: a function (e.g. `(id) => tokenizer.decode([id])`), a list of
 *  texts indexed by id (a vocabulary), or null (the id is shown as `#id`). */
export type TokenText = ((id: number) => string) | readonly string[] | null;

/** <attn-logit-lens>: model.logitLens's result as a table, points × positions, each cell the favoured
 *  token on its probability's colour; a column's header and cells are buttons choosing its position.
 *  Attributes: position, palette, caption. */
export interface AttnLogitLensElement extends RenderedElement {
  /** What `model.logitLens(ids, { k })` returns (every position, or some); cells' `top[0]` is drawn. */
  lens: LensInput | null;
  /** The prompt's token texts, indexed by position: the column headers. */
  tokens: string[] | null;
  /** How a favoured token id reads in its cell. */
  tokenText: TokenText;
  /** The chosen position (attribute `position`); null: none. Pressing a header or cell sets it. */
  position: number | null;
  /** The probabilities' palette on [0, 1] (attribute `palette`); default 'YlOrRd'. */
  palette: SequentialPalette;
  caption: string;
  addEventListener<K extends keyof HTMLElementEventMap>(type: K, listener: (this: AttnLogitLensElement, ev: HTMLElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  /** The reader pressed a header or cell (click, tap, Enter, Space); `position` already holds it. */
  addEventListener(type: 'position-change', listener: (this: AttnLogitLensElement, ev: CustomEvent<{ position: number }>) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/** One row of <attn-attribution>. */
export interface AttributionItem {
  /** Names the row (unique): `chosen` and item-select use it. */
  key: string | number;
  label: string;
  /** The signed contribution the bar draws. */
  value: number;
  /** The value as printed (default: signed, 3 decimals). */
  text?: string;
  /** Whether this row is a button (default: the element's `selectable`). */
  selectable?: boolean;
}

/** detail of <attn-attribution>'s `item-select` event. */
export interface ItemSelectDetail {
  key: string;
  /** True when chosen with Enter or Space, false by a pointer (a page may scroll a panel into view then). */
  keyboard: boolean;
}

/** <attn-attribution>: signed contributions as diverging horizontal bars around one zero line.
 *  Attributes: chosen, selectable, caption. */
export interface AttnAttributionElement extends RenderedElement {
  /** The rows in the order shown; e.g. `dla.terms.map((t) => ({ key: t.label, label: t.label, value: t.value }))`. */
  items: AttributionItem[];
  /** The key of the pressed row (attribute `chosen`); null: none. */
  chosen: string | null;
  /** Rows are buttons that choose their key (attribute `selectable`). */
  selectable: boolean;
  caption: string;
  addEventListener<K extends keyof HTMLElementEventMap>(type: K, listener: (this: AttnAttributionElement, ev: HTMLElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  /** The reader pressed a row; `chosen` already holds its key. */
  addEventListener(type: 'item-select', listener: (this: AttnAttributionElement, ev: CustomEvent<ItemSelectDetail>) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/** A logit-lens point's short name: "blocks.1.hook_resid_mid" → "1 resid_mid" (the rows' labels). */
export declare function pointLabel(point: string): string;

export declare const AttnHeatmap: { new (): AttnHeatmapElement; prototype: AttnHeatmapElement };
export declare const PePlot: { new (): PePlotElement; prototype: PePlotElement };
export declare const AttnStepper: { new (): AttnStepperElement; prototype: AttnStepperElement };
export declare const AttnModelView: { new (): AttnModelViewElement; prototype: AttnModelViewElement };
export declare const AttnHeadView: { new (): AttnHeadViewElement; prototype: AttnHeadViewElement };
export declare const AttnTokenColors: { new (): AttnTokenColorsElement; prototype: AttnTokenColorsElement };
export declare const AttnLogitLens: { new (): AttnLogitLensElement; prototype: AttnLogitLensElement };
export declare const AttnAttribution: { new (): AttnAttributionElement; prototype: AttnAttributionElement };

declare global {
  interface HTMLElementTagNameMap {
    'attn-heatmap': AttnHeatmapElement;
    'pe-plot': PePlotElement;
    'attn-stepper': AttnStepperElement;
    'attn-model-view': AttnModelViewElement;
    'attn-head-view': AttnHeadViewElement;
    'attn-token-colors': AttnTokenColorsElement;
    'attn-logit-lens': AttnLogitLensElement;
    'attn-attribution': AttnAttributionElement;
  }
}
