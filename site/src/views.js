// Small view helpers shared by the lessons: panels, heatmaps, token chips, sentence input.
import { el, field, keepNotes, lastLeftOut, noteUnder, select } from './dom.js';
import { builtinBpe, loadBuiltinBpe, sentenceTokens } from './sentence-tokens.js';

export function panel(title, ...children) {
  return el('div', { class: 'panel' }, title ? el('h3', { text: title }) : null, ...children);
}

// The site's colour language, one scale per kind of number (documented for component users in
// web/README.md, "Colours"): weights, probabilities and masks — everything in [0, 1] — on one
// sequential scale with the fixed domain [0, 1], so the same colour means the same weight in every
// lesson; signed values (scores, Q, K, V, embeddings) on one diverging scale centred on 0. Both are
// ColorBrewer schemes marked colour-blind safe, and the printed values and legend carry the numbers.
export const WEIGHTS = Object.freeze({ palette: 'YlOrRd', domain: [0, 1] });
export const SIGNED = Object.freeze({ palette: 'RdBu', domain: null });

// An <attn-heatmap> with its properties set (the element keeps them across updates): weights unless
// the props say ...SIGNED.
export function heatmap(props = {}) {
  const node = document.createElement('attn-heatmap');
  Object.assign(node, WEIGHTS, props);
  return node;
}

// The sentence's tokens as chips. Pass the list from the last call to update it in place (a
// keystroke then rewrites a text or two instead of rebuilding the list).
export function tokenChips(tokens, list = el('ul', { class: 'tokens', 'aria-label': 'Tokens' })) {
  while (list.children.length > tokens.length) list.lastElementChild.remove();
  tokens.forEach((t, i) => {
    const chip = list.children[i] ?? list.appendChild(el('li'));
    if (chip.textContent !== t) chip.textContent = t;
  });
  return list;
}

// A text box that reports its value on every edit (learner text: only ever used as text).
// The box keeps its first maxLength characters and says so under itself when it cut some (a maxlength
// attribute would cut a long paste without a word). tokensOf({ field }) and promptIds({ box }) add their
// own note there: what the lesson used instead of an empty text, or how many tokens it left out.
// { key }: the state key the box shows (showState sets it from the state when something else changes
// it). { lines }: a box of that many lines (a textarea) for a text that may hold line breaks — a GPT's
// prompt: a one-line box silently drops them, so the box would no longer show what the model reads.
export function sentenceInput(label, value, onInput, maxLength = 200, { key, lines } = {}) {
  const hint = el('span', { class: 'field-hint', role: 'status', hidden: true });
  const box = el(lines ? 'textarea' : 'input', { ...(lines ? { rows: lines } : { type: 'text' }), spellcheck: 'false',
    on: { input: (e) => {
      const typed = e.target.value;
      if (typed.length > maxLength) e.target.value = typed.slice(0, maxLength);
      noteUnder(node, typed.length > maxLength
        ? `The box holds ${maxLength} characters: ${lastLeftOut(typed.length - maxLength, 'character')}.` : '', 'cut');
      onInput(e.target.value);
    } } });
  box.value = value;
  const node = field(label, box);
  node.append(hint);
  keepNotes(node, hint, ['cut', 'tokens']);
  return key ? showsState(key, node) : node;
}

// One place where a control shows the state: a control marked with the state key it shows is set
// from the state after every change (page.js calls showState), so a button that changes what a box
// shows (Draw again → the seed, Append → the prompt, an example → the text) changes the box too, and
// the box, the URL and the model's input agree. A box that already shows the value is left alone
// (the caret stays where the learner types). node: the control, or a field holding one.
export function showsState(key, node) {
  const control = node.matches('input, select, textarea') ? node : node.querySelector('input, select, textarea');
  control.dataset.state = key;
  return node;
}
export function showState(root, state) {
  for (const control of root.querySelectorAll('[data-state]')) {
    const value = String(state[control.dataset.state]);
    if (control.value !== value) control.value = value;
  }
}

// Splits a Matrix into its rows (for tables) and slices columns/rows without computing anything.
export function rowOf(m, r) {
  return Array.from(m.data.slice(r * m.cols, (r + 1) * m.cols));
}

export function sliceRows(m, start, count) {
  return { rows: count, cols: m.cols, data: m.data.slice(start * m.cols, (start + count) * m.cols) };
}

// The lessons' seed box: a whole number in 0 … 999,999 (anything else is clamped or read as 0).
// A seed typed outside 0 … 999,999, or not a whole number, is corrected, and the box says to what (as
// a link's corrections are said), rather than changing under the learner without a word.
export function seedField(value, onChange) {
  const clamp = (raw) => Math.max(0, Math.min(999999, Math.trunc(Number(raw)) || 0));
  const note = el('span', { class: 'field-hint', role: 'status' });
  const node = field('Seed', el('input', { type: 'number', min: 0, max: 999999, value,
    on: { change: (e) => {
      const typed = e.target.value.trim();
      const seed = clamp(typed);
      note.textContent = String(seed) === typed ? ''
        : `A seed is a whole number from 0 to 999,999: using ${seed} instead of ${typed === '' ? 'an empty box' : `“${typed}”`}.`;
      onChange(seed);
    } } }));
  node.append(note);
  return showsState('seed', node);
}

export const MAX_TOKENS = 32;

// How a sentence lesson splits the learner's text: attnlab's word splitter, or the byte-level BPE of
// attnlab's trained GPT (its vocab.json and merges.txt, fetched the first time it is chosen).
export { TOKENS_SCHEMA } from './sentence-tokens.js';
export function tokensField(ctx) {
  return field('Tokens', select([['words', 'words (lab.tokenize)'], ['bpe', 'BPE (the trained GPT’s tokenizer)']],
    ctx.state.tokens, (tokens) => ctx.set({ tokens })), 'BPE tokens show · for a space and ↵ for a line break.');
}

// Tokens of the learner's sentence, at most maxTokens (sentence-tokens.js splits them); an empty sentence
// falls back to `fallback`, and with { field } (the sentenceInput) the lesson says either under the box.
// { mode: 'bpe', ctx } splits with the trained GPT's BPE; until its files have arrived the words stand
// in, `loading` is true, and the lesson is redrawn (ctx.set) when they arrive. A failed load is the
// lesson's error message.
export function tokensOf(lab, sentence, fallback, { mode = 'words', ctx, field: box, maxTokens = MAX_TOKENS } = {}) {
  let loading = false;
  if (mode === 'bpe' && !builtinBpe()) {
    loading = true;
    loadBuiltinBpe(lab).then(() => ctx?.set({}), (error) => ctx?.report(error));
  }
  const { tokens, truncated, empty, count } = sentenceTokens(lab, sentence, fallback, { mode, maxTokens });
  if (box) {
    noteUnder(box, empty ? `No words in the box: the lesson shows “${fallback}” instead.`
      : truncated ? `The lesson uses the first ${maxTokens} of these ${count} tokens.` : '');
  }
  return { tokens, truncated, empty, loading };
}

// A range slider that shows its value: { min, max, step, value, format(value) → text }, onChange(value)
// on every move. setSlider changes any of them in place.
export function slider(label, { min, max, step = 1, value, format = String }, onChange) {
  const parts = { format };
  parts.output = el('output', { class: 'slider-value' });
  parts.input = el('input', { type: 'range',
    on: { input: (e) => {
      showSliderValue(parts);
      onChange(Number(e.target.value));
    } } });
  const node = field(label, el('span', { class: 'slider' }, parts.input, parts.output));
  sliders.set(node, parts);
  return setSlider(node, { min, max, step, value });
}
const sliders = new WeakMap();  // a slider's field → its input, its output and its format

// A slider's range, value or format changed in place: the element stays, so the learner's keyboard
// focus stays on it (a slider rebuilt on every change dropped it). The range is set before the value,
// which the browser clamps to it.
export function setSlider(node, { min, max, step, value, format }) {
  const parts = sliders.get(node);
  if (format) parts.format = format;
  for (const [key, v] of [['min', min], ['max', max], ['step', step], ['value', value]]) {
    if (v !== undefined && parts.input[key] !== String(v)) parts.input[key] = String(v);
  }
  showSliderValue(parts);
  return node;
}
function showSliderValue({ input, output, format }) {
  const text = format(Number(input.value));
  if (output.textContent !== text) output.textContent = text;
  input.setAttribute('aria-valuetext', text);
}
