// The all-heads lesson's PyTorch program (program.py, run after the model part
// site/snippets/trained/gpt2_kjv.py), DOM-free: what each "# page setting" line gets from the page's state.
import { gptProgram } from '../../../snippets/trained/program.js';

export const PROGRAM = gptProgram((s) => ({ prompt: s.prompt, layer: s.layer, head: s.head }));
