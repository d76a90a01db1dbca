// The model part of part four's PyTorch programs: attnlab-kjv's GPT and tokenizer (site/snippets/trained/
// gpt2_kjv.py), then attnlab-kjv-llama (site/snippets/modern/llama_kjv.py), shown folded above a lesson's own
// part with links to the six files they read. A lesson's pytorch field: { source, ...MODERN_PROGRAM, ...PROGRAM }.
import { MODERN_FILES } from '../snippets/modern/model-files.js';
import llamaSource from '../snippets/modern/llama_kjv.py?raw';
import { wholeProgram } from '../snippets/trained/program.js';
import gptSource from '../snippets/trained/gpt2_kjv.py?raw';

export const MODERN_PROGRAM = {
  model: wholeProgram(gptSource, llamaSource),
  files: MODERN_FILES,
  modelSummary: 'GPT-2 and a Llama-family model in PyTorch, their tokenizer and the page’s seeded draws',
  filesIntro: 'It reads attnlab-kjv’s three files and attnlab-kjv-llama’s Hugging Face folder: ',
  filesAdvice: 'Save the first three beside your notebook and the last three in a folder kjv-llama beside them. ',
};
