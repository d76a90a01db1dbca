// How a sentence lesson turns the learner's text into tokens, without the page (views.js tokensOf draws
// the notes around it; the snippets' test, tests/js/snippets.test.js, splits the same way): attnlab's
// word splitter, or the byte-level BPE of attnlab's trained GPT once its files have arrived.
import { tokenLabel } from './token-label.js';

let bpe = null;          // the trained GPT's Tokenizer, once loaded
let bpeLoading = null;   // its promise, while loading

// The BPE tokenizer if it has arrived, else null (the words stand in until then).
export function builtinBpe() {
  return bpe;
}

// Fetches the BPE tokenizer's vocab.json and merges.txt the first time (one request however often asked).
export function loadBuiltinBpe(lab) {
  bpeLoading ??= lab.loadBuiltinTokenizer().then((t) => { bpe = t; return t; }).finally(() => { bpeLoading = null; });
  return bpeLoading;
}

// Tokens of `sentence`, at most maxTokens; an empty sentence is read as `fallback`. A lone surrogate
// (pasted half of an emoji) becomes U+FFFD first: the wasm glue's UTF-8 encoder would otherwise merge
// it with the next character ("\uD800 a" came back as the token "𐀠a"). mode 'bpe' splits with the
// BPE (labels "·cat", as the trained-model lessons show them) when it has arrived.
export function sentenceTokens(lab, sentence, fallback, { mode = 'words', maxTokens }) {
  const split = (text) => (mode === 'bpe' && bpe ? Array.from(bpe.encode(text), (id) => tokenLabel(bpe, id)) : lab.tokenize(text));
  const tokens = split(sentence.toWellFormed());
  const usable = tokens.length ? tokens : split(fallback);
  return { tokens: usable.slice(0, maxTokens), truncated: usable.length > maxTokens, empty: tokens.length === 0, count: usable.length };
}

// The lessons' Tokens setting (views.js tokensField draws it): 'words' or 'bpe'.
export const TOKENS_SCHEMA = { type: 'enum', values: ['words', 'bpe'], default: 'words' };
