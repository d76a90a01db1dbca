// The shapes lesson: attention as the tutorials write it — two sentences in one batch, the fused projection
// reshaped and permuted into (3, batch, heads, seq, d_k), the causal mask viewed (1, 1, seq, seq) and
// the padding mask (batch, 1, 1, seq) broadcast against the scores, the heads put back, and the
// tutorials' exercise, (2, 10, 512) with a causal mask. Every tensor is the package's (lab.reshape,
// lab.permute, lab.scaledDotProductAttention on tensors); the page only slices and packs numbers.
import { count, el, field, formatDifference, formatNumber, select } from '../../dom.js';
import { attentionCache } from '../../models.js';
import { lessonPage } from '../../page.js';
import { heatmap, panel, sentenceInput, tokenChips, tokensOf } from '../../views.js';
import pytorchSource from './program.py?raw';
import { FALLBACKS, MAX_TOKENS, PAD, PROGRAM } from './settings.js';

const SHOWN_VALUES = 8;  // how many numbers of the memory-order rows are printed
const tuple = (shape) => `(${shape.join(', ')})`;
// The padded length update() last drew, for the code panels (which page.js first renders before
// setup, with the default sentences: 4 tokens).
const drawn = { seq: 4 };

lessonPage({
  slug: 'shapes',
  intro: [
    'The tutorials write attention on a batch: x has shape (batch, seq, d_model), and the heads become a dimension ' +
      'of their own, (batch, heads, seq, d_k). Here two sentences of different lengths go through one multi-head ' +
      'attention together, step by step, with the shape of every tensor.',
    'Two tools do all the moving: reshape keeps the numbers where they are in memory and only reads them with new ' +
      'dimensions; permute (and transpose) moves them. And a mask of shape (seq, seq) meets scores of shape ' +
      '(batch, heads, seq, seq) by broadcasting: viewed as (1, 1, seq, seq), it repeats over every batch item and head.',
  ],
  formula: String.raw`\begin{gathered}\underbrace{\operatorname{softmax}\Big(\tfrac{QK^\top}{\sqrt{d_k}} + M\Big)}_{(B,\,h,\,n,\,n)}\underbrace{V}_{(B,\,h,\,n,\,d_k)}\\ Q, K, V \in \mathbb{R}^{B\times h\times n\times d_k}\end{gathered}`,
  pytorch: { source: pytorchSource, ...PROGRAM },
  call: (state) => {
    const { batch, seq, dModel, heads } = shapesOf(state);
    return `const qkv5 = lab.reshape(qkv, [${batch}, ${seq}, 3, ${heads}, ${dModel / heads}]);\n` +
      'const qkv3 = lab.permute(qkv5, [2, 0, 3, 1, 4]);   // then q, k, v = its three thirds\n' +
      `const { output, weights } = lab.scaledDotProductAttention(q, k, v, {${state.mask === 'causal' ? ' causal: true,' : ''} keyPaddingMask: pad });\n` +
      `const out = lab.reshape(lab.transpose(output, 1, 2), [${batch}, ${seq}, ${dModel}]);\n` +
      `// or in one call: mha.forward(x, x, x, {${state.mask === 'causal' ? ' causal: true,' : ''} keyPaddingMask: pad })`;
  },
  schema: PROGRAM.schema,
  setup(ctx) {
    const { lab, state, root } = ctx;
    const attention = attentionCache(lab);
    const boxes = [
      sentenceInput(`Sentence 0 (up to ${MAX_TOKENS} tokens)`, state.first, (first) => ctx.set({ first })),
      sentenceInput(`Sentence 1 (up to ${MAX_TOKENS} tokens)`, state.second, (second) => ctx.set({ second })),
    ];
    const chips = [tokenChips([]), tokenChips([])];
    chips.forEach((list, b) => list.setAttribute('aria-label', `Tokens of sentence ${b}, padded`));
    const padding = el('p', { class: 'explain', 'aria-live': 'polite' });
    const steps = el('ol', { class: 'shape-steps' });
    const memory = el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'qkv’s numbers in memory order' });
    const broadcast = el('p', { class: 'explain' });
    const headNote = el('span', { class: 'field-hint notice-inline', 'aria-live': 'polite' });
    const weightsMap = heatmap({ caption: 'weights', rowTitle: 'Query', colTitle: 'Key' });
    // The head picker says beside itself when it shows another head than the one asked for.
    const headField = field('Head', select([0, 1, 2, 3].map((h) => [h, String(h)]), state.head, (head) => ctx.set({ head: Number(head) })));
    headField.append(headNote);
    const check = el('p', { class: 'explain', 'aria-live': 'polite' });
    const exercise = el('p', { class: 'explain', 'aria-live': 'polite' });
    root.append(
      el('div', { class: 'controls' }, ...boxes,
        field('d_model', select([8, 16, 32].map((d) => [d, String(d)]), state.dModel, (d) => ctx.set({ dModel: Number(d) }))),
        field('Heads', select([1, 2, 4].map((h) => [h, String(h)]), state.heads, (h) => ctx.set({ heads: Number(h) }))),
        field('Mask', select([['none', 'padding only'], ['causal', 'causal and padding']], state.mask, (mask) => ctx.set({ mask })))),
      el('h2', { text: 'One batch, two sentences' }),
      el('p', { class: 'explain', text: `A batch holds sequences of one length: the shorter sentence is filled up with ${PAD} tokens, ` +
        'and the key-padding mask says which keys are padding so that no query attends to them.' }),
      ...chips, padding,
      el('h2', { text: 'Split the heads, step by step' }), steps,
      el('h2', { text: 'reshape keeps the order, permute moves the numbers' }), memory,
      el('h2', { text: 'The masks broadcast against the scores' }), broadcast,
      el('div', { class: 'controls' },
        field('Batch item', select([[0, 'sentence 0'], [1, 'sentence 1']], state.item, (item) => ctx.set({ item: Number(item) }))),
        headField),
      panel(null, weightsMap), check,
      el('h2', { text: `The tutorials’ exercise: ${exerciseShape} with a causal mask` }), exercise);
    let exerciseSeed = -1;

    return () => {
      const { batch, dModel, heads } = shapesOf(state);
      const dK = dModel / heads;
      const sentences = [state.first, state.second].map((text, b) =>
        tokensOf(lab, text, FALLBACKS[b], { field: boxes[b], maxTokens: MAX_TOKENS }).tokens);
      const n = Math.max(...sentences.map((t) => t.length));
      drawn.seq = n;  // for the code panels, refreshed after this update
      const padded = sentences.map((t) => [...t, ...new Array(n - t.length).fill(PAD)]);
      padded.forEach((t, b) => tokenChips(t, chips[b]));
      // PyTorch's key_padding_mask: 1 (True) where the key is padding.
      const pad = lab.tensor([batch, n], sentences.flatMap((t) => Array.from({ length: n }, (_, i) => (i < t.length ? 0 : 1))));
      const padRows = padded.map((t, b) => `[${Array.from(pad.data.slice(b * n, (b + 1) * n)).join(', ')}]`);
      padding.textContent = `key_padding_mask ${tuple([batch, n])} = [${padRows.join(', ')}]: 1 marks padding (PyTorch’s convention, ` +
        `True = pad), the opposite of a mask’s 1 = may attend. Sentence 0 has ${count(sentences[0].length, 'token')}, sentence 1 has ${count(sentences[1].length, 'token')}.`;

      // x: each sentence's embedding rows, packed into (batch, seq, d_model).
      const mha = attention({ dModel, numHeads: heads, seed: state.seed });
      const rows = padded.map((t) => lab.embedTokens(t, dModel, { seed: state.seed }));
      const x = lab.tensor([batch, n, dModel], concat(rows.map((m) => m.data)));
      // The fused projection x @ in_proj_weightᵀ + b is, row by row, [q | k | v]: the trace's Q, K and V
      // of each sentence, packed side by side — the numbers PyTorch's qkv holds.
      const qkvRows = rows.map((m) => {
        const traced = Object.fromEntries(mha.trace(m, m, m).map((s) => [s.id, s.tensors]));
        const [q, k, v] = [traced.q.Q, traced.k.K, traced.v.V];
        return concat(Array.from({ length: n }, (_, i) => [q, k, v].map((t) => t.data.subarray(i * dModel, (i + 1) * dModel))).flat());
      });
      const qkv = lab.tensor([batch, n, 3 * dModel], concat(qkvRows));
      const split = lab.reshape(qkv, [batch, n, 3, heads, dK]);
      const permuted = lab.permute(split, [2, 0, 3, 1, 4]);
      const third = permuted.data.length / 3;
      const [q, k, v] = [0, 1, 2].map((i) => lab.tensor([batch, heads, n, dK], permuted.data.subarray(i * third, (i + 1) * third)));
      const causal = state.mask === 'causal';
      const { output, weights } = lab.scaledDotProductAttention(q, k, v, { causal, keyPaddingMask: pad });
      const merged = lab.reshape(lab.transpose(output, 1, 2), [batch, n, dModel]);
      const layer = mha.forward(x, x, x, { causal, keyPaddingMask: pad });

      steps.replaceChildren(...[
        ['x = the two sentences’ embeddings', [batch, n, dModel]],
        ['qkv = x @ in_proj_weightᵀ + in_proj_bias', qkv.shape],
        [`qkv.reshape(${batch}, ${n}, 3, ${heads}, ${dK}): (batch, seq, 3, heads, d_k)`, split.shape],
        ['qkv.permute(2, 0, 3, 1, 4): (3, batch, heads, seq, d_k)', permuted.shape],
        ['q, k, v = its three parts', q.shape],
        [`scores = q @ k.transpose(-2, -1) / √${dK}`, [batch, heads, n, n]],
        ['weights = softmax(masked scores)', weights.shape],
        ['weights @ v', output.shape],
        ['.transpose(1, 2): (batch, seq, heads, d_k)', [batch, n, heads, dK]],
        [`.reshape(${batch}, ${n}, ${dModel}): the heads side by side again`, merged.shape],
        ['out_proj: the layer’s output', layer.output.shape],
      ].map(([what, shape]) => el('li', {}, el('code', { text: tuple(shape) }), ' ', what)));

      // A few numbers of qkv in memory, after reshape (the same) and after permute (moved): positions
      // 0, 1, d_k − 1, d_k, d_k + 1, where the first head's first token ends and what follows it.
      const positions = [...new Set([0, 1, dK - 1, dK, dK + 1])].filter((i) => i < qkv.data.length);
      const values = (t) => positions.map((i) => formatNumber(t.data[i]));
      memory.replaceChildren(el('table', { class: 'data' },
        el('thead', {}, el('tr', {}, el('th', { text: 'data[i]', scope: 'col' }), ...positions.map((i) => el('th', { text: String(i), scope: 'col' })))),
        el('tbody', {}, ...[
          [`qkv ${tuple(qkv.shape)}`, qkv], [`reshape → ${tuple(split.shape)}`, split], [`permute → ${tuple(permuted.shape)}`, permuted],
        ].map(([name, t]) => el('tr', {}, el('th', { text: name, scope: 'row' }), ...values(t).map((text) => el('td', { text })))))),
      el('p', { class: 'explain', text: movedSentence(permuted.shape, dModel) }));

      broadcast.textContent = (causal
        ? `The causal mask torch.tril(ones(${n}, ${n})) has shape ${tuple([n, n])}; viewed as ${tuple([1, 1, n, n])} it broadcasts ` +
          `against the scores ${tuple([batch, heads, n, n])}: the same triangle for every sentence and head. `
        : 'No causal mask: every query may look at every real token. ') +
        `The padding mask ${tuple([batch, n])} is viewed as ${tuple([batch, 1, 1, n])}: one row of blocked keys per sentence, ` +
        'repeated for every head and every query. Blocked weights are exactly 0.';

      // The head asked for may not exist with fewer heads: draw the last one and say so beside the control.
      const head = Math.min(state.head, heads - 1);
      headNote.textContent = head === state.head ? '' : `With ${heads} head${heads === 1 ? '' : 's'} there is no head ${state.head}: showing head ${head}.`;
      Object.assign(weightsMap, { matrix: weights, rowLabels: padded[state.item], colLabels: padded[state.item] });
      weightsMap.setAttribute('batch', String(state.item));
      weightsMap.setAttribute('head', String(head));
      const same = weights.data.every((w, i) => w === layer.weights.data[i]);
      check.textContent = `Check: the layer in one call, mha.forward(x, x, x, { ${causal ? 'causal: true, ' : ''}keyPaddingMask }), ` +
        `returns weights ${tuple(layer.weights.shape)} ${same ? 'equal to these step-by-step ones, number for number' : 'that differ from these'}.`;

      if (exerciseSeed !== state.seed) {
        exerciseSeed = state.seed;
        exercise.textContent = runExercise(lab, state.seed);
      }
    };
  },
});

// The shapes the page's settings give: the batch is the two sentences, seq the longer one's tokens
// (drawn.seq, known once update() has split them; the code panels are refreshed after it).
function shapesOf(state) {
  return { batch: 2, seq: drawn.seq, dModel: state.dModel, heads: state.heads };
}

// Which number permute moved: the first position of the permuted (3, batch, heads, seq, d_k) tensor
// whose number sat elsewhere in qkv (batch, seq, 3·d_model), said with its indices.
function movedSentence(shape, dModel) {
  const [, , heads, seq, dK] = shape;
  const size = shape.reduce((n, d) => n * d, 1);
  for (let p = 0; p < size; p++) {
    const [part, b, h, s, j] = unravel(p, shape);
    const origin = ((b * seq + s) * 3 + part) * dModel + h * dK + j;
    if (origin === p) continue;
    return `reshape leaves every number where it was: its row is qkv’s row, read with other dimensions. permute makes a new ` +
      `order: data[0 … ${p - 1}] happen to stay, but data[${p}] is now ${'qkv'[part]} of sentence ${b}, head ${h}, token ${s}, ` +
      `dimension ${j}, which sat at data[${origin}] in qkv.`;
  }
  return 'With these sizes permute happens to leave every number where it was.';
}

// The multi-index of row-major position p in a tensor of `shape`.
function unravel(p, shape) {
  const index = [];
  for (let d = shape.length - 1; d >= 0; d--) {
    index.unshift(p % shape[d]);
    p = Math.floor(p / shape[d]);
  }
  return index;
}

// Float32Arrays one after another, as one.
function concat(arrays) {
  const out = new Float32Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

// The tutorials' exercise: x = randn(2, 10, 512) through nn.MultiheadAttention(512, 8) with a causal mask.
const EXERCISE = { batch: 2, seq: 10, dModel: 512, heads: 8 };
const exerciseShape = `(${EXERCISE.batch}, ${EXERCISE.seq}, ${EXERCISE.dModel})`;

// The exercise's output shape, and each sequence against the same layer run on it alone.
function runExercise(lab, seed) {
  const { batch, seq, dModel, heads } = EXERCISE;
  const mha = new lab.MultiHeadAttention({ dModel, numHeads: heads, seed });
  try {
    const x = lab.randn([batch, seq, dModel], seed);
    const { output, weights } = mha.forward(x, x, x, { causal: true });
    const size = seq * dModel;
    let worst = 0;
    for (let b = 0; b < batch; b++) {
      const one = { rows: seq, cols: dModel, data: x.data.subarray(b * size, (b + 1) * size) };
      const alone = mha.forward(one, one, one, { causal: true }).output.data;
      for (let i = 0; i < size; i++) worst = Math.max(worst, Math.abs(output.data[b * size + i] - alone[i]));
    }
    return `x = randn${exerciseShape} through ${heads} heads with a causal mask: output ${tuple(output.shape)}, weights ${tuple(weights.shape)}. ` +
      `Each sentence run alone gives the same output: the largest difference is ${formatDifference(worst)}.`;
  } finally {
    mha.dispose();
  }
}
