// The masking lesson's PyTorch program (program.py), DOM-free: the lesson's settings and the file the
// program reads (the page's X and layer, sentence-layer.js).
import { TOKENS_SCHEMA } from '../../sentence-tokens.js';
import { sentenceAndLayer } from '../../../snippets/sentence-layer.js';

export const D_MODEL = 16;
export const MASKS = { none: 'none', causal: 'causal (torch.tril)', padding: 'padding' };

export const PROGRAM = {
  schema: {
    sentence: { type: 'text', maxLength: 200, default: 'the cat sat on the mat pad pad' },
    tokens: TOKENS_SCHEMA,
    mask: { type: 'enum', values: Object.keys(MASKS), default: 'causal' },
    valid: { type: 'int', min: 0, max: 32, default: 6 },
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
  },
  settings: (state) => ({ mask: state.mask, valid: state.valid }),
  file: 'attnlab-masking.safetensors',
  tensors: (lab, state) => sentenceAndLayer(lab, state, { dModel: D_MODEL, numHeads: 1 }),
};
