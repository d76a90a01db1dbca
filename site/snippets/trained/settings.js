// The trained-model lessons' PyTorch programs (site/snippets/trained/<slug>.py, each run after the model
// part gpt2_kjv.py), DOM-free: what each "# page setting" line gets from the lesson's state, in the
// program's units (the page keeps hundredths in its URL, the program the number itself). A lesson's
// pytorch field is { source, model, ...TRAINED_SNIPPETS[slug] }; tests/js/snippets-trained.test.js runs them.
import { MODEL_FILES } from './model-files.js';

// The program a learner copies: the model part, then the lesson's part as the page renders it.
export const wholeProgram = (model, lesson) => `${model.trimEnd()}\n\n\n${lesson.trimEnd()}\n`;

const hundredths = (v) => Number((v / 100).toFixed(2));

// "1.2,3.0" (the ablation lesson's URL) → [[1, 2], [3, 0]]; the program keeps the pairs inside its model.
export const headPairs = (text) => text.split(',').map((p) => p.split('.').map(Number))
  .filter(([l, h]) => Number.isInteger(l) && Number.isInteger(h) && l >= 0 && h >= 0).map(([l, h]) => [l, h]);

const withModel = (settings) => ({ settings, files: MODEL_FILES });

export const TRAINED_SNIPPETS = {
  tokens: withModel((s) => ({ text: s.text, piece: s.piece, step: s.step })),
  'next-token': withModel((s) => ({ prompt: s.prompt, temperature: s.temperature / 100, topK: s.topK, topP: s.topP / 100,
    penalty: hundredths(s.penalty), seed: s.seed })),
  'kv-cache': withModel((s) => ({ prompt: s.prompt, steps: s.steps, penalty: hundredths(s.penalty), seed: s.seed, layer: s.layer, head: s.head })),
  'all-heads': withModel((s) => ({ prompt: s.prompt, layer: s.layer, head: s.head })),
  'head-jobs': withModel((s) => ({ prompt: s.prompt, length: s.length, seed: s.seed, layer: s.layer, head: s.head })),
  ablation: withModel((s) => ({ prompt: s.prompt, heads: headPairs(s.heads), mode: s.mode, length: s.length, seed: s.seed })),
  'your-model': withModel(undefined),
  'logit-lens': withModel((s) => ({ prompt: s.prompt, position: s.position, target: s.target })),
  attribution: withModel((s) => ({ prompt: s.prompt, target: s.target, baseline: s.baseline, position: s.position })),
  patching: withModel((s) => ({ clean: s.clean, corrupted: s.corrupted, target: s.target, baseline: s.baseline, sender: [s.layer, s.head] })),
  'induction-circuit': withModel((s) => ({ length: s.length, seed: s.seed, mode: s.mode })),
};
