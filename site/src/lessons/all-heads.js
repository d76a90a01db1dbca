// Trained model, lesson 4: every head at once. The prompt's attention for all layers × heads as small
// heatmaps on one colour scale (as BertViz's model view draws them); choosing one enlarges it with
// the tokens on its axes.
import { el, formatNumber } from '../dom.js';
import { headGrid, layerHeadPickers } from '../gpt-heads.js';
import { lessonModel, modelLine, promptIds, tokenLabel } from '../gpt-model.js';
import { lessonPage } from '../page.js';
import { heatmap, panel, sentenceInput } from '../views.js';

const DEFAULT_PROMPT = 'And God said, Let there be light: and there was light. And God saw the light, that it was good.';

// The position each row's weight is largest at, as a short description of what the head does here.
function describeHead(weights) {
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

lessonPage({
  slug: 'all-heads',
  intro: [
    'Each layer of the model has several heads, and every head computes its own attention over the prompt. ' +
      'Here are all of them at once: one small heatmap per layer (rows) and head (columns), each row of a ' +
      'heatmap one query token, on one shared colour scale from 0 to 1.',
    'Heads look different at a glance: some put nearly all weight on the token just before (a bright ' +
      'line under the diagonal), some on the first token (a bright first column: the “attention sink”, a place ' +
      'to put weight when there is nothing useful to look at), some spread out. Choose a head to enlarge it.',
  ],
  formula: String.raw`A^{(\ell, h)} = \operatorname{softmax}\!\Big(\frac{Q^{(\ell,h)} K^{(\ell,h)\top}}{\sqrt{d_k}} + M_{\text{causal}}\Big)`,
  pytorch: 'out = model(ids, output_attentions=True)\nout.attentions  # tuple of num_layers tensors [batch, heads, n, n]',
  call: 'const { attention } = model.forward(ids, { attention: true });\nattention[layer][head]  // Matrix n×n',
  schema: {
    prompt: { type: 'text', maxLength: 300, default: DEFAULT_PROMPT },
    layer: { type: 'int', min: 0, max: 47, default: 0 },
    head: { type: 'int', min: 0, max: 63, default: 0 },
  },
  prepare: lessonModel,
  setup(ctx) {
    const { state, root, prepared } = ctx;
    const { model, tokenizer } = prepared;
    const { numLayers, numHeads } = model.config;
    const choose = (layer, head) => ctx.set({ layer, head });
    const thumbs = [];
    const grid = headGrid('Every layer’s and head’s attention', model.config, (l, h) => {
      const map = heatmap({ showValues: false, rowTitle: '', colTitle: '', caption: '' });
      map.setAttribute('no-export', '');
      map.addEventListener('click', () => choose(l, h));
      const button = el('button', { type: 'button', class: 'head-pick', text: `L${l} H${h}`, 'aria-label': `L${l} H${h}: enlarge layer ${l}, head ${h}`,
        on: { click: () => choose(l, h) } });
      thumbs.push({ layer: l, head: h, map, cell: el('div', { class: 'head-thumb' }, button, map) });
      return thumbs.at(-1).cell;
    });
    const large = heatmap({ rowTitle: 'Query (each token)', colTitle: 'Key (tokens it can see)' });
    const about = el('p', { class: 'explain', 'aria-live': 'polite' });
    const pick = el('div', { class: 'controls' },
      ...layerHeadPickers(model.config, Math.min(state.layer, numLayers - 1), Math.min(state.head, numHeads - 1), choose));
    root.append(modelLine(prepared),
      el('div', { class: 'controls' }, sentenceInput('Prompt', state.prompt, (prompt) => ctx.set({ prompt }), 300)),
      el('div', { class: 'table-wrap' }, grid), el('h2', { text: 'One head, enlarged' }), pick, about, panel(null, large));

    let cached = { prompt: null };
    return () => {
      if (cached.prompt !== state.prompt) {
        const { ids } = promptIds(tokenizer, model, state.prompt, DEFAULT_PROMPT);
        cached = { prompt: state.prompt, ids, ...model.forward(ids, { attention: true }) };
        const labels = Array.from(ids, (id) => tokenLabel(tokenizer, id));
        cached.labels = labels;
        for (const t of thumbs) t.map.matrix = cached.attention[t.layer][t.head];
      }
      const layer = Math.min(state.layer, numLayers - 1), head = Math.min(state.head, numHeads - 1);
      for (const t of thumbs) t.cell.classList.toggle('chosen', t.layer === layer && t.head === head);
      const weights = cached.attention[layer][head];
      Object.assign(large, { matrix: weights, rowLabels: cached.labels, colLabels: cached.labels,
        caption: `Layer ${layer}, head ${head}: ${weights.rows} × ${weights.cols} (hover or use the arrow keys for each weight)` });
      about.textContent = `Layer ${layer}, head ${head}. ${describeHead(weights)}`;
    };
  },
});
