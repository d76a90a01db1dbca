// Why attention's PyTorch program is the "it" lesson's (../it-sentence/program.py) on the lesson's sentence: "the
// animal didn't cross the street because it was too <ending>".
import { sentenceSettings, PROGRAM as itSentence } from '../it-sentence/settings.js';

export const ENDINGS = ['tired', 'wide'];

export const PROGRAM = {
  program: 'it-sentence',
  schema: { ending: { type: 'enum', values: ENDINGS, default: 'tired' } },
  settings: (state, loaded) => loaded && sentenceSettings(loaded.prepared.sentence(
    { frame: 'cross', first: 'animal', second: 'street', adjective: state.ending })),
  shippedFiles: itSentence.shippedFiles,
};
