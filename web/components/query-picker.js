// What <attn-head-view> and <attn-token-colors> share: which query token's attention is shown, and
// the keyboard over the tokens. The one shown is the token under the pointer, else the one hovered in
// a linked view (link.js), else (while the view has the focus) the one the keyboard is on, else the
// `query` attribute, else none.
// Keyboard: the tokens are one listbox (one tab stop, aria-activedescendant); `back` / `forward` keys
// move the active token, Home / End go to the ends, Escape leaves the tokens to the attribute again.
// In a link group a pick (click, tap, key) also becomes the `query` of the view and of its peers, so
// they agree once the focus leaves; Escape there clears the group's query.
import { formatFixed } from './format.js';
import { followPick, hoverRow, isLinked, tellLinked } from './link.js';

export class QueryPicker {
  active = 0;
  focused = false;
  linked = null; // the row hovered in a linked view, or null
  #hovered = null;
  #element;
  #where;
  #shown = undefined;

  // where() → { layer, head } of the matrix shown, null where the view does not know them (row-hover's detail).
  constructor(element, { back, forward, where = () => ({}) }) {
    this.#element = element;
    this.back = back;
    this.forward = forward;
    this.#where = where;
  }

  get hovered() { return this.#hovered; }
  // The token under the pointer (null: none). A change is the reader's: row-hover fires, and the
  // linked views show the row.
  set hovered(i) {
    if (i === this.#hovered) return;
    this.#hovered = i;
    hoverRow(this.#element, i, this.#where());
  }

  // A click or tap on token i picks it: it stays shown after the pointer (or finger) leaves, and the
  // keyboard continues from it. (A touch pointer leaves as soon as it lifts; without this, a tap showed
  // the keyboard's token, the first, instead of the one touched.)
  pick(i) {
    this.active = i;
    this.focused = true;
    this.#share(i);
  }

  // A linked view keeps its pick as its query, and so do its peers; an unlinked one keeps `query` as
  // the page set it (the pick lasts while it has the focus).
  #share(row) {
    if (!isLinked(this.#element)) return;
    followPick(this.#element, row, Infinity);
    tellLinked(this.#element, { kind: 'pick', row });
  }

  // A hover or a pick from a linked view, for a view of n tokens → true when the view must redraw
  // (a pick redraws through its query attribute).
  receive({ kind, row }, n) {
    if (kind === 'pick') {
      followPick(this.#element, row, n);
      if (row !== null && row < n) this.active = row;  // the keyboard continues from the pick
      return false;
    }
    if (kind !== 'hover') return false;
    const shown = row !== null && row < n ? row : null;
    if (shown === this.linked) return false;
    this.linked = shown;
    return true;
  }

  shown() {
    const attribute = this.#element.getAttribute('query');
    return this.#hovered ?? this.linked ?? (this.focused ? this.active : attribute === null ? null : Number(attribute));
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
      this.#share(null);
    } else if (event.key in moves) {
      this.focused = true;
      this.active = Math.max(0, Math.min(count - 1, this.active + moves[event.key]));
      this.#share(this.active);
    } else {
      return false;
    }
    event.preventDefault();
    return true;
  }
}

// "the: most weight on cat 0.52, the 0.31, sat 0.10" — the three largest weights of query row i.
export function describeRow(label, labels, m, i) {
  const cols = m.cols;
  const order = Array.from({ length: cols }, (_, j) => j).sort((a, b) => m.data[i * cols + b] - m.data[i * cols + a]).slice(0, 3);
  return `${label}: most weight on ${order.map((j) => `${labels[j]} ${formatFixed(m.data[i * cols + j], 2)}`).join(', ')}`;
}

