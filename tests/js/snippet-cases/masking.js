// Masking: the page shows the mask (1 = may attend) and the weights; computed here with the package.
import { sentenceTokens } from '../../../site/src/sentence-tokens.js';

export const states = [
  {},
  { mask: 'padding', valid: 4, seed: 2 },
  { mask: 'padding', valid: 0, sentence: 'all of it is padding' },  // every key blocked: weights 0
  { mask: 'none', sentence: 'no mask at all', seed: 8 },
];

export async function expected(lab, state) {
  const tokens = sentenceTokens(lab, state.sentence, 'the cat sat on the mat', { maxTokens: 32 }).tokens;
  const n = tokens.length;
  const mask = state.mask === 'causal' ? lab.causalMask(n)
    : state.mask === 'padding' ? lab.keyPaddingMask(n, n, Math.min(state.valid, n)) : lab.matrix(n, n, new Float32Array(n * n).fill(1));
  const mha = new lab.MultiHeadAttention({ dModel: 16, numHeads: 1, seed: state.seed });
  const x = lab.embedTokens(tokens, 16, { seed: state.seed });
  const { weights } = mha.forward(x, x, x, { mask });
  mha.dispose();
  return { mask: mask.data, weights: weights[0].data };
}
