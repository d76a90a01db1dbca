// The exercises' PyTorch program (program.py), DOM-free: the lesson's settings and the file the program
// reads, the page's X (two decimals, as the page prints it; site/src/lessons/exercises/parts.js).
import { exerciseSet } from './parts.js';

export const PROGRAM = {
  schema: { seed: { type: 'int', min: 0, max: 999999, default: 3 } },
  file: 'attnlab-exercises.safetensors',
  tensors: (lab, state) => ({ x: exerciseSet(lab, state.seed).x }),
};
