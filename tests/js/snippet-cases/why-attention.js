// Why attention: the page shows the trained model's named head's weights from "it" in "the animal didn't
// cross the street because it was too <ending>"; the program prints every head's, computed here too.
import { referent, referentExpected } from './referent-expected.js';

export const states = [{}, { ending: 'wide' }];
export const prepared = referent;
export const expected = (lab, state) => referentExpected(lab, { frame: 'cross', first: 'animal', second: 'street', adjective: state.ending });
