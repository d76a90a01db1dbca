// Watch it learn's PyTorch programs, DOM-free: the lesson's settings and the file the program reads.
// The toy tasks (program.py): the task model's starting weights (TaskModel.snapshot, named as the
// core names them), the first batches the page trains on, and the held-out example whose attention it
// shows. The translation task (program-translate.py): the fresh translator's weights
// (TranslatorTrainer.parameters, nn.Transformer's names), the sentence pairs of its first batches
// (upcomingBatches, read before training takes them) and the held-out sentence the page watches.
import { batchAt, TASK_SETTINGS, TASKS, toyTaskModel } from './parts.js';

export const STEPS = 10;  // the training steps the program takes: the loss curve's first point

// The core's parameter list (snapshot order) as PyTorch names and shapes.
function parameterShapes(info) {
  const d = 32, ff = 64, vocab = info.vocabulary.length;
  const attention = (prefix) => ['q', 'k', 'v', 'out'].flatMap((p) => [[`${prefix}.${p}_proj.weight`, [d, d]], [`${prefix}.${p}_proj.bias`, [d]]]);
  const norm = (name) => [[`${name}.weight`, [d]], [`${name}.bias`, [d]]];
  if (!info.sequence) {
    return [['embedding.weight', [vocab, d]], ...attention('attention'), ...norm('norm'),
      ['classifier.weight', [info.classNames.length, d]], ['classifier.bias', [info.classNames.length]]];
  }
  return [['embedding.weight', [vocab, d]], ['positions.weight', [info.seqLen, d]], ...attention('layers.0.self_attn'),
    ['layers.0.linear1.weight', [ff, d]], ['layers.0.linear1.bias', [ff]], ['layers.0.linear2.weight', [d, ff]], ['layers.0.linear2.bias', [d]],
    ...norm('layers.0.norm1'), ...norm('layers.0.norm2'), ...norm('norm'), ['head.weight', [vocab, d]], ['head.bias', [vocab]]];
}

// Examples as two float tensors (ids and targets are small whole numbers, exact in float32).
const stacked = (examples, field) => ({
  shape: [examples.length, examples[0][field].length],
  data: Float32Array.from(examples.flatMap((e) => Array.from(e[field]))),
});

// Sentence pairs of different lengths as one float tensor, each row padded with id 0 (the grammar's
// <pad>, never a word), as PyTorch's translation tutorial pads a batch.
function padded(rows) {
  const width = Math.max(...rows.map((r) => r.length));
  const data = new Float32Array(rows.length * width);
  rows.forEach((r, i) => data.set(r, i * width));
  return { shape: [rows.length, width], data };
}

// The translation task's file for `seed`: a fresh trainer as the page's worker makes it, read before it
// takes a step (its module loads on demand, hence a Promise).
async function translationTensors(lab, seed) {
  const trainer = await lab.createTranslatorTrainer({ seed });
  try {
    const pairs = trainer.upcomingBatches(STEPS, { batch: TASK_SETTINGS.translate.batch }).flat();
    const watched = trainer.watch(0);
    return { ...trainer.parameters(), batch_source: padded(pairs.map((p) => p.source)),
      batch_target: padded(pairs.map((p) => p.target)), batch_targets: padded(pairs.map((p) => p.targets)),
      watched_source: padded([watched.source]), watched_target: padded([watched.target]) };
  } finally {
    trainer.dispose();
  }
}

export const PROGRAM = {
  schema: {
    task: { type: 'enum', values: TASKS, default: 'sort' },  // several hundred steps: time to watch the heads form
    seed: { type: 'int', min: 0, max: 999999, default: 3 },
    speed: { type: 'enum', values: ['watch', 'full'], default: 'watch' },
  },
  // The translation task shows its own program (the lesson imports both): its file carries everything
  // that differs between seeds, so it has no page settings.
  programFor: (state) => (TASK_SETTINGS[state.task].translator ? 'program-translate' : undefined),
  settings: (state) => (TASK_SETTINGS[state.task].translator ? {} : { task: state.task, lr: TASK_SETTINGS[state.task].lr }),
  file: 'attnlab-watch-it-learn.safetensors',
  tensors(lab, state) {
    if (TASK_SETTINGS[state.task].translator) return translationTensors(lab, state.seed);
    const { model, train, watched } = toyTaskModel(lab, state.task, state.seed);
    try {
      const shapes = parameterShapes(model.info);
      const { parameters } = model.snapshot();
      if (parameters.length !== shapes.length) throw new Error(`the model has ${parameters.length} parameters, the program names ${shapes.length}`);
      const named = Object.fromEntries(shapes.map(([name, shape], i) => {
        if (parameters[i].length !== shape.reduce((a, b) => a * b, 1)) throw new Error(`${name} holds ${parameters[i].length} numbers, not (${shape})`);
        return [name, { shape, data: parameters[i] }];
      }));
      const batches = Array.from({ length: STEPS }, (_, step) => batchAt(train, step)).flat();
      return { ...named, batch_tokens: stacked(batches, 'tokens'), batch_targets: stacked(batches, 'targets'),
        watched_tokens: stacked([watched], 'tokens') };
    } finally {
      model.dispose();
    }
  },
};
