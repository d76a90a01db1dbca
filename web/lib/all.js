// 'attnlab/all': everything 'attnlab' exports, with every module and model file shipped (what the
// package did before the feature entries): for an app that uses them all, such as the teaching site.
import './ship-training.js';
import './ship-builtin-model.js';
import './ship-builtin-llama.js';
import './ship-builtin-training-log.js';
import './ship-referent-model.js';
import './ship-translator.js';

export * from '../index.js';
