// The next-token lesson's PyTorch program (program.py, run after the model part
// site/snippets/trained/gpt2_kjv.py), DOM-free: what each "# page setting" line gets from the page's state.
import { gptProgram, hundredths } from '../../../snippets/trained/program.js';

export const PROGRAM = gptProgram((s) => ({ prompt: s.prompt, temperature: s.temperature / 100, topK: s.topK, topP: s.topP / 100,
  penalty: hundredths(s.penalty), seed: s.seed }));
