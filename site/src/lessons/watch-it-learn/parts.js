// The "Watch it learn" tasks, shared by the lesson page and its training worker: the learning rate each
// needs (the tutorials' 1e-3 for the classifiers; the small causal transformer learns faster at 3e-3),
// the data sizes, and the one held-out example whose attention the page shows.
export const TASK_SETTINGS = {
  copy: { label: 'copy', lr: 3e-3, trainCount: 4000, testCount: 200 },
  reverse: { label: 'reverse', lr: 3e-3, trainCount: 4000, testCount: 200 },
  sort: { label: 'sort', lr: 3e-3, trainCount: 4000, testCount: 200 },
  coreference: { label: 'what does “it” refer to', lr: 1e-3, trainCount: 4000, testCount: 200 },
  sentiment: { label: 'sentiment', lr: 1e-3, trainCount: 4000, testCount: 200 },
  // An encoder–decoder (the cross-attention lesson's translator, untrained): its own trainer
  // (lab.createTranslatorTrainer), fresh grammar sentences every batch; the trainer holds 100 held-out
  // sentences, of which the page scores the first TRANSLATION_EVALUATED.
  translate: { label: 'translate English → French (encoder–decoder)', lr: 1e-3, batch: 32, translator: true },
};

export const TASKS = Object.keys(TASK_SETTINGS);

// The toy tasks' model as the page trains it (one layer, d_model 32, 2 heads, the task's learning rate),
// its data and the held-out example it watches: the training worker trains it, and the lesson's PyTorch
// program starts from the same weights and batches (site/src/lessons/watch-it-learn/settings.js).
export const BATCH = 16;
export function toyTaskModel(lab, task, seed) {
  const settings = TASK_SETTINGS[task];
  const model = new lab.TaskModel({ task, dModel: 32, numHeads: 2, layers: 1, lr: settings.lr, seed });
  const { train, test } = model.split(settings.trainCount, settings.testCount, seed);
  return { model, train, test, watched: exampleToWatch(model.info, test) };
}

// The batch of training step `step` (from 0): the training set walked in order, wrapping around (an
// epoch ≈ 250 steps).
export function batchAt(train, step) {
  const start = (step * BATCH) % (train.length - BATCH + 1);
  return train.slice(start, start + BATCH);
}

// The first held-out example, except for sentiment: the first with "not" in it, so its head can show
// the weight on the negation as well as on the adjective.
export function exampleToWatch(info, test) {
  if (info.task === 'sentiment') {
    const not = info.vocabulary.indexOf('not');
    const negated = test.find((e) => Array.from(e.tokens).includes(not));
    if (negated) return negated;
  }
  return test[0];
}

export const PREDICTED_EXAMPLES = 4;  // held-out examples whose predictions the page shows as it trains

// What the model answers on held-out examples: [{ input, answer, predicted, right }] (texts). Sequence
// tasks are read teacher-forced, as they are trained: each answer position sees the true tokens before it.
export function predictions(model, examples) {
  const { vocabulary, classNames, sequence } = model.info;
  const argmax = (data, from, count) => {
    let best = 0;
    for (let j = 1; j < count; j++) if (data[from + j] > data[from + best]) best = j;
    return best;
  };
  const words = (ids) => ids.filter((id) => id !== 0).map((id) => vocabulary[id]).join(' ');  // id 0 is <pad>
  return examples.map((example) => {
    const { logits } = model.attentionWeights(example);
    const tokens = Array.from(example.tokens), targets = Array.from(example.targets);
    if (!sequence) {
      const predicted = argmax(logits.data, 0, logits.cols);
      return { input: words(tokens), answer: classNames[targets[0]], predicted: classNames[predicted], right: predicted === targets[0] };
    }
    const scored = targets.flatMap((t, i) => (t >= 0 ? [i] : []));
    const answer = scored.map((i) => targets[i]);
    const predicted = scored.map((i) => argmax(logits.data, i * logits.cols, logits.cols));
    return { input: words(tokens.slice(0, scored[0])), answer: words(answer), predicted: words(predicted),
      right: predicted.every((id, k) => id === answer[k]) };
  });
}

// The translation task's view of a TranslatorTrainer: held-out sentence 0's cross-attention (rows: the
// French words to write, columns: the English words) and, with { predictions: true }, a few held-out
// translations (each a greedy decode: the worker asks for them only when it evaluates, not every step).
export const TRANSLATION_EVALUATED = 50;  // held-out sentences scored at each evaluation
export function translationState(trainer, { predictions = true } = {}) {
  const watched = trainer.watch(0);
  const shown = predictions ? [watched, ...Array.from({ length: PREDICTED_EXAMPLES - 1 }, (_, i) => trainer.watch(i + 1))] : null;
  return {
    rowTokens: [...watched.french, '</s>'].map((w) => `→ ${w}`),  // row i writes word i; the last, the end
    colTokens: watched.english,
    attention: watched.crossAttention,
    predictions: shown?.map((w) => ({ input: w.english.join(' '), answer: w.french.join(' '), predicted: w.translation.join(' '),
      right: w.translation.join(' ') === w.french.join(' ') })),
  };
}
