// import 'attnlab/builtin-model': attnlab-kjv, the trained GPT the package ships (models/kjv/: the
// weights, 5.2 MB, and the tokenizer), and the GPT module, ship with the app for lab.loadBuiltinModel()
// (and loadBuiltinTokenizer()). The training log is its own entry, 'attnlab/builtin-training-log'.
import './ship-builtin-tokenizer.js';
import { registerFiles } from './registry.js';

registerFiles({
  model: () => new URL('../models/kjv/model.safetensors', import.meta.url),
});
