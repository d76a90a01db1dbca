// The files part four's PyTorch programs read (site/snippets/trained/gpt2_kjv.py, then llama_kjv.py):
// attnlab-kjv's three beside the program, and attnlab-kjv-llama's Hugging Face folder in kjv-llama/, as the
// package ships them. The site links to each (saved under its own name: `download` is the file's name,
// `name` where the program looks for it); the test command copies them the same way.
import { MODEL_FILES } from '../trained/model-files.js';

const llamaFile = (file, what) => ({ name: `kjv-llama/${file}`, download: file, what,
  url: new URL(`../../../web/models/kjv-llama/${file}`, import.meta.url) });

export const MODERN_FILES = [
  ...MODEL_FILES,
  llamaFile('config.json', 'its shape'),
  llamaFile('model.safetensors', 'its weights'),
  llamaFile('tokenizer.json', 'its tokenizer'),
];
