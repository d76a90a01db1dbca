// Trained model, lesson 5: what heads do. Four scores per head, measured in the page by the package
// (previous-token and first-token on the prompt; induction and duplicate-token on random tokens
// repeated twice), then the induction demo: the stripe, and the loss falling on the second copy.
import { el, formatNumber } from '../../dom.js';
import { headInModel, inductionRun, layerHeadPickers, nats, repeatLength, repeatRange, scoreMap } from '../../gpt-heads.js';
import { rankHeads, tieWords } from '../../head-ties.js';
import { lessonModel, modelLine, promptIds, tokenLabel } from '../../gpt-model.js';
import { chartWidth, lineChart } from '../../line-chart.js';
import { lessonPage } from '../../page.js';
import modelSource from '../../../snippets/trained/gpt2_kjv.py?raw';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';
import { evenSpreadInduction } from './parts.js';
import { heatmap, panel, seedField, sentenceInput, slider } from '../../views.js';

const DEFAULT_PROMPT = 'And the LORD spake unto Moses, saying, Speak unto the children of Israel, and say unto them, ' +
  'When a man shall vow a vow unto the LORD, he shall not break his word.';
const SCORES = [
  ['previousToken', 'Previous token', 'weight from each position to the one just before it, on the prompt'],
  ['firstToken', 'First token (sink)', 'weight on position 0, on the prompt'],
  ['induction', 'Induction', 'on the repeated random tokens: weight from a token in the second copy to the token that followed it in the first'],
  ['duplicateToken', 'Duplicate token', 'on the repeated random tokens: weight from a token in the second copy to its earlier occurrence'],
];

lessonPage({
  slug: 'head-jobs',
  intro: [
    'Some heads have jobs you can measure. A previous-token head attends from every position to the one ' +
      'before it. An induction head completes patterns: having seen “… A B … A”, it attends from the second A ' +
      'to the B that followed the first A, so the model can predict B again. Together they are the simplest ' +
      'circuit for copying from context (Olsson et al., 2022, “In-context learning and induction heads”).',
    'Each score is a mean attention weight in [0, 1]. Induction is measured on random tokens repeated twice: ' +
      'nothing in the first copy is predictable, but once the second copy starts, a model with an induction head ' +
      'can predict every next token by looking back — and its loss drops.',
    'This model’s induction heads were helped along. King James text rarely repeats a passage within the 128 tokens ' +
      'the model sees, so some of its training windows were one passage read over and over (half of them random tokens, ' +
      'which only an exact copy predicts): 30% of the windows for the first 6,000 of its 20,000 steps, falling to 8% by ' +
      'step 15,000. Without them an earlier run had learned no induction head by step 4,000.',
  ],
  formula: String.raw`\text{induction}(\ell,h) = \frac{1}{T}\sum_{i=T}^{2T-1} A^{(\ell,h)}_{i,\;i-T+1}`,
  pytorch: { source: pytorchSource, model: modelSource, ...PROGRAM },
  call: 'const scores = model.headScores(promptIds, { repeatLength: T, samples: 4, seed });\n' +
    'const ids = lab.repeatedRandomTokens(T, { low: 256, high: V - 1, seed });\nconst losses = model.tokenLosses(ids);',
  schema: {
    prompt: { type: 'text', maxLength: 300, default: DEFAULT_PROMPT },
    length: { type: 'int', min: 5, max: 64, default: 30 },
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
    layer: { type: 'int', min: -1, max: 47, default: -1 },  // −1: the head with the highest induction score
    head: { type: 'int', min: -1, max: 63, default: -1 },
  },
  prepare: lessonModel,
  setup(ctx) {
    const { lab, state, root, prepared } = ctx;
    const { model, tokenizer } = prepared;
    const maps = Object.fromEntries(SCORES.map(([key, title, what]) => [key, scoreMap(`${title}: ${what}`, model.config)]));
    const findings = el('p', { class: 'explain', 'aria-live': 'polite' });
    const pickers = layerHeadPickers(model.config, (l, h) => ctx.set({ layer: l, head: h }));
    const headChoice = el('div', { class: 'controls' }, ...pickers.nodes);
    const stripe = heatmap({ showValues: false, rowTitle: 'Query position', colTitle: 'Key position' });
    const lossReadout = el('p', { class: 'explain', 'aria-live': 'polite' });
    const chart = el('div', { class: 'panel' });
    const promptBox = sentenceInput('Prompt (for previous-token and first-token)', state.prompt, (prompt) => ctx.set({ prompt }), 300,
      { key: 'prompt', lines: 3 });
    root.append(modelLine(prepared),
      el('div', { class: 'controls' }, promptBox,
        slider('Repeated length T', { min: 5, max: 64, value: state.length, format: (v) => `${repeatLength(model, v)} tokens` }, (length) => ctx.set({ length })),
        seedField(state.seed, (seed) => ctx.set({ seed }))),
      findings,
      el('div', { class: 'grid' }, ...SCORES.map(([key]) => panel(null, maps[key]))),
      el('h2', { text: 'The induction demo' }), headChoice, panel(null, stripe), lossReadout, chart);

    return () => {
      const { ids } = promptIds(tokenizer, model, state.prompt, DEFAULT_PROMPT, { box: promptBox });
      const T = repeatLength(model, state.length);
      const scores = model.headScores(ids, { repeatLength: T, samples: 4, seed: state.seed, tokenLow: repeatRange(model).low,
        tokenHigh: repeatRange(model).high });
      for (const [key] of SCORES) maps[key].matrix = scores[key];
      // Heads within 0.01 of the highest are called a tie (head-ties.js): every score is in the maps above.
      const inductionRanks = rankHeads(scores.induction.data, model.config), previousRanks = rankHeads(scores.previousToken.data, model.config);
      const [induction] = inductionRanks.ranked;
      findings.textContent = `${tieWords(inductionRanks)} ${tieWords(previousRanks, { score: 'previous-token score' })} ` +
        `A head that spread each row’s weight evenly over the tokens it may see would score ${formatNumber(evenSpreadInduction(T), 3)} ` +
        `on induction (the mean of 1/(i + 1) over the second copy’s rows, about ln 2 / ${T}).`;

      // −1 (the default): the first of the highest induction scores; a head the model lacks: the nearest, said above.
      const { layer, head } = state.layer < 0 || state.head < 0 ? induction : headInModel(ctx, model.config, state.layer, state.head);
      pickers.show(layer, head);

      const run = inductionRun(lab, model, { length: T, seed: state.seed });
      const { attention } = model.forward(run.ids, { attention: true, logits: 'none' });
      const labels = Array.from(run.ids, (id, t) => `${t}:${tokenLabel(tokenizer, id)}`);
      Object.assign(stripe, { matrix: attention[layer][head], rowLabels: labels, colLabels: labels,
        caption: `Layer ${layer}, head ${head} on ${T} random tokens repeated twice: an induction head draws a stripe ` +
          `from each token of the second copy to the one after its first occurrence (T − 1 = ${T - 1} places left of the diagonal)` });
      lossReadout.textContent = `Mean loss predicting the first copy: ${nats(run.first)} (a guess among ${repeatRange(model).high - repeatRange(model).low} ` +
        `tokens would be ${nats(Math.log(repeatRange(model).high - repeatRange(model).low))}); on the second copy: ${nats(run.second)}. ` +
        (run.first - run.second > 0.5
          ? `The second copy costs ${formatNumber(run.first - run.second, 2)} nats less per token: the model copies from context.`
          : 'The second copy costs about as much as the first: this model shows no copying from context.');
      chart.replaceChildren(lineChart([{ name: 'loss per token', points: Array.from(run.losses, (loss, t) => [t + 1, loss]) }],
        { xLabel: `token position (2nd copy starts at ${T})`, yLabel: 'loss (nats)', width: chartWidth(chart),
          title: 'Loss per token on the repeated sequence' }));
    };
  },
});
