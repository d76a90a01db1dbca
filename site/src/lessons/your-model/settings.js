// The your-model lesson's PyTorch program (program.py, run after the model part
// site/snippets/trained/gpt2_kjv.py) has no "# page setting" line: it reads attnlab-kjv's files as they are.
import { gptProgram } from '../../../snippets/trained/program.js';

export const PROGRAM = gptProgram(undefined);
