// Trained model, lesson 3: generation with the KV cache. Each new token adds one key row and one value
// row per layer and head; its query attends over everything cached; the page counts the multiply-adds
// with and without the cache (from the package).
import { el, formatNumber } from '../../dom.js';
import { headInModel, layerHeadPickers } from '../../gpt-heads.js';
import { lessonModel, modelLine, promptIds, tokenLabel } from '../../gpt-model.js';
import { lessonPage } from '../../page.js';
import modelSource from '../../../snippets/trained/gpt2_kjv.py?raw';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';
import { DEFAULT_REPETITION_PENALTY } from './parts.js';
import { repeatsSection } from './repeats-section.js';
import { heatmap, panel, seedField, sentenceInput, SIGNED, slider } from '../../views.js';

const MAX_NEW = 48;
const FALLBACK = 'And it came to pass';  // what the model reads when the prompt box is empty
const penalty = (state) => Number((state.penalty / 100).toFixed(2));

lessonPage({
  slug: 'kv-cache',
  intro: [
    'To generate, a GPT predicts one token, appends it and predicts again. Run naively, every step repeats ' +
      'the whole forward pass over the whole text. But with a causal mask nothing about an earlier position ' +
      'changes when a token is appended: its keys and values stay the same. So each layer keeps them — the ' +
      'KV cache — and a step only computes the new token’s query, key and value and one row of attention.',
    'Press “Next token” and watch the cache of the chosen layer and head grow by one row; the new query’s ' +
      'weights over every cached key are the heatmap at the top.',
    'Each draw uses temperature 0.8, top-k 40 and a repetition penalty: a token already in the text has its ' +
      'logit divided by the penalty (multiplied, if negative) before the draw. Without it a small model loops: its ' +
      'copying heads copy its own output. When attnlab measured attnlab-kjv on four prompts of its documentation, ' +
      '100 samples of 60 tokens per setting, about two samples in five looped without the penalty, and with the default ' +
      '1.2 in fewer than one in ten; held-out King James text itself repeats in about 3.5 windows in a hundred. Your ' +
      'prompt’s own count, in “Why small models repeat themselves” below, differs from prompt to prompt. Set the ' +
      'penalty to 1 to see the loops.',
  ],
  formula: String.raw`\text{attn}(q_{t}) = \operatorname{softmax}\!\Big(\tfrac{q_t\,[\,k_1 \dots k_t\,]^\top}{\sqrt{d_k}}\Big)\,[\,v_1 \dots v_t\,]`,
  pytorch: { source: pytorchSource, model: modelSource, ...PROGRAM },
  call: (state) => 'const session = model.session();\nfor (const id of ids) session.append(id);\n' +
    'const { logits, attention } = session.append(next);  // one row per layer and head\nconst { keys, values } = session.cache(layer);\n' +
    `const { token } = lab.sample(logits, { temperature: 0.8, topK: 40, repetitionPenalty: ${penalty(state)}, context: tokens, seed });`,
  schema: {
    prompt: { type: 'text', maxLength: 200, default: FALLBACK },
    steps: { type: 'int', min: 0, max: MAX_NEW, default: 3 },
    penalty: { type: 'int', min: 100, max: 200, default: Math.round(DEFAULT_REPETITION_PENALTY * 100) },  // hundredths
    samples: { type: 'enum', values: ['10', '20', '50'], default: '20' },  // per setting, in "Why small models repeat themselves"
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
    layer: { type: 'int', min: 0, max: 47, default: 0 },
    head: { type: 'int', min: 0, max: 63, default: 0 },
  },
  prepare: lessonModel,
  setup(ctx) {
    const { lab, state, root, prepared } = ctx;
    const { model, tokenizer } = prepared;
    const { numLayers, numHeads, dModel } = model.config;
    const dHead = dModel / numHeads;
    const session = model.session();
    const text = el('p', { class: 'generated', 'aria-live': 'polite' });
    const query = heatmap({ rowTitle: 'New query', colTitle: 'Cached key', caption: 'The new token’s attention over the cache' });
    const keys = heatmap({ ...SIGNED, showValues: false, rowTitle: 'Position', colTitle: 'Dimension', caption: 'K cache' });
    const values = heatmap({ ...SIGNED, showValues: false, rowTitle: 'Position', colTitle: 'Dimension', caption: 'V cache' });
    const counts = el('table', { class: 'data' });
    const countRule = el('p', { class: 'explain count-rule' });
    const pickers = layerHeadPickers(model.config, (l, h) => ctx.set({ layer: l, head: h }));
    const headChoice = el('div', { class: 'controls' }, ...pickers.nodes);
    const promptBox = sentenceInput('Prompt', state.prompt, (prompt) => ctx.set({ prompt, steps: 0 }), 200, { key: 'prompt', lines: 3 });
    root.append(
      modelLine(prepared),
      el('div', { class: 'controls' }, promptBox,
        seedField(state.seed, (seed) => ctx.set({ seed })),
        slider('Repetition penalty', { min: 100, max: 200, step: 5, value: state.penalty, format: (v) => (v === 100 ? '1 (off)' : String(v / 100)) },
          (value) => ctx.set({ penalty: value })),
        el('div', { class: 'button-row' },
          el('button', { type: 'button', text: 'Next token', on: { click: () => ctx.set({ steps: Math.min(MAX_NEW, state.steps + 1) }) } }),
          el('button', { type: 'button', text: 'Start over', on: { click: () => ctx.set({ steps: 0 }) } }))),
      text, headChoice,
      panel(null, query),
      el('div', { class: 'grid' }, panel(null, keys), panel(null, values)),
      el('h2', { text: 'Work per step: with and without the cache' }), el('div', { class: 'table-wrap' }, counts), countRule);
    const repeats = repeatsSection({ lab, model, tokenizer, prompt: () => promptIds(tokenizer, model, state.prompt, FALLBACK).ids,
      samples: () => Number(state.samples), setSamples: (n) => ctx.remember({ samples: String(n) }) });
    root.append(repeats.node);
    let repeatsPrompt = state.prompt;

    function generate() {
      const { ids } = promptIds(tokenizer, model, state.prompt, FALLBACK, { box: promptBox });
      session.reset();
      let step;
      for (const id of ids) step = session.append(id);
      const tokens = Array.from(ids);
      const newCount = Math.min(state.steps, model.config.contextLength - ids.length);
      for (let s = 0; s < newCount; s++) {
        const { token } = lab.sample(step.logits, { temperature: 0.8, topK: 40, repetitionPenalty: penalty(state), context: tokens,
          seed: state.seed * 1000 + s });
        tokens.push(token);
        step = session.append(token);
      }
      return { ids, tokens, step, newCount };
    }

    let generated = { key: null };
    return () => {
      const { layer, head } = headInModel(ctx, model.config, state.layer, state.head);
      pickers.show(layer, head);

      // Replays the prompt, then `steps` seeded draws (temperature 0.8, top-k 40, the penalty), each fed back — only
      // when one of those settings changed; choosing another layer or head reads the same cache.
      if (state.prompt !== repeatsPrompt) {  // counts for another prompt would not be this one's
        repeatsPrompt = state.prompt;
        repeats.reset();
      }
      const key = JSON.stringify([state.prompt, state.steps, state.seed, state.penalty]);
      if (generated.key !== key) generated = { key, ...generate() };
      const { ids, tokens, step, newCount } = generated;
      const n = tokens.length;
      const labels = tokens.map((id) => tokenLabel(tokenizer, id));
      text.replaceChildren(el('span', { class: 'prompt-part', text: tokenizer.decode(ids) }),
        el('span', { class: 'new-part', text: tokenizer.decode(tokens.slice(ids.length)) }),
        el('span', { class: 'field-hint', text: newCount < state.steps ? ` (the context is full at ${model.config.contextLength} tokens)` : '' }));

      const cache = session.cache(layer);
      const headColumns = (m) => {
        const out = new Float32Array(m.rows * dHead);
        for (let r = 0; r < m.rows; r++) out.set(m.data.subarray(r * m.cols + head * dHead, r * m.cols + (head + 1) * dHead), r * dHead);
        return { rows: m.rows, cols: dHead, data: out };
      };
      const dims = Array.from({ length: dHead }, (_, j) => String(j));
      const newest = { rows: [n - 1] };
      Object.assign(query, { matrix: step.attention[layer][head], rowLabels: [labels[n - 1]], colLabels: labels,
        caption: `Layer ${layer}, head ${head}: the query of “${labels[n - 1]}” (position ${n - 1}) over all ${n} cached keys` });
      Object.assign(keys, { matrix: headColumns(cache.keys), rowLabels: labels, colLabels: dims, highlight: newest,
        caption: `K cache, layer ${layer}, head ${head}: ${n} × ${dHead} (the newest row outlined)` });
      Object.assign(values, { matrix: headColumns(cache.values), rowLabels: labels, colLabels: dims, highlight: newest,
        caption: `V cache, layer ${layer}, head ${head}: ${n} × ${dHead}` });

      // Multiply-adds for the latest token, and summed over every generated token so far.
      const cost = (t, cache) => model.multiplyAdds(t, { cache });
      let withTotal = 0, withoutTotal = 0;
      for (let t = ids.length + 1; t <= n; t++) {
        withTotal += cost(t, true);
        withoutTotal += cost(t, false);
      }
      const fmt = (x) => x.toLocaleString('en');
      // How they are counted (the package's gpt_multiply_adds), with this model's numbers.
      const { vocabSize: V } = model.config;
      const L = numLayers, d = dModel;
      const withCache = L * (12 * d * d + 2 * n * d) + V * d;
      const without = L * (n * 12 * d * d + d * n * (n + 1)) + V * d;
      countRule.textContent = `How they are counted: per layer, each row through the projections costs 12·d² multiply-adds ` +
        `(c_attn 3d², c_proj d², the MLP 8d²) and its attention 2·d per key it sees; the output layer V·d for the last row. ` +
        `With the cache only the new row is computed: L·(12d² + 2·n·d) + V·d = ${L} × (12 × ${d}² + 2 × ${n} × ${d}) + ` +
        `${fmt(V)} × ${d} = ${fmt(withCache)}. Without it all n rows are, their keys 1 + 2 + … + n: ` +
        `L·(n·12d² + d·n(n + 1)) + V·d = ${fmt(without)}.`;
      counts.replaceChildren(
        el('tr', {}, el('th', { scope: 'col', text: '' }), el('th', { scope: 'col', text: 'With the KV cache' }),
          el('th', { scope: 'col', text: 'Without (full forward)' }), el('th', { scope: 'col', text: 'Ratio' })),
        el('tr', {}, el('th', { scope: 'row', text: `The last token (position ${n - 1})` }), el('td', { text: fmt(cost(n, true)) }),
          el('td', { text: fmt(cost(n, false)) }), el('td', { text: `${formatNumber(cost(n, false) / cost(n, true), 1)}×` })),
        el('tr', {}, el('th', { scope: 'row', text: `All ${n - ids.length} generated tokens` }), el('td', { text: fmt(withTotal) }),
          el('td', { text: fmt(withoutTotal) }), el('td', { text: withTotal ? `${formatNumber(withoutTotal / withTotal, 1)}×` : '–' })));
    };
  },
});
