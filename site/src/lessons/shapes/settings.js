// The shapes lesson's PyTorch program (program.py), DOM-free: the lesson's settings, its batch of two
// sentences (the shorter padded) and the file the program reads: x, the key-padding mask and the layer.
import { multiheadStateDict } from '../../safetensors-file.js';
import { sentenceTokens } from '../../sentence-tokens.js';

export const MAX_TOKENS = 8;  // per sentence: the shapes stay readable
export const PAD = '<pad>';
export const FALLBACKS = ['the cat sat down', 'dogs bark'];  // read when a box is empty

export const schema = {
  first: { type: 'text', maxLength: 120, default: FALLBACKS[0] },
  second: { type: 'text', maxLength: 120, default: FALLBACKS[1] },
  dModel: { type: 'enum', values: [8, 16, 32], default: 8 },
  heads: { type: 'enum', values: [1, 2, 4], default: 2 },
  mask: { type: 'enum', values: ['none', 'causal'], default: 'causal' },
  item: { type: 'int', min: 0, max: 1, default: 1 },  // the batch item drawn
  head: { type: 'int', min: 0, max: 3, default: 0 },  // the head drawn
  seed: { type: 'int', min: 0, max: 999999, default: 0 },
};

// The two sentences' tokens, and both padded with PAD to the longer one's length n.
export function batchTokens(lab, state) {
  const sentences = [state.first, state.second].map((text, b) => sentenceTokens(lab, text, FALLBACKS[b], { maxTokens: MAX_TOKENS }).tokens);
  const n = Math.max(...sentences.map((t) => t.length));
  return { sentences, n, padded: sentences.map((t) => [...t, ...new Array(n - t.length).fill(PAD)]) };
}

export const PROGRAM = {
  schema,
  settings: (state) => ({ heads: state.heads, causal: state.mask === 'causal' }),
  file: 'attnlab-shapes.safetensors',
  tensors(lab, state) {
    const { sentences, n, padded } = batchTokens(lab, state);
    const rows = padded.map((t) => Array.from(lab.embedTokens(t, state.dModel, { seed: state.seed }).data));
    const mha = new lab.MultiHeadAttention({ dModel: state.dModel, numHeads: state.heads, seed: state.seed });
    try {
      return {
        x: { shape: [2, n, state.dModel], data: Float32Array.from(rows.flat()) },
        // 1 = padding (PyTorch's key_padding_mask convention).
        key_padding_mask: { shape: [2, n], data: Float32Array.from(sentences.flatMap((t) => Array.from({ length: n }, (_, i) => (i < t.length ? 0 : 1)))) },
        ...multiheadStateDict(mha.weights()),
      };
    } finally {
      mha.dispose();
    }
  },
};
