// Shapes: the page shows the shapes of every step and the weights (batch, heads, seq, seq) of its
// batch of two padded sentences; computed here with the package (the layer's own forward).
import { sentenceTokens } from '../../../site/src/sentence-tokens.js';

export const states = [
  {},
  { first: 'a b c', second: 'one two three four five six seven', dModel: 32, heads: 4, mask: 'none', seed: 9 },
  { first: '', second: 'x', dModel: 16, heads: 1 },
];

export async function expected(lab, state) {
  const sentences = [[state.first, 'the cat sat down'], [state.second, 'dogs bark']]
    .map(([text, fallback]) => sentenceTokens(lab, text, fallback, { maxTokens: 8 }).tokens);
  const n = Math.max(...sentences.map((t) => t.length));
  const d = state.dModel, h = state.heads;
  const x = lab.tensor([2, n, d], sentences.flatMap((t) =>
    Array.from(lab.embedTokens([...t, ...new Array(n - t.length).fill('<pad>')], d, { seed: state.seed }).data)));
  const pad = lab.tensor([2, n], sentences.flatMap((t) => Array.from({ length: n }, (_, i) => (i < t.length ? 0 : 1))));
  const mha = new lab.MultiHeadAttention({ dModel: d, numHeads: h, seed: state.seed });
  const { weights } = mha.forward(x, x, x, { causal: state.mask === 'causal', keyPaddingMask: pad });
  mha.dispose();
  return {
    'qkv reshaped': [2, n, 3, h, d / h], q: [2, h, n, d / h], scores: [2, h, n, n], output: [2, n, d],
    weights: weights.data, 'weights in one call': weights.data, 'largest difference of the outputs': [0],
  };
}
