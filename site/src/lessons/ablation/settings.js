// The ablation lesson's PyTorch program (program.py, run after the model part
// site/snippets/trained/gpt2_kjv.py), DOM-free: what each "# page setting" line gets from the page's state.
import { gptProgram } from '../../../snippets/trained/program.js';

// "1.2,3.0" (the URL's heads) → [[1, 2], [3, 0]]; the program keeps the pairs inside its model.
export const headPairs = (text) => text.split(',').map((p) => p.split('.').map(Number))
  .filter(([l, h]) => Number.isInteger(l) && Number.isInteger(h) && l >= 0 && h >= 0).map(([l, h]) => [l, h]);

export const PROGRAM = gptProgram((s) => ({ prompt: s.prompt, heads: headPairs(s.heads), mode: s.mode, length: s.length, seed: s.seed }));
