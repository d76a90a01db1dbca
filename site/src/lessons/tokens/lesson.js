// Trained model, lesson 1: tokens. The learner's text cut into pieces by GPT-2's rule, each piece's
// bytes merged by the learned BPE merges (replayed one at a time), the ids, and the embedding rows
// they look up.
import { count, el, field, formatNumber, select, setOptions } from '../../dom.js';
import { lessonModel, modelLine, tokenLabel } from '../../gpt-model.js';
import { lessonPage } from '../../page.js';
import modelSource from '../../../snippets/trained/gpt2_kjv.py?raw';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';
import { heatmap, panel, sentenceInput, setSlider, SIGNED, slider, tokenChips } from '../../views.js';

const EXAMPLES = [
  'In the beginning God created the heaven and the earth.',
  'The U.S.A. and the E.U. signed in 1611 — naïve café, 3.14, 🙂!',
  'Jerusalem, Jerusalem, thou that killest the prophets',
];
const MAX_ROWS = 24;  // embedding rows drawn

lessonPage({
  slug: 'tokens',
  intro: [
    'A GPT never sees letters or words: it sees token ids. GPT-2’s tokenizer first cuts the text into pieces ' +
      '(a word with its leading space, a number, a run of punctuation), writes each piece as its UTF-8 bytes — ' +
      'so any text at all can be read, emoji included — and then applies merges: pairs of tokens that were ' +
      'frequent in the training text become one token, in the order they were learned.',
    'Each id then picks one row of the embedding matrix wte: that row of numbers is what the first layer receives.',
  ],
  formula: String.raw`x_t = W_{te}[\,\text{id}_t\,] + W_{pe}[\,t\,]`,
  pytorch: { source: pytorchSource, model: modelSource, ...PROGRAM },
  call: 'const ids = tokenizer.encode(text);\nconst pieces = tokenizer.encodeWithSteps(text);  // every merge, in order\nconst wte = model.tensor(\'wte.weight\');',
  schema: {
    text: { type: 'text', maxLength: 300, default: EXAMPLES[0] },
    piece: { type: 'int', min: 0, max: 299, default: 1 },
    step: { type: 'int', min: 0, max: 99, default: 99 },
  },
  prepare: lessonModel,
  setup(ctx) {
    const { state, root, prepared } = ctx;
    const { model, tokenizer } = prepared;
    const wte = model.tensor('wte.weight');
    const d = model.config.dModel;
    const table = el('table', { class: 'data' });
    // The piece and merge controls stay the same elements while their options change (the learner's focus stays).
    const pieceSelect = select([], 0, (i) => ctx.set({ piece: Number(i), step: 99 }));
    const pieceChoice = el('div', { class: 'controls' }, field('Piece', pieceSelect));
    const mergeSlider = slider('Merges applied', { min: 0, max: 0, value: 0 }, (step) => ctx.set({ step }));
    const replayTokens = el('ul', { class: 'tokens', 'aria-label': 'The piece’s tokens at this step' });
    const replayLine = el('p', { class: 'explain' });
    const replay = el('div', { class: 'panel' }, mergeSlider, replayTokens, replayLine);
    const embedding = heatmap({ ...SIGNED, showValues: false, rowTitle: 'Token', colTitle: `Dimension (0 … ${d - 1})`,
      caption: 'The embedding rows the ids pick (wte)' });
    const summary = el('p', { class: 'explain', 'aria-live': 'polite' });
    // What this vocabulary is, for the model actually loaded (the built-in one, or the learner's own).
    const merges = tokenizer.vocabSize - 256 - (tokenizer.endOfText === null ? 0 : 1);
    const makeup = `${tokenizer.vocabSize.toLocaleString('en')} tokens (256 bytes, ${merges.toLocaleString('en')} merges` +
      `${tokenizer.endOfText === null ? '' : ' and <|endoftext|>'})`;
    const vocabulary = el('p', { text: prepared.yours
      ? `Your model’s tokenizer has ${makeup}: its merges were learned on whatever text it was trained on, so its ` +
        'common words are single tokens and rarer ones fall apart into pieces.'
      : `attnlab learned this model’s ${makeup} on the King James Bible, so “LORD” and “unto” are single tokens ` +
        'while a modern word falls apart into pieces.' });
    root.append(
      vocabulary,
      modelLine(prepared),
      el('div', { class: 'controls' }, sentenceInput('Text', state.text, (text) => ctx.set({ text, piece: 0, step: 99 }), 300, { key: 'text', lines: 2 }),
        field('Try', select([['', 'an example…'], ...EXAMPLES.map((e) => [e, e.length > 40 ? `${e.slice(0, 38)}…` : e])], '',
          (text) => text && ctx.set({ text, piece: 0, step: 99 })))),
      summary,
      el('h2', { text: 'Tokens and ids' }), el('div', { class: 'table-wrap' }, table),
      el('h2', { text: 'Replay the merges of one piece' }), pieceChoice, replay,
      el('h2', { text: 'What the ids look up' }), panel(null, embedding));

    return () => {
      const pieces = tokenizer.encodeWithSteps(state.text);
      const ids = pieces.flatMap((p) => Array.from(p.ids));
      const bytes = new TextEncoder().encode(state.text).length;
      summary.textContent = pieces.length === 0 ? 'The text box is empty: type some text (or pick an example) to see its tokens.'
        : `${count([...state.text].length, 'character')}, ${count(bytes, 'byte')} → ${count(pieces.length, 'piece')} → ` +
          `${count(ids.length, 'token')} (${formatNumber(bytes / Math.max(1, ids.length), 1)} bytes per token).`;

      table.replaceChildren(
        el('caption', { class: 'sr-only', text: 'Each token: its position, its text (· is a space, ↵ a line break) and its id' }),
        el('tr', {}, el('th', { scope: 'col', text: 'Position' }), el('th', { scope: 'col', text: 'Token' }), el('th', { scope: 'col', text: 'Id' })),
        ...ids.map((id, t) => el('tr', {}, el('td', { text: String(t) }), el('td', { class: 'token-cell', text: tokenLabel(tokenizer, id) }), el('td', { text: String(id) }))));

      const index = Math.min(state.piece, Math.max(0, pieces.length - 1));
      const piece = pieces[index];
      setOptions(pieceSelect, pieces.map((p, i) => [i, `${i}: “${p.text.replaceAll(' ', '·')}”`]), index);
      replay.hidden = !piece;
      if (piece) {
        const steps = piece.steps;
        const at = Math.min(state.step, steps.length);
        const tokensAt = at === 0 ? Array.from(piece.start) : Array.from(steps[at - 1].tokens);
        const merge = at > 0 ? steps[at - 1] : null;
        setSlider(mergeSlider, { max: steps.length, value: at, format: (v) => `${v} of ${steps.length}` });
        tokenChips(tokensAt.map((id) => tokenLabel(tokenizer, id)), replayTokens);
        replayLine.textContent = merge
          ? `Merge #${merge.rank} (rank ${merge.rank}: ${merge.rank} merges were learned before it): ` +
            `“${tokenLabel(tokenizer, merge.left)}” + “${tokenLabel(tokenizer, merge.right)}” → “${tokenLabel(tokenizer, merge.merged)}” (id ${merge.merged}).`
          : `The piece starts as its ${piece.start.length} bytes, one token each (ids 0–255 are the bytes).` +
            (steps.length === 0 ? ' No learned merge applies: it stays as bytes.' : '');
      }

      if (ids.length === 0) {  // nothing to look up: no figure, and the summary above says why
        Object.assign(embedding, { matrix: null, caption: 'The embedding rows the ids pick (wte): none yet' });
        return;
      }
      const shown = ids.slice(0, MAX_ROWS);
      const rows = new Float32Array(shown.length * d);
      shown.forEach((id, r) => rows.set(wte.data.subarray(id * d, (id + 1) * d), r * d));
      Object.assign(embedding, { matrix: { rows: shown.length, cols: d, data: rows }, rowLabels: shown.map((id) => tokenLabel(tokenizer, id)),
        colLabels: Array.from({ length: d }, (_, j) => String(j)),
        caption: `The embedding rows the ids pick (wte): ${shown.length} × ${d}${ids.length > MAX_ROWS ? ` (the first ${MAX_ROWS} tokens)` : ''}` });
    };
  },
});
