// The shared-kv program's settings from the page's state (program.py's "# page setting" lines: among them the
// held-out text the page measures on); it reads the files every part-four program reads (MODERN_PROGRAM).
import { firstChapters } from '../../held-out-text.js';

// What sharing costs is measured on the first MEASURED_CHAPTERS chapters of part four's held-out text.
export const MEASURED_CHAPTERS = 1;
export const MEASURED_TEXT = firstChapters(MEASURED_CHAPTERS);

export const PROGRAM = {
  settings: (s) => ({
    prompt: s.prompt,
    layer: s.layer,
    mine: { layers: s.layers, heads: s.heads, kv_heads: s.kvHeads, head_dim: s.headDim, bytes: Number(s.bytes), tokens: s.tokens },
    held_out: MEASURED_TEXT,
  }),
};
