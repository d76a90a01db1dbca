// Watch it learn: the page trains the toy task model and draws each step's loss and every head's attention
// on a held-out example; computed here with the package for the first 10 steps.
export const states = [{}, { task: 'copy', seed: 1 }, { task: 'sentiment', seed: 5 }, { task: 'coreference' }];
export const prepare = (lab) => lab.loadTraining();

const LR = { copy: 3e-3, reverse: 3e-3, sort: 3e-3, coreference: 1e-3, sentiment: 1e-3 };

export async function expected(lab, state) {
  const model = new lab.TaskModel({ task: state.task, dModel: 32, numHeads: 2, layers: 1, lr: LR[state.task], seed: state.seed });
  const { train, test } = model.split(4000, 200, state.seed);
  const losses = Array.from({ length: 10 }, (_, step) => model.trainStep(train.slice(16 * step, 16 * step + 16)));
  // The page watches the first held-out example, for sentiment the first with "not" in it.
  const not = model.info.vocabulary.indexOf('not');
  const watched = (state.task === 'sentiment' && test.find((e) => Array.from(e.tokens).includes(not))) || test[0];
  const { layers } = model.attentionWeights(watched);
  model.dispose();
  return {
    'training loss of steps 1 to 10': losses,
    'attention on the watched example after 10 steps (head, query, key)': layers[0].flatMap((m) => Array.from(m.data)),
  };
}
