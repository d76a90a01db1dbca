// Shared by the trained-model lessons about heads: the induction sequence and its per-token losses,
// the scores table's heatmaps, the layers × heads grid and the layer/head pickers.
import { el, field, formatNumber, select, setOptions } from './dom.js';
import { heatmap } from './views.js';

// Random tokens from the learned part of the vocabulary (not the 256 single bytes, not the last id,
// <|endoftext|> in GPT-2-style vocabularies): the range the built-in model's training log used.
export function repeatRange(model) {
  const vocab = model.config.vocabSize;
  return vocab > 300 ? { low: 256, high: vocab - 1 } : { low: 0, high: vocab };
}

// "The induction heads": every head scoring at least this on a repeated random sequence.
export const INDUCTION_THRESHOLD = 0.3;

// Every head's induction score ([layers × heads] Matrix) on random tokens of length `length` repeated once.
export function inductionScores(model, tokenizer, { length, seed }) {
  const { low, high } = repeatRange(model);
  return model.headScores(tokenizer.encode('In the beginning'), { repeatLength: length, samples: 4, seed, tokenLow: low, tokenHigh: high })
    .induction;
}

// The induction heads among those scores, best first: [{ layer, head, score }].
export function rankedInductionHeads(scores) {
  return Array.from(scores.data.keys()).filter((i) => scores.data[i] >= INDUCTION_THRESHOLD)
    .sort((a, b) => scores.data[b] - scores.data[a])
    .map((i) => ({ layer: Math.floor(i / scores.cols), head: i % scores.cols, score: scores.data[i] }));
}

// The layer and head a link names, inside the model: a link made on a bigger model (or edited) may
// name one this model does not have. The nearest one it has is shown, and said above the lesson, as
// the link's other corrections are; the URL then names what is shown. layers: how many layers the
// choice may come from (patching's sender: all but the last).
export function headInModel(ctx, { numLayers, numHeads }, layer, head, layers = numLayers) {
  const fitted = { layer: Math.min(layer, layers - 1), head: Math.min(head, numHeads - 1) };
  if (fitted.layer !== layer || fitted.head !== head) {
    const has = layers === numLayers ? `This model has ${numLayers} layers of ${numHeads} heads`
      : `The choice is among layers 0 … ${layers - 1} of this model’s ${numLayers}, of ${numHeads} heads each`;
    ctx.notice(`${has}: showing layer ${fitted.layer}, head ${fitted.head} instead of layer ${layer}, head ${head}.`);
    ctx.remember(fitted);
  }
  return fitted;
}

// The longest repeated half that fits the context, at most `wanted`.
export const repeatLength = (model, wanted) => Math.max(2, Math.min(wanted, Math.floor(model.config.contextLength / 2)));

// { ids [2T], losses [2T − 1], first, second }: the mean loss predicting tokens 1 … T − 1 of the first
// copy, and tokens T + 1 … 2T − 1 of the second (where an induction head can copy the answer).
export function inductionRun(lab, model, { length, seed, ablate, ablation = 'zero' }) {
  const ids = lab.repeatedRandomTokens(length, { ...repeatRange(model), seed });
  const losses = model.tokenLosses(ids, ablate ? { ablate, ablation } : undefined);
  const mean = (from, to) => {
    let sum = 0;
    for (let t = from; t < to; t++) sum += losses[t];
    return sum / (to - from);
  };
  // losses[t] is the loss of predicting ids[t + 1]
  return { ids, losses, first: mean(0, length - 1), second: mean(length, 2 * length - 1) };
}

// A lesson's chosen head in its URL state: −1 in either lets the lesson pick one (the strongest, say).
export const CHOSEN_HEAD = Object.freeze({
  layer: { type: 'int', min: -1, max: 47, default: -1 },
  head: { type: 'int', min: -1, max: 63, default: -1 },
});

// A layer × head table of one score as a heatmap with its values printed.
export function scoreMap(caption, { numLayers, numHeads }) {
  return heatmap({ caption, domain: [0, 1], decimals: 2, showValues: true, rowTitle: 'Layer', colTitle: 'Head',
    rowLabels: Array.from({ length: numLayers }, (_, l) => String(l)), colLabels: Array.from({ length: numHeads }, (_, h) => String(h)) });
}

// The position each row's weight is largest at, as a short description of what the head does here.
export function describeHead(weights) {
  const n = weights.rows;
  let previous = 0, first = 0, self = 0;
  for (let i = 1; i < n; i++) {
    const row = weights.data.subarray(i * n, i * n + i + 1);
    let best = 0;
    for (let j = 1; j <= i; j++) if (row[j] > row[best]) best = j;
    if (best === i - 1) previous++;
    else if (best === 0) first++;
    else if (best === i) self++;
  }
  const share = (count) => formatNumber((100 * count) / Math.max(1, n - 1), 0);
  return `From positions 1 … ${n - 1}, its largest weight is on the previous token in ${share(previous)}% of rows, ` +
    `on the first token in ${share(first)}%, on the token itself in ${share(self)}%.`;
}

export const nats = (x) => `${formatNumber(x, 2)} nats`;

// A layers × heads grid with "Head h" and "Layer l" titles; cell(layer, head) makes each cell's node.
export function headGrid(label, { numLayers, numHeads }, cell) {
  const grid = el('div', { class: 'head-grid', role: 'group', 'aria-label': label });
  grid.style.gridTemplateColumns = `auto repeat(${numHeads}, minmax(0, 1fr))`;  // CSSOM: the CSP refuses style attributes
  grid.append(el('span'), ...Array.from({ length: numHeads }, (_, h) => el('span', { class: 'head-grid-title', text: `Head ${h}` })));
  for (let l = 0; l < numLayers; l++) {
    grid.append(el('span', { class: 'head-grid-title', text: `Layer ${l}` }));
    for (let h = 0; h < numHeads; h++) grid.append(cell(l, h));
  }
  return grid;
}

// The Layer and Head selects, built once: { nodes, show(layer, head) } — show sets them in place, so the
// learner's focus stays on the one just changed. onChange(layer, head) with both as numbers.
export function layerHeadPickers({ numLayers, numHeads }, onChange) {
  const options = (count) => Array.from({ length: count }, (_, i) => [i, String(i)]);
  const layer = select(options(numLayers), 0, () => onChange(Number(layer.value), Number(head.value)));
  const head = select(options(numHeads), 0, () => onChange(Number(layer.value), Number(head.value)));
  return {
    nodes: [field('Layer', layer), field('Head', head)],
    show(l, h) {
      setOptions(layer, options(numLayers), l);
      setOptions(head, options(numHeads), h);
    },
  };
}
