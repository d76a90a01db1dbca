// What <attn-head-view> and <attn-token-colors> share: which query token's attention is shown, and
// the keyboard over the tokens. The one shown is the token under the pointer, else (while the view
// has the focus) the one the keyboard is on, else the page's `query` attribute, else none.
// Keyboard: the tokens are one listbox (one tab stop, aria-activedescendant); `back` / `forward` keys
// move the active token, Home / End go to the ends, Escape leaves the tokens to the attribute again.
import { formatFixed } from './format.js';

export class QueryPicker {
  hovered = null;
  active = 0;
  focused = false;
  #element;
  #shown = undefined;

  constructor(element, { back, forward }) {
    this.#element = element;
    this.back = back;
    this.forward = forward;
  }

  // A click or tap on token i picks it: it stays shown after the pointer (or finger) leaves, and the
  // keyboard continues from it. (A touch pointer leaves as soon as it lifts; without this, a tap showed
  // the keyboard's token, the first, instead of the one touched.)
  pick(i) {
    this.active = i;
    this.focused = true;
  }

  shown() {
    const attribute = this.#element.getAttribute('query');
    return this.hovered ?? (this.focused ? this.active : attribute === null ? null : Number(attribute));
  }

  // Tells the page, once per change, which token's attention is now shown (null: none).
  announce() {
    const query = this.shown();
    if (query === this.#shown) return;
    const first = this.#shown === undefined;
    this.#shown = query;
    if (!first) this.#element.dispatchEvent(new CustomEvent('query-change', { detail: { query }, bubbles: true, composed: true }));
  }

  // → true when the key moved the active token (the caller redraws), for `count` tokens.
  key(event, count) {
    if (event.altKey || event.metaKey || event.ctrlKey || !count) return false;
    const moves = { [this.back]: -1, [this.forward]: 1, Home: -count, End: count };
    if (event.key === 'Escape') {
      this.focused = false;
    } else if (event.key in moves) {
      this.focused = true;
      this.active = Math.max(0, Math.min(count - 1, this.active + moves[event.key]));
    } else {
      return false;
    }
    event.preventDefault();
    return true;
  }
}

// "the: most weight on cat 0.52, the 0.31, sat 0.10" — the three largest weights of query row i.
export function describeRow(label, labels, m, i) {
  const n = m.rows;
  const order = Array.from({ length: n }, (_, j) => j).sort((a, b) => m.data[i * n + b] - m.data[i * n + a]).slice(0, 3);
  return `${label}: most weight on ${order.map((j) => `${labels[j]} ${formatFixed(m.data[i * n + j], 2)}`).join(', ')}`;
}

