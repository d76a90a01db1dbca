// Part four, lesson 1: shared keys and values (multi-head, grouped-query and multi-query attention). One layer
// of attnlab-kjv-llama, whose query heads share key/value heads: which query head reads which key/value head,
// and their patterns side by side on the learner's prompt (runWithCache, hook_pattern). The KV cache that
// sharing saves, per token and for a whole context, for published configs and for the learner's numbers. What
// sharing costs: attnlab-kjv (the GPT) with its key/value heads mean-pooled into fewer groups, measured on
// held-out King James text in a worker (pool-worker.js): the first chapter of part four's held-out text
// (site/src/held-out-text.js, which the rotary and windows lessons read too), which the model never trained on.
import { AttnLabError } from 'attnlab';

import { el, field, formatNumber, select, setOptions } from '../../dom.js';
import { CHAPTERS } from '../../held-out-text.js';
import { llamaLabel, llamaLine, llamaModel, llamaPromptIds } from '../../modern-model.js';
import { MODERN_PROGRAM } from '../../modern-program.js';
import { lessonPage } from '../../page.js';
import { sweepRunner } from '../../sweep-runner.js';
import { heatmap, MAX_TOKENS, sentenceInput } from '../../views.js';
import { poolWorkerUrl } from '../../worker-url.js';
import { BF16_BYTES, bytesWithUnit, cacheRow, checkBytesGuess, CONFIGS, DTYPES, EXERCISE, formatBytes, kvBytesPerToken,
  kvHeadOf, LIMITS, poolGroups, readCalculator } from './parts.js';
import pytorchSource from './program.py?raw';
import { MEASURED_TEXT, PROGRAM } from './settings.js';

const FALLBACK = 'And God said, Let there be light: and there was light.';
const GROUP_COLOURS = 4;  // styles.css: .kv-group-0 … .kv-group-3, repeated past four groups
const groupClass = (g) => `kv-group-${g % GROUP_COLOURS}`;
const f3 = (x) => formatNumber(x, 3);
const signed = (x) => (x >= 0 ? `+${f3(x)}` : f3(x));

lessonPage({
  slug: 'shared-kv',
  intro: [
    'In the multi-head attention of parts one to three every head has its own queries, keys and values. While a model ' +
      'generates, the keys and values of every token so far are kept (the KV cache), in every layer and for every head: ' +
      'for a long text that cache, not the weights, is what fills the memory. Most of today’s open models let ' +
      'several query heads share one key/value head: grouped-query attention (GQA, Ainslie et al., 2023), or a single ' +
      'key/value head for all of them, multi-query attention (MQA, Shazeer, 2019). Each query head still has its own ' +
      'queries, so heads that read the same keys can still look at different tokens.',
    'Below: one layer of attnlab’s own small Llama, whose query heads share key/value heads, on a prompt you type; what ' +
      'the cache costs for published models, and for numbers you choose; and what sharing costs a model trained without ' +
      'it, measured on text it never saw.',
  ],
  formula: String.raw`\text{bytes per token} = 2\cdot L\cdot H_{\text{kv}}\cdot d_{\text{head}}\cdot b`,
  pytorch: { source: pytorchSource, ...MODERN_PROGRAM, ...PROGRAM },
  call: (state) => `const { model } = await lab.loadBuiltinLlama();\n` +
    `const { cache } = model.runWithCache(ids, { names: ['blocks.${state.layer}.attn.hook_pattern'] });\n` +
    `const pattern = cache.get('blocks.${state.layer}.attn.hook_pattern');  // (query heads, seq, seq)\n` +
    'model.config.kvCacheBytesPerToken;  // 2 · layers · kv heads · head dim · 4 (float32)\n' +
    '// pooled: c_attn\'s key and value columns averaged over each group, in model.save()\'s bytes\n' +
    'const pooled = await lab.loadGPT(pooledBytes);\nconst losses = pooled.tokenLosses(window);',
  schema: {
    prompt: { type: 'text', maxLength: 300, default: FALLBACK },
    layer: { type: 'int', min: 0, max: 47, default: 0 },
    layers: { type: 'int', min: 1, max: 1000, default: 32 },
    heads: { type: 'int', min: 1, max: 1024, default: 32 },
    kvHeads: { type: 'int', min: 1, max: 1024, default: 8 },
    headDim: { type: 'int', min: 1, max: 4096, default: 128 },
    bytes: { type: 'enum', values: ['4', '2', '1'], default: '2' },
    tokens: { type: 'int', min: 1, max: 10_000_000, default: 8192 },
  },
  prepare: async (lab, notices, loading) => ({ llama: await llamaModel(lab, loading) }),
  setup(ctx) {
    const { state, root, prepared } = ctx;
    const { model, tokenizer } = prepared.llama;
    const { numLayers, numHeads, numKeyValueHeads, headDim } = model.config;
    const perGroup = numHeads / numKeyValueHeads;

    // ---- One layer: who reads which key/value head, and the patterns ----
    const promptBox = sentenceInput('Prompt', state.prompt, (prompt) => ctx.set({ prompt }), 300, { key: 'prompt', lines: 2 });
    const layerSelect = select(Array.from({ length: numLayers }, (_, l) => [l, `layer ${l}`]), state.layer, (v) => ctx.set({ layer: Number(v) }));
    const groups = el('ul', { class: 'kv-groups', 'aria-label': 'Which query heads share each key/value head' },
      Array.from({ length: numKeyValueHeads }, (_, g) => el('li', { class: `kv-group ${groupClass(g)}` },
        el('span', { class: 'kv-group-name', text: `key/value head ${g}` }),
        el('span', { text: ' is read by ' }),
        el('span', { class: 'kv-group-heads', text: Array.from({ length: perGroup }, (_, i) => `query head ${g * perGroup + i}`).join(' and ') }))));
    const maps = Array.from({ length: numHeads }, (_, h) => {
      const g = kvHeadOf(h, numHeads, numKeyValueHeads);
      const map = heatmap({ decimals: 2, showValues: false, rowTitle: 'Query', colTitle: 'Key' });
      return { map, node: el('section', { class: `panel head-panel ${groupClass(g)}`, 'aria-label': `Query head ${h}` },
        el('h3', { text: `Query head ${h} · key/value head ${g}` }), map) };
    });
    const similarity = el('p', { class: 'explain pattern-readout', 'aria-live': 'polite' });

    // ---- The cache it saves ----
    const table = el('table', { class: 'data kv-table' },
      el('caption', { text: `The KV cache in bf16 (${BF16_BYTES} bytes a number), from each model’s config.json` }),
      el('thead', {}, el('tr', {}, ['Model', 'Layers', 'Query heads', 'Key/value heads', 'Head dimension', 'Per token',
        'Context (tokens)', 'For the full context', 'With multi-head, per token', 'With multi-head, full context']
        .map((t) => el('th', { scope: 'col', text: t })))),
      el('tbody', {}, CONFIGS.map((c) => {
        const row = cacheRow(c);
        return el('tr', { 'data-model': c.name },
          el('th', { scope: 'row' }, el('a', { href: c.href, text: c.name })),
          ...[c.layers, c.heads, c.kvHeads, c.headDim].map((n) => el('td', { text: n.toLocaleString('en') })),
          el('td', { class: 'per-token', text: bytesWithUnit(row.perToken) }),
          el('td', { text: c.context.toLocaleString('en') }),
          el('td', { class: 'full-context', text: formatBytes(row.context) }),
          el('td', { text: formatBytes(row.multiHead) }),
          el('td', { text: `${formatBytes(row.multiHeadContext)} (${row.saving}× as much)` }));
      })));
    const own = el('p', { class: 'explain own-cache' });

    const boxes = Object.fromEntries(Object.entries(LIMITS).map(([key, { label, min, max }]) => {
      const input = el('input', { type: 'text', inputmode: 'numeric', value: String(state[key]), 'aria-describedby': 'kv-calc-result',
        on: { change: () => recompute() } });
      input.dataset.min = String(min);
      input.dataset.max = String(max);
      return [key, { input, node: field(label, input) }];
    }));
    const dtype = select(DTYPES, state.bytes, () => recompute());
    const calcError = el('p', { class: 'error calc-error', role: 'alert', hidden: true });
    const calcResult = el('p', { class: 'readout calc-result', id: 'kv-calc-result', 'aria-live': 'polite' });
    function recompute() {
      const read = readCalculator(Object.fromEntries(Object.entries(boxes).map(([k, b]) => [k, b.input.value])));
      calcError.hidden = !read.error;
      calcError.textContent = read.error ?? '';
      if (read.error) {
        calcResult.dataset.state = 'refused';
        calcResult.textContent = '';
        return;
      }
      ctx.set({ ...read.values, bytes: dtype.value });
    }
    function drawCalculator() {
      for (const [key, b] of Object.entries(boxes)) if (document.activeElement !== b.input) b.input.value = String(state[key]);
      setOptions(dtype, DTYPES, state.bytes);
      const read = readCalculator(state);
      if (read.error) {  // a link whose numbers do not fit together: said, and nothing computed
        calcError.hidden = false;
        calcError.textContent = read.error;
        calcResult.dataset.state = 'refused';
        calcResult.textContent = '';
        return;
      }
      calcError.hidden = true;
      const bytes = Number(state.bytes);
      const perToken = kvBytesPerToken(state, bytes), multiHead = kvBytesPerToken({ ...state, kvHeads: state.heads }, bytes);
      const kind = state.kvHeads === state.heads ? 'multi-head attention (every query head its own key/value head)'
        : state.kvHeads === 1 ? 'multi-query attention (one key/value head for all)'
          : `grouped-query attention, ${state.heads / state.kvHeads} query heads per key/value head`;
      calcResult.textContent = `This is ${kind}. Per token: 2 × ${state.layers} × ${state.kvHeads} × ${state.headDim} × ${bytes} = ` +
        `${bytesWithUnit(perToken)}; for ${state.tokens.toLocaleString('en')} tokens, ${formatBytes(perToken * state.tokens)}. ` +
        (state.kvHeads === state.heads ? 'Nothing is shared, so nothing is saved.'
          : `With multi-head attention the same model would keep ${bytesWithUnit(multiHead)} per token, ` +
            `${formatBytes(multiHead * state.tokens)} for the ${state.tokens.toLocaleString('en')} tokens.`);
      calcResult.dataset.state = 'done';
      calcResult.dataset.perToken = String(perToken);
    }

    // ---- What sharing costs ----
    let gpt = null;  // the worker's word on attnlab-kjv: { numHeads, numLayers, dModel, contextLength, targets }
    const sweep = sweepRunner('the held-out loss of each pooled model', (error) => ctx.report(error));
    const costRows = el('tbody');
    const costTable = el('table', { class: 'data kv-table cost-table' },
      el('caption', { text: 'attnlab-kjv on held-out King James chapters, its key/value heads mean-pooled (no training after)' }),
      el('thead', {}, el('tr', {}, ['Key/value heads per layer', 'Query heads per key/value head', 'Cache per token (float32)',
        'Held-out loss (nats per token)', 'Change'].map((t) => el('th', { scope: 'col', text: t })))), costRows);
    const costReadout = el('p', { class: 'explain cost-readout', 'aria-live': 'polite' });
    const results = [];

    // The measurement runs in a worker (pool-worker.js): a window's forward alone is about a task's budget on a phone.
    function measure({ signal, progress }) {
      results.length = 0;
      gpt = null;
      drawCost();
      return new Promise((resolve, reject) => {
        const worker = new Worker(poolWorkerUrl(), { type: 'module' });
        const stop = () => {
          worker.terminate();
          reject(new DOMException('The sweep was stopped', 'AbortError'));
        };
        signal.addEventListener('abort', stop, { once: true });
        worker.addEventListener('message', ({ data }) => {
          if (data.type === 'progress') progress(data.text);
          else if (data.type === 'setup') {
            gpt = data;
            drawCost();
          } else if (data.type === 'result') {
            results.push({ groups: data.groups, loss: data.loss });
            drawCost();
          } else {
            signal.removeEventListener('abort', stop);
            worker.terminate();
            if (data.type === 'done') resolve();
            else reject(new AttnLabError(data.message));
          }
        });
        worker.addEventListener('error', (event) => {
          signal.removeEventListener('abort', stop);
          worker.terminate();
          reject(new AttnLabError(`The measurement could not start in a worker: ${event.message ?? 'the browser gave no reason'}.`));
        });
        worker.postMessage({ type: 'measure', text: MEASURED_TEXT });
      });
    }
    function drawCost() {
      costTable.dataset.rows = String(results.length);
      if (!gpt) {
        costRows.replaceChildren();
        costReadout.textContent = '';
        return;
      }
      const { numHeads, numLayers, dModel, contextLength, targets } = gpt;
      const base = results[0]?.loss;
      costRows.replaceChildren(...results.map((r) => el('tr', { 'data-groups': String(r.groups), 'data-loss': String(r.loss) },
        el('td', { text: String(r.groups) }), el('td', { text: String(numHeads / r.groups) }),
        el('td', { text: bytesWithUnit(kvBytesPerToken({ layers: numLayers, kvHeads: r.groups, headDim: dModel / numHeads }, 4)) }),
        el('td', { text: f3(r.loss) }),
        el('td', { text: r.groups === numHeads ? 'the trained model' : signed(r.loss - base) }))));
      if (results.length < poolGroups(numHeads).length) {
        costReadout.textContent = `Measured on ${targets.toLocaleString('en')} held-out tokens to predict, in windows of ${contextLength}, the model’s context.`;
        return;
      }
      const [mha, ...shared] = results;
      costReadout.textContent = `Predicting ${targets.toLocaleString('en')} held-out tokens, the trained model’s loss is ${f3(mha.loss)} nats per token; ` +
        shared.map((r) => `with ${r.groups === 1 ? 'one key/value head per layer' : `${r.groups} key/value heads per layer`} it is ` +
          `${f3(r.loss)} (${signed(r.loss - mha.loss)})`).join(', and ') +
        '. That is the price of sharing before any training. Ainslie et al. start from such a pooled checkpoint and train it ' +
        'on for 5% of the original pre-training steps (uptraining), which brought their grouped-query models close to the ' +
        'multi-head originals at a fraction of the cache.';
    }

    // ---- Try this ----
    const guess = el('input', { type: 'text', inputmode: 'numeric', 'aria-label': 'Bytes per token' });
    const verdict = el('p', { class: 'explain exercise-verdict', role: 'status' });
    const check = el('button', { type: 'button', text: 'Check', on: { click: () => {
      const result = checkBytesGuess(guess.value);
      verdict.textContent = result.message;
      verdict.dataset.correct = String(result.correct);
    } } });
    const exercise = el('section', { class: 'exercise', 'aria-label': 'Try this: predict the cache' },
      el('h2', { text: 'Try this: predict the cache' }),
      el('p', { text: `A model has ${EXERCISE.layers} layers and ${EXERCISE.heads} query heads sharing ${EXERCISE.kvHeads} key/value heads ` +
        `of ${EXERCISE.headDim} numbers each, and keeps its cache in bf16. How many bytes does its KV cache hold per token? ` +
        'Work it out before you use the calculator above.' }),
      el('div', { class: 'controls' }, field('Bytes per token', guess), check), verdict);

    root.append(llamaLine(prepared.llama),
      el('h2', { text: 'One layer: which query heads share a key/value head' }),
      el('p', { class: 'explain', text: 'The key and value projections of this model make fewer heads than the query projection. ' +
        'Neighbouring query heads share one (as Hugging Face’s repeat_kv lays them out): each panel’s colour is the ' +
        'key/value head it reads.' }),
      groups,
      el('div', { class: 'controls' }, promptBox, field('Layer', layerSelect)),
      el('div', { class: 'grid head-grid' }, maps.map((m) => m.node)),
      similarity,
      el('h2', { text: 'The cache it saves' }),
      el('p', { class: 'explain', text: 'Per token, each of the L layers keeps one key and one value (the formula’s factor two) for each of ' +
        'its H_kv key/value heads, each of d_head numbers of b bytes. Query heads are not cached at all: only the new token’s queries are needed. So the cache shrinks by the ' +
        'number of query heads per key/value head. The figures come from each model’s config.json (linked); the ' +
        `numbers are counted at ${BF16_BYTES} bytes each, bf16, as these models are published.` }),
      el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'The KV cache of published models' }, table),
      own,
      el('h3', { text: 'Your numbers' }),
      el('div', { class: 'controls kv-calculator' }, ...Object.values(boxes).map((b) => b.node), field('Each number', dtype)),
      calcError, calcResult,
      el('h2', { text: 'What sharing costs' }),
      el('p', { class: 'explain', text: 'attnlab-kjv, the GPT of parts two and three, was trained with every head its own keys ' +
        'and values. Make it share them: in each layer, replace the key projection of every head in a group by the ' +
        'mean of the group’s key projections, and the same for values — the starting point of Ainslie et al., 2023, ' +
        'who turn a multi-head checkpoint into a grouped-query one. A projection is linear, so averaging the weights ' +
        'and biases is the same as averaging the keys and values the heads compute: every head of a group now reads ' +
        'the group’s mean key and value. The page writes the model’s weights with model.save(), edits the key and ' +
        'value columns of each layer’s c_attn, reads the file back with lab.loadGPT, and measures the loss on ' +
        `${CHAPTERS[0].book} ${CHAPTERS[0].chapter}, a chapter the model never trained on (held out of its training text), one window at a time.` }),
      sweep.node,
      el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Held-out loss of the pooled models' }, costTable),
      costReadout,
      exercise);

    own.textContent = `attnlab-kjv-llama itself, as the package keeps its cache (float32): 2 × ${numLayers} × ${numKeyValueHeads} × ` +
      `${headDim} × 4 = ${model.config.kvCacheBytesPerToken.toLocaleString('en')} bytes per token (model.config.kvCacheBytesPerToken), ` +
      `${formatBytes(model.config.kvCacheBytesPerToken * model.config.maxPositionEmbeddings)} for its whole context of ` +
      `${model.config.maxPositionEmbeddings.toLocaleString('en')} tokens; a key/value head for each of its ${numHeads} query heads ` +
      `would make that ${perGroup}× as much.`;

    sweep.start('pooled', measure);
    let drawn = '';  // the prompt's ids and the layer the patterns show

    return () => {
      const layer = Math.min(state.layer, numLayers - 1);
      if (layer !== state.layer) {
        ctx.notice(`This model has ${numLayers} layers: showing layer ${layer} instead of layer ${state.layer}.`);
        ctx.remember({ layer });
      }
      setOptions(layerSelect, Array.from({ length: numLayers }, (_, l) => [l, `layer ${l}`]), layer);
      const { ids } = llamaPromptIds(tokenizer, model, state.prompt, FALLBACK, { box: promptBox, limit: MAX_TOKENS });
      drawCalculator();
      const key = JSON.stringify([ids, layer]);
      if (key === drawn) return;  // the calculator changed: the patterns stand
      drawn = key;
      const labels = ids.map((id, j) => `${j}: ${llamaLabel(tokenizer, id)}`);
      const name = `blocks.${layer}.attn.hook_pattern`;
      const pattern = model.runWithCache(ids, { names: [name] }).cache.get(name);  // (heads, t, t)
      const t = ids.length;
      maps.forEach(({ map }, h) => Object.assign(map, {
        matrix: { rows: t, cols: t, data: pattern.data.slice(h * t * t, (h + 1) * t * t) }, rowLabels: labels, colLabels: labels,
        caption: `Layer ${layer}, query head ${h}: its attention weights (it reads key/value head ${kvHeadOf(h, numHeads, numKeyValueHeads)})`,
      }));
      // How alike the patterns of two query heads are: the mean over rows of the total variation distance.
      const distance = (a, b) => {
        let total = 0;
        for (let i = 0; i < t; i++) {
          let row = 0;
          for (let j = 0; j <= i; j++) row += Math.abs(pattern.data[(a * t + i) * t + j] - pattern.data[(b * t + i) * t + j]);
          total += row / 2;
        }
        return total / t;
      };
      const pairs = [];
      for (let a = 0; a < numHeads; a++) for (let b = a + 1; b < numHeads; b++) pairs.push({ a, b, shared: kvHeadOf(a, numHeads, numKeyValueHeads) === kvHeadOf(b, numHeads, numKeyValueHeads), d: distance(a, b) });
      const mean = (list) => list.reduce((s, p) => s + p.d, 0) / list.length;
      const same = pairs.filter((p) => p.shared), other = pairs.filter((p) => !p.shared);
      similarity.textContent = `How far apart two heads’ weights are (half the summed difference of a row, averaged over the ` +
        `rows: 0 the same pattern, 1 no key in common): ${pairs.map((p) => `query heads ${p.a} and ${p.b} ${f3(p.d)}${p.shared ? ' (same key/value head)' : ''}`).join(', ')}. ` +
        (same.length && other.length ? `On average ${f3(mean(same))} for heads that share keys, ${f3(mean(other))} for heads that do not: ` +
          'the same keys do not make the same pattern, since each head’s queries are its own.' : '');
      similarity.dataset.distances = pairs.map((p) => p.d).join(',');
    };
  },
});
