// Lesson 10: watch a small transformer learn a toy task. Training runs in a module Web Worker
// (./worker.js, started through the site's one Trusted Types policy: ../../worker-url.js) so the page keeps answering; the page draws the loss curve, the held-out
// accuracy and every head's attention on one held-out example as the worker reports them.
import { el, field, formatNumber, select } from '../../dom.js';
import { chartWidth, lineChart } from '../../line-chart.js';
import { lessonPage } from '../../page.js';
import {
  PREDICTED_EXAMPLES, TASK_SETTINGS, TASKS, TRANSLATION_EVALUATED, exampleToWatch, predictions, translationState,
} from './parts.js';
import { heatmap, panel, seedField } from '../../views.js';
import { trainingSession } from '../../training-run.js';
import { trainWorkerUrl } from '../../worker-url.js';
import pytorchSource from './program.py?raw';
import translateSource from './program-translate.py?raw';
import { PROGRAM } from './settings.js';

const TARGET = 0.95;
const LOSS_BUCKET = 10;  // the curve shows the mean training loss of each 10 steps
const MILESTONES = [0.5, 0.75, 0.9];

const LOOK_FOR = {
  copy: 'The model reads six digits, then <sep>, and must write them again. From <sep> on, each row (a query position) ' +
    'should put its weight on the digit it is about to copy, six positions earlier: a diagonal six cells left of the main ' +
    'one. Usually one head learns it; the other may look somewhere else.',
  reverse: 'Now the digits come back in reverse order, so the output after <sep> looks at the last digit, the next at the ' +
    'one before it, and so on: an anti-diagonal running from the top right down to the left.',
  sort: 'Sorting has no fixed diagonal: each output has to find the smallest digit not yet written, wherever it is. Watch ' +
    'the weights move from a blur to a few sharp cells per row. It takes several hundred steps.',
  coreference: 'Is “it” the animal or the street? Only the adjective at the end decides (tired → the animal, wide → the ' +
    'street). Look at the row and column of “it” and of the adjective: training builds the link between “it” and the noun it refers to.',
  sentiment: 'Positive or negative? The adjective carries the answer, and “not” flips it. Watch the weight gather on the ' +
    'adjective and on “not” (the example shown is a negated one).',
  translate: 'An encoder–decoder (2 + 2 layers, d_model 64, 4 heads: the cross-attention lesson’s translator, untrained) ' +
    'learns English → French from sentences of a small grammar, 32 new ones per step. Each map is one decoder head’s ' +
    'cross-attention on a held-out sentence: a row per French word it must write, a column per English word. At first ' +
    'the rows are a blur; as it learns, the head of the second layer puts each French word on the English word it ' +
    'translates — a diagonal that crosses where French moves the adjective after the noun. Accuracy here is per French ' +
    `word on ${TRANSLATION_EVALUATED} held-out sentences (teacher-forced); “examples entirely right” are exact greedy translations.`,
};

function lossCurve(losses, accuracies, width, batch) {
  // Means of LOSS_BUCKET steps keep the chart at a few dozen points however long training runs.
  const buckets = new Map();
  for (const [step, loss] of losses) {
    const end = step === 0 ? 0 : Math.ceil(step / LOSS_BUCKET) * LOSS_BUCKET;
    const b = buckets.get(end) ?? [0, 0];
    buckets.set(end, [b[0] + loss, b[1] + 1]);
  }
  const lossPoints = [...buckets].map(([step, [sum, n]]) => [step, sum / n]);
  const accuracyPoints = accuracies.map(([step, accuracy]) => [step, accuracy]);
  const top = Math.max(1, ...lossPoints.map((p) => p[1]));
  // Loss and accuracy on their own axes: nats on the left, the fraction correct (0 … 1) on the right.
  return lineChart([
    { name: `training loss (mean of ${LOSS_BUCKET} steps)`, points: lossPoints },
    { name: 'held-out accuracy (per token)', points: accuracyPoints, axis: 'right' },
  ], { xLabel: `training step (batches of ${batch})`, yLabel: 'loss (nats)', y2Label: 'accuracy (0–1)',
    yDomain: [0, Math.ceil(top * 2) / 2], y2Domain: [0, 1], width,
    title: 'Training loss (left axis) and held-out accuracy (right axis) against the step' });
}

const percent = (x) => `${(100 * x).toFixed(1)}%`;
const BATCH = 16;  // the toy tasks' batch (worker.js)

const translateCall = (state) => `const trainer = await lab.createTranslatorTrainer({ seed: ${state.seed} });\n` +
  'trainer.train(1, { batch: 32 });               // one AdamW step on 32 fresh pairs\n' +
  `trainer.evaluate(${TRANSLATION_EVALUATED});                       // { tokenAccuracy, exactMatch, alignment[layer][head] }\n` +
  'trainer.watch(0).crossAttention[1][2];        // French × English weights of a held-out sentence';
const finite = (layers) => layers.every((heads) => heads.every((m) => m.data.every(Number.isFinite)));

lessonPage({
  slug: 'watch-it-learn',
  training: true,  // fresh() below builds the untrained model on the page's thread too
  intro: [
    'Until now every weight was random: the attention patterns you saw were accidents of the seed. Here a small ' +
      'transformer is trained on a task, and you watch what its heads learn to look at.',
    'On the five toy tasks it is one layer with d_model 32 and 2 heads. Each step takes a batch of 16 examples, computes ' +
      'the cross-entropy between the model’s predictions and the right answers, backpropagates it through attention, and ' +
      'lets Adam nudge every weight. Every 10 steps the model is scored on 200 held-out examples it never trains on; ' +
      'training stops by itself at 95% held-out accuracy per token (the share of answer tokens predicted right; an ' +
      'example counts as right only when all of its tokens are, shown beside it as per-example accuracy).',
    'The translation task trains a bigger model: the cross-attention lesson’s encoder–decoder (2 + 2 layers, d_model 64, ' +
      '4 heads), untrained, on 32 fresh sentence pairs per step with AdamW. Every 10 steps it is scored on 50 of the ' +
      '100 sentences its trainer holds out, and it stops at the same 95%.',
  ],
  formula: String.raw`\begin{aligned}\mathcal{L} &= -\frac{1}{N}\sum_{i=1}^{N} \log \operatorname{softmax}(z_i)_{y_i} \\ \theta &\leftarrow \theta - \eta\,\frac{\hat m}{\sqrt{\hat v} + \epsilon}\\ \hat m, \hat v &= \text{bias-corrected running means}\\ &\phantom{{}={}}\text{of } \nabla_\theta\mathcal{L} \text{ and } (\nabla_\theta\mathcal{L})^2\end{aligned}`,
  // The learning rate quoted is the one the page trains the chosen task with; the translation task has a
  // program of its own (its model, AdamW and schedule), which starts from the page's fresh translator.
  pytorch: { source: pytorchSource, sources: { 'program-translate': translateSource }, ...PROGRAM },
  call: (state) => (TASK_SETTINGS[state.task].translator ? translateCall(state) : 'await lab.loadTraining();                 // the training module, loaded on demand\n' +
    `const model = new lab.TaskModel({ task: '${state.task}', dModel: 32, numHeads: 2, layers: 1, lr: ${TASK_SETTINGS[state.task].lr}, seed: ${state.seed} });\n` +
    `const { train, test } = model.split(${TASK_SETTINGS[state.task].trainCount}, ${TASK_SETTINGS[state.task].testCount}, ${state.seed});\n` +
    'for (let i = 0; model.evaluate(test).accuracy < 0.95; i += 16) {\n' +
    '  model.trainStep(train.slice(i, i + 16));   // forward, backward, Adam\n' +
    '}\n' +
    'model.attentionWeights(test[0]).layers[0];   // one n×n matrix per head'),
  schema: PROGRAM.schema,
  setup(ctx) {
    const { lab, state, root } = ctx;
    const readout = el('p', { class: 'readout', id: 'accuracy' });
    const session = trainingSession(ctx, {
      workerUrl: trainWorkerUrl, readout, fresh, draw, progress,
      start: () => ({ task: state.task, seed: state.seed }),
      words: { started: () => `Training on ${TASK_SETTINGS[state.task].label} started.`, paused: (run) => `Stopped at step ${run.step}.` },
    });
    const { controls } = session;
    const chart = el('div', { class: 'chart' });
    const lookFor = el('p', { class: 'explain' });
    const maps = el('div', { class: 'grid' });
    const predictionTable = el('table', { class: 'data predictions' });
    let heads = [];

    // The held-out examples' answers as the model gives them now (rewritten on every progress message).
    function drawPredictions(rows) {
      predictionTable.replaceChildren(
        el('caption', { text: `${rows.length} held-out examples the model never trains on, and what it answers at this step` }),
        el('tr', {}, ...['Input', 'Correct answer', 'Model’s answer', ''].map((t) => el('th', { scope: 'col', text: t }))),
        ...rows.map((r) => el('tr', { class: r.right ? 'right' : 'wrong' }, el('td', { text: r.input }), el('td', { text: r.answer }),
          el('td', { text: r.predicted }), el('td', { text: r.right ? '✓ right' : '✗ wrong' }))));
    }

    root.append(
      el('div', { class: 'controls' },
        field('Task', select(TASKS.map((t) => [t, TASK_SETTINGS[t].label]), state.task, (task) => ctx.set({ task }))),
        seedField(state.seed, (seed) => ctx.set({ seed })),
        session.speedField()),
      controls.group, readout, controls.live,
      el('h2', { text: 'Loss and accuracy' }), chart,
      el('h2', { text: 'What it predicts' }), el('div', { class: 'table-wrap' }, predictionTable),
      el('h2', { text: 'What the heads look at' }), lookFor, maps);

    // The untrained model, computed here from the same seed as the worker's: the page shows it at once.
    // The translator lives in its own module: its untrained view arrives once that has loaded.
    function fresh() {
      const settings = TASK_SETTINGS[state.task];
      if (settings.translator) return freshTranslation(settings);
      const model = new lab.TaskModel({ task: state.task, dModel: 32, numHeads: 2, layers: 1, lr: settings.lr, seed: state.seed });
      try {
        const { train: trainSet, test } = model.split(settings.trainCount, settings.testCount, state.seed);
        const watched = exampleToWatch(model.info, test);
        const { accuracy, sequenceAccuracy } = model.evaluate(test);
        const { loss } = model.evaluate(trainSet.slice(0, 200));
        return { info: model.info, tokens: Array.from(watched.tokens, (id) => model.info.vocabulary[id]),
          losses: [[0, loss]], accuracies: [[0, accuracy]], sequenceAccuracy, attention: model.attentionWeights(watched).layers, step: 0,
          predictions: predictions(model, test.slice(0, PREDICTED_EXAMPLES)), announced: new Set() };
      } finally {
        model.dispose();
      }
    }

    function freshTranslation(settings) {
      const pending = { info: { task: state.task, sequence: true }, batch: settings.batch, rowTokens: [], colTokens: [],
        losses: [], accuracies: [], sequenceAccuracy: 0, attention: [], step: 0, predictions: [], announced: new Set(), loading: true };
      lab.createTranslatorTrainer({ seed: state.seed }).then((trainer) => {
        try {
          if (session.run() !== pending || !pending.loading) return;  // reset meanwhile, or the worker has reported first
          const result = trainer.evaluate(TRANSLATION_EVALUATED);
          Object.assign(pending, translationState(trainer), { losses: [[0, result.loss]], accuracies: [[0, result.tokenAccuracy]],
            sequenceAccuracy: result.exactMatch, loading: false });
          session.queueDraw();
        } finally {
          trainer.dispose();
        }
      }, (error) => ctx.report(error));
      return pending;
    }

    // run: { info, tokens, losses, accuracies, attention, step, announced }
    function draw(run) {
      if (run.loading) {
        readout.textContent = 'Loading the encoder–decoder module…';
        return;
      }
      const layers = run.attention;
      const count = layers.reduce((n, l) => n + l.length, 0);
      if (heads.length !== count) {
        const translating = Boolean(run.colTokens);
        heads = layers.flatMap((l, li) => l.map((_, h) => heatmap({
          caption: layers.length > 1 ? `${translating ? 'Cross-attention, decoder layer' : 'Layer'} ${li}, head ${h}` : `Head ${h}`,
          rowTitle: translating ? 'French word to write (query)' : 'Query', colTitle: translating ? 'English word (key)' : 'Key' })));
        maps.replaceChildren(...heads.map((h) => panel(null, h)));
      }
      let i = 0;
      for (const l of layers) {
        for (const m of l) {
          const node = heads[i++];
          const rows = run.rowTokens ?? run.tokens, cols = run.colTokens ?? run.tokens;
          if (node.rowLabels !== rows || node.colLabels !== cols) {
            node.rowLabels = rows;
            node.colLabels = cols;
          }
          node.matrix = m;
        }
      }
      chart.replaceChildren(lossCurve(run.losses, run.accuracies, chartWidth(chart), run.batch ?? BATCH));
      drawPredictions(run.predictions);
      const [accStep, accuracy] = run.accuracies.at(-1);
      readout.dataset.accuracy = String(accuracy);
      readout.dataset.step = String(run.step);
      const what = { idle: 'untrained', training: 'training…', stopped: 'stopped', done: `reached ${percent(TARGET)}`, error: 'stopped by an error' }[controls.phase()];
      // Per token and per example: on a sequence task "95%" of the tokens can leave most examples wrong.
      const perExample = run.info.sequence ? ` per token, ${percent(run.sequenceAccuracy)} of examples entirely right` : '';
      readout.textContent = `Step ${run.step} · held-out accuracy ${percent(accuracy)}${perExample} (at step ${accStep}) · ` +
        `training loss ${formatNumber(run.losses.at(-1)[1], 3)} · ${what}`;
    }

    function progress(run, message) {
      if (!finite(message.attention) || !message.losses.every(([, loss]) => Number.isFinite(loss))) {
        session.fail(`Training stopped at step ${message.step}: the model produced a value that is not a finite number.`);
        return;
      }
      run.step = message.step;
      run.losses.push(...message.losses);
      run.attention = message.attention;
      if (message.rowTokens) Object.assign(run, { rowTokens: message.rowTokens, colTokens: message.colTokens, loading: false });
      if (message.predictions) run.predictions = message.predictions;  // the translation task sends them when it evaluates
      if (message.accuracy) {
        const [step, accuracy, , sequenceAccuracy] = message.accuracy;
        run.accuracies.push([step, accuracy]);
        run.sequenceAccuracy = sequenceAccuracy;
        for (const m of MILESTONES) {
          if (accuracy >= m && !run.announced.has(m)) {
            run.announced.add(m);
            controls.announce(`Held-out accuracy passed ${percent(m)} at step ${step}.`);
          }
        }
      }
      if (message.done) session.finish(`Reached ${percent(run.accuracies.at(-1)[1])} held-out accuracy after ${message.step} steps.`);
    }

    return () => {
      lookFor.textContent = LOOK_FOR[state.task];
      session.restartOn(`${state.task}|${state.seed}`);
    };
  },
});
