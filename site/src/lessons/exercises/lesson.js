// Lesson 10: the tutorials' "Try this", as predict-then-reveal exercises checked against what the
// core computes.
import { el, field, formatNumber, select } from '../../dom.js';
import { exerciseSet, MASKS, QUERY_ROW, SCORE_AT, SENTENCE, SHAPE } from './parts.js';
import { lessonPage } from '../../page.js';
import { heatmap, panel, SIGNED } from '../../views.js';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';

// One exercise: a question, the learner's answer control, and a check that reveals the truth.
function exercise(title, question, control, check) {
  const feedback = el('p', { class: 'feedback', role: 'status' });
  const reveal = el('div', { hidden: true });
  const button = el('button', { type: 'button', text: 'Check', on: { click: () => {
    const { correct, message, shown } = check();
    feedback.className = `feedback ${correct ? 'correct' : 'wrong'}`;
    feedback.textContent = `${correct ? 'Correct. ' : 'Not quite. '}${message}`;
    reveal.replaceChildren(...(shown ?? []));
    reveal.hidden = !shown;
  } } });
  return el('section', { class: 'exercise', 'aria-label': title }, el('h2', { text: title }), el('p', { text: question }),
    el('div', { class: 'controls' }, control, button), feedback, reveal);
}

lessonPage({
  slug: 'exercises',
  intro: ['Predict first, then check: every answer is checked against the numbers attnlab computes.'],
  formula: null,
  pytorch: { source: pytorchSource, ...PROGRAM },
  call: 'const { weights, scores } = lab.scaledDotProductAttention(q, k, v, { causal: true });',
  schema: PROGRAM.schema,
  setup(ctx) {
    const { lab, state, root } = ctx;
    // New numbers: the next seed's embeddings, so the same questions have other answers. The button stays
    // (with the learner's focus on it) while the exercises below are made again.
    const seedNote = el('span', { class: 'field-hint' });
    const exercises = el('div');
    root.replaceChildren(el('div', { class: 'controls' },
      el('button', { type: 'button', text: 'New numbers', on: { click: () => ctx.set({ seed: (state.seed + 1) % 1000000 }) } }),
      seedNote), exercises);
    return () => {
      const { tokens, x, weights, scores, check } = exerciseSet(lab, state.seed);
      const row = QUERY_ROW, [si, sj] = SCORE_AT;
      const tokenChoice = select(tokens.map((t, j) => [j, `${j}: ${t}`]), 0, () => {});
      const scoreInput = el('input', { type: 'number', step: '0.01', 'aria-label': `score[${si}][${sj}]` });
      const maskChoice = select(MASKS, 'none', () => {});
      const shapeRows = el('input', { type: 'number', min: 1, max: 20, 'aria-label': 'output rows' });
      const shapeCols = el('input', { type: 'number', min: 1, max: 20, 'aria-label': 'output columns' });
      const sumInput = el('input', { type: 'number', step: '0.01', 'aria-label': 'sum of a row of weights' });
      const map = (m, props) => heatmap({ rowLabels: tokens, colLabels: tokens, matrix: m, ...props });

      seedNote.textContent = `Numbers from seed ${state.seed} (the link keeps them).`;
      exercises.replaceChildren(
        exercise('1. Which token gets the most weight?', `X is the embedding of “${SENTENCE}”, and Q = K = V = X. ` +
          `In row ${row} (the query “${tokens[row]}”), which key gets the most weight?`, field('Your answer', tokenChoice), () => {
          const { correct, best, weight } = check.key(Number(tokenChoice.value));
          return { correct, message: `Row ${row} puts ${formatNumber(weight)} on “${tokens[best]}”.`,
            shown: [panel('The weights', map(weights, { highlight: { rows: [row] } }))] };
        }),
        exercise(`2. What is score[${si}][${sj}]?`, `The raw score is q_${si} · k_${sj}, before scaling: here Q = K = X, so it is ` +
          `row ${si} of X dotted with row ${sj} of X (shown below, exactly: X has two decimals). Type it to two decimals.`,
          el('span', {}, field(`score[${si}][${sj}]`, scoreInput),
            panel('X (= Q = K)', heatmap({ rowLabels: tokens, matrix: x, ...SIGNED, showValues: true, decimals: 2,
              rowTitle: 'Token', colTitle: 'Dimension' }))), () => {
            const { correct, truth } = check.score(scoreInput.value);
            return { correct, message: `score[${si}][${sj}] = ${formatNumber(truth, 4)}.`,
              shown: [panel('Raw scores QKᵀ', map(scores, SIGNED))] };
          }),
        exercise('3. Make the upper triangle zero', 'Which mask makes every weight above the diagonal exactly 0.0?',
          field('Mask', maskChoice), () => {
            const { correct, above, weights: masked } = check.mask(maskChoice.value);
            return { correct, message: correct ? 'The causal mask blocks every future key.'
              : `${above} weights above the diagonal are not zero with this mask.`, shown: [panel('Weights with your mask', map(masked))] };
          }),
        exercise('4. The shape of the output', `Q is ${SHAPE.q.join('×')}, K is ${SHAPE.k.join('×')} and V is ${SHAPE.v.join('×')}. What shape is the output?`,
          el('span', {}, field('rows', shapeRows), field('columns', shapeCols)), () => {
            const { correct, rows, cols } = check.shape(shapeRows.value, shapeCols.value);
            return { correct, message: `The output is ${rows}×${cols}: one row per query, as wide as V.` };
          }),
        exercise('5. Rows of the weights', 'What does every row of the weights add up to?', field('Sum', sumInput), () => {
          const { correct, sums } = check.rowSum(sumInput.value);
          return { correct, message: `The row sums are ${sums.map((s) => formatNumber(s, 4)).join(', ')} — a softmax makes each row a probability distribution.` };
        }),
      );
    };
  },
});
