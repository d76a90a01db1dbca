// lab.flashAttentionTrace (the core's flash_attention_trace: attention_output's key-block step with every
// block's state kept) against the online-softmax formulas evaluated here in float64, its option checks, and
// the FlashAttention lesson's DOM-free parts (site/src/lessons/flash-attention/parts.js) on attnlab-kjv-llama.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { AttnLabError } from '../../web/index.js';
import { bytesText, checkMaxStops, headQKV, keyValueHead, lastMaxMove, memoryRow, partialOutput, qkvNames }
  from '../../site/src/lessons/flash-attention/parts.js';
import { lab, VARIANTS } from './helpers.js';

// After the block ending at key `end`, row i: m = max s_ij, l = Σ exp(s_ij − m), a = Σ exp(s_ij − m)·v_j over
// the keys j < end it may read; rescale = exp(m_before − m). Scores s = q·k·scale, in float64.
function reference(q, k, v, { blockSize, scale = 1 / Math.sqrt(q.cols), allowed = () => true }) {
  const n = q.rows, nk = k.rows, d = v.cols;
  const s = (i, j) => {
    let dot = 0;
    for (let c = 0; c < q.cols; c++) dot += q.data[i * q.cols + c] * k.data[j * k.cols + c];
    return dot * scale;
  };
  const blocks = [];
  let before = new Float64Array(n).fill(-Infinity);
  for (let start = 0; start < nk; start += blockSize) {
    const end = Math.min(start + blockSize, nk);
    const max = new Float64Array(n), sum = new Float64Array(n), rescale = new Float64Array(n), acc = new Float64Array(n * d);
    for (let i = 0; i < n; i++) {
      let m = -Infinity;
      for (let j = 0; j < end; j++) if (allowed(i, j)) m = Math.max(m, s(i, j));
      max[i] = m;
      if (m === -Infinity) continue;
      for (let j = 0; j < end; j++) {
        if (!allowed(i, j)) continue;
        const e = Math.exp(s(i, j) - m);
        sum[i] += e;
        for (let c = 0; c < d; c++) acc[i * d + c] += e * v.data[j * d + c];
      }
      rescale[i] = Math.exp(before[i] - m);
    }
    blocks.push({ start, count: end - start, max, sum, rescale, acc });
    before = max;
  }
  return blocks;
}

const near = (actual, expected, tolerance, what) => {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    if (!Number.isFinite(expected[i])) {
      assert.equal(actual[i], expected[i], `${what}[${i}]`);
      continue;
    }
    assert.ok(Math.abs(actual[i] - expected[i]) <= tolerance * (1 + Math.abs(expected[i])),
      `${what}[${i}]: ${actual[i]}, the formula gives ${expected[i]}`);
  }
};

for (const variant of VARIANTS) {
  describe(`flashAttentionTrace (${variant.name})`, () => {
    test('every block equals the online-softmax formulas in float64, causal or not, any block size', async () => {
      const l = await lab(variant.simd);
      const q = l.randn(9, 6, 1), k = l.randn(11, 6, 2), v = l.randn(11, 5, 3);
      for (const causal of [false, true]) {
        for (const blockSize of [1, 3, 4, 11, 50]) {
          const what = `${causal ? 'causal' : 'full'}, blocks of ${blockSize}`;
          const trace = l.flashAttentionTrace(q, k, v, { blockSize, causal });
          // causal aligned to the last key: query i sits at position i + n_k − n_q.
          const expected = reference(q, k, v, { blockSize, allowed: causal ? (i, j) => j <= i + 2 : undefined });
          assert.equal(trace.blocks.length, expected.length, what);
          trace.blocks.forEach((block, b) => {
            const e = expected[b];
            assert.equal(block.keyStart, e.start, what);
            assert.equal(block.keyCount, e.count, what);
            assert.equal(block.scores.rows, 9);
            assert.equal(block.scores.cols, e.count);
            near(block.max, e.max, 1e-5, `${what}, block ${b} max`);
            near(block.sum, e.sum, 1e-5, `${what}, block ${b} sum`);
            near(block.rescale, e.rescale, 1e-5, `${what}, block ${b} rescale`);
            near(block.accumulator.data, e.acc, 1e-5, `${what}, block ${b} accumulator`);
          });
          const full = l.scaledDotProductAttention(q, k, v, { causal }).output;
          near(trace.output.data, full.data, 1e-5, `${what}, output`);
        }
      }
    });

    test('with the core’s own block size it runs scaledDotProductAttention’s weights: false computation, bit for bit', async () => {
      const l = await lab(variant.simd);
      const q = l.randn(40, 8, 4), k = l.randn(300, 8, 5), v = l.randn(300, 8, 6);
      const mask = l.keyPaddingMask(40, 300, 270);
      for (const options of [{}, { causal: true, scale: 0.5 }, { mask }]) {
        const trace = l.flashAttentionTrace(q, k, v, options);
        assert.deepEqual(trace.blocks.map((b) => [b.keyStart, b.keyCount]), [[0, 256], [256, 44]]);
        assert.deepEqual(trace.output.data, l.scaledDotProductAttention(q, k, v, { ...options, weights: false }).output.data);
      }
    });

    test('its options are checked', async () => {
      const l = await lab(variant.simd);
      const m = l.randn(3, 4, 1);
      for (const blockSize of [0, 1.5, '4', -2, Infinity]) {
        assert.throws(() => l.flashAttentionTrace(m, m, m, { blockSize }), (e) => e instanceof AttnLabError &&
          /^flashAttentionTrace: blockSize must be an integer ≥ 1/.test(e.message), String(blockSize));
      }
      assert.throws(() => l.flashAttentionTrace(m, m, m, { blocksize: 2 }), /did you mean "blockSize"/);
      assert.throws(() => l.flashAttentionTrace(m, m, m, { weights: false }), /weights/);
      assert.throws(() => l.flashAttentionTrace(m, l.randn(3, 5, 2), m), (e) => e instanceof AttnLabError && /^flashAttentionTrace: /.test(e.message));
    });
  });
}

describe('the FlashAttention lesson’s parts', () => {
  test('query heads share key/value heads in groups, as repeat_kv lays them out', () => {
    assert.deepEqual([0, 1, 2, 3].map((h) => keyValueHead(h, 4, 2)), [0, 0, 1, 1]);
    assert.deepEqual([0, 5, 7].map((h) => keyValueHead(h, 8, 1)), [0, 0, 0]);
    assert.deepEqual([0, 5, 7].map((h) => keyValueHead(h, 8, 8)), [0, 5, 7]);
  });

  test('the last block that moves a row’s maximum, and the exercise’s words', () => {
    const block = (max, rescale) => ({ max: Float32Array.from(max), rescale: Float32Array.from(rescale), keyStart: 0, keyCount: 2 });
    const blocks = [block([1, 5], [0, 0]), block([3, 5], [0.1, 1]), block([3, 5], [1, 1])];
    assert.equal(lastMaxMove(blocks, 0), 2);
    assert.equal(lastMaxMove(blocks, 1), 1);
    assert.equal(checkMaxStops(2, blocks, 0).correct, true);
    assert.equal(checkMaxStops(1, blocks, 0).correct, false);
    assert.match(checkMaxStops(1, blocks, 0).message, /Not yet: block 2/);
    assert.match(checkMaxStops(3, blocks, 0).message, /Earlier/);
    assert.match(checkMaxStops(Number.NaN, blocks, 0).message, /from 1 to 3/);
  });

  test('the memory table follows its formula', () => {
    const r = memoryRow(131072, 48);
    assert.equal(r.scores, 4 * 131072 ** 2);
    assert.equal(r.flash, 4 * (128 * 256 + 2 * 131072));
    assert.equal(r.inputs, 4 * 4 * 131072 * 48);
    assert.equal(memoryRow(100, 48).flash, 4 * (100 * 100 + 200));  // a tile no larger than the sequence
    assert.equal(bytesText(4 * 1024 ** 2), '4 MiB');
    assert.equal(bytesText(4 * 131072 ** 2), '64 GiB');
    assert.equal(bytesText(1536), '1.5 KiB');
  });

  test('one head of attnlab-kjv-llama through the trace is the model’s own attention output (hook_z)', async () => {
    const l = await lab(true);
    const { model, tokenizer } = await l.loadBuiltinLlama();
    const ids = Array.from(tokenizer.encode('And God said, Let there be light: and there was light.'));
    const { numHeads, headDim } = model.config;
    for (const [layer, head] of [[0, 0], [1, 3], [3, 2]]) {
      const { cache } = model.runWithCache(ids, { names: [...qkvNames(layer), `blocks.${layer}.attn.hook_z`] });
      const { q, k, v } = headQKV(cache, layer, head, model.config);
      const trace = l.flashAttentionTrace(q, k, v, { blockSize: 4, causal: true });
      const z = cache.get(`blocks.${layer}.attn.hook_z`);
      const last = trace.blocks.at(-1);
      for (let i = 0; i < ids.length; i++) {
        const want = z.data.subarray((i * numHeads + head) * headDim, (i * numHeads + head + 1) * headDim);
        near(partialOutput(last, i), want, 2e-5, `layer ${layer} head ${head} row ${i}`);
      }
    }
  });
});
