// The interpretability calls through the package, in both wasm builds, against PyTorch forward hooks
// (tests/fixtures/make_interp_fixtures.py: a TransformerLens-style hooked GPT-2 in float64) for the random
// small GPT and attnlab-kjv: every cached activation, the logit lens, attribution, both patchings, the
// circuits; and what a caller gets wrong (each refused by name, the module usable afterwards).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { lab, readSafetensors, VARIANTS } from './helpers.js';

const fixtures = new URL('../fixtures/', import.meta.url);
const bytes = (url) => new Uint8Array(readFileSync(url));
const WEIGHTS = {
  small: new URL('gpt/small.safetensors', fixtures),
  kjv: new URL('../../web/models/kjv/model.safetensors', import.meta.url),
};

// |a − e| ≤ tol · max |e| (finite entries); −∞ must meet −∞.
function assertNear(actual, expected, tol, what) {
  let largest = 0;
  for (const e of expected) if (Number.isFinite(e)) largest = Math.max(largest, Math.abs(e));
  for (let i = 0; i < expected.length; i++) {
    if (!Number.isFinite(expected[i])) {
      assert.equal(actual[i], expected[i], `${what}[${i}]`);
      continue;
    }
    assert.ok(Math.abs(actual[i] - expected[i]) <= tol * largest + 1e-7, `${what}[${i}] = ${actual[i]}, PyTorch ${expected[i]}`);
  }
}

const flat = (grid) => (Array.isArray(grid) ? grid.flatMap(flat) : [grid]);

for (const variant of VARIANTS) {
  for (const name of ['small', 'kjv']) {
    test(`${name}: cache, lens, attribution, patching and circuits match PyTorch hooks (${variant.name})`, async () => {
      const l = await lab(variant.simd);
      const model = await l.loadGPT(bytes(WEIGHTS[name]));
      const expected = JSON.parse(readFileSync(new URL(`interp/${name}.json`, fixtures), 'utf8'));
      const reference = readSafetensors(new URL(`interp/${name}-cache.safetensors`, fixtures));

      // The cache: every point in TransformerLens's shape; its logits are the plain forward's, bit for bit.
      const { logits, cache } = model.runWithCache(expected.clean);
      assert.equal(cache.names().length, 2 + 17 * model.config.numLayers + 2);
      for (const point of cache.names()) {
        const ours = cache.get(point);
        const theirs = reference.get(`clean.${point}`);
        assert.deepEqual(ours.shape, theirs.shape, point);
        assertNear(ours.data, theirs.data, 1e-4, point);
      }
      assert.deepEqual(logits.data, model.forward(expected.clean).logits.data);
      assertNear(logits.data, reference.get('clean.logits').data, 1e-4, 'logits');

      expected.lens.forEach((c, i) => {
        const lens = model.logitLens(c.ids, { position: c.position, k: c.k, target: c.target });
        assert.deepEqual(lens.points, c.points);
        lens.rows.forEach((row, j) => {
          const probs = reference.get(`lens${i}.${j}`).data;
          const top = probs[row.top[0].id];
          row.top.forEach(({ id, probability }) => assert.ok(Math.abs(probability - probs[id]) <= 1e-4 * top + 1e-7, `${row.point} token ${id}`));
          const kth = probs[row.top.at(-1).id];
          probs.forEach((p, id) => assert.ok(row.top.some((t) => t.id === id) || p <= kth + 1e-6, `${row.point}: token ${id} belongs in the top ${c.k}`));
          assert.ok(Math.abs(row.target.probability - probs[c.target]) <= 1e-4 * top + 1e-7, `${row.point} target`);
          assert.equal(row.target.rank, 1 + probs.filter((p) => p > probs[c.target]).length, `${row.point} target rank`);
        });
        const dla = model.directLogitAttribution(c.ids, { position: c.position, target: c.target, baseline: c.baseline });
        const e = expected.attribution[i];
        assert.deepEqual(dla.terms.map((t) => t.label), e.labels);
        assertNear(dla.terms.map((t) => t.value), e.values, 1e-4, 'attribution');
        assert.ok(Math.abs(dla.logit - e.logit) <= 1e-4 * Math.max(1, Math.abs(e.logit)), `logit ${dla.logit} vs ${e.logit}`);
        assert.ok(Math.abs(dla.sum - dla.logit) <= 1e-4 * Math.max(1, Math.abs(dla.logit)), `sum ${dla.sum} vs logit ${dla.logit}`);
      });

      const metric = { target: expected.metric.target, baseline: expected.metric.baseline };
      // These pairs test the numbers, and PyTorch's metrics say neither clean run favours the target by more
      // than 0.5 logit beyond its corrupted run: refused by default, computed with a warning when allowed.
      assert.ok(expected.clean_metric - expected.corrupted_metric <= 0.5);
      await assert.rejects(model.activationPatching(expected.clean, expected.corrupted, { what: 'z', metric }), /does not favour the target/);
      for (const { what, per, grid } of expected.patching) {
        const result = await model.activationPatching(expected.clean, expected.corrupted, { what, per, metric, allowUnfavourable: true });
        assert.match(result.warning, /does not favour the target/);
        assert.ok(Math.abs(result.clean - expected.clean_metric) < 1e-5 && Math.abs(result.corrupted - expected.corrupted_metric) < 1e-5);
        const cells = flat(grid);
        assert.equal(result.grid.data.length, cells.length, `${what} by ${per}`);
        result.grid.data.forEach((v, i) => assert.ok(Math.abs(v - cells[i]) <= 1e-4, `${what} by ${per} cell ${i}: ${v} vs ${cells[i]}`));
      }
      // The same grids with the logit difference written as a function of the logits (any metric's path: each cell
      // a runWithHooks in the package) agree with PyTorch's too; a probability's clean run scores higher or is refused.
      const last = (logits) => logits.data.subarray((logits.rows - 1) * logits.cols);
      const difference = (logits) => last(logits)[metric.target] - last(logits)[metric.baseline];
      for (const { what, per, grid } of expected.patching.filter((g) => ['resid_pre', 'z', 'k'].includes(g.what))) {
        const result = await model.activationPatching(expected.clean, expected.corrupted, { what, per, metric: difference, allowUnfavourable: true });
        assert.equal(result.position, undefined);
        assert.match(result.meaning, /your metric of the logits/);
        assert.ok(Math.abs(result.clean - expected.clean_metric) < 1e-4 && Math.abs(result.corrupted - expected.corrupted_metric) < 1e-4);
        const cells = flat(grid);
        assert.equal(result.grid.data.length, cells.length, `function metric, ${what} by ${per}`);
        result.grid.data.forEach((v, i) => assert.ok(Math.abs(v - cells[i]) <= 1e-3, `function metric, ${what} by ${per} cell ${i}: ${v} vs ${cells[i]}`));
      }
      for (const p of expected.path) {
        const result = model.pathPatching(expected.clean, expected.corrupted, {
          sender: { layer: p.sender[0], head: p.sender[1] },
          receivers: p.receivers.map(([layer, head, input]) => ({ layer, head, input })),
          metric, allowUnfavourable: true,
        });
        assert.ok(Math.abs(result.normalised - p.normalised) <= 1e-4, `path ${JSON.stringify(p)}: ${result.normalised}`);
      }
      // Path patching to the logits and to a later block's residual stream: PyTorch's two steps (ARENA's).
      assert.equal(expected.path_to.length, 6);
      for (const p of expected.path_to) {
        const result = model.pathPatching(expected.clean, expected.corrupted, { sender: { layer: p.sender[0], head: p.sender[1] }, to: p.to, metric, allowUnfavourable: true });
        assert.ok(Math.abs(result.patched - p.patched) <= 1e-4 * Math.max(1, Math.abs(p.patched)), `path to ${p.to} from ${p.sender}: ${result.patched} vs ${p.patched}`);
        assert.ok(Math.abs(result.normalised - p.normalised) <= 1e-4, `path to ${p.to} from ${p.sender}: ${result.normalised} vs ${p.normalised}`);
      }
      // Attribution patching: PyTorch's autograd gradient of the metric, times the clean − corrupted activation,
      // summed per cell and normalised — every grid, refused by default as activationPatching is.
      assert.throws(() => model.attributionPatching(expected.clean, expected.corrupted, { what: 'z', metric }), /attributionPatching: .*does not favour the target/);
      assert.equal(expected.attribution_patching.length, 10);
      for (const { what, per, grid } of expected.attribution_patching) {
        const result = model.attributionPatching(expected.clean, expected.corrupted, { what, per, metric, allowUnfavourable: true });
        assert.match(result.meaning, /first-order estimate/);
        assert.deepEqual(result.grid.shape, (await model.activationPatching(expected.clean, expected.corrupted, { what, per, metric, allowUnfavourable: true })).grid.shape);
        const cells = flat(grid);
        assert.equal(result.grid.data.length, cells.length, `${what} by ${per}`);
        result.grid.data.forEach((v, i) => assert.ok(Math.abs(v - cells[i]) <= 1e-4, `attribution ${what} by ${per} cell ${i}: ${v} vs ${cells[i]}`));
      }

      const { copying, pairs, baseline_mean: mean, baseline_std: sd } = expected.circuits;
      const all = model.copyingScores();  // every head at once: the same scores, as float32
      assert.deepEqual([all.rows, all.cols], [copying.length, copying[0].length]);
      copying.forEach((row, layer) => row.forEach((score, head) => {
        assert.ok(Math.abs(model.headCircuit(layer, head).copyingScore - score) <= 1e-3, `copying L${layer}H${head}`);
        assert.ok(Math.abs(all.data[layer * all.cols + head] - score) <= 1e-3, `copyingScores L${layer}H${head}`);
      }));
      // TransformerLens's processing steps, every combination, against PyTorch's float64 (make_interp_fixtures.py).
      const STEPS = ['foldLn', 'centreWriting', 'centreUnembed'];
      for (const [key, rows] of Object.entries(expected.circuits.copying_processed)) {
        const processed = model.copyingScores(Object.fromEntries(STEPS.map((step) => [step, key.includes(step)])));
        rows.forEach((row, layer) => row.forEach((score, head) => {
          assert.ok(Math.abs(processed.data[layer * processed.cols + head] - score) <= 1e-3, `${key} L${layer}H${head}`);
        }));
      }
      if (name === 'kjv') {
        // The issue's numbers: L3H0 −0.866 raw, +0.339 folded and centred, −0.384 with the unembedding centred too.
        const at = (m, l, h) => m.data[l * m.cols + h];
        const cases = [[{}, -0.866, 0.957], [{ foldLn: true, centreWriting: true }, 0.339, 0.219],
          [{ foldLn: true, centreWriting: true, centreUnembed: true }, -0.384, 0.008]];
        for (const [options, l3h0, l3h1] of cases) {
          const m = model.copyingScores(options);
          assert.ok(Math.abs(at(m, 3, 0) - l3h0) < 5e-4 && Math.abs(at(m, 3, 1) - l3h1) < 5e-4, `${JSON.stringify(options)}: ${at(m, 3, 0)}, ${at(m, 3, 1)}`);
        }
      }
      const scores = model.compositionScores({ draws: 200, seed: 0 });
      assert.equal(scores.pairs.length, pairs.length);
      scores.pairs.forEach((p, i) => {
        for (const kind of ['q', 'k', 'v']) assert.ok(Math.abs(p[kind] - pairs[i][kind]) <= 1e-4 * pairs[i][kind], `${kind}-composition ${i}`);
      });
      assert.ok(Math.abs(scores.baseline - mean) <= 4 * sd / Math.sqrt(200) + 4 * sd / Math.sqrt(5000), `baseline ${scores.baseline} vs ${mean}`);
      // ARENA's top-1 check: PyTorch's float64 argmax of every row of the full OV circuit, within 2 tokens (float32 near-ties);
      // raw and under each processing, and centreUnembed changes nothing (a shift of each row).
      for (const [key, rows] of Object.entries(expected.circuits.copying_top1)) {
        const options = { foldLn: key.includes('foldLn'), centreWriting: key.includes('centreWriting'), centreUnembed: key.includes('centreUnembed') };
        const top1 = model.copyingTop1(options);
        rows.forEach((row, l) => row.forEach((share, h) => assert.ok(Math.abs(top1.data[l * top1.cols + h] - share) <= 2 / model.config.vocabSize + 1e-6,
          `top-1 ${key} L${l}H${h}: ${top1.data[l * top1.cols + h]} vs ${share}`)));
        if (options.centreUnembed) {
          const uncentred = model.copyingTop1({ ...options, centreUnembed: false }).data;
          top1.data.forEach((x, i) => assert.ok(Math.abs(x - uncentred[i]) <= 2 / model.config.vocabSize + 1e-6, `${key}: centreUnembed moved head ${i}`));
        }
      }
      // Under TransformerLens's processing (fold_ln into W_Q, W_K, W_V; W_O centred), each step and both, as PyTorch's.
      for (const [key, processed] of Object.entries(expected.circuits.composition_processed)) {
        const ours = model.compositionScores({ draws: 5, foldLn: key.includes('foldLn'), centreWriting: key.includes('centreWriting') });
        ours.pairs.forEach((p, i) => {
          for (const kind of ['q', 'k', 'v']) assert.ok(Math.abs(p[kind] - processed[i][kind]) <= 1e-4 * processed[i][kind], `${key}: ${kind}-composition ${i}`);
        });
      }
      model.dispose();
    });
  }

  test(`interpretability calls refuse bad input by name and leave the module usable (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const model = await l.loadGPT(bytes(WEIGHTS.small));
    const ids = [1, 2, 3, 4, 5, 6];
    const refuses = async (call, pattern) => {
      await assert.rejects(async () => call(), (error) => {
        assert.equal(error.name, 'AttnLabError');
        assert.match(error.message, pattern);
        return true;
      });
    };
    await refuses(() => model.runWithCache(ids, { names: ['blocks.1.attn.hook_patern'] }),
      /^GPTModel\.runWithCache: unknown hook name "blocks\.1\.attn\.hook_patern" — did you mean "blocks\.1\.attn\.hook_pattern"\?.*hook_embed/);
    await refuses(() => model.runWithHooks(ids, { patch: [{ name: 'blocks.0.hook_resid_pre', value: { shape: [5, 32], data: new Float32Array(160) } }] }),
      /value has shape \(5, 32\) but this run's blocks\.0\.hook_resid_pre has shape \(6, 32\)/);
    await refuses(() => model.runWithHooks(ids, { patch: [{ name: 'blocks.0.attn.hook_z', ablate: 'zero', heads: [4] }] }), /heads holds 4, outside the model's heads 0 … 3/);
    await refuses(() => model.runWithHooks(ids, { patch: [{ name: 'blocks.0.hook_mlp_out', ablate: 'zero', positions: [6] }] }), /positions holds 6, outside the sequence 0 … 5/);
    await refuses(() => model.runWithHooks(ids, { patch: [{ name: 'blocks.0.hook_mlp_out', ablate: 'zeros' }] }), /ablate must be one of/);
    await refuses(() => model.logitLens(ids, { position: 9 }), /position 9 is outside the prompt's positions 0 … 5/);
    await refuses(() => model.logitLens(ids, { position: 2, target: 37 }), /target 37 is outside the vocabulary 0 … 36/);
    await refuses(() => model.directLogitAttribution(ids, { target: 99 }), /target 99 is outside the vocabulary 0 … 36/);
    await refuses(() => model.activationPatching(ids, [1, 2, 3], { what: 'resid_pre', metric: { target: 1, baseline: 2 } }),
      /the clean prompt has 6 tokens and the corrupted prompt 3/);
    await refuses(() => model.activationPatching(ids, ids, { what: 'resid_pre', metric: { target: 1, baseline: 2 } }), /same logit difference/);
    await refuses(() => model.activationPatching(ids, [1, 2, 3, 4, 5, 7], { what: 'resid_pre', per: 'head', metric: { target: 1, baseline: 2 } }),
      /per head needs a per-head point/);
    await refuses(() => model.activationPatching(ids, [1, 2, 3, 4, 5, 7], { what: 'resid', metric: { target: 1, baseline: 2 } }), /what must be one of/);
    await refuses(() => model.attributionPatching(ids, [1, 2, 3], { what: 'z', metric: { target: 1, baseline: 2 } }),
      /^GPTModel\.attributionPatching: .*the clean prompt has 6 tokens and the corrupted prompt 3/);
    await refuses(() => model.attributionPatching(ids, [1, 2, 3, 4, 5, 7], { what: 'mlp_out', per: 'head', metric: { target: 1, baseline: 2 }, allowUnfavourable: true }),
      /per head needs a per-head point/);
    await refuses(() => model.attributionPatching(ids, [1, 2, 3, 4, 5, 7], { what: 'z', metric: { target: 40, baseline: 2 }, allowUnfavourable: true }),
      /target 40 is outside the vocabulary 0 … 36/);
    await refuses(() => model.pathPatching(ids, [1, 2, 3, 4, 5, 7], { sender: { layer: 1, head: 0 }, receivers: [{ layer: 1, head: 1, input: 'q' }], metric: { target: 1, baseline: 2 }, allowUnfavourable: true }),
      /a receiver must be a head \(0 … 3\) of a later layer than the sender's 1/);
    await refuses(() => model.pathPatching(ids, [1, 2, 3, 4, 5, 7], { sender: { layer: 1, head: 0 }, to: 'blocks.1.hook_resid_pre', metric: { target: 1, baseline: 2 }, allowUnfavourable: true }),
      /to must be 'logits': the sender is in the last layer, 1, and no block's residual stream comes after it; got "blocks\.1\.hook_resid_pre"/);
    await refuses(() => model.pathPatching(ids, [1, 2, 3, 4, 5, 7], { sender: { layer: 0, head: 0 }, to: 'blocks.0.hook_resid_pre', metric: { target: 1, baseline: 2 }, allowUnfavourable: true }),
      /to must be 'logits' or the hook_resid_pre of a block after the sender's layer 0 \(blocks\.1\.hook_resid_pre … blocks\.1\.hook_resid_pre\), got "blocks\.0\.hook_resid_pre"/);
    await refuses(() => model.pathPatching(ids, [1, 2, 3, 4, 5, 7], { sender: { layer: 0, head: 0 }, to: 'logits', receivers: [], metric: { target: 1, baseline: 2 } }),
      /give receivers .* or to .*, one of the two/);
    await refuses(() => model.pathPatching(ids, [1, 2, 3, 4, 5, 7], { sender: { layer: 0, head: 0 }, to: 'logits', metric: { target: 1, baseline: 2, position: 6 }, allowUnfavourable: true }),
      /metric\.position 6 is outside the prompt's positions 0 … 5/);
    await refuses(() => model.headCircuit(2, 0), /layer 2, head 0 is not in the model/);
    const { cache } = model.runWithCache(ids, { names: ['blocks.0.hook_resid_pre', 'blocks.1.attn.hook_pattern'] });
    assert.deepEqual(cache.names(), ['blocks.0.hook_resid_pre', 'blocks.1.attn.hook_pattern']);
    await refuses(() => cache.get('blocks.1.attn.hook_patern'), /^ActivationCache\.get: this cache has no "blocks\.1\.attn\.hook_patern" — did you mean "blocks\.1\.attn\.hook_pattern"\?/);
    await refuses(() => model.runWithHooks(ids, { patch: [{ name: 'blocks.0.hook_mlp_out', from: cache }] }), /this cache has no "blocks\.0\.hook_mlp_out"/);

    // Hook functions (TransformerLens's fwd_hooks): one that reads sees the point runWithCache keeps; one that writes
    // the clean run's resid_pre at position 2 into another run is the patch from that cache (checked against PyTorch
    // above); a thrown error comes back as it was thrown; wrong shapes, NaN and unknown names are refused by name.
    const other = [1, 2, 7, 4, 5, 6];
    const { cache: clean } = model.runWithCache(ids);
    const read = [];
    model.runWithHooks(ids, { hooks: [{ name: 'blocks.1.attn.hook_pattern', fn: (value, hook) => { read.push(hook.name, value); } }] });
    assert.equal(read[0], 'blocks.1.attn.hook_pattern');
    assert.deepEqual(read[1], clean.get('blocks.1.attn.hook_pattern'));
    const d = model.config.dModel;
    const written = model.runWithHooks(other, { hooks: [{ name: 'blocks.1.hook_resid_pre',
      fn: (value) => value.data.set(clean.get('blocks.1.hook_resid_pre').data.subarray(2 * d, 3 * d), 2 * d) }] });
    const patched = model.runWithHooks(other, { patch: [{ name: 'blocks.1.hook_resid_pre', from: clean, positions: [2] }] });
    assert.deepEqual(written.logits.data, patched.logits.data);
    const returned = model.runWithHooks(other, { hooks: [{ name: 'blocks.1.hook_resid_pre',
      fn: (value) => ({ shape: value.shape, data: clean.get('blocks.1.hook_resid_pre').data }) }] });
    assert.deepEqual(returned.logits.data, model.runWithHooks(other, { patch: [{ name: 'blocks.1.hook_resid_pre', from: clean }] }).logits.data);
    const mine = new Error('my hook failed');
    assert.throws(() => model.runWithHooks(ids, { hooks: [{ name: 'blocks.0.hook_mlp_out', fn: () => { throw mine; } }] }), (e) => e === mine);
    await refuses(() => model.runWithHooks(ids, { hooks: [{ name: 'blocks.0.hook_mlp_out', fn: () => ({ shape: [6, 31], data: new Float32Array(186) }) }] }),
      /a hook function for blocks\.0\.hook_mlp_out returned shape \(6, 31\) but the point has shape \(6, 32\)/);
    await refuses(() => model.runWithHooks(ids, { hooks: [{ name: 'blocks.0.hook_mlp_out', fn: (v) => { v.data[3] = Infinity; } }] }),
      /a hook function left a NaN or \+∞ in blocks\.0\.hook_mlp_out/);
    await refuses(() => model.runWithHooks(ids, { hooks: [{ name: 'blocks.0.hook_mlp_outt', fn: () => {} }] }), /did you mean "blocks\.0\.hook_mlp_out"/);
    await refuses(() => model.runWithHooks(ids, { hooks: [{ name: 'blocks.0.hook_mlp_out', fn: 3 }] }), /hooks\[0\]\.fn must be a function/);

    // A function metric: a NaN from it, a pair it does not favour, and a call that takes only a logit difference.
    await refuses(() => model.activationPatching(ids, [1, 2, 3, 4, 5, 7], { what: 'z', metric: () => NaN }), /metric returned NaN on the clean run: it must return a finite number/);
    await refuses(() => model.activationPatching(ids, [1, 2, 3, 4, 5, 7], { what: 'z', metric: () => 1, allowUnfavourable: true }),
      /your metric is 1 on both prompts: there is no gap/);
    await refuses(() => model.attributionPatching(ids, [1, 2, 3, 4, 5, 7], { what: 'z', metric: () => 1 }), /metric: a function of the logits is taken by activationPatching/);
    // A metric lower on the clean prompt: refused, or with allowUnfavourable a warning giving both values.
    const logit1 = (logits) => logits.data[(logits.rows - 1) * logits.cols + 1];
    const sign = logit1(model.forward(ids).logits) < logit1(model.forward([1, 2, 3, 4, 5, 7]).logits) ? 1 : -1;
    const lower = (logits) => sign * logit1(logits);
    await refuses(() => model.activationPatching(ids, [1, 2, 3, 4, 5, 7], { what: 'z', metric: lower }), /the clean run does not score higher/);
    const warned = await model.activationPatching(ids, [1, 2, 3, 4, 5, 7], { what: 'z', per: 'all', metric: lower, allowUnfavourable: true });
    assert.match(warned.warning, /^Your metric is -?\d+\.\d{4} on the clean prompt and -?\d+\.\d{4} on the corrupted one/);
    assert.ok(warned.grid.data.every(Number.isFinite));

    // A sweep stopped by its AbortSignal after the first layer: AbortError, progress said, the module usable.
    const controller = new AbortController();
    const progress = [];
    await assert.rejects(model.activationPatching(ids, [1, 2, 3, 4, 5, 7], {
      what: 'z', per: 'head', metric: { target: 1, baseline: 2 }, allowUnfavourable: true,
      onProgress: (p) => { progress.push(p); controller.abort(); }, signal: controller.signal,
    }), { name: 'AbortError' });
    assert.deepEqual(progress, [{ done: 1, total: 2 }]);
    const after = await model.activationPatching(ids, [1, 2, 3, 4, 5, 7], { what: 'z', per: 'head', metric: { target: 1, baseline: 2 }, allowUnfavourable: true });
    assert.deepEqual(after.grid.shape, [2, 4]);
    assert.equal(model.forward(ids).logits.rows, 6);
    model.dispose();
  });
}
