// Positions: the page shows the sinusoidal table (its curves at dimensions 0, 1, 4 and 8), its pairs'
// wavelengths, the weights of the sentence, reversed, and reversed with positions, and the four encodings'
// chart; computed here with the package.
import { DISTANCES, positionFalloff } from '../../../site/src/lessons/positions/settings.js';
import { sentenceTokens } from '../../../site/src/sentence-tokens.js';

export const states = [{}, { positions: 100, dims: 8, sentence: 'dogs chase red balls', seed: 4 }, { positions: 2, dims: 32, sentence: '' }];

// It reads like its page: the curves' columns, not the whole table (issue 53, item 7).
export const maxLines = 200;

export async function expected(lab, state) {
  const pe = lab.positionalEncoding(state.positions, state.dims);
  const curves = [0, 1, 4, 8].filter((d) => d < state.dims);
  const wave = (i) => 2 * Math.PI / Math.asin(pe.data[pe.cols + 2 * i]);  // read off PE[1, 2i] = sin(ω_i), as the page does
  const tokens = sentenceTokens(lab, state.sentence, 'the cat sat', { maxTokens: 32 }).tokens;
  const reversed = [...tokens].reverse();
  const mha = new lab.MultiHeadAttention({ dModel: 16, numHeads: 1, seed: state.seed });
  const weights = (words, positions) => mha.forward(lab.embedTokens(words, 16, { seed: state.seed, positions })).weights[0].data;
  const result = {
    'PE shape': [state.positions, state.dims],
    [`PE at dimensions ${curves.join(', ')}, one row per position (the curves)`]:
      Array.from({ length: state.positions }, (_, p) => curves.map((d) => pe.data[p * pe.cols + d])).flat(),
    'wavelength of each pair, in positions': Array.from({ length: state.dims / 2 }, (_, i) => wave(i)),
    'weights, original order': weights(tokens, 'none'),
    'weights, reversed order': weights(reversed, 'none'),
    'largest difference from the reversed original': [0],
    'weights, reversed order with positions': weights(reversed, 'sinusoidal'),
  };
  // The four encodings' chart, one line of scores per legend entry.
  for (const { name, points } of positionFalloff(lab, 16, state.seed)) {
    if (points.length !== DISTANCES) throw new Error(`${name}: ${points.length} points`);
    result[name] = points.map(([, score]) => score);
  }
  mha.dispose();
  return result;
}
