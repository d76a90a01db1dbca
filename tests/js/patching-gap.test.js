// Patching that cannot mislead (issue 51, item 1): on attnlab-kjv, the clean prompt "And Moses spake unto
// Aaron his brother. And Moses spake unto" favours " Aaron" over " Joshua" by 5.787, and the same prompt
// with "Nebuchadnezzar" for both "Moses" by 6.284 — more. Its patching shares (the page once said
// "restores most with L0H2 (2.14)") are divisions by a negative gap, so activationPatching and
// pathPatching refuse the pair with both values, or with allowUnfavourable: true return it with a warning.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { lab as loadLab } from './helpers.js';

const CLEAN = 'And Moses spake unto Aaron his brother. And Moses spake unto';
const CORRUPTED = 'And Nebuchadnezzar spake unto Aaron his brother. And Nebuchadnezzar spake unto';

test('patching refuses a pair whose clean run favours the target less than the corrupted run, unless allowed', async () => {
  const lab = await loadLab(true);
  const { model, tokenizer } = await lab.loadBuiltinModel();
  const clean = Array.from(tokenizer.encode(CLEAN)), corrupted = Array.from(tokenizer.encode(CORRUPTED));
  const [target] = tokenizer.encode(' Aaron'), [baseline] = tokenizer.encode(' Joshua');
  assert.equal(clean.length, corrupted.length);
  const metric = { target, baseline };
  const refusal = (error) => {
    assert.equal(error.name, 'AttnLabError');
    assert.match(error.message, /^LlamaModel|^GPTModel/);
    // The two values, as the learner reads them.
    assert.ok(error.message.includes('5.787') && error.message.includes('6.284'), error.message);
    assert.match(error.message, /allowUnfavourable: true/);
    return true;
  };
  for (const what of ['resid_pre', 'z']) {
    await assert.rejects(model.activationPatching(clean, corrupted, { what, per: what === 'z' ? 'head' : 'position', metric }), refusal);
  }
  assert.throws(() => model.pathPatching(clean, corrupted, { sender: { layer: 0, head: 2 }, receivers: [{ layer: 1, head: 1, input: 'k' }], metric }), refusal);
  await assert.rejects(model.activationPatching(clean, corrupted, { what: 'z', metric, allowUnfavourable: 'yes' }), /allowUnfavourable must be a boolean/);

  // Allowed: the numbers, with a warning that gives both values and what a share outside [0, 1] means.
  const result = await model.activationPatching(clean, corrupted, { what: 'z', per: 'head', metric, allowUnfavourable: true });
  assert.ok(Math.abs(result.clean - 5.787) < 5e-4 && Math.abs(result.corrupted - 6.284) < 5e-4, `${result.clean} ${result.corrupted}`);
  assert.ok(result.warning.includes('5.787') && result.warning.includes('6.284'), result.warning);
  assert.match(result.meaning, /above 1 .* below 0/);
  const path = model.pathPatching(clean, corrupted, { sender: { layer: 0, head: 2 }, receivers: [{ layer: 1, head: 1, input: 'k' }], metric, allowUnfavourable: true });
  assert.ok(path.warning.includes('5.787'), path.warning);

  // Swapping target and baseline makes the same pair favourable by 0.497 — still inside the 0.5 margin.
  await assert.rejects(model.activationPatching(clean, corrupted, { what: 'z', metric: { target: baseline, baseline: target } }), /−?0\.497/);
  // A favourable pair (the patching lesson's first preset) gives no warning.
  const a = Array.from(tokenizer.encode('And Abner saw Aaron. And Abner saw')), b = Array.from(tokenizer.encode('And Abner met Aaron. And Abner saw'));
  const fine = await model.activationPatching(a, b, { what: 'z', per: 'head', metric: { target, baseline: tokenizer.encode(' Abner')[0] } });
  assert.equal(fine.warning, undefined);
  assert.ok(fine.clean - fine.corrupted > 0.5);
  model.dispose();
});
