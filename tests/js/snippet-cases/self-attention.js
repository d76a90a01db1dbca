// Self-attention: the page shows one head's weights over the sentence; computed here with the package.
import { sentenceTokens } from '../../../site/src/sentence-tokens.js';

export const states = [{}, { sentence: 'a bird sings', seed: 42 }, { sentence: '', seed: 3 }];

export async function expected(lab, state) {
  const tokens = sentenceTokens(lab, state.sentence, 'the cat sat on the mat', { maxTokens: 32 }).tokens;
  const mha = new lab.MultiHeadAttention({ dModel: 16, numHeads: 1, seed: state.seed });
  const { weights } = mha.forward(lab.embedTokens(tokens, 16, { seed: state.seed }));
  mha.dispose();
  return { weights: weights[0].data };
}
