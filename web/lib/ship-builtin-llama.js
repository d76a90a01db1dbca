// import 'attnlab/builtin-llama': attnlab-kjv-llama, the Llama-architecture model the package ships beside
// attnlab-kjv (models/kjv-llama/: config.json, the weights, 5.2 MB, tokenizer.json and the training log),
// and the GPT module it runs in, ship with the app for lab.loadBuiltinLlama().
import './ship-gpt.js';
import { registerFiles } from './registry.js';

registerFiles({
  llamaConfig: () => new URL('../models/kjv-llama/config.json', import.meta.url),
  llamaModel: () => new URL('../models/kjv-llama/model.safetensors', import.meta.url),
  llamaTokenizer: () => new URL('../models/kjv-llama/tokenizer.json', import.meta.url),
  llamaLog: () => new URL('../models/kjv-llama/training-log.jsonl', import.meta.url),
});
