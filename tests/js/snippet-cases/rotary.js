// Rotary positions: the page shows one query of attnlab-kjv-llama before and after its turn (the package's
// hook_q and hook_rot_q, and the page's own rotation), the chosen head's layer-0 score with the prompt at 0 and
// shifted (runWithCache's firstPosition), attnlab-kjv's layer-0 scores with the prompt alone and after other
// tokens, each pair's wavelength at the chosen θ, and the loss per position along held-out verses; computed
// here with the package (the losses from a full forward: the page reads the same text through the KV cache).
import { HELD_OUT } from '../../../site/src/held-out-text.js';
import { frequencies, largestDifference, nextTokenLosses, rotate, scoresBlock, wavelengths } from '../../../site/src/lessons/rotary/parts.js';
import { DEFAULT_PROMPT } from '../../../site/src/lessons/rotary/settings.js';

// The program's verses: the held-out text's first nine lines (the text the page reads).
const PASSAGE = HELD_OUT.split('\n').slice(0, 9).map((line) => `${line}\n`).join('');

export const states = [
  { prompt: DEFAULT_PROMPT, position: 8, layer: 0, head: 0, offset: 100, theta: 10000 },  // the defaults
  { prompt: 'And Abner saw Aaron. And Abner saw', position: 3, layer: 2, head: 3, offset: 7, theta: 500000 },
  { prompt: 'Jesus wept.', position: 50, layer: 3, head: 1, offset: 900, theta: 100 },  // a position past the prompt: its last token; no GPT comparison
];

export async function expected(lab, { model: gpt, llama, llamaTokenizer: tokenizer }, state) {
  const encoded = Array.from(tokenizer.encode(state.prompt));
  const ids = (encoded.length ? encoded : Array.from(tokenizer.encode(DEFAULT_PROMPT))).slice(-64);
  const T = ids.length;
  const { numHeads: H, headDim: hd, ropeTheta } = llama.config;
  const position = Math.min(state.position, T - 1), layer = state.layer, head = state.head;
  const omega = frequencies(ropeTheta, hd);
  const names = [`blocks.${layer}.attn.hook_q`, `blocks.${layer}.attn.hook_rot_q`, 'blocks.0.attn.hook_attn_scores'];
  const { cache } = llama.runWithCache(ids, { names });
  const at = (position * H + head) * hd;
  const q = cache.get(names[0]).data.subarray(at, at + hd);
  const moved = llama.runWithCache(ids, { names: [names[2]], firstPosition: state.offset }).cache.get(names[2]);
  const score = (s) => s.data[(head * T + T - 1) * T];
  const out = {
    inv_freq: omega,
    'query before the turn': q,
    'turned here': rotate(q, position, omega),
    hook_rot_q: cache.get(names[1]).data.subarray(at, at + hd),
    'llama layer 0 score, last query on first key, at 0 and shifted': [score(cache.get(names[2])), score(moved)],
  };
  if (state.offset + T <= gpt.config.contextLength) {
    const lead = Array.from(tokenizer.encode(PASSAGE)).slice(0, state.offset);
    const name = 'blocks.0.attn.hook_attn_scores';
    const alone = gpt.runWithCache(ids, { names: [name] }).cache.get(name);
    const after = gpt.runWithCache([...lead, ...ids], { names: [name] }).cache.get(name);
    let largest = 0;
    for (let h = 0; h < gpt.config.numHeads; h++) largest = Math.max(largest, largestDifference(scoresBlock(alone, h, 0, T), scoresBlock(after, h, state.offset, T)).value);
    const gh = Math.min(head, gpt.config.numHeads - 1);
    out['gpt largest difference of a layer-0 score when shifted'] = [largest];
    out['gpt layer 0 score, last query on first key, alone and shifted'] = [scoresBlock(alone, gh, 0, T)[(T - 1) * T], scoresBlock(after, gh, state.offset, T)[(T - 1) * T]];
  }
  out['wavelengths at theta'] = wavelengths(frequencies(state.theta, hd));
  const held = Array.from(tokenizer.encode(PASSAGE));
  out['loss per position'] = nextTokenLosses(llama.forward(held).logits, held);
  return out;
}
