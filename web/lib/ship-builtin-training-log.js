// import 'attnlab/builtin-training-log': the built-in model's training log (models/kjv/training-log.jsonl,
// 748 kB) ships with the app, for lab.loadBuiltinTrainingLog(). It needs no wasm module.
import { registerFiles } from './registry.js';

registerFiles({
  log: () => new URL('../models/kjv/training-log.jsonl', import.meta.url),
});
