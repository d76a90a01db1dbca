// The shared-kv program's settings from the page's state (program.py's "# page setting" lines), and the files
// it reads: attnlab-kjv's three, attnlab-kjv-llama's folder and the held-out chapters the page measures on.
import { MODERN_FILES } from '../../../snippets/modern/model-files.js';

export const PROGRAM = {
  settings: (s) => ({
    prompt: s.prompt,
    layer: s.layer,
    mine: { layers: s.layers, heads: s.heads, kv_heads: s.kvHeads, head_dim: s.headDim, bytes: Number(s.bytes), tokens: s.tokens },
  }),
  files: [
    ...MODERN_FILES,
    { name: 'heldout.txt', url: new URL('./heldout.txt', import.meta.url), what: 'the held-out chapters' },
  ],
  filesIntro: 'It reads attnlab-kjv’s three files, attnlab-kjv-llama’s Hugging Face folder and the held-out chapters: ',
  filesAdvice: 'Save attnlab-kjv’s three and heldout.txt beside your notebook, and the Llama’s three in a folder kjv-llama beside them. ',
};
