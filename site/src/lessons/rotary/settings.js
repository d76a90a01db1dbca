// The rotary lesson's settings, DOM-free: the page's defaults and limits, the long text's slicing, and what
// each "# page setting" line of its PyTorch program (program.py) gets from the page's state
// (tests/js/snippets-trained.test.js renders and runs it the same way).
import { HELD_OUT } from '../../held-out-text.js';

export const DEFAULT_PROMPT = 'In the beginning God created the heaven and the earth.';
export const MAX_PROMPT_TOKENS = 64;
// How far the whole prompt may be shifted (runWithCache's firstPosition).
export const OFFSETS = { min: 1, max: 1000 };
// θ for the speeds' control: this model's (and Llama 2's) 10,000 among smaller and larger ones.
export const THETAS = [100, 1000, 10000, 100000, 500000, 1000000];
// The loss past the trained length: passages of `length` tokens (length − 1 next-token losses each), read
// `slice` tokens at a time through the KV cache, averaged over `block` positions.
export const LOSS = { passages: 4, length: 1025, slice: 8, block: 32 };

// The program's verses: the first PROGRAM_LINES lines of the held-out text the page reads.
export const PROGRAM_LINES = 9;
const programPassage = HELD_OUT.split('\n').slice(0, PROGRAM_LINES).map((line) => `${line}\n`).join('');

export const PROGRAM = {
  settings: (s) => ({ prompt: s.prompt, position: s.position, layer: s.layer, head: s.head, offset: s.offset, theta: s.theta,
    passage: programPassage }),
};
