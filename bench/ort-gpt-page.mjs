// Greedy decoding in a benchmark page, shared by bench/gpt-inference.mjs and bench/threads.mjs (the pages
// import it from the repo's server): the loop both sides of a generation comparison run, and
// onnxruntime-web's step through bench/onnx-gpt-graph.mjs's decode graph with its K/V cache fed back.

// Index of the largest value of a row of logits (the first, on a tie).
export function argmax(row) {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

// The prompt fed one token at a time (as GPTModel.generate does), then `newTokens` greedy tokens, each
// but the last fed back: `step(id, position)` → that position's logits. → the new tokens.
export async function greedy(step, prompt, newTokens) {
  const tokens = [];
  for (let t = 0; t < prompt.length + newTokens - 1; t++) {
    const logits = await step(t < prompt.length ? prompt[t] : tokens[t - prompt.length], t);
    if (t >= prompt.length - 1) tokens.push(argmax(logits));
  }
  return tokens;
}

// ids as the int64 tensor the graphs take.
export function int64(ort, values) {
  return new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [values.length]);
}

// Greedy generation through the decode graph's session: each step's present K/V become the next past.
export function ortGenerate(ort, decodeSession, { numLayers, numHeads, dModel }, prompt, newTokens) {
  let cache = {};
  for (let l = 0; l < numLayers; l++) {
    for (const kv of ['k', 'v']) cache[`past_${kv}_${l}`] = new ort.Tensor('float32', new Float32Array(0), [numHeads, 0, dModel / numHeads]);
  }
  return greedy(async (id, position) => {
    const out = await decodeSession.run({ id: int64(ort, [id]), position: int64(ort, [position]), ...cache });
    cache = {};
    for (let l = 0; l < numLayers; l++) for (const kv of ['k', 'v']) cache[`past_${kv}_${l}`] = out[`present_${kv}_${l}`];
    return out.logits.data;
  }, prompt, newTokens);
}
