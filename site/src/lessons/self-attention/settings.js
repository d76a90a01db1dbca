// The self-attention lesson's PyTorch program (program.py), DOM-free: the lesson's settings and
// the file the program reads (the page's X and layer, sentence-layer.js).
import { TOKENS_SCHEMA } from '../../sentence-tokens.js';
import { sentenceAndLayer } from '../../../snippets/sentence-layer.js';

export const D_MODEL = 16;

export const PROGRAM = {
  schema: {
    sentence: { type: 'text', maxLength: 200, default: "The animal didn't cross the street because it was too tired" },
    tokens: TOKENS_SCHEMA,
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
  },
  file: 'attnlab-self-attention.safetensors',
  tensors: (lab, state) => sentenceAndLayer(lab, state, { dModel: D_MODEL, numHeads: 1 }),
};
