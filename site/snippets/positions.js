// The positions lesson's PyTorch program (positions.py), DOM-free: the lesson's settings and the file the
// program reads for the permutation demo (the sentence's X without positions and the page's layer).
import { multiheadStateDict } from '../src/safetensors-file.js';
import { sentenceTokens, TOKENS_SCHEMA } from '../src/sentence-tokens.js';

export const D_MODEL = 16;  // the permutation demo's width
export const FALLBACK = 'the cat sat';
export const DIMS = [8, 16, 32, 64, 128];

export const snippet = {
  schema: {
    positions: { type: 'int', min: 2, max: 100, default: 50 },
    dims: { type: 'enum', values: DIMS, default: 128 },
    sentence: { type: 'text', maxLength: 200, default: FALLBACK },
    tokens: TOKENS_SCHEMA,
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
  },
  settings: (state) => ({ positions: state.positions, dims: state.dims }),
  file: 'attnlab-positions.safetensors',
  tensors(lab, state) {
    const tokens = sentenceTokens(lab, state.sentence, FALLBACK, { mode: state.tokens, maxTokens: 32 }).tokens;
    const mha = new lab.MultiHeadAttention({ dModel: D_MODEL, numHeads: 1, seed: state.seed });
    try {
      return { x: lab.embedTokens(tokens, D_MODEL, { seed: state.seed }), ...multiheadStateDict(mha.weights()) };
    } finally {
      mha.dispose();
    }
  },
};
