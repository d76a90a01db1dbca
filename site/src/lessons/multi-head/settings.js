// The multi-head lesson's PyTorch program (program.py), DOM-free: the lesson's settings and the file
// the program reads (the page's X and layer, sentence-layer.js).
import { TOKENS_SCHEMA } from '../../sentence-tokens.js';
import { sentenceAndLayer } from '../../../snippets/sentence-layer.js';

export const HEADS = [1, 2, 3, 4, 6, 8];  // the num_heads choices
export const D_MODELS = [8, 12, 16, 32, 64];

export const PROGRAM = {
  schema: {
    sentence: { type: 'text', maxLength: 200, default: 'the cat sat on the mat because it was warm' },
    tokens: TOKENS_SCHEMA,
    dModel: { type: 'enum', values: D_MODELS, default: 32 },
    heads: { type: 'enum', values: HEADS, default: 4 },
    mask: { type: 'enum', values: ['none', 'causal'], default: 'none' },
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
    layer: { type: 'int', min: 0, max: 47, default: 0 },  // the trained model's layer shown
  },
  settings: (state) => ({ dModel: state.dModel, heads: state.heads, causal: state.mask === 'causal' }),
  file: 'attnlab-multi-head.safetensors',
  tensors: (lab, state) => sentenceAndLayer(lab, state, { dModel: state.dModel, numHeads: state.heads }),
};
