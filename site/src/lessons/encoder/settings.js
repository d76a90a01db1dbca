// The encoder lesson's PyTorch program (program.py), DOM-free: the lesson's settings, the layer's weights
// (made here from the seed, so the page can write them to the file the program reads) and that file.
import { multiheadStateDict } from '../../safetensors-file.js';
import { sentenceTokens, TOKENS_SCHEMA } from '../../sentence-tokens.js';

export const CONFIG = { dModel: 64, numHeads: 4, dFF: 256 };
export const FALLBACK = 'the cat sat on the mat';

export const schema = {
  sentence: { type: 'text', maxLength: 200, default: FALLBACK },
  tokens: TOKENS_SCHEMA,
  norm: { type: 'enum', values: ['layernorm', 'rmsnorm'], default: 'layernorm' },
  order: { type: 'enum', values: ['post', 'pre'], default: 'post' },
  seed: { type: 'int', min: 0, max: 999999, default: 0 },
  step: { type: 'int', min: 0, max: 200, default: 0 },
};

// The layer's weights for a seed (TransformerEncoderLayer.loadWeights' form): the attention's from a
// seeded MultiHeadAttention; each Linear's weight and bias N(0, 1)/√fan_in, the spread of PyTorch's own
// initialisation; norms at their start, weight 1 and bias 0 (RMSNorm has no bias).
export function encoderWeights(lab, { seed, norm }) {
  const { dModel, numHeads, dFF } = CONFIG;
  const mha = new lab.MultiHeadAttention({ dModel, numHeads, seed });
  const selfAttn = mha.weights();
  mha.dispose();
  const scaled = (rows, cols, s, fanIn) => {
    const m = lab.randn(rows, cols, s);
    return { rows, cols, data: m.data.map((v) => v / Math.sqrt(fanIn)) };
  };
  const linear = (out, inputs, s) => ({ weight: scaled(out, inputs, s, inputs), bias: scaled(1, out, s + 1, inputs).data });
  const normWeights = () => ({ weight: new Float32Array(dModel).fill(1), ...(norm === 'layernorm' ? { bias: new Float32Array(dModel) } : {}) });
  return { selfAttn, linear1: linear(dFF, dModel, seed + 11), linear2: linear(dModel, dFF, seed + 13), norm1: normWeights(), norm2: normWeights() };
}

export const encoderTokens = (lab, state) => sentenceTokens(lab, state.sentence, FALLBACK, { mode: state.tokens, maxTokens: 32 }).tokens;

export const PROGRAM = {
  schema,
  settings: (state) => ({ norm: state.norm, normFirst: state.order === 'pre' }),
  file: 'attnlab-encoder.safetensors',
  tensors(lab, state) {
    const w = encoderWeights(lab, state);
    const named = (prefix, part) => Object.fromEntries(Object.entries(part).map(([k, v]) => [`${prefix}.${k}`, v]));
    return {
      x: lab.embedTokens(encoderTokens(lab, state), CONFIG.dModel, { seed: state.seed, positions: 'sinusoidal' }),
      ...multiheadStateDict(w.selfAttn, 'self_attn.'),
      ...named('linear1', w.linear1), ...named('linear2', w.linear2), ...named('norm1', w.norm1), ...named('norm2', w.norm2),
    };
  },
};
