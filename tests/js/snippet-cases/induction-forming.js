// Watch induction heads form: the page trains the attention-only model on fresh batches and reads each head's
// previous-token and induction scores and the held-out loss; computed here with the package for the first
// 10 steps, for both layer counts, with and without the position embedding.
export const states = [{}, { layers: 1, seed: 4 }, { positions: 'none', seed: 9 }];
export const prepare = (lab) => lab.loadTraining();

export async function expected(lab, state) {
  const model = new lab.TaskModel({ task: 'repeat', layers: state.layers, positions: state.positions === 'learned', dModel: 32,
    numHeads: 1, dFF: 0, lr: 5e-3, seed: state.seed });
  const losses = Array.from({ length: 10 }, (_, step) => model.trainStep(model.examples(16, state.seed + 1 + step)));
  const test = model.examples(64, state.seed);
  const { loss } = model.evaluate(test);
  const { previousToken, induction } = model.inductionScores(test);
  model.dispose();
  return {
    'training loss of steps 1 to 10': losses,
    'held-out loss after 10 steps': [loss],
    'previous-token score of each head (layer, head)': previousToken,
    'induction score of each head (layer, head)': induction,
  };
}
