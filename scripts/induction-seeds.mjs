#!/usr/bin/env node
// Which seeds form an induction head in "Watch induction heads form", trained as the lesson's worker
// trains it (site/src/lessons/induction-forming/parts.js: the same model, batches, held-out examples and evaluations),
// in the SIMD training module in Node. For each seed of the two-layer model with the position
// embedding: the step of the phase change (the first evaluation where some head's induction score
// passes 0.5) or none within the lesson's MAX_STEPS, the held-out loss there, and the best induction
// score reached. The lesson quotes scripts/induction-seeds.json (site/quoted-figures.js).
//   node scripts/induction-seeds.mjs [seeds=10]     (about half a minute per seed without a phase change)
import { writeFileSync } from 'node:fs';

import { init } from '../web/index.js';
import { batchAt, EVALUATE_EVERY, evaluation, heldOut, makeModel, MAX_STEPS, phaseChange } from '../site/src/lessons/induction-forming/parts.js';

const seeds = Number(process.argv[2] ?? 10);
const training = await (await init({ simd: true })).loadTraining();
const runs = [];
for (let seed = 0; seed < seeds; seed++) {
  const model = makeModel(training, { layers: 2, positions: true, seed });
  try {
    const test = heldOut(model, seed);
    const evaluations = [evaluation(model, test)];
    while (model.steps < MAX_STEPS && !phaseChange(evaluations)) {
      model.trainStep(batchAt(model, seed, model.steps));
      if (model.steps % EVALUATE_EVERY === 0) evaluations.push(evaluation(model, test));
    }
    const change = phaseChange(evaluations);
    const [step, loss, , induction] = evaluations.at(-1);
    const run = { seed, phaseChange: change ? change.step : null, step, loss, bestInduction: Math.max(...induction) };
    runs.push(run);
    console.log(JSON.stringify(run));
  } finally {
    model.dispose();
  }
}
const out = new URL('../scripts/induction-seeds.json', import.meta.url);
writeFileSync(out, `${JSON.stringify({ script: 'scripts/induction-seeds.mjs', layers: 2, positions: true, maxSteps: MAX_STEPS, runs }, null, 1)}\n`);
console.log(`wrote ${out.pathname}`);
