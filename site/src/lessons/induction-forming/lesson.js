// Part three, lesson 5: watch induction heads form. An attention-only transformer (parts.js's
// recipe) trained live in a Web Worker on letters whose end repeats a segment of varying length: the
// held-out loss, every head's previous-token and induction scores at every evaluation, and every head's
// attention on one held-out example. With two layers the loss drops suddenly as an induction head forms;
// with one layer, or without the position embedding, it does not.
import { el, field, formatNumber, select } from '../../dom.js';
import { BATCH, evaluation, HELD_OUT, heldOut, INDUCTION_THRESHOLD, makeModel, MAX_STEPS, phaseChange, RECIPE }
  from './parts.js';
import { chartWidth, lineChart } from '../../line-chart.js';
import { lessonPage } from '../../page.js';
import { answerAfterCheck } from '../../try-this.js';
import { trainingSession } from '../../training-run.js';
import { heatmap, panel, seedField } from '../../views.js';
import { inductionWorkerUrl } from '../../worker-url.js';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';

const f2 = (x) => formatNumber(x, 2);
const headName = (i, numHeads) => `L${Math.floor(i / numHeads)}H${i % numHeads}`;

// One score of every head against the step, a line per head.
function scoreChart(evaluations, which, numHeads, width, title) {
  const count = evaluations[0][which].length;
  return lineChart(Array.from({ length: count }, (_, i) => ({
    name: headName(i, numHeads), points: evaluations.map((e) => [e[0], e[which][i]]),
  })), { xLabel: 'training step', yLabel: 'score', yDomain: [0, 1], width, title });
}

lessonPage({
  slug: 'induction-forming',
  training: true,  // the untrained model is built on the page's thread too
  intro: [
    'The induction circuit lesson took apart heads that attnlab-kjv had already learned. Here you watch such heads being ' +
      'learned, from random weights, in a model small enough to train in this tab: attention only (no MLPs), d_model 32, ' +
      'one head per layer, Adam at learning rate 0.005, 16 fresh examples per step.',
    'Each example is 32 random letters whose end is a segment of 4 to 12 letters and the same segment again: in the ' +
      'formulas below, N letters in all: P before the segment, then its L letters twice; A^h is head h’s attention, ' +
      'query by key. Only the second copy is scored: predicting it means finding where the current letter appeared before and copying the letter ' +
      'after it. The segment’s length changes from example to example, so no head that looks a fixed distance back can do ' +
      'it. An induction head can, if an earlier layer has a previous-token head that writes “the letter before me” into ' +
      'each position for its keys to match.',
    'Induction heads form in a sudden phase change (Olsson et al., 2022): the loss sits on a plateau, then drops within ' +
      'a few hundred steps as one head’s induction score climbs. When it comes depends on the seed: trained as this page ' +
      'trains them, seeds 0 to 9 all changed phase, after between 450 and 1150 steps. Train the ' +
      'two-layer model and watch for it; then switch to one layer, or take the position embedding away, and train again.',
  ],
  formula: String.raw`\begin{aligned}\text{induction}(h) &= \frac{1}{L-1}\sum_{i=1}^{L-1} A^{h}_{\,P+L+i-1,\;P+i}\\ \text{previous}(h) &= \frac{1}{L}\sum_{t=P+L}^{N-1} A^{h}_{\,t,\;t-1}\end{aligned}`,
  pytorch: { source: pytorchSource, ...PROGRAM },
  call: (state) => 'await lab.loadTraining();\n' +
    `const model = new lab.TaskModel({ task: 'repeat', layers: ${state.layers}, positions: ${state.positions === 'learned'}, ` +
    `dModel: ${RECIPE.dModel}, numHeads: ${RECIPE.numHeads}, dFF: 0, lr: ${RECIPE.lr}, seed: ${state.seed} });\n` +
    `const test = model.examples(${HELD_OUT}, ${state.seed});\n` +
    `model.trainStep(model.examples(${BATCH}, ${state.seed} + 1 + model.steps));   // one step on fresh examples\n` +
    'const { previousToken, induction } = model.inductionScores(test);   // layers × heads',
  schema: PROGRAM.schema,
  setup(ctx) {
    const { lab, state, root } = ctx;
    const readout = el('p', { class: 'readout', id: 'induction-readout' });
    const session = trainingSession(ctx, {
      workerUrl: inductionWorkerUrl, readout, stopText: 'Pause', fresh, draw, progress, onReset: () => { verdict.textContent = ''; },
      start: () => ({ layers: state.layers, positions: state.positions === 'learned', seed: state.seed }),
      words: { started: () => 'Training started.', paused: (run) => `Paused at step ${run.evaluations.at(-1)[0]}.` },
    });
    const { controls } = session;
    const phaseLine = el('p', { class: 'explain phase-readout' });
    const lossChart = el('div', { class: 'chart' });
    const inductionChart = el('div', { class: 'chart' });
    const previousChart = el('div', { class: 'chart' });
    const maps = el('div', { class: 'grid' });
    let heads = [];

    // Try this: which layer's head looks one letter back?
    const guess = select([[0, 'layer 0'], [1, 'layer 1']], 0, () => {});
    const verdict = el('p', { class: 'explain', role: 'status' });
    const check = el('button', { type: 'button', text: 'Check', on: { click: () => {
      const run = session.run();
      const change = run && phaseChange(run.evaluations);
      if (!change) {
        verdict.textContent = cannotForm() ? `${cannotForm()} Switch to two layers with the position embedding, train until the phase change, then check.`
          : 'No induction head has formed yet: train the two-layer model until the phase change, then check.';
        return;
      }
      const [, , previous] = run.evaluations.at(-1);
      const best = previous.indexOf(Math.max(...previous));
      const layer = Math.floor(best / run.numHeads);
      answer.reveal();
      verdict.textContent = Number(guess.value) === layer
        ? `Right: ${headName(best, run.numHeads)} has the highest previous-token score, ${f2(previous[best])}, in layer ${layer}: the ` +
          `induction head ${headName(change.head, run.numHeads)} reads what it wrote.`
        : `Not this one: the head that looks one letter back most is ${headName(best, run.numHeads)}, in layer ${layer} ` +
          `(previous-token score ${f2(previous[best])}).`;
    } } });
    // The previous-token chart gives the answer: hidden until the learner has checked one (once a head has formed).
    const answer = answerAfterCheck('every head’s previous-token score', previousChart);
    const exercise = el('section', { class: 'exercise', 'aria-label': 'Try this: where is the previous-token head?' },
      el('h2', { text: 'Try this: where is the previous-token head?' }),
      el('p', { text: 'Before you read the previous-token chart: once an induction head has formed in the two-layer model, which ' +
        'layer holds the head that looks one letter back? Think about which head’s output the induction head’s keys can read.' }),
      el('div', { class: 'controls' }, field('The previous-token head is in', guess), check), verdict);

    root.append(
      el('div', { class: 'controls' },
        field('Layers', select([[2, 'two'], [1, 'one']], state.layers, (layers) => ctx.set({ layers: Number(layers) }))),
        field('Position embedding', select([['learned', 'learned'], ['none', 'none']], state.positions, (positions) => ctx.set({ positions }))),
        seedField(state.seed, (seed) => ctx.set({ seed })),
        session.speedField()),
      controls.group, readout, phaseLine, controls.live,
      el('h2', { text: 'The loss on the repeated half' }), lossChart,
      el('h2', { text: 'Each head’s induction score' }), inductionChart,
      exercise,
      el('h2', { text: 'Each head’s previous-token score' }), ...answer.nodes,
      el('h2', { text: 'What the heads look at' }),
      el('p', { class: 'explain', text: 'Every head’s attention on one held-out example, redrawn as it trains. An induction head ' +
        'draws a stripe one step right of the diagonal, a segment’s length back; a previous-token head draws the line just ' +
        'below the diagonal.' }), maps);

    // Why this model can never form an induction head, or null when it can (then "not yet" is the honest word).
    function cannotForm() {
      if (state.layers === 1) {
        return 'No induction head can form in one layer: its keys would have to read “the letter before me”, which only a ' +
          'previous-token head in an earlier layer can write, and there is no earlier layer.';
      }
      if (state.positions === 'none') {
        return 'No induction head can form without the position embedding: attention alone cannot tell which letter came just ' +
          'before, so no head can become the previous-token head the induction head’s keys must read.';
      }
      return null;
    }

    // The untrained model from the run's seed, computed here: the page shows it at once.
    function fresh() {
      const model = makeModel(lab, { layers: state.layers, positions: state.positions === 'learned', seed: state.seed });
      try {
        const test = heldOut(model, state.seed);
        return { evaluations: [evaluation(model, test)], losses: [], attention: model.attentionWeights(test[0]).layers,
          tokens: Array.from(test[0].tokens, (id) => model.info.vocabulary[id]), numHeads: RECIPE.numHeads, announced: false };
      } finally {
        model.dispose();
      }
    }

    // run: { losses, evaluations, attention, tokens, numHeads, announced }
    function draw(run) {
      const last = run.evaluations.at(-1);
      const [step, loss, , induction] = last;
      const best = induction.indexOf(Math.max(...induction));
      readout.textContent = `Step ${step} · held-out loss ${formatNumber(loss, 3)} · highest induction score ` +
        `${f2(induction[best])} (${headName(best, run.numHeads)}) · ${{ idle: 'untrained', training: 'training…', stopped: 'paused',
          done: `stopped at ${MAX_STEPS} steps`, error: 'stopped by an error' }[controls.phase()]}`;
      readout.dataset.step = String(step);
      readout.dataset.loss = String(loss);
      const change = phaseChange(run.evaluations);
      phaseLine.textContent = change
        ? `Phase change at step ${change.step}: ${headName(change.head, run.numHeads)}’s induction score passed ${INDUCTION_THRESHOLD} ` +
          `(${f2(change.score)}), and the held-out loss went from ${formatNumber(change.lossBefore, 2)} at step ${change.stepBefore} ` +
          `to ${formatNumber(change.loss, 2)}.`
        : step > 0 ? cannotForm() ?? `No head’s induction score has passed ${INDUCTION_THRESHOLD} yet.` : '';
      phaseLine.dataset.step = change ? String(change.step) : '';
      const width = chartWidth(lossChart);
      lossChart.replaceChildren(lineChart([
        { name: 'training batch', points: run.losses },
        { name: `held-out (${HELD_OUT} examples)`, points: run.evaluations.map(([s, l]) => [s, l]) },
      ], { xLabel: 'training step', yLabel: 'loss (nats)', yDomain: [0, Math.ceil(Math.log(26))], width,
        title: 'Cross-entropy on the second copy’s letters against the step' }));
      inductionChart.replaceChildren(scoreChart(run.evaluations, 3, run.numHeads, width, 'Induction score of each head against the step'));
      previousChart.replaceChildren(scoreChart(run.evaluations, 2, run.numHeads, width, 'Previous-token score of each head against the step'));
      const count = run.attention.reduce((n, l) => n + l.length, 0);
      if (heads.length !== count) {
        heads = run.attention.flatMap((l, li) => l.map((_, h) => heatmap({ caption: `L${li}H${h}`, rowTitle: 'Query', colTitle: 'Key' })));
        maps.replaceChildren(...heads.map((h) => panel(null, h)));
      }
      run.attention.flat().forEach((m, i) => Object.assign(heads[i], { matrix: m, rowLabels: run.tokens, colLabels: run.tokens }));
    }
    function progress(run, message) {
      run.losses.push(...message.losses);
      run.evaluations.push(message.evaluation);
      run.attention = message.attention;
      const change = phaseChange(run.evaluations);
      if (change && !run.announced) {
        run.announced = true;
        controls.announce(`Phase change at step ${change.step}: an induction head has formed.`);
      }
      if (message.done) session.finish(`Stopped at step ${message.evaluation[0]}.`);
    }

    return () => session.restartOn(`${state.layers}|${state.positions}|${state.seed}`);
  },
});
