// The cross-attention lesson's PyTorch program (program.py), DOM-free: the lesson's settings, the
// text the page translates (its default when the box has no words; the loaded translator's tokenizer
// says), and the files the program reads, the ones the package ships (the lesson links them, fileUrls).
export const DEFAULT_SENTENCE = 'the small cat sees the red car';
export const BEAM_WIDTH = 4;  // the hypotheses beam search keeps
export const MODEL_FILE = 'attnlab-translator.safetensors';
export const VOCAB_FILE = 'attnlab-translator-vocab.json';

// The English the page translates: the box's text, or the default when it holds no word.
export const translatedText = (model, text) => (model.sourceTokenizer.encode(text).words.length ? text : DEFAULT_SENTENCE);

export const PROGRAM = {
  schema: {
    sentence: { type: 'text', maxLength: 120, default: DEFAULT_SENTENCE },
    beam: { type: 'enum', values: ['1', String(BEAM_WIDTH)], default: '1' },
    layer: { type: 'int', min: 0, max: 7, default: 1 },
    head: { type: 'int', min: 0, max: 15, default: 2 },
    step: { type: 'int', min: 0, max: 32, default: 3 },
    example: { type: 'int', min: 0, max: 59, default: 0 },
  },
  settings: (state, loaded) => loaded && { sentence: translatedText(loaded.prepared.model, state.sentence), beam: Number(state.beam) },
  shippedFiles: { [MODEL_FILE]: 'web/models/translator/model.safetensors', [VOCAB_FILE]: 'web/models/translator/vocab.json' },
};
