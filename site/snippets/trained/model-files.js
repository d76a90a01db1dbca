// The three files the trained-model lessons' PyTorch programs read (gpt2_kjv.py): attnlab-kjv as the
// package ships it. The site links to them (the bundler emits each file once, shared with the package's
// own reference); the test command copies them beside the program it runs.
export const MODEL_FILES = [
  { name: 'model.safetensors', url: new URL('../../../web/models/kjv/model.safetensors', import.meta.url), what: 'the weights' },
  { name: 'vocab.json', url: new URL('../../../web/models/kjv/vocab.json', import.meta.url), what: 'the tokens' },
  { name: 'merges.txt', url: new URL('../../../web/models/kjv/merges.txt', import.meta.url), what: 'the merges' },
];
