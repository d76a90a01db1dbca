// The home page's live figures, loaded when one scrolls into view (home.js): the package computes
// them in the page, as in the lessons.
import 'attnlab/components';
import { AttnLabError } from 'attnlab';

import { probabilityBars, topIds } from './bars.js';
import { el } from './dom.js';
import { tokenLabel } from './gpt-model.js';
import { getLab } from './lab.js';
import { pointLabel } from './lens-points.js';
import { llamaLabel } from './modern-model.js';
import { heatmap } from './views.js';

const SENTENCE = 'the cat sat on the mat';
const PROMPT = 'Thou shalt love thy neighbour as';
const SHOWN = 5;  // next tokens drawn as bars

async function mechanism(figure) {
  const lab = await getLab();
  const tokens = lab.tokenize(SENTENCE);
  const x = lab.embedTokens(tokens, 16, { seed: 0, positions: 'sinusoidal' });
  const { weights } = lab.scaledDotProductAttention(x, x, x);
  const map = heatmap({ matrix: weights, rowLabels: tokens, colLabels: tokens, caption: 'Self-attention weights',
    rowTitle: 'Query (each word)', colTitle: 'Key' });
  map.setAttribute('no-export', '');
  figure.replaceChildren(map);
}

async function trained(figure) {
  const lab = await getLab();
  const { model, tokenizer } = await lab.loadBuiltinModel();
  const ids = tokenizer.encode(PROMPT);
  const { logits } = model.forward(ids, { logits: 'last' });
  const { probabilities } = lab.sample(logits.data, { temperature: 1, topK: 0, topP: 1, seed: 0 });
  const bars = probabilityBars(`The next token after “${PROMPT}”: the ${SHOWN} most likely`);
  bars.update(topIds(probabilities, SHOWN).map((id) => ({ label: tokenLabel(tokenizer, id), value: probabilities[id] })));
  figure.replaceChildren(bars.node);
}

// The logit lens at the prompt's last position: the probability of " thyself" read at every point.
async function why(figure) {
  const lab = await getLab();
  const { model, tokenizer } = await lab.loadBuiltinModel();
  const ids = tokenizer.encode(PROMPT);
  const [target] = tokenizer.encode(' thyself');
  const { rows } = model.logitLens(ids, { position: ids.length - 1, k: 1, target });
  const bars = probabilityBars(`The probability of “ thyself” after “${PROMPT}”, read at each point`);
  bars.update(rows.map((row) => ({ label: pointLabel(row.point), value: row.target.probability })));
  figure.replaceChildren(bars.node);
}

// attnlab's small Llama on the same prompt: its query heads in the first layer side by side, each framed in the
// colour of the key/value head it shares (styles.css .kv-group-N).
async function modern(figure) {
  const lab = await getLab();
  const { model, tokenizer } = await lab.loadBuiltinLlama();
  const { numHeads, numKeyValueHeads } = model.config;
  const ids = Array.from(tokenizer.encode(PROMPT));
  const labels = ids.map((id) => llamaLabel(tokenizer, id));
  const name = 'blocks.0.attn.hook_pattern';
  const pattern = model.runWithCache(ids, { names: [name] }).cache.get(name);  // (heads, t, t)
  const t = ids.length;
  figure.replaceChildren(el('div', { class: 'kv-preview' }, Array.from({ length: numHeads }, (_, h) => {
    const g = Math.floor(h / (numHeads / numKeyValueHeads));
    const map = heatmap({ matrix: { rows: t, cols: t, data: pattern.data.slice(h * t * t, (h + 1) * t * t) }, rowLabels: labels, colLabels: labels,
      caption: `Query head ${h}, reading key/value head ${g}`, showValues: false });
    map.setAttribute('no-export', '');
    return el('div', { class: `panel head-panel kv-group kv-group-${g % 4}` }, map);
  })));
}

const DRAW = { mechanism, trained, why, modern };

export async function drawPreview(part, figure) {
  try {
    await DRAW[part](figure);
  } catch (error) {
    const message = error instanceof AttnLabError ? error.message : `The figure could not be computed: ${error?.message ?? error}`;
    figure.replaceChildren(el('p', { class: 'error', text: message }));
  }
}
