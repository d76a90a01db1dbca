// Part three, lesson 4: the induction circuit. A previous-token head in layer 0 writes "the token before
// me" into each position; an induction head in a later layer reads it through its keys (K-composition),
// attends to the token after the current token's earlier occurrence, and its OV circuit copies that token.
// Everything is found and measured live: the heads by their scores on seeded repeated random sequences,
// the composition and copying scores from the weights, the knock-out on the same sequences.
import { el, field, formatNumber, select, setOptions } from '../../dom.js';
import { CHOSEN_HEAD, repeatLength, repeatRange, scoreMap } from '../../gpt-heads.js';
import { inductionRanking, tieWords } from '../../head-ties.js';
import { checkKeyReader, circuitHeads, PROCESSINGS, processingRows, processingWords, repeatScores, SAMPLES } from './parts.js';
import { lessonModel, modelLine, tokenLabel } from '../../gpt-model.js';
import { lessonPage } from '../../page.js';
import { answerAfterCheck } from '../../try-this.js';
import modelSource from '../../../snippets/trained/gpt2_kjv.py?raw';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';
import { heatmap, seedField, SIGNED } from '../../views.js';

const f2 = (x) => formatNumber(x, 2);
const name = ({ layer, head }) => `L${layer}H${head}`;

// What the knock-out shows, from the three measured scores: a score "collapses" below half its intact value.
function verdictOn(intact, alone, both) {
  if (alone < intact / 2) return 'Here too, knocking out the one previous-token head breaks the circuit.';
  if (both < intact / 2) return 'Here one head is not enough: a second head also looks back one token, and only with both gone does the circuit break.';
  return 'Here even both are not enough: other heads also carry the previous token, and the induction head still finds its target.';
}

lessonPage({
  slug: 'induction-circuit',
  intro: [
    'The heads lesson found two kinds of head in attnlab-kjv: previous-token heads, which look one token back, and induction ' +
      'heads, which on a repeated sequence look at the token after the current token’s earlier occurrence. Together they are ' +
      'a circuit (Elhage et al., 2021; Olsson et al., 2022): the previous-token head writes “the token before me was A” into each ' +
      'position; the induction head’s keys read that, so a query for A matches the position just after the earlier A; its OV ' +
      'circuit then copies the token found there, B, into the prediction. A B … A → B.',
    'Each link can be measured. From the weights alone: K-composition, how much of what a layer-0 head writes (its OV ' +
      'matrix) its reader’s keys use (its QK matrix), against random matrices of the same shapes; and the copying score of ' +
      'a head’s OV circuit from token to token, 1 for a head that copies what it attends to. From the forward pass: knock ' +
      'the previous-token head out and measure the induction head’s score again.',
    'ARENA’s tutorial does this on its two-layer attention-only model, where one previous-token head feeds two induction ' +
      'heads; below, attnlab-kjv’s own numbers, measured in this page on the seeded sequences you choose.',
  ],
  formula: String.raw`\text{K-comp}(A, B) = \frac{\lVert \mathrm{OV}_A\,\mathrm{QK}_B^{\top} \rVert_F}{\lVert \mathrm{OV}_A\rVert_F\,\lVert \mathrm{QK}_B\rVert_F}`,
  pytorch: { source: pytorchSource, model: modelSource, ...PROGRAM },
  call: (state) => 'const { pairs, baseline } = model.compositionScores();\n' +
    'const copying = model.copyingScores();                  // every head’s, layers × heads (raw weights)\n' +
    'const processed = model.copyingScores({ foldLn: true, centreWriting: true });\n' +
    'const processedComposition = model.compositionScores({ foldLn: true, centreWriting: true });\n' +
    `const { attention } = model.forward(repeated, { attention: true, ablate: [previousHead], ablation: '${state.mode}' });`,
  schema: {
    length: { type: 'int', min: 5, max: 64, default: 30 },
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
    mode: { type: 'enum', values: ['zero', 'mean'], default: 'zero' },
    ...CHOSEN_HEAD,  // the induction head studied; −1: the one with the highest induction score
  },
  prepare: lessonModel,
  setup(ctx) {
    const { lab, state, root, prepared } = ctx;
    const { model, tokenizer } = prepared;
    const { numLayers, numHeads } = model.config;
    // From the weights: measured once.
    const composition = model.compositionScores();
    const copying = model.copyingScores().data;  // layers × heads, of the raw weights
    // The composition and copying scores under each of TransformerLens's processings (parts.js PROCESSINGS; web/README.md):
    // the scores move with each step. The baseline is of random factors, which no processing touches: the raw one serves.
    const compositions = PROCESSINGS.map((p, i) => (i === 0 ? composition
      : { ...model.compositionScores({ ...p.composition, draws: 1 }), baseline: composition.baseline, draws: composition.draws }));
    const copyings = PROCESSINGS.map((p, i) => (i === 0 ? copying : model.copyingScores(p.copying).data));
    const [, , folded, centred] = copyings;
    const later = composition.pairs.filter((p) => p.from.layer === 0).map((p) => p.to)
      .filter((to, i, all) => all.findIndex((x) => x.layer === to.layer && x.head === to.head) === i);

    const found = el('p', { class: 'explain induction-found', 'aria-live': 'polite' });
    const inductionMap = scoreMap('Induction score of every head on these sequences', model.config);
    inductionMap.decimals = 3;  // the tie is read to 3 decimals (0.945, 0.938, 0.935): 2 would hide it
    // Every head that can read a layer-0 head's output, with its score: the learner picks the one to study.
    const chooser = select([], '', (value) => {
      const [layer, head] = value.split(':').map(Number);
      ctx.set({ layer, head });
    });
    // Drawn as the excess over the random baseline, so white is the baseline, blue above it and red below.
    const kMap = heatmap({ ...SIGNED, caption: `K-composition minus the random baseline (${formatNumber(composition.baseline, 3)}): ` +
      'layer-0 head (row) → later head’s keys (column); white is the baseline', decimals: 3, showValues: true, rowTitle: 'From', colTitle: 'To',
      rowLabels: Array.from({ length: numHeads }, (_, h) => `L0H${h}`), colLabels: later.map(name) });
    kMap.matrix = { rows: numHeads, cols: later.length, data: Float32Array.from({ length: numHeads * later.length }, (_, i) => {
      const from = Math.floor(i / later.length), to = later[i % later.length];
      return composition.pairs.find((p) => p.from.layer === 0 && p.from.head === from && p.to.layer === to.layer && p.to.head === to.head).k -
        composition.baseline;
    }) };
    const kReadout = el('p', { class: 'explain kcomp-readout' });
    const copyMap = heatmap({ ...SIGNED, domain: [-1, 1], caption: 'Copying score of each head’s OV circuit (raw weights)', decimals: 2, showValues: true,
      rowTitle: 'Layer', colTitle: 'Head', rowLabels: Array.from({ length: numLayers }, (_, l) => String(l)),
      colLabels: Array.from({ length: numHeads }, (_, h) => String(h)) });
    copyMap.matrix = { rows: numLayers, cols: numHeads, data: copying };
    const copyReadout = el('p', { class: 'explain copy-readout' });
    const knockTable = el('table', { class: 'data knock' });
    const processingTable = el('table', { class: 'data processing' });
    const processingReadout = el('p', { class: 'explain processing-readout' });
    const knockReadout = el('p', { class: 'explain knock-readout', 'aria-live': 'polite' });
    const stripe = heatmap({ decimals: 2, showValues: false });
    const stripeReadout = el('p', { class: 'explain' });

    const guess = select(Array.from({ length: numHeads }, (_, h) => [h, `L0H${h}`]), 0, () => {});
    const verdict = el('p', { class: 'explain', role: 'status' });
    let induction = null;  // the induction head found last, for the exercise's check
    const check = el('button', { type: 'button', text: 'Check', on: { click: () => {
      if (!induction) return;
      verdict.textContent = checkKeyReader(composition.pairs, induction, Number(guess.value)).message;
      answer.reveal();
    } } });
    // The K-composition table gives the answer: hidden until the learner has checked one.
    const answer = answerAfterCheck('the K-composition of every pair', kReadout, el('div', { class: 'panel' }, kMap));
    const exercise = el('section', { class: 'exercise', 'aria-label': 'Try this: which head feeds the keys?' },
      el('h2', { text: 'Try this: which head feeds the keys?' }),
      el('p', { text: 'Before you read the K-composition table: which layer-0 head’s output do you expect the induction head’s ' +
        'keys to read most? The previous-token scores above are a clue. Pick one and check.' }),
      el('div', { class: 'controls' }, field('Layer-0 head', guess), check), verdict);

    root.append(modelLine(prepared),
      el('div', { class: 'controls' },
        // a length the URL gave that is not among the offered ones is offered too, so the select shows it
        field('Repeated length', select([...new Set([10, 20, 30, 40, 64, state.length])].sort((a, b) => a - b).map((n) => [n, String(n)]), state.length, (n) => ctx.set({ length: Number(n) }))),
        seedField(state.seed, (seed) => ctx.set({ seed })),
        field('Knocked-out heads output', select([['zero', 'zero'], ['mean', 'their mean over the sequence']], state.mode, (mode) => ctx.set({ mode })))),
      found, el('div', { class: 'panel' }, inductionMap),
      el('div', { class: 'controls' }, field('Induction head to study', chooser)),
      exercise,
      el('h2', { text: 'The link through the keys: K-composition' }), ...answer.nodes,
      el('h2', { text: 'Copying: the OV circuit' }), copyReadout, el('div', { class: 'panel' }, copyMap),
      el('h2', { text: 'Which readings hold under TransformerLens’s processing' }),
      el('p', { class: 'explain', text: 'TransformerLens processes a model’s weights before it scores them: it folds each LayerNorm’s ' +
        'weight into the matrices that read its output and centres them (a LayerNorm’s output has mean 0), centres the weights that ' +
        'write into the residual stream (the next LayerNorm removes that mean anyway), and centres the unembedding (a shift of every ' +
        'logit by the same amount, which softmax ignores). None of it changes what the model computes; all of it changes the scores ' +
        'above, which read the weights. So a conclusion from a score is about the model only where it holds under each.' }),
      processingReadout, el('div', { class: 'table-wrap' }, processingTable),
      el('h2', { text: 'Knock the previous-token head out' }), knockReadout, el('div', { class: 'table-wrap' }, knockTable),
      el('h2', { text: 'The induction stripe' }), stripeReadout, el('div', { class: 'panel' }, stripe));

    // The head the URL chose, if it is one of the ranked (layer ≥ 1, in the model); else the first ranked.
    function chosenHead({ ranked }) {
      if (state.layer < 0 || state.head < 0) return ranked[0];
      const chosen = ranked.find((x) => x.layer === state.layer && x.head === state.head);
      if (!chosen) ctx.notice(`L${state.layer}H${state.head} is not a head an induction head can be here (layers 1 … ${numLayers - 1}, ` +
        `heads 0 … ${numHeads - 1}): showing ${name(ranked[0])}, the highest induction score.`);
      return chosen ?? ranked[0];
    }

    return () => {
      const T = repeatLength(model, state.length);
      const intact = repeatScores(lab, model, { length: T, seed: state.seed, ...repeatRange(model) });
      const heads = circuitHeads(intact, model.config);
      const [prev, second] = heads.previous;
      const ranking = inductionRanking(intact, model.config);
      induction = chosenHead(ranking);
      inductionMap.matrix = { rows: numLayers, cols: numHeads, data: Float32Array.from(intact.induction) };
      setOptions(chooser, ranking.ranked.map((x) => [`${x.layer}:${x.head}`, `${name(x)} (${formatNumber(x.score, 3)})`]),
        `${induction.layer}:${induction.head}`);
      found.textContent = `On ${SAMPLES} random sequences of ${T} tokens repeated once (seed ${state.seed}), the strongest previous-token ` +
        `head in layer 0 is ${name(prev)} (previous-token score ${f2(prev.score)}; the next is ${name(second)}, ${f2(second.score)}). ` +
        `${tieWords(ranking)} Studied below: ${name(induction)} (induction score ${formatNumber(induction.score, 3)}).`;
      found.dataset.tied = ranking.tied.map(name).join(',');

      const largest = composition.pairs.reduce((a, p) => (p.k > a.k ? p : a));
      const pair = composition.pairs.find((p) => p.from.layer === 0 && p.from.head === prev.head && p.to.layer === induction.layer && p.to.head === induction.head);
      kReadout.textContent = `Random matrices of the same shapes score ${formatNumber(composition.baseline, 3)} on average ` +
        `(${composition.draws} draws): the baseline. ${name(prev)} → ${name(induction)} scores ${formatNumber(pair.k, 3)}, ` +
        `${formatNumber(pair.k / composition.baseline, 2)} times the baseline. The largest K-composition of all ${composition.pairs.length} ` +
        `pairs is ${name(largest.from)} → ${name(largest.to)}, ${formatNumber(largest.k, 3)}.`;
      kReadout.dataset.pair = String(pair.k);
      kReadout.dataset.baseline = String(composition.baseline);

      const own = copying[induction.layer * numHeads + induction.head];
      const higher = Array.from(copying).filter((c) => c > own).length;
      const scoreOf = (scores) => scores[induction.layer * numHeads + induction.head];
      const above = (scores) => {
        const n = Array.from(scores).filter((x) => x > scoreOf(scores)).length;
        return `${n} head${n === 1 ? '' : 's'} higher`;
      };
      copyReadout.textContent = `${name(induction)}’s OV circuit has copying score ${f2(own)}: ${higher} of the other ` +
        `${copying.length - 1} heads score higher. A score near 1 means the head writes, for the token it attends to, that same token. ` +
        'That is of the raw weights (W_E·W_V·W_O·W_U, no LayerNorm folded, nothing centred). Processed as TransformerLens does, ' +
        `it moves: with the LayerNorms folded and the writing weights centred, ${f2(scoreOf(folded))} (${above(folded)}); with the ` +
        `unembedding centred as well, ${f2(scoreOf(centred))} (${above(centred)}). That last step shifts every logit by the same ` +
        'amount, which softmax ignores and this eigenvalue score does not: read the score as a hint, and the knock-out below as the test.';
      copyReadout.dataset.copying = String(own);

      const rows = processingRows(compositions, copyings, prev, induction, numHeads);
      const cell = (text) => el('td', { text });
      processingTable.replaceChildren(
        el('caption', { text: `Under each processing: ${name(prev)} → ${name(induction)}’s K-composition over the random baseline, ` +
          `the layer-0 head whose output ${name(induction)}’s keys read most, ${name(induction)}’s copying score, and how many heads score higher.` }),
        el('tr', {}, ...['Weights', 'K-comp. ÷ baseline', 'Keys read most', 'Copying score', 'Heads higher'].map((text) => el('th', { scope: 'col', text }))),
        ...rows.map((r) => el('tr', {}, el('th', { scope: 'row', text: r.label }), cell(f2(r.ratio)), cell(name(r.keyReader)), cell(f2(r.copying)),
          cell(String(r.higher)))));
      processingTable.dataset.rows = JSON.stringify(rows.map((r) => [r.ratio, r.keyReader.head, r.copying, r.higher]));
      processingReadout.textContent = processingWords(rows, prev, induction);

      const options = (knocked) => ({ ablate: knocked.map(({ layer, head }) => ({ layer, head })), ablation: state.mode });
      const alone = repeatScores(lab, model, { length: T, seed: state.seed, ...repeatRange(model) }, options([prev]));
      const both = repeatScores(lab, model, { length: T, seed: state.seed, ...repeatRange(model) }, options([prev, second]));
      const at = (m) => m.induction[induction.layer * numHeads + induction.head];
      const row = (label, value) => el('tr', {}, el('th', { scope: 'row', text: label }), el('td', { text: f2(value) }));
      knockTable.replaceChildren(
        el('tr', {}, el('th', { scope: 'col', text: 'Knocked out' }), el('th', { scope: 'col', text: `${name(induction)}’s induction score` })),
        row('none', at(intact)), row(name(prev), at(alone)), row(`${name(prev)} and ${name(second)}`, at(both)));
      knockTable.dataset.scores = [at(intact), at(alone), at(both)].join(',');
      knockReadout.textContent = `Knocking out ${name(prev)} (output set to ${state.mode === 'mean' ? 'its mean' : 'zero'}) takes ` +
        `${name(induction)}’s induction score from ${f2(at(intact))} to ${f2(at(alone))}; knocking out ${name(second)} as well takes it to ` +
        `${f2(at(both))}. ARENA reports its two induction heads falling from 0.67 and 0.87 to about 0.01 when its one previous-token head ` +
        'is ablated. ' + verdictOn(at(intact), at(alone), at(both));

      const ids = lab.repeatedRandomTokens(T, { ...repeatRange(model), seed: state.seed });
      const { attention } = model.forward(ids, { attention: true, logits: 'none' });
      const labels = Array.from(ids, (id, j) => `${j}: ${tokenLabel(tokenizer, id)}`);
      Object.assign(stripe, { matrix: attention[induction.layer][induction.head], rowLabels: labels, colLabels: labels,
        caption: `${name(induction)}’s attention on ${T} random tokens repeated (seed ${state.seed})` });
      stripeReadout.textContent = `Each row of the second half puts its weight one step right of the diagonal ${T} tokens back: on the ` +
        'token that followed the current token last time. That off-diagonal stripe is the induction pattern, drawn from the head’s QK circuit.';
    };
  },
});
