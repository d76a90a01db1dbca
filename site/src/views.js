// Small view helpers shared by the lessons: panels, heatmaps, token chips, sentence input.
import { el, field, select } from './dom.js';
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

// A text input that reports its value on every edit (learner text: only ever used as text).
// The box keeps its first maxLength characters and says so under itself when it cut some (a maxlength
// attribute would cut a long paste without a word). tokensOf({ field }) adds its own note there: what
// the lesson used instead of an empty sentence, or how many tokens it left out.
export function sentenceInput(label, value, onInput, maxLength = 200) {
  const hint = el('span', { class: 'field-hint', role: 'status', hidden: true });
  const notes = { cut: '', tokens: '' };
  const input = el('input', { type: 'text', value, spellcheck: 'false',
    on: { input: (e) => {
      const typed = e.target.value;
      if (typed.length > maxLength) e.target.value = typed.slice(0, maxLength);
      notes.cut = typed.length > maxLength
        ? `The box holds ${maxLength} characters: the last ${typed.length - maxLength} were left out.` : '';
      showNotes(hint, notes);
      onInput(e.target.value);
    } } });
  const node = field(label, input);
  node.append(hint);
  sentenceNotes.set(node, { hint, notes });
  return node;
}
const sentenceNotes = new WeakMap();  // a sentenceInput's node → its hint and the notes it shows
// A lesson's own note under a sentenceInput (what it did with the text), beside the box's own.
export function noteUnder(box, text) {
  const note = sentenceNotes.get(box);
  note.notes.tokens = text;
  showNotes(note.hint, note.notes);
}
function showNotes(hint, notes) {
  hint.textContent = [notes.cut, notes.tokens].filter(Boolean).join(' ');
  hint.hidden = hint.textContent === '';
}

// Splits a Matrix into its rows (for tables) and slices columns/rows without computing anything.
export function rowOf(m, r) {
  return Array.from(m.data.slice(r * m.cols, (r + 1) * m.cols));
}

export function sliceRows(m, start, count) {
  return { rows: count, cols: m.cols, data: m.data.slice(start * m.cols, (start + count) * m.cols) };
}

// The lessons' seed box: a whole number in 0 … 999,999 (anything else is clamped or read as 0).
export function seedField(value, onChange) {
  const clamp = (raw) => Math.max(0, Math.min(999999, Math.trunc(Number(raw)) || 0));
  return field('Seed', el('input', { type: 'number', min: 0, max: 999999, value,
    on: { change: (e) => onChange(clamp(e.target.value)) } }));
}

export const MAX_TOKENS = 32;

// How a sentence lesson splits the learner's text: attnlab's word splitter, or the byte-level BPE of
// attnlab's trained GPT (its vocab.json and merges.txt, fetched the first time it is chosen).
export { TOKENS_SCHEMA } from './sentence-tokens.js';
export function tokensField(ctx) {
  return field('Tokens', select([['words', 'words (lab.tokenize)'], ['bpe', 'BPE (the trained GPT’s tokenizer)']],
    ctx.state.tokens, (tokens) => ctx.set({ tokens })));
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
  if (sentenceNotes.has(box)) {
    noteUnder(box, empty ? `No words in the box: the lesson shows “${fallback}” instead.`
      : truncated ? `The lesson uses the first ${maxTokens} of these ${count} tokens.` : '');
  }
  return { tokens, truncated, empty, loading };
}

// A range slider that shows its value: { min, max, step, value, format(value) → text }, onChange(value)
// on every move.
export function slider(label, { min, max, step = 1, value, format = String }, onChange) {
  const output = el('output', { class: 'slider-value', text: format(value) });
  const input = el('input', { type: 'range', min, max, step, value, 'aria-valuetext': format(value),
    on: { input: (e) => {
      const v = Number(e.target.value);
      output.textContent = format(v);
      e.target.setAttribute('aria-valuetext', format(v));
      onChange(v);
    } } });
  return field(label, el('span', { class: 'slider' }, input, output));
}
