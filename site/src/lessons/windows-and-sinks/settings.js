// The program's settings from the page's state (program.py's "# page setting" lines): the passage's length in
// tokens, s and w, and the passage itself, the whole lines of the page's passage that cover that many tokens.
import { HELD_OUT } from '../../held-out-text.js';
import { PASSAGE_CHARS } from './parts.js';

export const PROGRAM = {
  settings: (s) => ({ length: s.length, sinks: s.sinks, window: s.window, passage: HELD_OUT.slice(0, PASSAGE_CHARS[s.length]) }),
};
