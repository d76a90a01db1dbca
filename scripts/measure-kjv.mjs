#!/usr/bin/env node
// Measures how attnlab-kjv (or attnlab-kjv-llama, or any folder of either's files) samples, through the
// npm package as a user would, with the definitions issue 30 states:
//   - loops: the share of 100 sixty-token samples in which some 4-gram of tokens occurs 3 or more times
//     (the same count on held-out KJV text, cut into sixty-token windows, is the reference);
//   - distinct-2: distinct word bigrams over all word bigrams of the samples (Li et al. 2016);
//   - KJV words: the share of generated words that occur in the King James Bible;
//   - first verses: teacher-forced next-token top-1 accuracy along the first verse of each of the 66
//     books (every position predicts the next token of the verse).
// Sampling: the site's defaults (temperature 0.8, top-k 40), seeds 0 … 99, attnlab-kjv's training config's
// four prompts in turn; each setting (no penalty, repetition penalties, a no-repeat n-gram size, greedy) is
// one row; the first four samples without a penalty (seeds 0–3, one per prompt) are printed whole. Needs the
// built package (scripts/build-wasm.sh) and Debian's bible-kjv (install-deps.sh).
//   node scripts/measure-kjv.mjs [MODEL_DIR] [--json OUT]      MODEL_DIR defaults to web/models/kjv; a folder
//                                                              with tokenizer.json is read as a Llama (loadModel)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loops } from '../site/src/loops.js';
import { init } from '../web/index.js';

const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonOut = jsonAt >= 0 ? args.splice(jsonAt, 2)[1] : null;
const dir = resolve(args[0] ?? 'web/models/kjv');
const REPO = fileURLToPath(new URL('..', import.meta.url));  // the model is named relative to it

const SAMPLES = 100;
const TOKENS = 60;
const BASE = { temperature: 0.8, topK: 40 };
const SETTINGS = [
  ['no penalty', {}],
  ['repetition penalty 1.1', { repetitionPenalty: 1.1 }],
  ['repetition penalty 1.2', { repetitionPenalty: 1.2 }],
  ['repetition penalty 1.3', { repetitionPenalty: 1.3 }],
  ['no repeated 3-gram', { noRepeatNgramSize: 3 }],
  ['greedy', { temperature: 0 }],
  ['greedy, repetition penalty 1.2', { temperature: 0, repetitionPenalty: 1.2 }],
];

// The folder's model and tokenizer, and how many tokens the model reads at once.
async function loadFolder(lab, folder) {
  if (existsSync(join(folder, 'tokenizer.json'))) {
    const files = Object.fromEntries(['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => [f, readFileSync(join(folder, f))]));
    const { model, tokenizer } = await lab.loadModel(files);
    return { model, tokenizer, context: JSON.parse(readFileSync(join(folder, 'training-config.json'), 'utf8')).model.context_length };
  }
  const model = await lab.loadGPT(readFileSync(join(folder, 'model.safetensors')));
  const tokenizer = await lab.loadTokenizer(readFileSync(join(folder, 'vocab.json'), 'utf8'), readFileSync(join(folder, 'merges.txt'), 'utf8'));
  return { model, tokenizer, context: model.config.contextLength };
}

const words = (text) => text.toLowerCase().match(/[a-z]+(?:'[a-z]+)?/g) ?? [];

async function main() {
  const lab = await init({ simd: true });
  const config = JSON.parse(readFileSync(join(dir, 'training-config.json'), 'utf8'));
  const { prompts: promptTexts } = JSON.parse(readFileSync(join(REPO, 'web/models/kjv/training-config.json'), 'utf8')).samples;
  const { model, tokenizer, context } = await loadFolder(lab, dir);
  const listing = execFileSync('bible', ['-f', 'Gen1:1-Rev22:21'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const verses = listing.split('\n').filter(Boolean).map((line) => {
    const space = line.indexOf(' ');
    return { reference: line.slice(0, space), text: line.slice(space + 1) };
  });
  const kjvWords = new Set(words(listing.replace(/^\S+ /gm, '')));

  // Held-out reference: the chapters training never saw (every nth), in sixty-token windows.
  const every = config.corpus.heldout_every_nth_chapter;
  const chapters = [];
  for (const v of verses) {
    const chapter = v.reference.slice(0, v.reference.indexOf(':'));
    if (chapters.at(-1)?.name !== chapter) chapters.push({ name: chapter, text: '' });
    chapters.at(-1).text += `${v.text}\n`;
  }
  const heldout = tokenizer.encode(chapters.filter((_, i) => (i + 1) % every === 0).map((c) => c.text).join('\n'));
  let windows = 0, looping = 0;
  for (let i = 0; i + TOKENS <= heldout.length; i += TOKENS, windows++) if (loops(Array.from(heldout.subarray(i, i + TOKENS)))) looping++;

  const prompts = promptTexts.map((p) => tokenizer.encode(p));
  const shown = [];  // the first sample of each prompt without a penalty, as markdown
  const rows = SETTINGS.map(([name, options]) => {
    let looped = 0, bigrams = 0, generatedWords = 0, known = 0;
    const distinct = new Set();
    const deterministic = options.temperature === 0;
    const count = deterministic ? prompts.length : SAMPLES;
    for (let s = 0; s < count; s++) {
      const { tokens } = model.generate(prompts[s % prompts.length], { ...BASE, ...options, maxTokens: TOKENS, seed: s });
      if (loops(Array.from(tokens))) looped++;
      if (name === SETTINGS[0][0] && s < prompts.length) shown.push(`> **${promptTexts[s]}**${tokenizer.decode(tokens).replace(/\n+/g, "\n> ")}`);
      const w = words(tokenizer.decode(tokens));
      generatedWords += w.length;
      known += w.filter((x) => kjvWords.has(x)).length;
      for (let i = 0; i + 1 < w.length; i++, bigrams++) distinct.add(`${w[i]} ${w[i + 1]}`);
    }
    return { setting: name, samples: count, loopShare: looped / count, distinct2: distinct.size / Math.max(1, bigrams),
             kjvWordShare: known / Math.max(1, generatedWords) };
  });

  // First verse of each book, teacher-forced.
  const firsts = verses.filter((v) => /^[1-3]?[A-Za-z]+1:1$/.test(v.reference));
  let right = 0, predicted = 0;
  for (const v of firsts) {
    const ids = tokenizer.encode(v.text).subarray(0, context);
    const { logits } = model.forward(ids);
    for (let t = 0; t + 1 < ids.length; t++, predicted++) {
      const row = logits.data.subarray(t * logits.cols, (t + 1) * logits.cols);
      let best = 0;
      for (let j = 1; j < row.length; j++) if (row[j] > row[best]) best = j;
      if (best === ids[t + 1]) right++;
    }
  }
  const result = { model: relative(REPO, dir), books: firsts.length, firstVerseTop1: right / predicted, heldoutLoopShare: looping / windows,
                   heldoutWindows: windows, settings: rows, samples: shown };
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  console.log(`model ${result.model}: first verses of ${firsts.length} books, top-1 ${pct(result.firstVerseTop1)} (teacher-forced, ${predicted} predictions)`);
  console.log(`held-out KJV, ${windows} sixty-token windows: ${pct(result.heldoutLoopShare)} loop`);
  console.log('| setting (T 0.8, top-k 40 unless greedy) | samples | loops | distinct-2 | KJV words |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.setting} | ${r.samples} | ${pct(r.loopShare)} | ${r.distinct2.toFixed(3)} | ${pct(r.kjvWordShare)} |`);
  console.log(`\nSamples (${SETTINGS[0][0]}, temperature ${BASE.temperature}, top-k ${BASE.topK}, seeds 0–${prompts.length - 1}, prompts in bold):\n`);
  console.log(shown.join('\n\n'));
  if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify(result, null, 2)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
