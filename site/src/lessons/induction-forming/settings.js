// "Watch induction heads form"'s PyTorch program (program.py), DOM-free: the lesson's settings
// and the file the program reads: the model's starting weights (TaskModel.snapshot, named as the core
// names them), the first STEPS batches the page trains on and the held-out examples its scores are read on.
import { BATCH, batchAt, EVALUATE_EVERY, heldOut, makeModel, RECIPE } from './parts.js';

// The training steps the program takes: the page's first evaluation after the untrained one (the worker
// evaluates every EVALUATE_EVERY steps), so what the program prints is a step the page shows.
export const STEPS = EVALUATE_EVERY;

// The core's parameter list (snapshot order) as PyTorch names and shapes: attention-only layers.
function parameterShapes({ vocabulary, seqLen }, { layers, positions }) {
  const d = RECIPE.dModel, vocab = vocabulary.length;
  const layer = (i) => [
    ...['q', 'k', 'v', 'out'].flatMap((p) => [[`layers.${i}.self_attn.${p}_proj.weight`, [d, d]], [`layers.${i}.self_attn.${p}_proj.bias`, [d]]]),
    [`layers.${i}.norm1.weight`, [d]], [`layers.${i}.norm1.bias`, [d]]];
  return [['embedding.weight', [vocab, d]], ...(positions ? [['positions.weight', [seqLen, d]]] : []),
    ...Array.from({ length: layers }, (_, i) => layer(i)).flat(),
    ['norm.weight', [d]], ['norm.bias', [d]], ['head.weight', [vocab, d]], ['head.bias', [vocab]]];
}

// Examples as two float tensors (ids and targets are small whole numbers, exact in float32).
const stacked = (examples, field) => ({
  shape: [examples.length, examples[0][field].length],
  data: Float32Array.from(examples.flatMap((e) => Array.from(e[field]))),
});

export const PROGRAM = {
  schema: {
    layers: { type: 'int', min: 1, max: 2, default: 2 },
    positions: { type: 'enum', values: ['learned', 'none'], default: 'learned' },
    seed: { type: 'int', min: 0, max: 999999, default: 0 },
    speed: { type: 'enum', values: ['watch', 'full'], default: 'watch' },
  },
  settings: (state) => ({ layers: state.layers, positions: state.positions === 'learned', lr: RECIPE.lr, heads: RECIPE.numHeads, steps: STEPS }),
  file: 'attnlab-induction-heads.safetensors',
  tensors(lab, state) {
    const choices = { layers: state.layers, positions: state.positions === 'learned' };
    const model = makeModel(lab, { ...choices, seed: state.seed });
    try {
      const shapes = parameterShapes(model.info, choices);
      const { parameters } = model.snapshot();
      if (parameters.length !== shapes.length) throw new Error(`the model has ${parameters.length} parameters, the program names ${shapes.length}`);
      const named = Object.fromEntries(shapes.map(([name, shape], i) => {
        if (parameters[i].length !== shape.reduce((a, b) => a * b, 1)) throw new Error(`${name} holds ${parameters[i].length} numbers, not (${shape})`);
        return [name, { shape, data: parameters[i] }];
      }));
      const batches = Array.from({ length: STEPS }, (_, step) => batchAt(model, state.seed, step)).flat();
      const test = heldOut(model, state.seed);
      if (batches.length !== STEPS * BATCH) throw new Error('a batch came short');
      return { ...named, batch_tokens: stacked(batches, 'tokens'), batch_targets: stacked(batches, 'targets'),
        held_out_tokens: stacked(test, 'tokens'), held_out_targets: stacked(test, 'targets') };
    } finally {
      model.dispose();
    }
  },
};
