// Why attention's PyTorch program is the "it" lesson's (it-sentence.py) on the lesson's sentence: "the
// animal didn't cross the street because it was too <ending>".
import { sentenceSettings, snippet as itSentence } from './it-sentence.js';

export const ENDINGS = ['tired', 'wide'];

export const snippet = {
  program: 'it-sentence',
  schema: { ending: { type: 'enum', values: ENDINGS, default: 'tired' } },
  settings: (state, loaded) => loaded && sentenceSettings(loaded.prepared.sentence(
    { frame: 'cross', first: 'animal', second: 'street', adjective: state.ending })),
  shippedFiles: itSentence.shippedFiles,
};
