// Shared keys and values: the page shows one layer's patterns of attnlab-kjv-llama on the prompt (its last 32
// tokens), each query head's key/value head, the KV cache's bytes of the four published configs and of the
// learner's numbers, and attnlab-kjv's held-out loss with its key/value heads mean-pooled into 4, 2 and 1
// groups. The pooled losses are computed here another way than the page's (which edits c_attn's weights): the
// package's own activations, each layer's hook_k and hook_v replaced by their group's mean, layer after layer
// (runWithHooks) — equal, since a projection is linear.
import { MEASURED_TEXT } from '../../../site/src/lessons/shared-kv/settings.js';

const PROMPT = 'And God said, Let there be light: and there was light.';
const HELD_OUT = MEASURED_TEXT;  // the page's held-out text, as the page passes it to its worker and its program

export const states = [
  { prompt: PROMPT, layer: 0, layers: 32, heads: 32, kvHeads: 8, headDim: 128, bytes: '2', tokens: 8192 },  // the defaults
  { prompt: 'And the LORD spake unto Moses, saying, Speak unto the children of Israel, and say unto them, When ye be come ' +
    'into the land which I give unto you, then shall the land keep a sabbath unto the LORD.', layer: 3,
  layers: 30, heads: 9, kvHeads: 3, headDim: 64, bytes: '4', tokens: 2048 },
];

// Published configs (config.json on huggingface.co): layers, query heads, key/value heads, head dim, context.
const CONFIGS = { 'Llama 3 8B': [32, 32, 8, 128, 8192], 'Llama 2 70B': [80, 64, 8, 128, 4096],
  'Qwen2.5-7B': [28, 28, 4, 128, 131072], 'SmolLM2-135M': [30, 9, 3, 64, 8192] };

// The GPT's mean loss per held-out target with each layer's keys and values replaced by their group's mean.
export function pooledLoss(lab, model, ids, groups) {
  const { numLayers: L, numHeads: H, dModel, contextLength: T } = model.config;
  const dh = dModel / H, size = H / groups;
  let sum = 0, count = 0;
  for (let start = 0; start + 1 < ids.length; start += T - 1) {
    const w = Array.from(ids.slice(start, start + T));
    const t = w.length;
    const patch = [];
    if (groups !== H) {
      for (let l = 0; l < L; l++) {
        const names = [`blocks.${l}.attn.hook_k`, `blocks.${l}.attn.hook_v`];
        const { cache } = model.runWithHooks(w, { patch: patch.slice(), keep: names });
        for (const name of names) {
          const x = cache.get(name).data;  // (t, H, dh)
          const out = new Float32Array(x.length);
          for (let p = 0; p < t; p++) for (let g = 0; g < groups; g++) for (let j = 0; j < dh; j++) {
            let s = 0;
            for (let h = g * size; h < (g + 1) * size; h++) s += x[(p * H + h) * dh + j];
            for (let h = g * size; h < (g + 1) * size; h++) out[(p * H + h) * dh + j] = s / size;
          }
          patch.push({ name, value: lab.tensor([t, H, dh], out) });
        }
      }
    }
    const { logits } = patch.length ? model.runWithHooks(w, { patch }) : model.runWithCache(w, { names: [] });
    const V = logits.cols;
    for (let p = 0; p + 1 < t; p++) {
      const row = logits.data.subarray(p * V, (p + 1) * V);
      let max = -Infinity;
      for (const v of row) max = Math.max(max, v);
      let z = 0;
      for (const v of row) z += Math.exp(v - max);
      sum += Math.log(z) + max - row[w[p + 1]];
      count++;
    }
  }
  return sum / count;
}

let losses = null;  // the same for every state
export function pooledLosses(lab, model, tokenizer) {
  const ids = tokenizer.encode(HELD_OUT);
  const H = model.config.numHeads;
  losses ??= [H, 2, 1].map((g) => pooledLoss(lab, model, ids, g));
  return losses;
}

export async function expected(lab, { model, tokenizer, llama, llamaTokenizer }, state) {
  let ids = Array.from(llamaTokenizer.encode(state.prompt));
  if (!ids.length) ids = Array.from(llamaTokenizer.encode(PROMPT));
  ids = ids.slice(-32);
  const { numHeads: H, numKeyValueHeads: Hkv, numLayers } = llama.config;
  const layer = Math.min(state.layer, numLayers - 1);
  const name = `blocks.${layer}.attn.hook_pattern`;
  const bytes = (layers, kv, hd, b = 2) => 2 * layers * kv * hd * b;
  const result = {
    'key/value head of each query head': Array.from({ length: H }, (_, h) => Math.floor(h / (H / Hkv))),
    [`pattern, layer ${layer}, query head × query × key`]: llama.runWithCache(ids, { names: [name] }).cache.get(name).data,
  };
  for (const [model_, [layers, heads, kv, hd, context]] of Object.entries(CONFIGS)) {
    result[`${model_}, bytes per token, full context, with multi-head per token and full context`] =
      [bytes(layers, kv, hd), bytes(layers, kv, hd) * context, bytes(layers, heads, hd), bytes(layers, heads, hd) * context];
  }
  const b = Number(state.bytes);
  const mine = bytes(state.layers, state.kvHeads, state.headDim, b), full = bytes(state.layers, state.heads, state.headDim, b);
  result['your numbers, bytes per token, for the tokens, with multi-head per token and for the tokens'] = [mine, mine * state.tokens, full, full * state.tokens];
  result[`held-out loss with ${model.config.numHeads}, 2 and 1 key/value heads per layer`] = pooledLosses(lab, model, tokenizer);
  return result;
}
