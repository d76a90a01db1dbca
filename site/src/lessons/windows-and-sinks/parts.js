// Sliding windows and attention sinks, DOM-free: the passage, the four caches a long text goes through, each
// token's loss in each, the attention each head puts on the first token its cache holds, and the cache's size.
// The page steps a Run a few tokens per task (lesson.js); the snippet case and the unit tests run the same code.
//
// The four caches (LlamaModel.session, cpp/include/attnlab/llama/llama_session.hpp):
//   full    session() — every token kept, RoPE at its position in the text. The model was trained on 256 tokens,
//           so the cache is emptied when it holds 256 and starts again from the next token (as the held-out
//           loss is measured: windows of 256 side by side); the first tokens after each restart have little context.
//   window  session({ window: w }) — the last w tokens only (the new one included), positions counted within the
//           cache (0 … w − 1, the keys turned again at each step): StreamingLLM's "window attention".
//   sinks   session({ sinks: s, window: w }) — the first s tokens of the text kept for ever, then the last w,
//           positions counted within the cache: StreamingLLM (Xiao et al. 2023).
//   mask    the same weights loaded with Mistral's config field sliding_window = w, read by session(): every
//           token kept, RoPE at its text position, each query sees its own key and the w − 1 before it.
// RoPE's scores depend only on how far apart two tokens are, and the window cache keeps exactly the keys the
// mask lets through, so `window` and `mask` compute the same numbers up to float rounding; the page shows the
// largest difference instead of assuming it.

export const LENGTHS = [384, 1024, 2048, 4096];
// The characters of passage.txt (whole lines) that hold at least LENGTHS[i] tokens: the program embeds them.
export const PASSAGE_CHARS = { 384: 1603, 1024: 4126, 2048: 8033, 4096: 16197 };
export const WINDOWS = [16, 32, 64, 128, 192];
export const MAX_SINKS = 16;
export const DEFAULTS = { length: 384, sinks: 4, window: 64 };

export const CACHES = [
  { id: 'full', name: 'Full (restarts at the context)' },
  { id: 'window', name: 'Window (the last w)' },
  { id: 'sinks', name: 'Sinks (first s + last w)' },
  { id: 'mask', name: 'Sliding-window mask (w)' },
];
// The caches whose first slot's attention the page reports (the mask's first key moves with the query).
export const SLOT_CACHES = ['full', 'window', 'sinks'];

// −log softmax(logits)[target], in float64 from float32 logits (row `row` of a rows×V Matrix's data).
export function tokenLoss(data, row, cols, target) {
  const base = row * cols;
  let max = -Infinity;
  for (let j = 0; j < cols; j++) if (data[base + j] > max) max = data[base + j];
  let sum = 0;
  for (let j = 0; j < cols; j++) sum += Math.exp(data[base + j] - max);
  return Math.log(sum) + max - data[base + target];
}

// The config.json of the same weights as a Mistral with sliding_window = w (the package's one way to mask a window).
export function maskConfig(configText, window) {
  return JSON.stringify({ ...JSON.parse(configText), model_type: 'mistral', architectures: ['MistralForCausalLM'], sliding_window: window });
}

// The mask cache's model: files { 'config.json': text, 'model.safetensors': bytes, 'tokenizer.json': bytes } of
// attnlab-kjv-llama → { model, tokenizer } with the window (lab.loadModel).
export async function loadMaskModel(lab, files, window) {
  const folder = { ...files, 'config.json': maskConfig(files['config.json'], window) };
  // As File objects, whose bytes the package reads as a stream: the weights then go in a piece per task, not in one.
  return lab.loadModel(Object.entries(folder).map(([name, data]) => new File([data], name)));
}

// One passage through the four caches, a token at a time. model: attnlab-kjv-llama; maskModel: the same weights
// with sliding_window = window. ids: the passage's tokens (n); the caches read ids[0 … n − 2] and predict ids[1 … n − 1].
export class CacheRun {
  constructor({ model, maskModel, ids, sinks, window }) {
    const { numLayers, numHeads, maxPositionEmbeddings } = model.config;
    Object.assign(this, { ids, sinks, window, context: maxPositionEmbeddings, heads: numLayers * numHeads, numHeads });
    this.sessions = {
      full: model.session(),
      window: model.session({ window }),
      sinks: model.session({ sinks, window }),
      mask: maskModel.session(),
    };
    this.steps = ids.length - 1;  // predictions to make
    this.done = 0;  // tokens read by every cache
    this.next = 0;  // the cache that reads token `done` next
    this.losses = Object.fromEntries(CACHES.map(({ id }) => [id, new Float64Array(this.steps)]));
    // per head, the summed weight on the cache's first slot and how many tokens had more than one slot
    this.slotSums = Object.fromEntries(SLOT_CACHES.map((id) => [id, new Float64Array(this.heads)]));
    this.slotCounts = Object.fromEntries(SLOT_CACHES.map((id) => [id, 0]));
    this.bytes = Object.fromEntries(CACHES.map(({ id }) => [id, { now: 0, most: 0 }]));
  }

  get finished() { return this.done >= this.steps; }

  // Reads the next token into the next cache (one append: the page's tasks stay short); after the last of the
  // four, the run moves to the next token.
  step() {
    const t = this.done, name = CACHES[this.next].id, session = this.sessions[name];
    if (name === 'full' && session.length === this.context) session.reset();
    const { logits, attention } = session.append(this.ids[t]);
    this.losses[name][t] = tokenLoss(logits.data, 0, logits.cols, this.ids[t + 1]);
    const bytes = this.bytes[name];
    bytes.now = session.cacheBytes;
    bytes.most = Math.max(bytes.most, bytes.now);
    if (name in this.slotSums && attention[0][0].cols > 1) {
      const sums = this.slotSums[name];
      attention.forEach((layer, l) => layer.forEach((w, h) => { sums[l * this.numHeads + h] += w.data[0]; }));
      this.slotCounts[name] += 1;
    }
    this.next = (this.next + 1) % CACHES.length;
    if (this.next === 0) this.done = t + 1;
  }

  // Per head (layer after layer), the mean weight on the first slot of the cache `name`.
  firstSlot(name) {
    const n = this.slotCounts[name];
    return Array.from(this.slotSums[name], (s) => (n ? s / n : 0));
  }

  dispose() {
    for (const s of Object.values(this.sessions)) s.dispose();
  }
}

export const mean = (xs, from = 0, to = xs.length) => {
  let s = 0;
  for (let i = from; i < to; i++) s += xs[i];
  return to > from ? s / (to - from) : NaN;
};

// The mean of each block of `block` losses among the first `count`: [[x, mean]], x the block's last target's
// position in the passage (targets are tokens 1 … n − 1).
export function blockMeans(losses, count, block) {
  const points = [];
  for (let start = 0; start < count; start += block) {
    const end = Math.min(count, start + block);
    points.push([end, mean(losses, start, end)]);
  }
  return points;
}

// The running mean: the mean loss of the targets so far, sampled every `every` targets (and at the last).
export function runningMeans(losses, count, every) {
  const points = [];
  let sum = 0;
  for (let i = 0; i < count; i++) {
    sum += losses[i];
    if ((i + 1) % every === 0 || i === count - 1) points.push([i + 1, sum / (i + 1)]);
  }
  return points;
}

// Tokens per point so that a curve has about 32 points.
export const blockSize = (length) => Math.max(8, Math.ceil(length / 32 / 8) * 8);

// After the window cache first drops the text's first token (target w + 1 onward, once the cache holds w tokens
// and evicts), the mean loss of each cache over the same targets: the comparison StreamingLLM draws.
export function afterEviction(run) {
  const from = Math.min(run.window, run.done), to = run.done;
  return Object.fromEntries(CACHES.map(({ id }) => [id, mean(run.losses[id], from, to)]));
}

// StreamingLLM's finding, read on this model's numbers: how much worse the window cache is than the sinks cache
// after eviction, in words. (0.1 nat: about a tenth more surprise per token; 0.5: the window cache is lost.)
export function sinkVerdict({ window, sinks, full }, s) {
  const lost = window - sinks;
  const kept = s === 0 ? 'With s = 0 the sinks cache is the window cache: choose s ≥ 1 to compare.'
    : lost > 0.5 ? `Dropping the first tokens ruins this model’s window cache, and keeping ${s} restores most of it, as StreamingLLM found.`
      : lost > 0.1 ? `Dropping the first tokens costs this model’s window cache ${lost.toFixed(2)} nats a token, which keeping ${s} gives back: StreamingLLM’s finding, milder here.`
        : lost < -0.1 ? `Here the window cache does better than the sinks cache: keeping the first ${s} tokens does not help this model.`
          : `Here dropping the first tokens barely matters: this model does not lean on them the way the models StreamingLLM studied did.`;
  const vsFull = sinks - full;
  return { lost, kept, vsFull };
}

// The heads ranked by mean weight on the first slot: [{ layer, head, value }], highest first.
export function rankedSinkHeads(values, numHeads) {
  return values.map((value, i) => ({ layer: Math.floor(i / numHeads), head: i % numHeads, value }))
    .sort((a, b) => b.value - a.value || a.layer - b.layer || a.head - b.head);
}

// Try this: which cache has the highest mean loss over the whole passage? → { correct, message }.
export function checkHighest(guess, means) {
  const order = CACHES.map(({ id }) => id).sort((a, b) => means[b] - means[a]);
  const highest = order[0];
  const name = (id) => CACHES.find((c) => c.id === id).name.toLowerCase();
  const tie = (id) => Math.abs(means[id] - means[highest]) < 1e-3;
  if (tie(guess)) {
    const others = order.filter((id) => id !== guess && tie(id));
    return { correct: true, message: `Yes: the ${name(guess)} has the highest mean loss${others.length ? ` (tied with the ${others.map(name).join(' and ')}: the same computation)` : ''}.` };
  }
  return { correct: false, message: `Not this time: the ${name(highest)} has the highest mean loss; the ${name(guess)} is ${(means[highest] - means[guess]).toFixed(2)} nats lower.` };
}

// What a run has read so far, as plain data a worker can post (CacheRun.snapshot()).
CacheRun.prototype.snapshot = function snapshot() {
  const n = this.done;
  return { done: n, steps: this.steps, sinks: this.sinks, window: this.window,
    losses: Object.fromEntries(CACHES.map(({ id }) => [id, this.losses[id].slice(0, n)])),
    slotSums: Object.fromEntries(SLOT_CACHES.map((id) => [id, this.slotSums[id].slice()])), slotCounts: { ...this.slotCounts },
    bytes: Object.fromEntries(CACHES.map(({ id }) => [id, { ...this.bytes[id] }])) };
};

// A snapshot read as the page reads a run: its numbers, and firstSlot(name) as CacheRun's.
export const runView = (snapshot) => ({ ...snapshot, firstSlot: (name) => CacheRun.prototype.firstSlot.call(snapshot, name) });
