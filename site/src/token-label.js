// How a BPE token reads on the pages (DOM-free: the snippets' test splits sentences with it too).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

// How the labels read, said on every page that shows them.
export const TOKEN_MARKS = 'In the token labels, · is a space, ↵ a line break, and ⟨c3⟩ a byte of a character split across tokens.';

// Its text with spaces and newlines made visible; a token that is part of a character (one byte of "é" or
// of an emoji) as its bytes in hex, ⟨c3⟩.
export function tokenLabel(tokenizer, id) {
  const bytes = tokenizer.tokenBytes(id);
  try {
    return strictUtf8.decode(bytes).replaceAll(' ', '·').replaceAll('\n', '↵');
  } catch {
    return `⟨${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ')}⟩`;
  }
}
