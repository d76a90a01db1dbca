// The FlashAttention lesson's settings, DOM-free: the page's defaults and limits, the lengths its memory
// table is computed for, and what each "# page setting" line of its PyTorch program (program.py) gets from
// the page's state (tests/js/snippets-trained.test.js renders and runs it the same way).
export const DEFAULT_PROMPT = 'And God said, Let there be light: and there was light. And God saw the light, that it was good.';
// At most this many tokens: every query row is a row of the step's table.
export const MAX_TOKENS = 32;
export const BLOCK_SIZES = [1, 2, 4, 8, 16];
export const DEFAULT_BLOCK = 4;
// The memory table's sequence lengths: 1k, 32k and 128k tokens.
export const MEMORY_LENGTHS = [1024, 32768, 131072];
// attnlab's core computes in float32; its attention_output works on tiles of 128 queries × 256 keys
// (cpp/src/attention/flash_attention.cpp, kQueryBlock and kKeyBlock).
export const BYTES_PER_NUMBER = 4;
export const CORE_TILE = { queries: 128, keys: 256 };

export const PROGRAM = {
  settings: (s) => ({ prompt: s.prompt, layer: s.layer, head: s.head, block: s.block }),
};
