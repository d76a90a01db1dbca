// Multi-head: the page shows every head's weights and their average; computed here with the package.
import { sentenceTokens } from '../../../site/src/sentence-tokens.js';

export const states = [{}, { dModel: 12, heads: 3, mask: 'causal', seed: 5 }, { sentence: 'one two', dModel: 64, heads: 8, seed: 1 }];

export async function expected(lab, state) {
  const tokens = sentenceTokens(lab, state.sentence, 'the cat sat on the mat', { maxTokens: 32 }).tokens;
  const mha = new lab.MultiHeadAttention({ dModel: state.dModel, numHeads: state.heads, seed: state.seed });
  const x = lab.embedTokens(tokens, state.dModel, { seed: state.seed });
  const { weights, averageWeights } = mha.forward(x, x, x, { causal: state.mask === 'causal' });
  mha.dispose();
  return { 'weights per head': weights.flatMap((w) => Array.from(w.data)), 'average over heads': averageWeights.data };
}
