// Lesson 3: why the scores are divided by √d_k — the tutorials' sharpness table and a chart.
import { el, field, formatNumber, select } from '../dom.js';
import { lineChart } from '../line-chart.js';
import { lessonPage } from '../page.js';
import { heatmap, panel } from '../views.js';

const DKS = [4, 16, 64, 256, 1024];
const SCALES = { sqrt: '1/√d_k (standard)', none: 'none (scale 1)', custom: 'custom' };

// One random query against 5 random keys (the tutorials' experiment), scaled or not.
function experiment(lab, dK, seed, scale) {
  const q = lab.randn(1, dK, seed), k = lab.randn(5, dK, seed + 1), v = lab.randn(5, dK, seed + 2);
  const r = lab.scaledDotProductAttention(q, k, v, scale === undefined ? {} : { scale });
  const max = (m) => Math.max(...m.data.map(Math.abs));
  return { maxScore: max(r.scaledScores), maxRaw: max(r.scores), maxWeight: Math.max(...r.weights.data), weights: r.weights };
}

lessonPage({
  slug: 'scaling',
  intro: [
    'The dot product of two random vectors with d_k entries has a spread that grows like √d_k. Large scores push ' +
      'the softmax towards one-hot: one key takes almost all the weight and the gradient through the others vanishes.',
    'Dividing by √d_k keeps the scores’ spread about the same for every d_k. Move the sliders and watch the largest ' +
      'weight: without scaling it runs to 1.00 as d_k grows.',
  ],
  formula: String.raw`\operatorname{Var}(q\cdot k) = d_k \;\Rightarrow\; \operatorname{softmax}\Big(\frac{q K^\top}{\sqrt{d_k}}\Big)`,
  pytorch: 'scores = q @ k.T                    # unscaled\nscores = q @ k.T / math.sqrt(d_k)   # scaled',
  call: 'lab.scaledDotProductAttention(q, k, v, { scale: 1 })   // no scaling\nlab.scaledDotProductAttention(q, k, v)                // 1/√d_k',
  schema: {
    dk: { type: 'enum', values: DKS, default: 64 },
    scale: { type: 'enum', values: Object.keys(SCALES), default: 'sqrt' },
    custom: { type: 'int', min: 1, max: 100, default: 10 },
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
  },
  setup(ctx) {
    const { lab, state, root } = ctx;
    const weightsMap = heatmap({ rowLabels: ['q'], colLabels: ['k0', 'k1', 'k2', 'k3', 'k4'], domain: [0, 1],
      caption: 'Softmax weights of one query over 5 keys', rowTitle: 'Query', colTitle: 'Key' });
    const readout = el('p', { class: 'explain', 'aria-live': 'polite' });
    const table = el('div', { class: 'table-wrap' });
    const chart = el('div');
    const slider = el('input', { type: 'range', min: 0, max: DKS.length - 1, value: DKS.indexOf(state.dk),
      'aria-valuetext': `d_k ${state.dk}`, on: { input: (e) => ctx.set({ dk: DKS[Number(e.target.value)] }) } });
    const custom = el('input', { type: 'range', min: 1, max: 100, value: state.custom,
      on: { input: (e) => ctx.set({ custom: Number(e.target.value), scale: 'custom' }) } });
    const scaleChoice = select(Object.entries(SCALES), state.scale, (scale) => ctx.set({ scale }));
    root.append(
      el('div', { class: 'controls' },
        field('d_k', slider, 'key/query width'),
        field('Scale', scaleChoice),
        field('Custom divisor', custom, 'scores ÷ this, when Scale is custom')),
      readout,
      el('div', { class: 'grid' }, panel('This d_k', weightsMap), panel('Largest weight against d_k', chart)),
      el('h2', { text: 'The tutorials’ table' }), table);
    return () => {
      slider.setAttribute('aria-valuetext', `d_k ${state.dk}`);
      scaleChoice.value = state.scale;  // dragging the custom divisor switches the choice to custom
      // undefined: the package's default 1/√d_k.
      const chosenScale = state.scale === 'none' ? 1 : state.scale === 'custom' ? 1 / state.custom : undefined;
      const now = experiment(lab, state.dk, state.seed, chosenScale);
      weightsMap.matrix = now.weights;
      const used = state.scale === 'sqrt' ? `1/√${state.dk}` : state.scale === 'none' ? '1' : `1/${state.custom}`;
      readout.textContent = `d_k = ${state.dk}, scale ${used}: largest |scaled score| ${formatNumber(now.maxScore)}, ` +
        `largest weight ${formatNumber(now.maxWeight)}.`;
      const rows = DKS.map((dK) => ({ dK, raw: experiment(lab, dK, state.seed, 1), scaled: experiment(lab, dK, state.seed) }));
      table.replaceChildren(el('table', { class: 'data' },
        el('caption', { class: 'sr-only', text: 'Largest score and weight for each d_k' }),
        el('thead', {}, el('tr', {}, ['d_k', 'max |score|', 'max weight (unscaled)', 'max |score|/√d_k', 'max weight (scaled)']
          .map((h) => el('th', { scope: 'col', text: h })))),
        el('tbody', {}, rows.map(({ dK, raw, scaled }) => el('tr', {},
          el('th', { scope: 'row', text: String(dK) }),
          [raw.maxRaw, raw.maxWeight, scaled.maxScore, scaled.maxWeight].map((x) => el('td', { text: formatNumber(x, x > 1.5 ? 2 : 4) })))))));
      chart.replaceChildren(lineChart([
        { name: 'unscaled', points: rows.map((r) => [r.dK, r.raw.maxWeight]) },
        { name: 'scaled by 1/√d_k', points: rows.map((r) => [r.dK, r.scaled.maxWeight]) },
      ], { xLabel: 'd_k', yLabel: 'largest weight', log2X: true, yDomain: [0, 1], title: 'Largest softmax weight against d_k, scaled and unscaled' }));
    };
  },
});
