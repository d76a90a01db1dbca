// The "it" lesson's PyTorch program (program.py, also shown by why-attention), DOM-free: the lesson's
// settings and the sentence as the model's token ids, which need the loaded model (its vocabulary). The
// program reads the model's own weights, the file the package ships (the lesson links it, fileUrls).
export const FRAMES = ['cross', 'cross-reversed', 'fit', 'fit-reversed'];
export const DEFAULTS = { frame: 'cross', first: 'animal', second: 'street', adjective: 'tired' };
export const MODEL_FILE = 'attnlab-it-model.safetensors';

// A sentence of the model's frames → the program's settings.
export const sentenceSettings = (sentence) => ({ words: sentence.words, tokenIds: sentence.tokens, itPosition: sentence.itPosition });

export const PROGRAM = {
  schema: {
    frame: { type: 'enum', values: FRAMES, default: DEFAULTS.frame },
    first: { type: 'text', maxLength: 20, default: DEFAULTS.first },
    second: { type: 'text', maxLength: 20, default: DEFAULTS.second },
    adjective: { type: 'text', maxLength: 20, default: DEFAULTS.adjective },
  },
  settings: (state, loaded) => loaded && sentenceSettings(loaded.prepared.sentence(
    { frame: state.frame, first: state.first, second: state.second, adjective: state.adjective })),
  shippedFiles: { [MODEL_FILE]: 'web/models/referent/model.safetensors' },  // the repository's copies, for the test command
};
