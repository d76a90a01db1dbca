// What the trained-model lessons' PyTorch programs share, DOM-free: each lesson's program
// (site/src/lessons/<slug>/program.py) runs after the model part gpt2_kjv.py beside attnlab-kjv's files
// (model-files.js), and its settings.js exports PROGRAM = gptProgram(settings): what each "# page setting"
// line gets from the lesson's state, in the program's units (the page keeps hundredths in its URL, the
// program the number itself). A lesson's pytorch field is { source, model, ...PROGRAM };
// tests/js/snippets-trained.test.js runs them.
import { MODEL_FILES } from './model-files.js';

// The program a learner copies: the model part, then the lesson's part as the page renders it.
export const wholeProgram = (model, lesson) => `${model.trimEnd()}\n\n\n${lesson.trimEnd()}\n`;

// A URL's hundredths (a penalty of 130) as the program's number (1.3).
export const hundredths = (v) => Number((v / 100).toFixed(2));

// A trained-model lesson's program: its settings(state), reading attnlab-kjv's files.
export const gptProgram = (settings) => ({ settings, files: MODEL_FILES });
