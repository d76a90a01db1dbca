// Watch it learn: the page trains the toy task model and draws each step's loss and every head's attention
// on a held-out example; computed here with the package for the first 10 steps. The translation task
// trains a fresh TranslatorTrainer (as the page's worker does) and shows every decoder head's
// cross-attention on held-out sentence 0.
export const states = [{}, { task: 'copy', seed: 1 }, { task: 'sentiment', seed: 5 }, { task: 'coreference' },
  { task: 'translate' }, { task: 'translate', seed: 11 }];
export const prepare = (lab) => lab.loadTraining();

const LR = { copy: 3e-3, reverse: 3e-3, sort: 3e-3, coreference: 1e-3, sentiment: 1e-3 };

// The trainer's losses against the program's: float32 summed in another order (each pair alone here, one
// padded batch in PyTorch) differs by a few ulps, inside the default tolerance (1e-5 of the largest loss).
// Ten warm-up steps cannot tell the weight decay apart (lr·0.01 ≤ 5e-7 of a weight per step): the core's
// AdamW is checked against torch.optim.AdamW on its own (tests/native/seq2seq_test.cpp, make_seq2seq_fixtures.py).
async function translation(lab, seed) {
  const trainer = await lab.createTranslatorTrainer({ seed });
  const losses = trainer.train(10, { batch: 32 });
  const { crossAttention } = trainer.watch(0);
  trainer.dispose();
  return {
    'training loss of steps 1 to 10': losses,
    'cross-attention on the watched sentence after 10 steps (layer, head, French, English)':
      crossAttention.flatMap((heads) => heads.flatMap((m) => Array.from(m.data))),
  };
}

export async function expected(lab, state) {
  if (state.task === 'translate') return translation(lab, state.seed);
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
