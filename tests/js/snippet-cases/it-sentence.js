// The "it" sentence: the page shows the trained model's prediction, its probability and every head's
// weights from "it"; computed here with the package's model.
import { referent, referentExpected } from './referent-expected.js';

export const states = [{}, { frame: 'fit-reversed', first: 'bag', second: 'guitar', adjective: 'heavy' }, { frame: 'cross', first: 'fox', second: 'river', adjective: 'wide' }];
export const prepared = referent;
export const expected = (lab, state) => referentExpected(lab, { frame: state.frame, first: state.first, second: state.second, adjective: state.adjective });
