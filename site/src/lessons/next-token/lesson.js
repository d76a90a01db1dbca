// Trained model, lesson 2: the next token. The model's distribution after the prompt, then the same
// logits reshaped by a repetition penalty, temperature, top-k and top-p, and one seeded draw from what
// is left.
import { el, field, formatNumber, formatPercent } from '../../dom.js';
import { probabilityBars, topIds } from '../../bars.js';
import { lessonModelAnyFamily, modelLine, promptIds, tokenLabel } from '../../gpt-model.js';
import { lessonPage } from '../../page.js';
import modelSource from '../../../snippets/trained/gpt2_kjv.py?raw';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';
import { seedField, sentenceInput, slider } from '../../views.js';

const SHOWN = 10;
const PROMPT_LENGTH = 300;  // characters the prompt box holds (and the link keeps)
const FALLBACK = 'In the beginning';
const penalty = (state) => Number((state.penalty / 100).toFixed(2));

lessonPage({
  slug: 'next-token',
  intro: [
    'A GPT reads the prompt and, at its last position, scores every token of its vocabulary: the logits. ' +
      'Softmax turns them into probabilities for the next token. Generating text is drawing from that ' +
      'distribution, again and again.',
    'Temperature divides the logits before the softmax — the same move as dividing attention scores by √d_k: ' +
      'a small divisor sharpens the distribution towards its top token, a large one flattens it. Top-k keeps ' +
      'only the k most likely tokens; top-p keeps the most likely ones until their probabilities add up to p. ' +
      'What is left is renormalised and one token is drawn from it.',
    'A repetition penalty acts first: every token already in the prompt has its logit divided by the penalty ' +
      '(multiplied, if negative), so the model is less likely to say again what it has said — the usual cure for ' +
      'a small model that loops.',
  ],
  formula: String.raw`p_i = \frac{\exp(z_i / T)}{\sum_j \exp(z_j / T)}`,
  pytorch: { source: pytorchSource, model: modelSource, ...PROGRAM },
  call: (state) => 'const { logits } = model.forward(ids, { logits: \'last\' });  // only the last position\'s row, 1×vocab\n' +
    'const { token, probabilities } = lab.sample(logits.data, { temperature, topK, topP, seed' +
    `${state.penalty > 100 ? `, repetitionPenalty: ${penalty(state)}, context: ids` : ''} });`,
  schema: {
    prompt: { type: 'text', maxLength: PROMPT_LENGTH, default: 'Thou shalt love thy neighbour as' },
    temperature: { type: 'int', min: 0, max: 300, default: 100 },   // hundredths
    topK: { type: 'int', min: 0, max: 100, default: 0 },
    topP: { type: 'int', min: 1, max: 100, default: 100 },          // hundredths
    penalty: { type: 'int', min: 100, max: 200, default: 100 },     // hundredths; 100 = off
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
  },
  prepare: lessonModelAnyFamily,  // a kept Llama-family model too
  setup(ctx) {
    const { lab, state, root, prepared } = ctx;
    const { model, tokenizer } = prepared;
    const raw = probabilityBars(`The model’s distribution (temperature 1, nothing cut): the ${SHOWN} most likely tokens`);
    const shaped = probabilityBars('After the penalty, temperature, top-k and top-p: the distribution the draw uses');
    const scaleNote = el('p', { class: 'field-hint', text: 'Both charts share one scale: the longest bar is the largest probability shown.' });
    const summary = el('p', { class: 'explain', 'aria-live': 'polite' });
    const drawn = el('p', { class: 'readout', 'aria-live': 'polite' });
    // The prompt with the drawn token appended: refused (the button says why) past what the box holds,
    // so the box, the link and the model's prompt stay one text. aria-disabled, not disabled: the
    // button keeps the keyboard focus of a learner who pressed it.
    let appended = null;
    const append = el('button', { type: 'button', text: 'Append the drawn token to the prompt',
      on: { click: () => { if (appended !== null) ctx.set({ prompt: appended }); } } });
    const appendNote = el('span', { class: 'field-hint', role: 'status' });
    const promptField = sentenceInput('Prompt', state.prompt, (prompt) => ctx.set({ prompt }), PROMPT_LENGTH, { key: 'prompt', lines: 3 });
    root.append(
      modelLine(prepared),
      el('div', { class: 'controls' }, promptField),
      el('div', { class: 'controls' },
        slider('Temperature T', { min: 0, max: 300, step: 5, value: state.temperature, format: (v) => (v === 0 ? '0 (greedy)' : formatNumber(v / 100)) },
          (temperature) => ctx.set({ temperature })),
        slider('Top-k', { min: 0, max: 100, value: state.topK, format: (v) => (v === 0 ? 'off' : String(v)) }, (topK) => ctx.set({ topK })),
        slider('Top-p', { min: 1, max: 100, value: state.topP, format: (v) => formatNumber(v / 100) }, (topP) => ctx.set({ topP })),
        slider('Repetition penalty', { min: 100, max: 200, step: 5, value: state.penalty,
          format: (v) => (v === 100 ? '1 (off)' : String(v / 100)) }, (value) => ctx.set({ penalty: value })),
        seedField(state.seed, (seed) => ctx.set({ seed })),
        el('button', { type: 'button', text: 'Draw again (next seed)', on: { click: () => ctx.set({ seed: state.seed + 1 }) } })),
      drawn, el('div', { class: 'button-row' }, append, appendNote), summary,
      el('div', { class: 'grid' }, el('div', { class: 'panel' }, raw.node), el('div', { class: 'panel' }, shaped.node)), scaleNote);

    let cached = { prompt: null, last: null, ids: [] };
    // Which of the model's most likely tokens the penalty pushed down: those already in the prompt.
    const penaltyNote = (rawTop) => {
      if (state.penalty <= 100) return '';
      const seen = new Set(cached.ids);
      const hit = rawTop.filter((id) => seen.has(id)).map((id) => `“${tokenLabel(tokenizer, id)}”`);
      return `Penalty ${penalty(state)}: ${hit.length === 0 ? 'none' : `${hit.length} (${hit.join(', ')})`} of the model’s ` +
        `${SHOWN} most likely tokens ${hit.length === 1 ? 'is' : 'are'} in the prompt and pushed down. `;
    };
    return () => {
      if (cached.prompt !== state.prompt) {
        const { ids } = promptIds(tokenizer, model, state.prompt, FALLBACK, { box: promptField });
        const { logits } = model.forward(ids, { logits: 'last' });
        cached = { prompt: state.prompt, last: logits.data, ids };
      }
      const plain = lab.sample(cached.last, { temperature: 1 }).probabilities;
      const options = { temperature: state.temperature / 100, topK: state.topK, topP: state.topP / 100, seed: state.seed,
        ...(state.penalty > 100 ? { repetitionPenalty: penalty(state), context: cached.ids } : {}) };
      const { token, probabilities } = lab.sample(cached.last, options);
      const next = state.prompt + tokenizer.decode([token]);
      appended = next.length <= PROMPT_LENGTH ? next : null;
      append.setAttribute('aria-disabled', String(appended === null));
      appendNote.textContent = appended === null
        ? `The prompt box holds ${PROMPT_LENGTH} characters: shorten the prompt to append more.` : '';
      const rawTop = topIds(plain, SHOWN), shapedTop = topIds(probabilities, SHOWN).filter((id) => probabilities[id] > 0);
      const drawnShown = shapedTop.includes(token);
      if (!drawnShown) shapedTop.push(token);  // a rare draw outside the top 10 still gets its bar
      const scale = Math.max(plain[rawTop[0]], probabilities[shapedTop[0]]);  // one scale for both charts
      raw.update(rawTop.map((id) => ({ label: tokenLabel(tokenizer, id), value: plain[id] })), scale);
      const kept = probabilities.reduce((count, p) => count + (p > 0 ? 1 : 0), 0);
      shaped.update(shapedTop.map((id) => ({ label: tokenLabel(tokenizer, id), value: probabilities[id], marked: id === token })), scale);
      drawn.textContent = `Seed ${state.seed} draws “${tokenLabel(tokenizer, token)}” (probability ${formatPercent(probabilities[token])} ` +
        `after reshaping, ${formatPercent(plain[token])} before)` +
        (drawnShown ? '.' : `: a rare draw, outside the ${SHOWN} most likely tokens, added as the last bar.`);
      // With nothing cut by top-k or top-p, the tokens that cannot be drawn are the ones whose probability
      // is below float32's smallest number: said so, not left to read as a cut.
      const nothingCut = state.temperature > 0 && state.topK === 0 && state.topP === 100;
      const rounded = nothingCut && kept < plain.length
        ? `: nothing is cut, but the other ${(plain.length - kept).toLocaleString('en')} are so unlikely that their probabilities ` +
          'are below the smallest number float32 can hold, and round to 0. ' : '. ';
      summary.textContent = `${cached.ids.length} prompt tokens. ${kept.toLocaleString('en')} of ${plain.length.toLocaleString('en')} tokens can still be drawn${rounded}` +
        penaltyNote(rawTop) +
        (state.temperature === 0 ? 'Temperature 0 is greedy decoding: the top token always wins.'
          : state.temperature < 100 ? `T = ${formatNumber(state.temperature / 100)} < 1 sharpens: the top token's share grows.`
            : state.temperature > 100 ? `T = ${formatNumber(state.temperature / 100)} > 1 flattens: unlikely tokens get drawn more often.`
              : 'T = 1 leaves the model’s distribution as it is.');
    };
  },
});
