// Trained model, lesson 6: knock a head out. The chosen heads' outputs are zeroed (or replaced by
// their mean over the prompt) inside the forward pass; the page measures what changes: the next-token
// distribution, and the loss on the second copy of a repeated random sequence.
import { el, field, formatNumber, select } from '../../dom.js';
import { probabilityBars, topIds } from '../../bars.js';
import { headGrid, INDUCTION_THRESHOLD, inductionRun, inductionScores, nats, rankedInductionHeads, repeatLength } from '../../gpt-heads.js';
import { rankHeads, tieWords } from '../../head-ties.js';
import { lessonModel, modelLine, promptIds, tokenLabel } from '../../gpt-model.js';
import { lessonPage } from '../../page.js';
import modelSource from '../../../snippets/trained/gpt2_kjv.py?raw';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';
import { panel, seedField, sentenceInput } from '../../views.js';

const DEFAULT_PROMPT = 'Now the serpent was more subtil than any beast of the field. And the serpent said unto the woman, Ye shall not surely die: ' +
  'for God doth know that in the day ye eat thereof, then your eyes shall be opened. And the';

// "1.2,3.0" ↔ [{ layer: 1, head: 2 }, { layer: 3, head: 0 }] (the URL's form).
const parseHeads = (text, { numLayers, numHeads }) => text.split(',').map((p) => p.split('.').map(Number))
  .filter(([l, h]) => Number.isInteger(l) && Number.isInteger(h) && l >= 0 && h >= 0 && l < numLayers && h < numHeads)
  .map(([layer, head]) => ({ layer, head }));
const SHOWN = 10;  // next tokens drawn as bars
const formatHeads = (heads) => heads.map(({ layer, head }) => `${layer}.${head}`).join(',');

// The top next token before and after the knock-out, in words that fit: it changes, or it stays.
function topChange(tokenizer, p0, before, p1, after) {
  const percent = (p, id) => `${formatNumber(100 * p[id], 1)}%`;
  return before === after
    ? `The top next token stays “${tokenLabel(tokenizer, before)}”, its probability going from ${percent(p0, before)} to ${percent(p1, after)}`
    : `The top next token changes from “${tokenLabel(tokenizer, before)}” (${percent(p0, before)}) to “${tokenLabel(tokenizer, after)}” (${percent(p1, after)})`;
}

lessonPage({
  slug: 'ablation',
  intro: [
    'To find out what a head is for, remove it and measure what breaks. Knocking a head out sets its output ' +
      '(its d_head columns, before the output projection c_proj) to zero — or, gentler, to its mean over the ' +
      'prompt, which removes what the head says about each particular token but keeps its average contribution.',
    'Press a head’s button to knock it out. Knocking out the induction heads found in the previous lesson (which repeated ' +
      'passages in the model’s training encouraged, as that lesson says) should make the second copy of a repeated ' +
      'random sequence almost as hard to predict as the first.',
    'One head alone rarely matters much: a model has several heads that copy, and when one is gone the ' +
      'others still do its job. The last table knocks the induction heads out one more at a time, highest induction score first, ' +
      'so you can watch the loss climb as the backups go too.',
  ],
  formula: String.raw`\begin{aligned}&\operatorname{MultiHead}(X)\\ &\quad= \operatorname{Concat}(\text{head}_1, \dots, \underbrace{0}_{\text{head}_h}, \dots)\,W_O^\top\end{aligned}`,
  // The snippets follow the mode control: zero, or the head's mean over the prompt's positions.
  pytorch: { source: pytorchSource, model: modelSource, ...PROGRAM },
  call: (state) => `const { logits } = model.forward(ids, { ablate: [{ layer, head }], ablation: '${state.mode}' });\n` +
    `const losses = model.tokenLosses(repeated, { ablate: [{ layer, head }], ablation: '${state.mode}' });`,
  schema: {
    prompt: { type: 'text', maxLength: 400, default: DEFAULT_PROMPT },
    heads: { type: 'text', maxLength: 400, default: '' },
    mode: { type: 'enum', values: ['zero', 'mean'], default: 'zero' },
    length: { type: 'int', min: 5, max: 64, default: 30 },
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
  },
  prepare: lessonModel,
  setup(ctx) {
    const { lab, state, root, prepared } = ctx;
    const { model, tokenizer } = prepared;
    const { numHeads } = model.config;
    const T = () => repeatLength(model, state.length);
    // The induction scores depend on the repeated length and the seed only: measured once per pair,
    // not on every click.
    let scored = { key: null };
    const scoresNow = () => {
      const key = `${T()}|${state.seed}`;
      if (scored.key !== key) {
        scored = { key, induction: inductionScores(model, tokenizer, { length: T(), seed: state.seed }) };
      }
      return scored.induction;
    };
    const buttons = [];
    const toggle = (layer, head) => {
      const current = parseHeads(state.heads, model.config);
      const without = current.filter((x) => x.layer !== layer || x.head !== head);
      ctx.set({ heads: formatHeads(without.length < current.length ? without : [...current, { layer, head }]) });
    };
    const grid = headGrid('Heads to knock out', model.config, (l, h) => {
      const button = el('button', { type: 'button', class: 'head-toggle', 'aria-pressed': 'false', on: { click: () => toggle(l, h) } });
      buttons.push({ layer: l, head: h, button });
      return button;
    });
    const before = probabilityBars(`All heads: the ${SHOWN} most likely next tokens`);
    const after = probabilityBars('With the chosen heads knocked out');
    const nextReadout = el('p', { class: 'explain', 'aria-live': 'polite' });
    const lossTable = el('table', { class: 'data' });
    const lossReadout = el('p', { class: 'explain', 'aria-live': 'polite' });
    const climbTable = el('table', { class: 'data climb' });
    const climbReadout = el('p', { class: 'explain' });
    const promptBox = sentenceInput('Prompt', state.prompt, (prompt) => ctx.set({ prompt }), 400, { key: 'prompt', lines: 3 });
    root.append(modelLine(prepared),
      el('div', { class: 'controls' }, promptBox,
        field('Knocked-out heads output', select([['zero', 'zero'], ['mean', 'their mean over the prompt']], state.mode, (mode) => ctx.set({ mode }))),
        seedField(state.seed, (seed) => ctx.set({ seed }))),
      el('div', { class: 'controls' },
        el('button', { type: 'button', text: `Knock out the induction heads (score ≥ ${INDUCTION_THRESHOLD})`, on: { click: () => {
          const heads = rankedInductionHeads(scoresNow()).sort((a, b) => a.layer - b.layer || a.head - b.head);
          ctx.set({ heads: formatHeads(heads) });
        } } }),
        el('button', { type: 'button', text: 'Restore every head', on: { click: () => ctx.set({ heads: '' }) } })),
      el('div', { class: 'table-wrap' }, grid), nextReadout,
      el('div', { class: 'grid' }, el('div', { class: 'panel' }, before.node), el('div', { class: 'panel' }, after.node)),
      el('h2', { text: 'The repeated random sequence' }), lossReadout, el('div', { class: 'table-wrap' }, lossTable),
      el('h2', { text: 'Why one head is not enough: knocking out the induction heads one more at a time' }), climbReadout,
      el('div', { class: 'table-wrap' }, climbTable));

    // The induction heads best first, and the second copy's loss with the first k of them knocked out
    // (k = 0 … all), for this length, seed and mode: computed once per triple.
    let climb = { key: null };
    const climbRows = () => {
      const key = `${T()}|${state.seed}|${state.mode}`;
      if (climb.key !== key) {
        const ranked = rankedInductionHeads(scoresNow()).map(({ layer, head }) => ({ layer, head }));
        const rows = [];
        for (let k = 0; k <= ranked.length; k++) {
          const run = inductionRun(lab, model, { length: T(), seed: state.seed, ablate: k ? ranked.slice(0, k) : undefined, ablation: state.mode });
          rows.push({ heads: ranked.slice(0, k), second: run.second, first: run.first });
        }
        climb = { key, rows };
      }
      return climb.rows;
    };

    // The climb's first head is one of a tie when others score within 0.01 of it (head-ties.js): then say so.
    const firstIsATie = (scores) => {
      const { tied } = rankHeads(scores.data, model.config);
      return tied.length < 2 ? '' : ` ${tieWords({ tied }, { then: 'knock out each of them in the grid above and compare' })}`;
    };

    return () => {
      const heads = parseHeads(state.heads, model.config);
      const scores = scoresNow();
      for (const b of buttons) {
        const off = heads.some((x) => x.layer === b.layer && x.head === b.head);
        b.button.setAttribute('aria-pressed', String(off));
        b.button.textContent = `${off ? 'off' : 'on'} · ind. ${formatNumber(scores.data[b.layer * numHeads + b.head])}`;
        b.button.setAttribute('aria-label', `${b.button.textContent}: layer ${b.layer}, head ${b.head}, ${off ? 'knocked out' : 'on'}`);
      }
      const options = heads.length ? { ablate: heads, ablation: state.mode } : undefined;
      const { ids } = promptIds(tokenizer, model, state.prompt, DEFAULT_PROMPT, { box: promptBox });
      const lastRow = (opts) => model.forward(ids, { ...opts, logits: 'last' }).logits.data;
      const p0 = lab.sample(lastRow({}), { temperature: 1 }).probabilities;
      const p1 = heads.length ? lab.sample(lastRow(options), { temperature: 1 }).probabilities : p0;
      const top0 = topIds(p0, SHOWN), top1 = topIds(p1, SHOWN);
      const scale = Math.max(p0[top0[0]], p1[top1[0]]);
      before.update(top0.map((id) => ({ label: tokenLabel(tokenizer, id), value: p0[id] })), scale);
      after.update(top1.map((id) => ({ label: tokenLabel(tokenizer, id), value: p1[id] })), scale);
      let kl = 0;
      for (let i = 0; i < p0.length; i++) if (p0[i] > 0) kl += p0[i] * Math.log(p0[i] / Math.max(p1[i], 1e-30));
      nextReadout.textContent = heads.length === 0 ? 'No head is knocked out: press one above.'
        : `${heads.length} head${heads.length > 1 ? 's' : ''} knocked out (${state.mode}). ${topChange(tokenizer, p0, top0[0], p1, top1[0])}; ` +
          `the two distributions differ by KL = ${formatNumber(kl, 3)} nats.`;

      const intact = inductionRun(lab, model, { length: T(), seed: state.seed });
      const ablated = heads.length ? inductionRun(lab, model, { length: T(), seed: state.seed, ablate: heads, ablation: state.mode }) : intact;
      const row = (name, run) => el('tr', {}, el('th', { scope: 'row', text: name }), el('td', { text: nats(run.first) }),
        el('td', { text: nats(run.second) }), el('td', { text: nats(run.first - run.second) }));
      lossTable.replaceChildren(...[
        el('tr', {}, el('th', { scope: 'col', text: `${T()} random tokens, repeated` }), el('th', { scope: 'col', text: 'First copy' }),
          el('th', { scope: 'col', text: 'Second copy' }), el('th', { scope: 'col', text: 'Saved by copying' })),
        row('All heads', intact), heads.length ? row('Chosen heads knocked out', ablated) : null].filter(Boolean));
      lossReadout.textContent = heads.length === 0
        ? `With every head on, the second copy costs ${nats(intact.second)} per token against ${nats(intact.first)} for the first.`
        : `Knocking out ${formatHeads(heads).replaceAll(',', ', ')} moves the second copy's loss from ${nats(intact.second)} to ${nats(ablated.second)} ` +
          `(${ablated.second >= intact.second ? '+' : '−'}${formatNumber(Math.abs(ablated.second - intact.second), 2)} nats per token, ` +
          `knocked-out heads set to ${state.mode === 'mean' ? 'their mean' : 'zero'}).`;

      const rows = climbRows();
      climbTable.replaceChildren(
        el('tr', {}, el('th', { scope: 'col', text: 'Knocked out (highest induction score first)' }),
          el('th', { scope: 'col', text: 'Second copy' }), el('th', { scope: 'col', text: 'Saved by copying' })),
        ...rows.map(({ heads: knocked, first, second }) => el('tr', {},
          el('th', { scope: 'row', text: knocked.length ? formatHeads(knocked).replaceAll(',', ', ') : 'none' }),
          el('td', { text: nats(second) }), el('td', { text: nats(first - second) }))));
      const [none, one, all] = [rows[0], rows[1], rows[rows.length - 1]];
      climbReadout.textContent = rows.length < 2
        ? `No head scores ${INDUCTION_THRESHOLD} or more as an induction head at this length and seed.`
        : `Knocking out ${formatHeads(one.heads)}, the highest induction score, alone moves the second copy from ${nats(none.second)} to ` +
          `${nats(one.second)}; knocking out all ${rows.length - 1} moves it to ${nats(all.second)}. While any copying head is left, it ` +
          `covers for the others.${firstIsATie(scoresNow())}`;
    };
  },
});
