// The "it" lesson's model through the package: its messages read as the package's calls, never as the
// core's function names (make_referent_sentence), and a refusal leaves the module usable.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { AttnLabError } from '../../web/index.js';
import { lab } from './helpers.js';

test('ReferentModel.sentence: an unknown word is named with the frame, in the package\'s words', async () => {
  const referent = await (await lab(true)).loadReferentModel();
  assert.throws(() => referent.sentence({ frame: 0, first: 'zzz', second: 'street', adjective: 'wide' }),
    (e) => e instanceof AttnLabError && e.message === 'ReferentModel.sentence: \'zzz\' is not a first noun of frame cross');
  const s = referent.sentence({ frame: 0, first: 'animal', second: 'street', adjective: 'wide' });
  assert.ok(s.tokens.length > 0, 'the module still works');
});
