// Lesson 8: positional encoding — the position × dimension heatmap and curves, the permutation demo,
// and four schemes compared by how the score between two positions changes with their distance.
import { el, field, formatDifference, formatNumber, select } from '../../dom.js';
import { chartWidth, lineChart } from '../../line-chart.js';
import { attentionCache } from '../../models.js';
import { lessonPage } from '../../page.js';
import { heatmap, panel, sentenceInput, slider, tokensField, tokensOf } from '../../views.js';
import pytorchSource from './program.py?raw';
import { D_MODEL, DIMS, FALLBACK, positionFalloff, PROGRAM } from './settings.js';

// Each sine/cosine pair's wavelength in positions, read off the package's encoding: PE[1, 2i] =
// sin(ω_i) with ω_i = 1/10000^(2i/d) ≤ 1 rad, so ω_i = asin(PE[1, 2i]) and the pair repeats every
// 2π/ω_i positions. → [{ pair, wavelength }] for i = 0 … d/2 − 1.
function wavelengths(pe) {
  return Array.from({ length: pe.cols / 2 }, (_, i) => ({ pair: i, wavelength: 2 * Math.PI / Math.asin(pe.data[pe.cols + 2 * i]) }));
}

lessonPage({
  slug: 'positions',
  intro: [
    'Attention by itself does not know word order: shuffle the words and the weights are only shuffled the same way ' +
      '(“the cat sat” and “sat cat the” get the same attention, permuted). Positions have to be put in.',
    'The sinusoidal encoding adds to each position a vector of sines and cosines at geometrically spaced frequencies: ' +
      'PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(p / 10000^(2i/d)). Low dimensions change fast, high ones slowly, ' +
      'so positions 1, 2 and 100 all get different vectors. Learned tables (BERT, GPT) are just trained rows; RoPE rotates ' +
      'q and k so their dot product depends on the distance; ALiBi adds a penalty proportional to the distance.',
  ],
  formula: String.raw`\begin{aligned}PE_{(p,\,2i)} &= \sin\!\Big(\frac{p}{10000^{2i/d}}\Big)\\ PE_{(p,\,2i+1)} &= \cos\!\Big(\frac{p}{10000^{2i/d}}\Big)\end{aligned}`,
  pytorch: { source: pytorchSource, ...PROGRAM },
  call: "const pe = lab.positionalEncoding(50, 128);          // or 'learned'\nconst q2 = lab.applyRotary(q);  lab.alibiBias(n, n, slope);",
  schema: PROGRAM.schema,
  setup(ctx) {
    const { lab, state, root } = ctx;
    const sentenceBox = sentenceInput('Sentence', state.sentence, (sentence) => ctx.set({ sentence }));
    const attention = attentionCache(lab);
    const peMap = document.createElement('pe-plot');
    peMap.mode = 'heatmap';
    const curves = document.createElement('pe-plot');
    curves.mode = 'curves';
    const original = heatmap({ caption: 'Original order, no positions', rowTitle: 'Query', colTitle: 'Key' });
    const shuffled = heatmap({ caption: 'Reversed order, no positions', rowTitle: 'Query', colTitle: 'Key' });
    const withPositions = heatmap({ caption: 'Reversed order, with sinusoidal positions', rowTitle: 'Query', colTitle: 'Key' });
    const permutationNote = el('p', { class: 'explain', 'aria-live': 'polite' });
    const chart = el('div');
    const waveNote = el('p', { class: 'explain', 'aria-live': 'polite' });
    const waveChart = el('div');
    root.append(
      el('div', { class: 'controls' },
        slider('Positions', { min: 2, max: 100, value: state.positions }, (positions) => ctx.set({ positions })),
        field('Dimensions', select(DIMS.map((d) => [d, String(d)]), state.dims, (d) => ctx.set({ dims: Number(d) })))),
      el('div', { class: 'grid' }, panel('Position × dimension', peMap), panel('Dimensions 0, 1, 4 and 8 over positions', curves)),
      el('h2', { text: 'Why high dimensions change slowly' }),
      waveNote, waveChart,
      el('h2', { text: 'Attention alone ignores order' }),
      el('div', { class: 'controls' }, sentenceBox, tokensField(ctx)),
      permutationNote,
      el('div', { class: 'grid' }, panel(null, original), panel(null, shuffled), panel(null, withPositions)),
      el('h2', { text: 'Four ways to add position, compared' }),
      el('p', { text: 'The score between position 0 and position k as k grows (one head, d = 16, same content everywhere). ' +
        'Sinusoidal similarity wanders down with a ripple; a random learned table has no structure until it is trained; ' +
        'RoPE rotates the same random q and k by k steps: the score is a content-weighted sum of cos(k·θ_i), so it depends ' +
        'only on the distance, inside every head; ALiBi simply subtracts more the further apart two words are.' }),
      chart);
    return () => {
      const pe = lab.positionalEncoding(state.positions, state.dims);
      peMap.matrix = pe;
      curves.matrix = pe;
      curves.dims = [0, 1, 4, 8].filter((d) => d < state.dims);

      const waves = wavelengths(pe);
      const last = waves.at(-1);
      const turns = (w) => formatNumber(state.positions / w.wavelength, 2);
      waveNote.textContent = `Pair i (dimensions 2i and 2i+1) turns at ω_i = 1/10000^(2i/d) radians per position, so it repeats ` +
        `every 2π/ω_i positions. With d = ${state.dims}: pair 0 repeats every ${formatNumber(waves[0].wavelength, 1)} positions and ` +
        `goes round ${turns(waves[0])} times over the ${state.positions} positions shown; pair ${last.pair} repeats every ` +
        `${Math.round(last.wavelength).toLocaleString('en')} positions and turns ${turns(last)} of a circle — its dimensions barely move. ` +
        'Fast pairs tell neighbours apart, slow pairs tell far-apart positions apart without ever repeating.';
      waveChart.replaceChildren(lineChart([{ name: 'wavelength of each pair', points: waves.map((w) => [w.pair, Math.log10(w.wavelength)]) }], {
        xLabel: 'pair i (dimensions 2i, 2i+1)', yLabel: 'log₁₀ wavelength (positions)', width: chartWidth(waveChart),
        title: `Wavelength of each sine/cosine pair for d = ${state.dims}, on a log scale: from ${formatNumber(waves[0].wavelength, 1)} to ${Math.round(last.wavelength)} positions` }));

      const { tokens } = tokensOf(lab, state.sentence, FALLBACK, { mode: state.tokens, ctx, field: sentenceBox });
      const reversed = [...tokens].reverse();
      const mha = attention({ dModel: D_MODEL, numHeads: 1, seed: state.seed });
      const weightsOf = (words, positions) => {
        const x = lab.embedTokens(words, D_MODEL, { seed: state.seed, positions });
        return mha.forward(x).weights[0];
      };
      const a = weightsOf(tokens, 'none');
      const b = weightsOf(reversed, 'none');
      const n = tokens.length;
      // b[i][j] should equal a[n−1−i][n−1−j]: compare as a check, not as math the page relies on.
      let largest = 0;
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
        largest = Math.max(largest, Math.abs(b.data[i * n + j] - a.data[(n - 1 - i) * n + (n - 1 - j)]));
      }
      permutationNote.textContent = `Reversing the words only reverses the weights: the largest difference from the ` +
        `reversed original is ${formatDifference(largest)}. With positions added, the reversed sentence gets different weights.`;
      Object.assign(original, { rowLabels: tokens, colLabels: tokens, matrix: a });
      Object.assign(shuffled, { rowLabels: reversed, colLabels: reversed, matrix: b });
      Object.assign(withPositions, { rowLabels: reversed, colLabels: reversed, matrix: weightsOf(reversed, 'sinusoidal') });

      chart.replaceChildren(lineChart(positionFalloff(lab, D_MODEL, state.seed), {
        xLabel: 'distance k (positions)', yLabel: 'score with position 0', yDomain: [-1, 1], width: chartWidth(chart),
        title: 'Score between position 0 and position k for sinusoidal, learned, RoPE and ALiBi' }));
    };
  },
});
