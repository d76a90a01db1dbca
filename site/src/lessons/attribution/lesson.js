// Part three, lesson 2: who wrote this logit. A position's residual stream is a sum of parts (the
// token and position embeddings, every head's output, each layer's attention bias and MLP); with ln_final's
// scale frozen at its value in this run, the logit difference between two tokens is the sum of each part's
// direct contribution (model.directLogitAttribution). A head's bar shows its attention from that position.
import { AttnLabError } from 'attnlab';

import { el, field, formatDifference, formatNumber, isolated, select, setOptions } from '../../dom.js';
import { probabilityBars } from '../../bars.js';
import { checkHeadGuess, orderTerms, signed } from './parts.js';
import { CHOSEN_HEAD, headInModel, layerHeadPickers } from '../../gpt-heads.js';
import { lessonModel, modelLine, promptIds, tokenLabel } from '../../gpt-model.js';
import { oneToken } from '../../one-token.js';
import { lessonPage } from '../../page.js';
import { answerAfterCheck } from '../../try-this.js';
import modelSource from '../../../snippets/trained/gpt2_kjv.py?raw';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';
import { sentenceInput } from '../../views.js';

const DEFAULT_PROMPT = 'Thou shalt love thy neighbour as';

// Why a target or baseline must be one token, said when it is not.
const ONE_LOGIT = 'A logit belongs to one token: type a single one — a common word with its leading space usually is.';
const oneLogitToken = (tokenizer, text, which) => oneToken(tokenizer, text, which, ONE_LOGIT);

// On a phone the attention panel sits below all the bars: a tap on a head's bar brings it into view when
// none of it is (beside the bars, on a wide screen, it already is).
function reveal(node) {
  const { top, bottom } = node.getBoundingClientRect();
  if (bottom > 0 && top < window.innerHeight) return;
  const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  node.scrollIntoView({ block: 'nearest', behavior: still ? 'auto' : 'smooth' });
}

lessonPage({
  slug: 'attribution',
  intro: [
    'Everything a GPT predicts after a token is read off one vector, the residual stream at that token’s position, and that vector ' +
      'is a sum: the token’s embedding, its position’s embedding, and what every head and every MLP added on top. ' +
      'The logit of a token is that vector, normalised by ln_final (scale σ, weight γ, bias β), dotted with the token’s row of the ' +
      'unembedding; u below is the target’s row minus the baseline’s, and p runs over the parts.',
    'Compare two tokens, the one the model predicts and an alternative, and ask of each part: how much of the gap ' +
      'between their logits did it write? That is direct logit attribution. ln_final divides the whole stream by one ' +
      'number, its scale; freeze that number at its value in this run and the layer norm becomes linear, so the parts’ ' +
      'contributions add up exactly to the model’s own logit difference. Both are shown below, live.',
    'What it does not see: a head whose output is read by later heads (which then write the answer) gets no credit ' +
      'here, only for what it writes into the final stream itself. Those indirect effects are the patching lesson’s job. ' +
      'Choose a head’s bar to see where it looks from the chosen position.',
  ],
  formula: String.raw`\Delta\text{logit} = \sum_{p}\frac{p-\bar p}{\sigma}\,\gamma\cdot u + \beta\cdot u`,
  pytorch: { source: pytorchSource, model: modelSource, ...PROGRAM },
  call: (state) => `const { terms, sum, logit } = model.directLogitAttribution(ids, { target, baseline${state.position < 0 ? '' : ', position'} });`,
  schema: {
    prompt: { type: 'text', maxLength: 300, default: DEFAULT_PROMPT },
    target: { type: 'text', maxLength: 40, default: ' thyself' },
    baseline: { type: 'text', maxLength: 40, default: ' himself' },
    position: { type: 'int', min: -1, max: 1023, default: -1 },  // −1: the last token
    order: { type: 'enum', values: ['sorted', 'model'], default: 'sorted' },
    ...CHOSEN_HEAD,  // −1: the head that adds most
  },
  prepare: lessonModel,
  setup(ctx) {
    const { state, root, prepared } = ctx;
    const { model, tokenizer } = prepared;
    const promptBox = sentenceInput('Prompt', state.prompt, (prompt) => ctx.set({ prompt }), 300, { key: 'prompt', lines: 2 });
    const targetBox = sentenceInput('Target token', state.target, (target) => ctx.set({ target }), 40, { key: 'target' });
    const baselineBox = sentenceInput('Against (baseline token)', state.baseline, (baseline) => ctx.set({ baseline }), 40, { key: 'baseline' });
    const predicted = el('p', { class: 'explain', 'aria-live': 'polite' });
    // The position whose next token is explained: the last by default (−1 in the URL), any earlier one on request.
    const positionSelect = select([], 0, (p) => ctx.set({ position: Number(p) === positionCount - 1 ? -1 : Number(p) }));
    let positionCount = 0;
    const usePredicted = el('button', { type: 'button', text: 'Use the predicted token as the target' });
    const sums = el('p', { class: 'readout dla-sums', 'aria-live': 'polite' });
    // The package's <attn-attribution>: a head's row is a button; pressing it shows that head's attention.
    let headsByLabel = new Map();
    const bars = el('attn-attribution', {
      caption: 'Each part’s direct contribution to logit[target] − logit[baseline] (choose a head to see its attention)',
      on: { 'item-select': (event) => {
        const x = headsByLabel.get(event.detail.key);
        ctx.set({ layer: x.layer, head: x.head });
        if (!event.detail.keyboard) reveal(attentionPanel);  // a tap or a click; Enter or Space leaves the focus where it is
      } } });
    const order = select([['sorted', 'largest first'], ['model', 'in model order']], state.order, (o) => ctx.set({ order: o }));
    const attention = probabilityBars('Attention from the chosen position');
    const attentionNote = el('p', { class: 'explain' });
    const attentionPanel = el('div', { class: 'panel' }, attention.node, attentionNote);

    const guessPickers = layerHeadPickers(model.config, () => {});
    const verdict = el('p', { class: 'explain', role: 'status' });
    let current = null;  // the attribution drawn last, for the exercise's check
    const check = el('button', { type: 'button', text: 'Check', on: { click: () => {
      if (!current) return;
      const [l, h] = guessPickers.nodes.map((n) => Number(n.querySelector('select').value));
      verdict.textContent = checkHeadGuess(current.terms, l, h).message;
      answer.reveal();
    } } });
    const exercise = el('section', { class: 'exercise', 'aria-label': 'Try this: which head matters most?' },
      el('h2', { text: 'Try this: which head matters most?' }),
      el('p', { text: 'Before you look at the bars, predict: which head writes most of the gap between the target and the ' +
        'baseline? Every head writes into the same stream, so a head in any layer can be the one. Pick one and check.' }),
      el('div', { class: 'controls' }, ...guessPickers.nodes, check), verdict);

    // The sums and the bars give the answer: hidden until the learner has checked one.
    const answer = answerAfterCheck('who wrote it, head by head', sums, el('div', { class: 'controls' }, field('Order', order)),
      el('div', { class: 'grid' }, el('div', { class: 'panel' }, bars), attentionPanel));
    root.append(modelLine(prepared),
      el('div', { class: 'controls' }, promptBox, targetBox, baselineBox, field('Predicting the token after', positionSelect)),
      el('div', { class: 'controls' }, usePredicted), predicted, exercise,
      el('h2', { text: 'Who wrote the difference' }), ...answer.nodes);

    let top = null;  // the predicted token's text, for the button
    usePredicted.addEventListener('click', () => top !== null && ctx.set({ target: top }));

    return () => {
      const { ids } = promptIds(tokenizer, model, state.prompt, DEFAULT_PROMPT, { box: promptBox });
      const { logits: all, attention: weights } = model.forward(ids, { attention: true });
      positionCount = ids.length;
      const position = state.position < 0 ? ids.length - 1 : Math.min(state.position, ids.length - 1);
      setOptions(positionSelect, Array.from(ids, (id, j) => [j, `${j}: ${tokenLabel(tokenizer, id)}${j === ids.length - 1 ? ' (the last)' : ''}`]), position);
      const logits = { data: all.data.subarray(position * all.cols, (position + 1) * all.cols) };
      let best = 0;
      for (let i = 1; i < logits.data.length; i++) if (logits.data[i] > logits.data[best]) best = i;
      top = tokenizer.decode([best]);
      predicted.textContent = `After “${isolated(tokenLabel(tokenizer, ids[position]))}” (position ${position}) the model’s most likely next token is “${isolated(tokenLabel(tokenizer, best))}”.`;
      usePredicted.disabled = top === state.target;

      const target = oneLogitToken(tokenizer, state.target, 'target');
      const baseline = oneLogitToken(tokenizer, state.baseline, 'baseline');
      if (target === baseline) throw new AttnLabError('The target and the baseline are the same token: their difference is 0 whoever writes it. Choose two different tokens.');
      const result = model.directLogitAttribution(ids, { target, baseline, position });
      current = result;
      const direct = logits.data[target] - logits.data[baseline];
      const [t, b] = [target, baseline].map((id) => `“${isolated(tokenLabel(tokenizer, id))}”`);
      sums.textContent = `Sum of the ${result.terms.length} parts: ${formatNumber(result.sum, 4)}. ` +
        `The model’s own logit[${t}] − logit[${b}]: ${formatNumber(direct, 4)} (they differ by ${formatDifference(Math.abs(result.sum - direct))}).`;
      sums.dataset.sum = String(result.sum);
      sums.dataset.logit = String(direct);

      const heads = result.terms.filter((x) => x.part === 'head');
      const strongest = heads.reduce((a, x) => (x.value > a.value ? x : a));
      const { layer, head } = state.layer < 0 || state.head < 0 ? strongest : headInModel(ctx, model.config, state.layer, state.head);
      headsByLabel = new Map(heads.map((x) => [x.label, x]));
      Object.assign(bars, {
        items: orderTerms(result.terms, state.order).map((x) => ({
          key: x.label, label: x.label, value: x.value, text: signed(x.value), selectable: x.part === 'head' })),
        chosen: `L${layer}H${head}`,
      });

      const row = weights[layer][head];
      // the row of the chosen position: the tokens after it are masked (weight 0), so they are left out
      attention.update(Array.from(ids.slice(0, position + 1), (id, j) => ({ label: `${j}: ${tokenLabel(tokenizer, id)}`, value: row.data[position * row.cols + j] })));
      const chosen = heads.find((x) => x.layer === layer && x.head === head);
      attention.node.querySelector('figcaption').textContent =
        `L${layer}H${head}: attention from position ${position} (“${tokenLabel(tokenizer, ids[position])}”) to each token up to it`;
      attentionNote.textContent = `L${layer}H${head} writes ${signed(chosen.value)} of the difference directly. ` +
        'What it reads is a weighted mean of the values at these positions, the weights above.';
    };
  },
});
