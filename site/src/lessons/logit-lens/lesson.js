// Part three, lesson 1: the logit lens. Each point of the residual stream (every block's resid_pre and
// resid_mid, and the final resid_post) read as if it were the last: ln_final with that point's own
// statistics, then the unembedding (model.logitLens). A grid of the token each point favours at each
// position; for the chosen position, a target token's probability and rank climbing through the points.
import { probabilityBars } from '../../bars.js';
import { el, field, formatPercent, isolated, select, setOptions } from '../../dom.js';
import { lessonModelAnyFamily, modelLine, promptIds, tokenLabel } from '../../gpt-model.js';
import { checkPointGuess } from './parts.js';
import { pointLabel } from '../../lens-points.js';
import { oneToken } from '../../one-token.js';
import { lessonPage } from '../../page.js';
import { answerAfterCheck } from '../../try-this.js';
import modelSource from '../../../snippets/trained/gpt2_kjv.py?raw';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';
import { sentenceInput } from '../../views.js';

const DEFAULT_PROMPT = 'Thou shalt love thy neighbour as';

// The token a box's text is (empty: none, the model's own top token), refused in the learner's words unless it is one.
const targetToken = (tokenizer, text) => (text === '' ? null : oneToken(tokenizer, text, 'target',
  'The lens reads one token’s probability: type a single one — a common word with its leading space usually is — ' +
  'or empty the box to follow the model’s own prediction.'));

lessonPage({
  slug: 'logit-lens',
  intro: [
    'A GPT reads its prediction off the residual stream after the last block: ln_final normalises it, and the unembedding ' +
      'turns it into a score per token. The logit lens (nostalgebraist, 2020) asks what that read-out would say earlier: ' +
      'take the stream after any block, or halfway through one, apply the same ln_final and unembedding, and see which ' +
      'token it already favours.',
    'The grid below does that for every point and every position of your prompt; choose a position to follow one token’s ' +
      'probability and rank up through the points. The last row is the model’s own prediction, exactly.',
    'What the lens assumes: that earlier points already speak the final layer’s language, so the last normalisation and ' +
      'unembedding can read them. They need not — early in the model the stream mostly holds the current token and its ' +
      'position, and the read-out of the first rows is often a confident echo of the input or noise. Each point is ' +
      'normalised with its own mean and variance, not the final stream’s. A token that appears late in the lens may have ' +
      'been computed earlier in a form this read-out cannot see.',
  ],
  formula: String.raw`\text{lens}_\ell = \operatorname{softmax}\big(\operatorname{LN}_f(x_\ell)\,W_U\big)`,
  pytorch: { source: pytorchSource, model: modelSource, ...PROGRAM },
  call: (state) => `const lens = model.logitLens(ids, { k: 1 });                 // every point × every position\n` +
    `const { rows } = model.logitLens(ids, { position${state.position < 0 ? ': ids.length - 1' : ''}, target });  // one position, one token`,
  schema: {
    prompt: { type: 'text', maxLength: 300, default: DEFAULT_PROMPT },
    position: { type: 'int', min: -1, max: 1023, default: -1 },  // −1: the last token
    target: { type: 'text', maxLength: 40, default: '' },       // empty: the model's own top token there
  },
  prepare: lessonModelAnyFamily,  // a kept Llama-family model too (its lens: model.norm, then the unembedding)
  setup(ctx) {
    const { state, root, prepared } = ctx;
    const { model, tokenizer } = prepared;
    const promptBox = sentenceInput('Prompt', state.prompt, (prompt) => ctx.set({ prompt }), 300, { key: 'prompt', lines: 2 });
    const targetBox = sentenceInput('Token to follow (empty: the model’s prediction)', state.target, (target) => ctx.set({ target }), 40, { key: 'target' });
    let positionCount = 0;
    const choose = (p) => ctx.set({ position: p === positionCount - 1 ? -1 : p });
    const positionSelect = select([], 0, (p) => choose(Number(p)));
    // The package's <attn-logit-lens>: a header or cell pressed chooses its position (position-change).
    const grid = el('attn-logit-lens', { caption: 'The token each point favours (colour: its probability); choose a position',
      on: { 'position-change': (event) => choose(event.detail.position) } });
    const climb = probabilityBars('The followed token at each point');
    const readout = el('p', { class: 'explain', 'aria-live': 'polite' });

    // Try this: predict the first point at which the followed token leads, then check.
    let rowsNow = [];
    const guess = select([], -1, () => {});
    const verdict = el('p', { class: 'explain', role: 'status' });
    // The chart and readout below give the answer: hidden until the learner has checked one.
    const answer = answerAfterCheck('the followed token at each point', readout, el('div', { class: 'panel' }, climb.node));
    const check = el('button', { type: 'button', text: 'Check', on: { click: () => {
      verdict.textContent = checkPointGuess(rowsNow, Number(guess.value)).message;
      answer.reveal();
    } } });
    const exercise = el('section', { class: 'exercise', 'aria-label': 'Try this: where does the answer first lead?' },
      el('h2', { text: 'Try this: where does the answer first lead?' }),
      el('p', { text: 'Before you read the chart below, predict: at which point does the followed token first become the ' +
        'favourite at the chosen position? Early points mostly hold the current token; the answer has to be written in by ' +
        'some block. Pick a point and check.' }),
      el('div', { class: 'controls' }, field('First leads at', guess), check), verdict);
    root.append(modelLine(prepared),
      el('div', { class: 'controls' }, promptBox, field('Position', positionSelect), targetBox),
      grid, exercise,
      el('h2', { text: 'One token, point by point' }), ...answer.nodes);

    let whole = { key: null, lens: null };
    return () => {
      const { ids } = promptIds(tokenizer, model, state.prompt, DEFAULT_PROMPT, { box: promptBox });
      positionCount = ids.length;
      const position = state.position < 0 ? ids.length - 1 : Math.min(state.position, ids.length - 1);
      const labels = Array.from(ids, (id) => tokenLabel(tokenizer, id));
      setOptions(positionSelect, labels.map((label, j) => [j, `${j}: ${label}${j === ids.length - 1 ? ' (the last)' : ''}`]), position);

      // Every point at every position: once per prompt (a position or a target changed reads one column below).
      const key = Array.from(ids).join(',');
      if (whole.key !== key) whole = { key, lens: model.logitLens(ids, { k: 1 }) };
      const { lens } = whole;
      Object.assign(grid, { lens, tokens: labels, position, tokenText: (id) => tokenLabel(tokenizer, id) });

      const own = lens.cells.at(-1)[position].top[0].id;  // the model's own prediction at the position
      const target = targetToken(tokenizer, state.target) ?? own;
      const { rows } = model.logitLens(ids, { position, k: 1, target });
      const choices = [...rows.map((row, i) => [i, pointLabel(row.point)]), [-1, 'never']];
      if (rowsNow.length !== rows.length) setOptions(guess, choices, Number(guess.value) || 0);
      if (rowsNow !== rows) verdict.textContent = '';
      rowsNow = rows;
      const name = `“${isolated(tokenLabel(tokenizer, target))}”`;
      climb.node.querySelector('figcaption').textContent = `${name} after position ${position} (“${labels[position]}”), read at each point`;
      climb.update(rows.map((row) => ({ label: `${pointLabel(row.point)} · rank ${row.target.rank}`, value: row.target.probability })));
      const first = rows.findIndex((row) => row.target.rank === 1);
      const last = rows.at(-1).target;
      readout.textContent = `${name} after “${isolated(labels[position])}”: ` + (first < 0
        ? `never the favourite at any point; at the end it is ranked ${last.rank} with ${formatPercent(last.probability)}.`
        : `first the favourite at ${pointLabel(rows[first].point)} (point ${first + 1} of ${rows.length}); at the end ` +
          `${last.rank === 1 ? 'still first' : `ranked ${last.rank}`}, with ${formatPercent(last.probability)}.`);
      readout.dataset.first = String(first);
    };
  },
});
