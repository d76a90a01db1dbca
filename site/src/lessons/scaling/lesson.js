// Lesson 3: why the scores are divided by √d_k — the tutorials' sharpness table and a chart.
import { el, field, formatNumber, select } from '../../dom.js';
import { chartWidth, lineChart } from '../../line-chart.js';
import { lessonPage } from '../../page.js';
import { heatmap, panel, showsState, slider } from '../../views.js';
import pytorchSource from './program.py?raw';
import { chosenScale, DKS, draw, DRAWS, KEYS, SCALES, PROGRAM } from './settings.js';


// One random query against 5 random keys (the tutorials' experiment), scaled or not.
function experiment(lab, dK, seed, scale) {
  const { q, k, v } = draw(lab, dK, seed);
  const r = lab.scaledDotProductAttention(q, k, v, scale === undefined ? {} : { scale });
  return { scores: r.scaledScores.data, maxWeight: Math.max(...r.weights.data), weights: r.weights };
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs) => { const m = mean(xs); return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1)); };

// Over DRAWS draws (seeds seed, seed + 3, …): the spread (standard deviation) of the scores fed to the
// softmax and the largest weight's mean and standard deviation, computed by the package.
function expectation(lab, dK, seed, scale) {
  const scores = [], largest = [];
  for (let d = 0; d < DRAWS; d++) {
    const r = experiment(lab, dK, seed + 3 * d, scale);
    scores.push(...r.scores);
    largest.push(r.maxWeight);
  }
  return { scoreSd: sd(scores), weightMean: mean(largest), weightSd: sd(largest) };
}

lessonPage({
  slug: 'scaling',
  intro: [
    'The dot product of two random vectors with d_k entries has a spread that grows like √d_k. Large scores push ' +
      'the softmax towards one-hot: one key takes almost all the weight and the gradient through the others vanishes.',
    'Dividing by √d_k keeps the scores’ spread about the same for every d_k. One draw is noisy (a single query can ' +
      'happen to match one key well at any d_k), so the table and the chart average 200 independent draws: without ' +
      'scaling the expected largest weight runs towards 1 as d_k grows; with it, it stays level.',
  ],
  formula: String.raw`\operatorname{Var}(q\cdot k) = d_k \;\Rightarrow\; \operatorname{softmax}\Big(\frac{q K^\top}{\sqrt{d_k}}\Big)`,
  pytorch: { source: pytorchSource, ...PROGRAM },
  call: 'lab.scaledDotProductAttention(q, k, v, { scale: 1 })   // no scaling\nlab.scaledDotProductAttention(q, k, v)                // 1/√d_k',
  schema: PROGRAM.schema,
  setup(ctx) {
    const { lab, state, root } = ctx;
    const weightsMap = heatmap({ rowLabels: ['q'], colLabels: Array.from({ length: KEYS }, (_, j) => `k${j}`),
      caption: `Softmax weights of one query over ${KEYS} keys (one draw, from the seed)`, rowTitle: 'Query', colTitle: 'Key' });
    const readout = el('p', { class: 'explain', 'aria-live': 'polite' });
    const table = el('div', { class: 'table-wrap' });
    const chart = el('div');
    const dkSlider = slider('d_k (key/query width)', { min: 0, max: DKS.length - 1, value: DKS.indexOf(state.dk), format: (i) => String(DKS[i]) },
      (i) => ctx.set({ dk: DKS[i] }));
    const custom = slider('Custom divisor (when Scale is custom)', { min: 1, max: 100, value: state.custom },
      (value) => ctx.set({ custom: value, scale: 'custom' }));
    // showsState: dragging the custom divisor switches the choice to custom, and the select says so
    const scaleChoice = showsState('scale', select(Object.entries(SCALES), state.scale, (scale) => ctx.set({ scale })));
    const tableNote = el('p', { class: 'explain' });
    root.append(
      el('div', { class: 'controls' }, dkSlider, field('Scale', scaleChoice), custom),
      readout,
      el('div', { class: 'grid' }, panel('This d_k, one draw', weightsMap), panel(`Expected largest weight against d_k (${DRAWS} draws)`, chart)),
      el('h2', { text: 'The tutorials’ table, averaged' }), tableNote, table);
    let tableSeed = null;  // the table and chart depend on the seed only
    return () => {
      // undefined: the package's default 1/√d_k.
      // undefined: the package's default 1/√d_k.
      const scale = chosenScale(state);
      const now = experiment(lab, state.dk, state.seed, scale);
      const expected = expectation(lab, state.dk, state.seed, scale);
      weightsMap.matrix = now.weights;
      const used = state.scale === 'sqrt' ? `1/√${state.dk}` : state.scale === 'none' ? '1' : `1/${state.custom}`;
      readout.textContent = `d_k = ${state.dk}, scale ${used}: this draw's largest weight is ${formatNumber(now.maxWeight)}; ` +
        `over ${DRAWS} draws the scores spread with standard deviation ${formatNumber(expected.scoreSd)} and the largest ` +
        `weight averages ${formatNumber(expected.weightMean)} ± ${formatNumber(expected.weightSd)} (mean ± one standard deviation).`;
      if (tableSeed === state.seed) return;
      tableSeed = state.seed;
      const rows = DKS.map((dK) => ({ dK, raw: expectation(lab, dK, state.seed, 1), scaled: expectation(lab, dK, state.seed) }));
      tableNote.textContent = `Each row: ${DRAWS} independent draws of one query and ${KEYS} keys with N(0, 1) entries. “Spread” is ` +
        'the standard deviation of the scores the softmax receives (q·k without scaling, q·k/√d_k with it; theory: √d_k and 1); ' +
        `“largest weight” is the mean over the draws of the biggest of the ${KEYS} softmax weights, ± its standard deviation.`;
      const pm = (e) => `${formatNumber(e.weightMean)} ± ${formatNumber(e.weightSd)}`;
      table.replaceChildren(el('table', { class: 'data' },
        el('caption', { class: 'sr-only', text: `Spread of the scores and largest weight for each d_k, over ${DRAWS} draws` }),
        el('thead', {}, el('tr', {}, ['d_k', 'spread of q·k', 'largest weight, unscaled', 'spread of q·k/√d_k', 'largest weight, scaled']
          .map((h) => el('th', { scope: 'col', text: h })))),
        el('tbody', {}, rows.map(({ dK, raw, scaled }) => el('tr', {},
          el('th', { scope: 'row', text: String(dK) }),
          [formatNumber(raw.scoreSd, 2), pm(raw), formatNumber(scaled.scoreSd, 2), pm(scaled)].map((text) => el('td', { text })))))));
      const band = (key) => rows.map((r) => [r.dK, r[key].weightMean - r[key].weightSd, Math.min(1, r[key].weightMean + r[key].weightSd)]);
      chart.replaceChildren(lineChart([
        { name: 'unscaled (mean ± sd)', points: rows.map((r) => [r.dK, r.raw.weightMean]), band: band('raw') },
        { name: 'scaled by 1/√d_k (mean ± sd)', points: rows.map((r) => [r.dK, r.scaled.weightMean]), band: band('scaled') },
      ], { xLabel: 'd_k (dimensions, log scale)', yLabel: 'largest softmax weight', log2X: true, yDomain: [0, 1], width: chartWidth(chart),
        title: `Expected largest softmax weight against d_k over ${DRAWS} draws, scaled and unscaled, with one standard deviation shaded` }));
    };
  },
});
