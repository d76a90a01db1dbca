// The attribution lesson's Try-this ("which head matters most?", site/src/lessons/attribution/parts.js) accepts the
// one head that plain PyTorch says writes most of logit[target] − logit[baseline] — the lesson's own program,
// site/src/lessons/attribution/program.py, run under Debian's python3-torch — and refuses every other head,
// for the page's default and other prompts; its sorted order is the package's terms largest first.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { checkHeadGuess, orderTerms, strongestHead } from '../../site/src/lessons/attribution/parts.js';
import { lab as loadLab } from './helpers.js';
import { lessonProgramPrinted } from './lesson-program.js';

const CASES = [
  { prompt: 'Thou shalt love thy neighbour as', target: ' thyself', baseline: ' himself', position: -1 },
  { prompt: 'And the LORD spake unto Moses, saying', target: ' unto', baseline: ' the', position: -1 },
  { prompt: 'In the beginning God created the heaven and the', target: ' earth', baseline: ' heaven', position: -1 },
  { prompt: 'And God said, Let there be light: and there was', target: ' light', baseline: ' darkness', position: -1 },
];

// Every term the PyTorch program prints for these settings: label → value.
async function pytorchTerms(settings) {
  const printed = await lessonProgramPrinted('attribution', settings);
  return new Map([...printed].map(([label, [value]]) => [label, value]));
}

test('attribution Try-this: the strongest head by plain PyTorch is accepted, every other head refused', async () => {
  const lab = await loadLab(true);
  const { model, tokenizer } = await lab.loadBuiltinModel();
  const printed = await Promise.all(CASES.map(pytorchTerms));
  CASES.forEach((settings, i) => {
    const [target] = tokenizer.encode(settings.target), [baseline] = tokenizer.encode(settings.baseline);
    assert.equal(tokenizer.encode(settings.target).length + tokenizer.encode(settings.baseline).length, 2, 'one token each');
    const { terms } = model.directLogitAttribution(tokenizer.encode(settings.prompt), { target, baseline });
    const heads = [...printed[i]].filter(([label]) => /^L\d+H\d+$/.test(label)).sort((a, b) => b[1] - a[1]);
    assert.equal(heads.length, model.config.numLayers * model.config.numHeads);
    // A near-tie (within float32 noise) would make either answer right: none of these cases has one.
    assert.ok(heads[0][1] - heads[1][1] > 1e-3, `${settings.prompt}: ${heads[0]} and ${heads[1]} nearly tie`);
    const [, l, h] = /^L(\d+)H(\d+)$/.exec(heads[0][0]).map(Number);
    assert.equal(strongestHead(terms).label, heads[0][0]);
    for (let layer = 0; layer < model.config.numLayers; layer++) {
      for (let head = 0; head < model.config.numHeads; head++) {
        const verdict = checkHeadGuess(terms, layer, head);
        assert.equal(verdict.correct, layer === l && head === h, `${settings.prompt}: L${layer}H${head}: ${verdict.message}`);
        assert.ok(verdict.message.includes(heads[0][0]), verdict.message);
      }
    }
    assert.equal(checkHeadGuess(terms, model.config.numLayers, 0).correct, false);
    // Largest first, ties kept in model order; model order as the package gives it.
    const sorted = orderTerms(terms, 'sorted').map((t) => t.value);
    assert.deepEqual(sorted, [...sorted].sort((a, b) => b - a));
    assert.deepEqual(orderTerms(terms, 'model').map((t) => t.label), terms.map((t) => t.label));
  });
});
