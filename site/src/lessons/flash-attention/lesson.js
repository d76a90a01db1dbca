// Part four, lesson 4: FlashAttention, block by block. One real head of attnlab-kjv-llama (its turned
// queries and keys and its values, hook_rot_q / hook_rot_k / hook_v, the key/value head its group shares)
// run through the core's own FlashAttention loop (lab.flashAttentionTrace: attention_output's block step,
// every block's state kept), stepped by the learner a key block at a time: the block's scores, the running
// maximum m, the running sum l, the factor exp(m_old − m_new) the output so far was rescaled by, and the
// partial output, for every query row; after the last block the output equals softmax attention's. Then the
// memory each way needs at long lengths, computed from the formula.
import { el, field, formatDifference, formatNumber, isolated, select, setOptions } from '../../dom.js';
import { llamaLabel, llamaLine, llamaModel, llamaPromptIds } from '../../modern-model.js';
import { MODERN_PROGRAM } from '../../modern-program.js';
import { lessonPage } from '../../page.js';
import { heatmap, SIGNED, sentenceInput } from '../../views.js';
import { bytesText, checkMaxStops, headQKV, largestDifference, memoryRow, partialOutput, qkvNames } from './parts.js';
import programSource from './program.py?raw';
import { BLOCK_SIZES, BYTES_PER_NUMBER, CORE_TILE, DEFAULT_BLOCK, DEFAULT_PROMPT, MAX_TOKENS, MEMORY_LENGTHS, PROGRAM } from './settings.js';

const keysText = ({ keyStart, keyCount }) => (keyCount === 1 ? `key ${keyStart}` : `keys ${keyStart}–${keyStart + keyCount - 1}`);
const f3 = (x) => formatNumber(x, 3);
const OUTPUT_DIMS = 3;  // the partial output's first numbers shown in the table
const NS = 'http://www.w3.org/2000/svg';
const svgEl = (tag, attrs) => {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
};

// The n×n scores as a grid, a column of keys per key: the blocks done drawn in blue (exp(s − m), m the row's
// running maximum after the step), the current block outlined, the blocks still to come empty, the keys a
// causal row never reads hatched grey.
function scoreGrid(trace, step, n, label) {
  const cell = Math.max(6, Math.floor(288 / n)), size = cell * n;
  const svg = svgEl('svg', { viewBox: `0 0 ${size + 2} ${size + 2}`, width: size + 2, height: size + 2, role: 'img', 'aria-label': label,
    class: 'flash-grid' });
  const current = step > 0 ? trace.blocks[step - 1] : null;
  for (let i = 0; i < n; i++) {
    const m = current ? current.max[i] : -Infinity;
    for (let j = 0; j < n; j++) {
      const b = trace.blocks.findIndex((blk) => j < blk.keyStart + blk.keyCount);
      let fill = '#fff';
      if (j > i) fill = '#e5e7eb';
      else if (b < step) {
        const block = trace.blocks[b];
        const s = block.scores.data[i * block.scores.cols + (j - block.keyStart)];
        const w = Math.exp(s - m);
        fill = `rgba(0, 114, 178, ${(0.08 + 0.92 * w).toFixed(3)})`;
      }
      svg.append(svgEl('rect', { x: 1 + j * cell, y: 1 + i * cell, width: cell, height: cell, fill, stroke: '#fff', 'stroke-width': 0.5 }));
    }
  }
  for (const [b, block] of trace.blocks.entries()) {
    const x = 1 + block.keyStart * cell, w = block.keyCount * cell;
    svg.append(svgEl('rect', { x, y: 1, width: w, height: size, fill: 'none',
      stroke: b === step - 1 ? '#D55E00' : '#9aa3b5', 'stroke-width': b === step - 1 ? 2 : 0.75 }));
  }
  return svg;
}

lessonPage({
  slug: 'flash-attention',
  intro: [
    'Softmax attention as the earlier lessons wrote it makes every score first: an n×n matrix, one number for each query and each ' +
      'key, then softmax along each row, then the weighted sum of the values. At long lengths that matrix is most of the memory and ' +
      'most of the time spent moving numbers. FlashAttention (Dao et al., 2022) never makes it: it reads the keys a block at a time ' +
      'and keeps, for each query row, three things only: the largest score so far m, the sum l of exp(score − m) so far, and the ' +
      'output so far, not yet divided by l.',
    'When a block brings a larger score, m moves up, and everything summed so far was measured against the old m: l and the output ' +
      'are multiplied by exp(m_old − m_new), a number below 1, and the block is added. After the last block, the output divided by l ' +
      'is softmax attention’s output, the same numbers. Below, one real head of attnlab’s small Llama, through the attnlab core’s ' +
      'own FlashAttention loop, a block at a time.',
  ],
  formula: String.raw`\begin{gathered} m' = \max\bigl(m,\ \max_{j \in B} s_j\bigr) \\ \ell' = e^{m - m'}\,\ell + \textstyle\sum_{j \in B} e^{s_j - m'} \\ a' = e^{m - m'}\,a + \textstyle\sum_{j \in B} e^{s_j - m'}\,v_j \\ o = a / \ell \end{gathered}`,
  pytorch: { source: programSource, ...MODERN_PROGRAM, ...PROGRAM },
  call: (state) => {
    const names = ['hook_rot_q', 'hook_rot_k', 'hook_v'].map((n) => `'blocks.${state.layer}.attn.${n}'`).join(', ');
    return 'const { model, tokenizer } = await lab.loadBuiltinLlama();\n' +
      `const { cache } = model.runWithCache(ids, { names: [${names}] });\n` +
      `// q, k, v: query head ${state.head}'s rows and those of the key/value head it reads, ⌊h / (H / H_kv)⌋\n` +
      `const { blocks, output } = lab.flashAttentionTrace(q, k, v, { blockSize: ${state.block}, causal: true });\n` +
      'const full = lab.scaledDotProductAttention(q, k, v, { causal: true }).output;';
  },
  schema: {
    prompt: { type: 'text', maxLength: 200, default: DEFAULT_PROMPT },
    layer: { type: 'int', min: 0, max: 3, default: 0 },
    head: { type: 'int', min: 0, max: 3, default: 0 },
    block: { type: 'enum', values: BLOCK_SIZES, default: DEFAULT_BLOCK },
    step: { type: 'int', min: 0, max: MAX_TOKENS, default: 1 },
  },
  async prepare(lab, notices, loading) {
    return llamaModel(lab, loading);
  },
  setup(ctx) {
    const { state, root, prepared, lab } = ctx;
    const { model, tokenizer } = prepared;
    const { numLayers, numHeads, numKeyValueHeads, headDim } = model.config;
    const label = (id) => llamaLabel(tokenizer, id);
    const range = (n) => Array.from({ length: n }, (_, i) => [i, String(i)]);

    // The controls.
    const promptBox = sentenceInput('Prompt', state.prompt, (prompt) => ctx.set({ prompt }), 200, { key: 'prompt', lines: 2 });
    const layerPick = select(range(numLayers), state.layer, (v) => ctx.set({ layer: Number(v) }));
    const headPick = select(range(numHeads), state.head, (v) => ctx.set({ head: Number(v) }));
    const blockPick = select(BLOCK_SIZES.map((b) => [b, `${b} ${b === 1 ? 'key' : 'keys'}`]), state.block, (v) => ctx.set({ block: Number(v) }));
    blockPick.dataset.state = 'block';

    // The stepper.
    let trace = null, ids = [], full = null;
    const go = (step) => {
      if (!trace) return;
      const to = Math.max(0, Math.min(trace.blocks.length, step));
      if (to === state.step) return;
      ctx.remember({ step: to });
      drawStep();
    };
    const reset = el('button', { type: 'button', class: 'flash-reset', text: 'Reset', on: { click: () => go(0) } });
    const previous = el('button', { type: 'button', class: 'flash-previous', text: 'Previous', on: { click: () => go(state.step - 1) } });
    const next = el('button', { type: 'button', class: 'flash-next', text: 'Next block', on: { click: () => go(state.step + 1) } });
    const where = el('p', { class: 'readout flash-where', 'aria-live': 'polite' });
    document.addEventListener('keydown', (event) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (!['ArrowLeft', 'ArrowRight', 'Home'].includes(event.key)) return;
      const target = event.target;
      if (target instanceof Element && target.closest('input, textarea, select, [contenteditable], .table-wrap, pre')) return;
      event.preventDefault();
      go(event.key === 'Home' ? 0 : state.step + (event.key === 'ArrowRight' ? 1 : -1));
    });

    const headSaid = el('p', { class: 'explain flash-head' });
    const grid = el('div', { class: 'panel flash-grid-panel' });
    const blockMap = heatmap({ ...SIGNED, rowTitle: 'Query', colTitle: 'Key', decimals: 2 });
    const blockPanel = el('div', { class: 'panel flash-block-panel' }, blockMap);
    const table = el('table', { class: 'data flash-table' });
    const tableWrap = el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Every query row after this step' }, table);
    const result = el('p', { class: 'readout flash-result', 'aria-live': 'polite' });

    // Memory.
    const memorySaid = el('p', { class: 'explain memory-said' });
    const memoryTable = el('table', { class: 'data memory-table' });

    // Try this: after which block does the last row's maximum stop moving?
    const question = el('p', { class: 'exercise-question' });
    const guessBox = el('input', { type: 'number', min: 1, step: 1, inputmode: 'numeric', class: 'exercise-guess' });
    const verdict = el('p', { class: 'explain exercise-verdict', role: 'status' });
    const check = el('button', { type: 'button', text: 'Check', on: { click: () => {
      if (!trace) return;
      const typed = guessBox.value.trim();
      const outcome = checkMaxStops(typed === '' ? NaN : Number(typed), trace.blocks, ids.length - 1);
      verdict.textContent = outcome.message;
      verdict.dataset.correct = String(outcome.correct);
    } } });
    const exercise = el('section', { class: 'exercise', 'aria-label': 'Try this: when does the maximum stop moving?' },
      el('h2', { text: 'Try this: when does the maximum stop moving?' }), question,
      el('div', { class: 'controls' }, field('Block number', guessBox), check), verdict);

    root.append(llamaLine(prepared),
      el('div', { class: 'controls' }, promptBox),
      el('div', { class: 'controls' }, field('Layer', layerPick), field('Query head', headPick), field('Block size', blockPick)),
      el('h2', { text: 'The scores, a block of keys at a time' }), headSaid,
      el('div', { class: 'controls flash-stepper', role: 'group', 'aria-label': 'Step through the key blocks' }, reset, previous, next),
      where, el('div', { class: 'flash-views' }, grid, blockPanel), tableWrap, result,
      exercise,
      el('h2', { text: 'The memory each needs' }), memorySaid,
      el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Memory at long lengths' }, memoryTable));

    const fill = (node, head, rows) => node.replaceChildren(
      el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {}, ...rows.map((cells) => el('tr', {}, ...cells.map((c, j) => el(j ? 'td' : 'th', j ? { text: c } : { scope: 'row', text: c }))))));

    function drawStep() {
      const n = ids.length, blocks = trace.blocks, step = state.step;
      const block = step > 0 ? blocks[step - 1] : null;
      const before = step > 1 ? blocks[step - 2] : null;
      previous.disabled = step === 0;
      reset.disabled = step === 0;
      next.disabled = step === blocks.length;
      where.textContent = block
        ? `Block ${step} of ${blocks.length}: ${keysText(block)}` +
          `${step === blocks.length ? ', the last.' : '.'}`
        : `Before the first block: every row has m = −∞, l = 0 and an output of zeros. Press Next block (or →).`;
      root.dataset.step = String(step);
      grid.replaceChildren(scoreGrid(trace, step, n, block
        ? `The ${n}×${n} scores: the blocks up to keys ${block.keyStart + block.keyCount - 1} computed, the others not yet`
        : `The ${n}×${n} scores, none computed yet`));

      // This block's scores, as the core computed them (−∞: a key after the query, hatched).
      blockPanel.hidden = !block;
      if (block) {
        const tokens = ids.map((id, i) => `${i} ${label(id)}`);
        Object.assign(blockMap, { caption: `Block ${step}’s scores: every query × ${keysText(block)}`,
          rowLabels: tokens, colLabels: tokens.slice(block.keyStart, block.keyStart + block.keyCount), matrix: block.scores });
      }
      // One row per query: its token, m (↑ when this block moved it), the rescale factor, l, the partial output.
      const head = ['Query', 'm', 'exp(m_old − m)', 'l', `o = a / l (first ${OUTPUT_DIMS} of ${headDim})`];
      const rows = ids.map((id, i) => {
        const token = `${i} ${label(id)}`;
        if (!block) return [token, '−∞', '—', f3(0), Array(OUTPUT_DIMS).fill(f3(0)).join(', ')];
        const moved = !before || block.max[i] > before.max[i];
        const o = partialOutput(block, i);
        return [token, `${f3(block.max[i])}${moved && before ? ' ↑' : ''}`, step === 1 ? '—' : formatNumber(block.rescale[i], 4),
          f3(block.sum[i]), Array.from(o.subarray(0, OUTPUT_DIMS), f3).join(', ')];
      });
      fill(table, head, rows);
      table.dataset.step = String(step);
      table.dataset.max = block ? Array.from(block.max).join(',') : '';
      table.dataset.sum = block ? Array.from(block.sum).join(',') : '';
      table.dataset.rescale = block ? Array.from(block.rescale).join(',') : '';

      // How far the output so far is from softmax attention's.
      if (!block) {
        result.textContent = 'No block yet: no output.';
        delete result.dataset.difference;
        return;
      }
      let largest = 0;
      for (let i = 0; i < n; i++) largest = Math.max(largest, largestDifference(partialOutput(block, i), full.data.subarray(i * headDim, (i + 1) * headDim)).value);
      result.dataset.difference = String(largest);
      result.dataset.last = String(step === blocks.length);
      if (step === blocks.length) {
        const fromCore = largestDifference(trace.output.data, full.data).value;
        result.textContent = `After the last block, a / l is softmax attention’s output: the largest difference from ` +
          `scaledDotProductAttention (which makes every score and softmaxes each row), over all ${n}×${headDim} numbers, is ` +
          `${formatDifference(largest)}, float32 rounding (the core’s own division gives ${formatDifference(fromCore)}).`;
        result.dataset.coreDifference = String(fromCore);
      } else {
        result.textContent = `Keys 0–${block.keyStart + block.keyCount - 1} only so far: the partial outputs a / l are still as ` +
          `much as ${f3(largest)} from softmax attention’s (the rows whose keys have all been read already agree).`;
      }
    }

    function drawMemory() {
      const rows = MEMORY_LENGTHS.map((n) => memoryRow(n, headDim));
      fill(memoryTable, ['Tokens n', 'n×n scores', 'FlashAttention’s tile, m and l', 'Q, K, V and the output (both)'],
        rows.map((r) => [r.n.toLocaleString('en'), bytesText(r.scores), bytesText(r.flash), bytesText(r.inputs)]));
      memoryTable.dataset.bytes = rows.map((r) => [r.scores, r.flash, r.inputs].join(':')).join(',');
      const last = rows[rows.length - 1];
      memorySaid.textContent = `For one head of this model (d = ${headDim}), in float32 (${BYTES_PER_NUMBER} bytes a number, as the ` +
        `attnlab core computes): the n×n scores take ${BYTES_PER_NUMBER}·n² bytes, for every head and every sequence of a batch, ` +
        `and softmax keeps a second n×n matrix of weights beside them. FlashAttention keeps one tile of scores at a time (the ` +
        `attnlab core’s is ${CORE_TILE.queries} queries × ${CORE_TILE.keys} keys) and m and l for each query row: ` +
        `${BYTES_PER_NUMBER}·(${CORE_TILE.queries}·${CORE_TILE.keys} + 2n) bytes. Q, K, V and the output, n×d each, are needed ` +
        `either way. At ${last.n.toLocaleString('en')} tokens the scores would be ${bytesText(last.scores)}, ` +
        `${Math.round(last.ratio).toLocaleString('en')} times the tile, m and l. (On a GPU the tile also fits in the fast on-chip ` +
        'memory, which is where FlashAttention’s speed comes from; the time to compute every score is the same.)';
    }
    drawMemory();

    let key = '';
    return () => {
      const prompt = llamaPromptIds(tokenizer, model, state.prompt, DEFAULT_PROMPT, { box: promptBox, limit: MAX_TOKENS });
      ids = prompt.ids;
      setOptions(layerPick, range(numLayers), state.layer);
      setOptions(headPick, range(numHeads), state.head);
      const layer = Math.min(state.layer, numLayers - 1), head = Math.min(state.head, numHeads - 1);
      const again = JSON.stringify([ids, layer, head, state.block]);
      if (again !== key) {
        const { cache } = model.runWithCache(ids, { names: qkvNames(layer) });
        const { q, k, v, kvHead } = headQKV(cache, layer, head, model.config);
        trace = lab.flashAttentionTrace(q, k, v, { blockSize: state.block, causal: true });
        full = lab.scaledDotProductAttention(q, k, v, { causal: true }).output;
        key = again;
        const n = ids.length, group = numHeads / numKeyValueHeads;
        headSaid.textContent = `Query head ${head} of layer ${layer} reads key/value head ${kvHead} (this model’s ${numHeads} query ` +
          `heads share ${numKeyValueHeads} key/value heads, ${group} a head, so head h reads ⌊h / ${group}⌋). The prompt is ${n} tokens: ` +
          `Q, K and V are ${n}×${headDim}, the queries and keys already turned by RoPE (hook_rot_q, hook_rot_k). The keys go in ` +
          `${trace.blocks.length} ${trace.blocks.length === 1 ? 'block' : 'blocks'} of ${state.block}; each row reads only the keys ` +
          'up to its own position (causal), so the grey scores are never used. Under the grid, the current block’s scores; in ' +
          'the table, m and l after it (↑: this block moved m), and exp(m_old − m), what the row’s output so far was multiplied by.';
        const last = `“${isolated(label(ids[n - 1]))}”`;
        question.textContent = `Take the last row, query ${n - 1} (${last}), which reads every key. Its running maximum m rises ` +
          `whenever a block holds a score above every earlier one. After which block (1 to ${trace.blocks.length}) does it stop ` +
          'moving for good? Work it out from the table, or guess and check.';
        verdict.textContent = '';
        delete verdict.dataset.correct;
      }
      if (state.step > trace.blocks.length) ctx.remember({ step: trace.blocks.length });
      drawStep();
    };
  },
});
