// Positions: the page shows the sinusoidal table, its pairs' wavelengths, and the weights of the sentence,
// reversed, and reversed with positions; computed here with the package.
import { sentenceTokens } from '../../../site/src/sentence-tokens.js';

export const states = [{}, { positions: 100, dims: 8, sentence: 'dogs chase red balls', seed: 4 }, { positions: 2, dims: 32, sentence: '' }];

export async function expected(lab, state) {
  const pe = lab.positionalEncoding(state.positions, state.dims);
  const wave = (i) => 2 * Math.PI / Math.asin(pe.data[pe.cols + 2 * i]);  // read off PE[1, 2i] = sin(ω_i), as the page does
  const tokens = sentenceTokens(lab, state.sentence, 'the cat sat', { maxTokens: 32 }).tokens;
  const reversed = [...tokens].reverse();
  const mha = new lab.MultiHeadAttention({ dModel: 16, numHeads: 1, seed: state.seed });
  const weights = (words, positions) => mha.forward(lab.embedTokens(words, 16, { seed: state.seed, positions })).weights[0].data;
  const result = {
    PE: pe.data,
    'wavelength of pair 0 and of the last pair': [wave(0), wave(state.dims / 2 - 1)],
    'weights, original order': weights(tokens, 'none'),
    'weights, reversed order': weights(reversed, 'none'),
    'largest difference from the reversed original': [0],
    'weights, reversed order with positions': weights(reversed, 'sinusoidal'),
  };
  mha.dispose();
  return result;
}
