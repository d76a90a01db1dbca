// import 'attnlab/builtin-tokenizer': the built-in model's tokenizer (models/kjv/vocab.json and
// merges.txt, 106 kB) and the GPT module it runs in ship with the app, for lab.loadBuiltinTokenizer().
import './ship-gpt.js';
import { registerFiles } from './registry.js';

registerFiles({
  vocab: () => new URL('../models/kjv/vocab.json', import.meta.url),
  merges: () => new URL('../models/kjv/merges.txt', import.meta.url),
});
