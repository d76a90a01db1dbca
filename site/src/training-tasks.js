// The "Watch it learn" tasks, shared by the lesson page and its training worker: the learning rate each
// needs (the tutorials' 1e-3 for the classifiers; the small causal transformer learns faster at 3e-3),
// the data sizes, and the one held-out example whose attention the page shows.
export const TASK_SETTINGS = {
  copy: { label: 'copy', lr: 3e-3, trainCount: 4000, testCount: 200 },
  reverse: { label: 'reverse', lr: 3e-3, trainCount: 4000, testCount: 200 },
  sort: { label: 'sort', lr: 3e-3, trainCount: 4000, testCount: 200 },
  coreference: { label: 'what does “it” refer to', lr: 1e-3, trainCount: 4000, testCount: 200 },
  sentiment: { label: 'sentiment', lr: 1e-3, trainCount: 4000, testCount: 200 },
};

export const TASKS = Object.keys(TASK_SETTINGS);

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
