// The sentence lessons' inputs, DOM-free (self-attention, masking, multi-head): the learner's sentence as
// tokens, their rows X (lab.embedTokens with the page's seed) and a seeded MultiHeadAttention, and the
// file their PyTorch programs read: X and the layer's weights under nn.MultiheadAttention's names.
import { multiheadStateDict } from '../src/safetensors-file.js';
import { sentenceTokens } from '../src/sentence-tokens.js';

// What the lessons read when the box is empty.
export const FALLBACK = 'the cat sat on the mat';
export const MAX_TOKENS = 32;

export const pageTokens = (lab, state) => sentenceTokens(lab, state.sentence, FALLBACK, { mode: state.tokens, maxTokens: MAX_TOKENS }).tokens;

// { x, in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias } for the page's sentence and layer.
export function sentenceAndLayer(lab, state, { dModel, numHeads }) {
  const mha = new lab.MultiHeadAttention({ dModel, numHeads, seed: state.seed });
  try {
    return { x: lab.embedTokens(pageTokens(lab, state), dModel, { seed: state.seed }), ...multiheadStateDict(mha.weights()) };
  } finally {
    mha.dispose();
  }
}
