// The generation lesson's "Why small models repeat themselves": the learner samples the prompt N times
// in each of four settings (induction heads in place or knocked out, repetition penalty off or on) and
// sees how many samples loop, next to the heads that cause it. The sampling runs a sample at a time
// between frames, so the page stays responsive; a new prompt or a second click starts it again.
import { el, field, formatNumber, select } from '../../dom.js';
import { inductionHeads, INDUCTION_THRESHOLD, loops, repeatSettings, SAMPLE_TOKENS, sampleOnce } from './parts.js';

const nextFrame = () => new Promise((resolve) => setTimeout(resolve, 0));

// → { node, reset() }. prompt() gives the prompt's ids; samples / setSamples the per-setting count.
export function repeatsSection({ lab, model, tokenizer, prompt, samples, setSamples }) {
  const heads = inductionHeads(model, tokenizer);
  const headList = heads.map(({ layer, head, score }) => `${layer}.${head} (${formatNumber(score)})`).join(', ');
  const progress = el('p', { class: 'explain', 'aria-live': 'polite' });
  const table = el('table', { class: 'data repeats' });
  const button = el('button', { type: 'button', text: 'Sample and count the loops', on: { click: () => run() } });
  let runId = 0;

  const node = el('section', {},
    el('h2', { text: 'Why small models repeat themselves' }),
    el('p', { text: 'An induction head predicts that what followed a token earlier follows it again. In the text a model ' +
      'writes, its own last words are that “earlier”: once a phrase has come twice, the induction heads see a repeat and ' +
      'predict it once more, and a small model, unsure what else to say, follows them into a loop. Sample the prompt ' +
      `many times and count the samples that loop (a 4-gram of tokens three times in ${SAMPLE_TOKENS} tokens; held-out King James ` +
      'text does that in about 3.5 windows in 100, as attnlab measured it). The counts are this page’s own, for your prompt: ' +
      'they change from prompt to prompt.' }),
    el('p', { text: heads.length
      ? `This model’s induction heads (score ≥ ${INDUCTION_THRESHOLD} on a repeated random sequence, layer.head): ${headList}. ` +
        '“Knocked out” sets their outputs to zero while sampling.'
      : `No head of this model scores ${INDUCTION_THRESHOLD} or more as an induction head, so knocking them out changes nothing.` }),
    el('div', { class: 'controls' },
      field('Samples per setting', select([[10, '10'], [20, '20'], [50, '50']], samples(), (n) => setSamples(Number(n)))), button),
    progress, el('div', { class: 'table-wrap' }, table));

  async function run() {
    const id = ++runId;
    const ids = prompt();
    const count = samples();
    const settings = repeatSettings(heads);
    const rows = settings.map((s) => ({ ...s, looped: 0, done: 0, example: null }));
    const draw = () => table.replaceChildren(
      el('tr', {}, ...['Setting', 'Samples that loop', 'The first sample'].map((text) => el('th', { scope: 'col', text }))),
      ...rows.map((r) => el('tr', {}, el('th', { scope: 'row', text: r.name }),
        el('td', { text: r.done ? `${r.looped} of ${r.done} (${formatNumber((100 * r.looped) / r.done, 0)}%)` : '–' }),
        el('td', { class: 'sample', text: r.example ?? '' }))));
    draw();
    for (const row of rows) {
      for (let s = 0; s < count; s++) {
        await nextFrame();
        if (id !== runId) return;  // a newer run (or a reset) took over
        progress.textContent = `Sampling: ${row.name}, ${s + 1} of ${count}…`;
        const tokens = sampleOnce(lab, model, ids, { ablate: row.ablate, repetitionPenalty: row.repetitionPenalty, seed: s });
        row.looped += loops(tokens) ? 1 : 0;
        row.done += 1;
        if (s === 0) row.example = tokenizer.decode(tokens).replace(/\s+/g, ' ');
        draw();
      }
    }
    const [plain, knocked, penalised] = rows;
    progress.textContent = `Done: ${count} samples of ${SAMPLE_TOKENS} tokens per setting. ` +
      (heads.length ? `Knocking out the induction heads takes the loops from ${plain.looped} to ${knocked.looped}; ` : '') +
      `the repetition penalty alone takes them to ${penalised.looped}.`;
    table.dataset.done = 'true';
  }

  return {
    node,
    reset() {
      runId++;
      progress.textContent = '';
      table.replaceChildren();
      delete table.dataset.done;
    },
  };
}
