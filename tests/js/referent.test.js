// The "it" lesson's model through the package: its messages read as the package's calls, never as the
// core's function names (make_referent_sentence), and a refusal leaves the module usable.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { AttnLabError, loadReferentModel } from '../../web/index.js';
import { lab } from './helpers.js';

test('ReferentModel.sentence: an unknown word is named with the frame, in the package\'s words', async () => {
  const referent = await (await lab(true)).loadReferentModel();
  assert.throws(() => referent.sentence({ frame: 0, first: 'zzz', second: 'street', adjective: 'wide' }),
    (e) => e instanceof AttnLabError && e.message === 'ReferentModel.sentence: \'zzz\' is not a first noun of frame cross');
  const s = referent.sentence({ frame: 0, first: 'animal', second: 'street', adjective: 'wide' });
  assert.ok(s.tokens.length > 0, 'the module still works');
});

// Without init(): the referent module alone (the first lesson's page fetches nothing else).
for (const simd of [true, false]) {
  test(`loadReferentModel() without init() is the lab's model, bit for bit, and answers the two sentences (${simd ? 'simd' : 'scalar'})`, async () => {
    const alone = await loadReferentModel({ simd });
    const inLab = await (await lab(simd)).loadReferentModel();
    for (const [adjective, answer] of [['tired', 'animal'], ['wide', 'street']]) {
      const choice = { frame: 'cross', first: 'animal', second: 'street', adjective };
      const a = alone.forward(alone.sentence(choice));
      const b = inLab.forward(inLab.sentence(choice));
      assert.equal(a.prediction, answer, `"…because it was too ${adjective}": "it" is the ${answer}`);
      assert.deepEqual(Array.from(a.probabilities), Array.from(b.probabilities));
      const { layer, head } = alone.namedHead;
      assert.deepEqual(Array.from(a.fromIt[layer][head]), Array.from(b.fromIt[layer][head]));
    }
    assert.equal(alone.log.summary.namedHeadHeldoutShare, inLab.log.summary.namedHeadHeldoutShare);
  });
}

test('loadReferentModel() without init(): bad options are refused in its own name; a later call works', async () => {
  await assert.rejects(loadReferentModel({ simd: 'yes' }),
    (e) => e instanceof AttnLabError && e.message === 'loadReferentModel: simd must be \'auto\', true or false, got yes');
  await assert.rejects(loadReferentModel({ memoryBudget: -1 }),
    (e) => e instanceof AttnLabError && /^loadReferentModel: memoryBudget must be a whole number of bytes/.test(e.message));
  await assert.rejects(loadReferentModel(7), (e) => e instanceof AttnLabError && e.message === 'loadReferentModel: options must be an object, got 7');
  const referent = await loadReferentModel();
  assert.equal(referent.forward(referent.sentence({ frame: 'cross', first: 'animal', second: 'street', adjective: 'wide' })).prediction, 'street');
});

test('loadReferentModel() without init(): each call\'s memory budget holds, also after a call with another budget', async () => {
  // The weights are 25,234 float32 values (98.57 KiB): a 1000-byte budget refuses them, the default takes them.
  const tooSmall = (e) => e instanceof AttnLabError && e.message.startsWith('loadReferentModel: needs about 98.57 KiB') &&
    e.message.includes('the memory budget is 1000 bytes') &&
    // the setter this call has (there is no lab here to call setMemoryBudget on)
    e.message.endsWith(' (loadReferentModel({ memoryBudget }) sets it)');
  await assert.rejects(loadReferentModel({ memoryBudget: 1000 }), tooSmall);
  const referent = await loadReferentModel();
  assert.equal(referent.forward(referent.sentence({ frame: 'cross', first: 'animal', second: 'street', adjective: 'tired' })).prediction, 'animal');
  await assert.rejects(loadReferentModel({ memoryBudget: 1000 }), tooSmall);
});
