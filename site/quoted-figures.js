// The numbers the site's prose quotes rather than computes: each with the words it stands in, the page
// that says it, where it was measured, and (where the source is a committed file) how to read it back,
// so tests/js/site-prose.test.js can check that the prose still says what the source says. Every other
// number in the prose is computed in the page or is notation (tests/js/prose-numbers.js says which).
//
// An entry: { file, quote, source, measured?, compare? }. quote is the text as the prose writes it
// (its numbers are the figures, in order); measured({ read, json, size }) gives the source's values in
// the same order (read: a committed file's text, json: parsed, size: its bytes); compare per figure:
// 'equal' (the default), 'about' (within half a unit of the figure's last written digit) or 'below'
// (the source's value is under the figure, "fewer than one in ten"). An entry without measured quotes
// a publication.
const number = (text, pattern) => {
  const match = pattern.exec(text);
  if (!match) throw new Error(`no match for ${pattern}`);
  return Number(match[1]);
};
const kjvConfig = ({ json }) => json('web/models/kjv/training-config.json');
const kjvMeasured = ({ json }) => json('cpp/train/runs/kjv-3/measurements.json');
const loopShare = (m, setting) => m.settings.find((s) => s.setting === setting).loopShare;
const translatorConfig = ({ json }) => json('web/models/translator/vocab.json').config;
// The lesson's training code: its worker and the task settings it shares with the page.
const trainingCode = ({ read }) => read('site/src/lessons/watch-it-learn/worker.js') + read('site/src/lessons/watch-it-learn/parts.js');
const worker = (files, name) => number(trainingCode(files), new RegExp(`const ${name} = ([\\d.]+)`));
// The sentences of the "it" task: the animals, places, objects and containers, and every adjective.
const referentWords = ({ json }) => {
  const { frames } = json('web/models/referent/sentences.json');
  const [cross, , fit] = frames;
  const adjectives = new Set(frames.flatMap((f) => [...f.first_adjectives, ...f.second_adjectives]));
  return [cross.first_nouns.length, cross.second_nouns.length, fit.first_nouns.length, fit.second_nouns.length, adjectives.size];
};
// The seed study written down in the recipe of the "it" model.
const referentStudy = ({ read }) => {
  const text = read('cpp/train/train_referent.cpp');
  const shares = /seeds 1–5 \(held-out share of the\s*\/\/ named head at \d+ steps: ([\d., ]+);/.exec(text)[1].split(',').map(Number);
  return { seeds: shares.length, low: Math.min(...shares), high: Math.max(...shares), all: /Every run answered 100% of the/.test(text) ? 1 : 0 };
};

export const QUOTED_FIGURES = [
  // The home page: the tolerances of the tests that compare attnlab with PyTorch's own numbers.
  { file: 'site/src/home.js', quote: 'attention’s weights and outputs to within 1e-5',
    source: 'tests/js/helpers.js: assertClose’s default tolerance (|a − e| ≤ 1e-5 + 1e-5·|e|), which tests/js/fixtures.test.js ' +
      'applies to scaled dot-product and multi-head attention against the PyTorch fixtures',
    measured: ({ read }) => [number(read('tests/js/helpers.js'), /atol = ([\d.e-]+)/)] },
  { file: 'site/src/home.js', quote: 'a trained GPT’s logits to within 1e-4',
    source: 'tests/js/gpt-fixtures.test.js: the GPT’s logits against PyTorch’s forward on the same weights',
    measured: ({ read }) => [number(read('tests/js/gpt-fixtures.test.js'), /assertClose\(out\.logits, [^;]*?atol: ([\d.e-]+)/)] },

  { file: 'site/src/lessons/cross-attention/lesson.js', quote: '77 English and 117 French words',
    source: 'web/models/translator/vocab.json: the source and target vocabularies less <pad>, <s>, </s> and <unk>',
    measured: ({ json }) => { const v = json('web/models/translator/vocab.json'); return [v.source.length - 4, v.target.length - 4]; } },

  { file: 'site/src/lessons/encoder/lesson.js', quote: 'd_model 64, 4 heads, d_ff 256',
    source: 'site/src/lessons/encoder/settings.js: CONFIG, the layer the page builds',
    measured: ({ read }) => { const t = read('site/src/lessons/encoder/settings.js'); return [/dModel: (\d+)/, /numHeads: (\d+)/, /dFF: (\d+)/].map((p) => number(t, p)); } },
  { file: 'site/src/lessons/encoder/lesson.js', quote: 'BERT-base stacks 12 such layers and BERT-large 24',
    source: 'Devlin et al. 2019, “BERT”, section 3: BERT-base L = 12, BERT-large L = 24' },
  { file: 'site/src/lessons/encoder/lesson.js', quote: 'GPT-3’s 96 layers',
    source: 'Brown et al. 2020, “Language Models are Few-Shot Learners”, table 2.1: GPT-3 175B, n_layers = 96' },

  { file: 'site/src/lessons/head-jobs/lesson.js', quote: 'within the 128 tokens',
    source: 'web/models/kjv/training-config.json: model.context_length',
    measured: (files) => [kjvConfig(files).model.context_length] },
  { file: 'site/src/lessons/head-jobs/lesson.js', quote: '30% of the windows for the first 6,000 of its 20,000 steps, falling to 8%',
    source: 'web/models/kjv/training-config.json: repeat_fraction until repeat_decay_start of schedule_steps, then down to ' +
      'repeat_fraction_final (cpp/train/train_kjv.cpp, repeat_fraction_at)',
    measured: (files) => {
      const { training: t } = kjvConfig(files);
      return [t.repeat_fraction, t.repeat_decay_start * t.schedule_steps, t.steps, t.repeat_fraction_final];
    } },

  { file: 'site/src/lessons/it-sentence/lesson.js', quote: '20 animals, 16 places, 16 objects, 14 containers and 22 adjectives',
    source: 'web/models/referent/sentences.json: the nouns of the frames “cross” and “fit”, and every adjective',
    measured: referentWords },
  { file: 'site/src/lessons/it-sentence/lesson.js', quote: 'Both reach 100% accuracy',
    source: 'cpp/train/train_referent.cpp: the seed study in its header comment', measured: (files) => [referentStudy(files).all] },
  { file: 'site/src/lessons/it-sentence/lesson.js', quote: '(1–5, same recipe) the best head’s held-out share ranged from 50% to 97%',
    source: 'cpp/train/train_referent.cpp: the seed study in its header comment',
    measured: (files) => { const s = referentStudy(files); return [s.seeds, s.low, s.high]; } },

  { file: 'site/src/lessons/kv-cache/lesson.js', quote: 'temperature 0.8, top-k 40',
    source: 'site/src/lessons/kv-cache/parts.js: SAMPLING, the draws of the page',
    measured: ({ read }) => { const t = read('site/src/lessons/kv-cache/parts.js'); return [number(t, /temperature: ([\d.]+)/), number(t, /topK: (\d+)/)]; } },
  { file: 'site/src/lessons/kv-cache/lesson.js', quote: 'two samples in five',
    source: 'cpp/train/runs/kjv-3/measurements.json (scripts/measure-kjv.mjs): loop share with no penalty',
    measured: (files) => [loopShare(kjvMeasured(files), 'no penalty')] },
  { file: 'site/src/lessons/kv-cache/lesson.js', quote: '1.2 in fewer than one in ten',
    source: 'site/src/lessons/kv-cache/parts.js: DEFAULT_REPETITION_PENALTY; cpp/train/runs/kjv-3/measurements.json: its loop share',
    measured: (files) => [number(files.read('site/src/lessons/kv-cache/parts.js'), /DEFAULT_REPETITION_PENALTY = ([\d.]+)/),
      loopShare(kjvMeasured(files), 'repetition penalty 1.2')],
    compare: ['equal', 'below'] },
  { file: 'site/src/lessons/kv-cache/lesson.js', quote: '100 samples of 60 tokens per setting',
    source: 'cpp/train/runs/kjv-3/measurements.json: samples per setting; site/src/lessons/kv-cache/parts.js: SAMPLE_TOKENS',
    measured: (files) => [kjvMeasured(files).settings.find((s) => s.setting === 'no penalty').samples,
      number(files.read('site/src/lessons/kv-cache/parts.js'), /SAMPLE_TOKENS = (\d+)/)] },
  { file: 'site/src/lessons/kv-cache/lesson.js', quote: 'about 3.5 windows in a hundred',
    source: 'cpp/train/runs/kjv-3/measurements.json: heldoutLoopShare, the held-out text’s sixty-token windows that loop',
    measured: (files) => [100 * kjvMeasured(files).heldoutLoopShare], compare: ['about'] },
  { file: 'site/src/lessons/kv-cache/repeats-section.js', quote: 'about 3.5 windows in 100',
    source: 'cpp/train/runs/kjv-3/measurements.json: heldoutLoopShare',
    measured: (files) => [100 * kjvMeasured(files).heldoutLoopShare, 100], compare: ['about', 'equal'] },
  { file: 'site/src/lessons/kv-cache/repeats-section.js', quote: 'a 4-gram of tokens',
    source: 'site/src/loops.js: the definition of a loop',
    measured: ({ read }) => [number(read('site/src/loops.js'), /i \+ (\d+) <= ids\.length/)] },

  { file: 'site/src/lessons/masking/lesson.js', quote: 'from 0 to 32',
    source: 'site/src/lessons/masking/lesson.js: the largest number of real tokens the control takes',
    measured: ({ read }) => [number(read('site/src/lessons/masking/lesson.js'), /Math\.min\((\d+), Math\.trunc/)] },

  { file: 'site/src/lessons/scaling/lesson.js', quote: '200 independent draws',
    source: 'site/src/lessons/scaling/settings.js: DRAWS', measured: ({ read }) => [number(read('site/src/lessons/scaling/settings.js'), /DRAWS = (\d+)/)] },

  { file: 'site/src/lessons/tokens/lesson.js', quote: '256 bytes',
    source: 'a byte has 2⁸ values: byte-level BPE starts from one token per byte', measured: () => [2 ** 8] },

  { file: 'site/src/lessons/multi-head/trained-heads-section.js', quote: 'about 5 MB',
    source: 'web/models/kjv/model.safetensors: its size', measured: ({ size }) => [size('web/models/kjv/model.safetensors') / 1e6],
    compare: ['about'] },

  // Watch it learn: the toy tasks' model and schedule (site/src/lessons/watch-it-learn/worker.js) and the translator's.
  { file: 'site/src/lessons/watch-it-learn/lesson.js', quote: 'one layer with d_model 32 and 2 heads',
    source: 'site/src/lessons/watch-it-learn/worker.js, site/src/lessons/watch-it-learn/parts.js: the TaskModel the worker trains',
    measured: (files) => { const t = trainingCode(files); return [number(t, /new lab\.TaskModel\(\{[^}]*dModel: (\d+)/), number(t, /new lab\.TaskModel\(\{[^}]*numHeads: (\d+)/)]; } },
  { file: 'site/src/lessons/watch-it-learn/lesson.js', quote: 'a batch of 16 examples',
    source: 'site/src/lessons/watch-it-learn/worker.js or site/src/lessons/watch-it-learn/parts.js: BATCH', measured: (files) => [worker(files, 'BATCH')] },
  { file: 'site/src/lessons/watch-it-learn/lesson.js', quote: 'Every 10 steps the model is scored on 200 held-out examples',
    source: 'site/src/lessons/watch-it-learn/worker.js: EVALUATE_EVERY; site/src/lessons/watch-it-learn/parts.js: testCount',
    measured: (files) => [worker(files, 'EVALUATE_EVERY'), number(files.read('site/src/lessons/watch-it-learn/parts.js'), /sort: \{[^}]*testCount: (\d+)/)] },
  { file: 'site/src/lessons/watch-it-learn/lesson.js', quote: 'at 95% held-out accuracy',
    source: 'site/src/lessons/watch-it-learn/worker.js: TARGET', measured: (files) => [worker(files, 'TARGET')] },
  { file: 'site/src/lessons/watch-it-learn/lesson.js', quote: '2 + 2 layers, d_model 64, 4 heads',
    source: 'web/models/translator/vocab.json: the translator’s config, which the trainer builds untrained',
    measured: (files) => { const c = translatorConfig(files); return [c.num_encoder_layers, c.num_decoder_layers, c.d_model, c.num_heads]; } },
  { file: 'site/src/lessons/watch-it-learn/lesson.js', quote: 'on 32 fresh sentence pairs per step',
    source: 'site/src/lessons/watch-it-learn/parts.js: the translate task’s batch',
    measured: ({ read }) => [number(read('site/src/lessons/watch-it-learn/parts.js'), /translate: \{[^}]*batch: (\d+)/)] },
  { file: 'site/src/lessons/watch-it-learn/lesson.js', quote: '32 new ones per step',
    source: 'site/src/lessons/watch-it-learn/parts.js: the translate task’s batch',
    measured: ({ read }) => [number(read('site/src/lessons/watch-it-learn/parts.js'), /translate: \{[^}]*batch: (\d+)/)] },
  { file: 'site/src/lessons/watch-it-learn/lesson.js', quote: 'Every 10 steps it is scored on 50 of the 100 sentences its trainer holds out, and it stops at the same 95%',
    source: 'site/src/lessons/watch-it-learn/worker.js: EVALUATE_EVERY, TARGET; site/src/lessons/watch-it-learn/parts.js: TRANSLATION_EVALUATED; ' +
      'wasm_bindings/seq2seq/seq2seq_bindings.cpp: kHeldOut',
    measured: (files) => [worker(files, 'EVALUATE_EVERY'), number(files.read('site/src/lessons/watch-it-learn/parts.js'), /TRANSLATION_EVALUATED = (\d+)/),
      number(files.read('wasm_bindings/seq2seq/seq2seq_bindings.cpp'), /kHeldOut = (\d+)/), worker(files, 'TARGET')] },
  // The Speed select both training lessons share: each lesson's worker must train at that speed.
  { file: 'site/src/training-run.js', quote: 'watchable (50 steps/s)',
    source: 'site/src/lessons/watch-it-learn/worker.js: WATCH_STEPS_PER_SECOND', measured: (files) => [worker(files, 'WATCH_STEPS_PER_SECOND')] },

  { file: 'site/src/lessons/induction-forming/lesson.js', quote: 'd_model 32, one head per layer, Adam at learning rate 0.005, 16 fresh examples per step',
    source: 'site/src/lessons/induction-forming/parts.js: RECIPE and BATCH, what the worker trains',
    measured: ({ read }) => { const t = read('site/src/lessons/induction-forming/parts.js');
      if (number(t, /numHeads: (\d+)/) !== 1) throw new Error('the prose says one head per layer');
      return [number(t, /dModel: (\d+)/), number(t, /lr: ([\d.e-]+)/), number(t, /const BATCH = (\d+)/)]; } },
  { file: 'site/src/lessons/induction-forming/lesson.js', quote: 'Each example is 32 random letters whose end is a segment of 4 to 12 letters',
    source: 'cpp/src/training/tasks.cpp: kDefaultRepeatLength; cpp/include/attnlab/training/tasks.hpp: kRepeatMinSegment, kRepeatMaxSegment',
    measured: ({ read }) => [number(read('cpp/src/training/tasks.cpp'), /kDefaultRepeatLength = (\d+)/),
      number(read('cpp/include/attnlab/training/tasks.hpp'), /kRepeatMinSegment = (\d+)/), number(read('cpp/include/attnlab/training/tasks.hpp'), /kRepeatMaxSegment = (\d+)/)] },
  { file: 'site/src/lessons/induction-forming/lesson.js', quote: 'seeds 0 to 9 all changed phase, after between 450 and 1150 steps',
    source: 'scripts/induction-seeds.json, written by scripts/induction-seeds.mjs: the two-layer model trained as the lesson’s worker ' +
      'trains it (site/src/lessons/induction-forming/parts.js) in Node, seeds 0–9, each until some head’s induction score passes 0.5 or MAX_STEPS',
    measured: ({ json }) => {
      const { runs } = json('scripts/induction-seeds.json');
      const steps = runs.map((r) => r.phaseChange);
      // "seeds 0 to 9 all": exactly those seeds, none without a phase change (else NaN, which equals no figure)
      const all = runs.length === 10 && runs.every((r, i) => r.seed === i) && steps.every((x) => x !== null);
      return all ? [Math.min(...steps), Math.max(...steps)] : [NaN, NaN];
    } },
  { file: 'site/src/training-run.js', quote: 'watchable (50 steps/s)',
    source: 'site/src/lessons/induction-forming/worker.js: WATCH_STEPS_PER_SECOND',
    measured: ({ read }) => [number(read('site/src/lessons/induction-forming/worker.js'), /WATCH_STEPS_PER_SECOND = (\d+)/)] },

  { file: 'site/src/lessons/your-model/lesson.js', quote: 'about 4 bytes per parameter',
    source: 'the model is held as float32: 32 bits', measured: () => [32 / 8], compare: ['about'] },
  { file: 'site/src/lessons/your-model/lesson.js', quote: 'GPT-2 small: 12',
    source: 'Hugging Face’s gpt2 config.json: n_head 12 (Radford et al. 2019)' },
  { file: 'site/src/lessons/your-model/errors.js', quote: 'GPT-2 small: 12',
    source: 'Hugging Face’s gpt2 config.json: n_head 12 (Radford et al. 2019)' },
  { file: 'site/src/lessons/your-model/model-memory.js', quote: '4 bytes each as float32',
    source: 'a float32 is 32 bits', measured: () => [32 / 8] },
  // The induction circuit: ARENA's previous-token head ablation, beside attnlab-kjv's live numbers.
  { file: 'site/src/lessons/induction-circuit/lesson.js', quote: 'from 0.67 and 0.87 to about 0.01',
    source: 'ARENA 3.0, chapter 1.2 “Intro to Mech Interp”, reverse-engineering induction circuits: its two-layer attention-only ' +
      'model’s two induction heads, their induction scores with the previous-token head ablated' },

  // Shared keys and values: the published models by name (their configs' figures are in the page's table, each
  // linked to its config.json), and Ainslie et al.'s uptraining budget.
  { file: 'site/src/lessons/shared-kv/parts.js', quote: 'Llama 3 8B',
    source: 'https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json: the model’s name' },
  { file: 'site/src/lessons/shared-kv/parts.js', quote: 'Llama 2 70B',
    source: 'https://huggingface.co/meta-llama/Llama-2-70b-hf/blob/main/config.json: the model’s name' },
  { file: 'site/src/lessons/shared-kv/parts.js', quote: 'Qwen2.5-7B',
    source: 'https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json: the model’s name' },
  { file: 'site/src/lessons/shared-kv/parts.js', quote: 'SmolLM2-135M',
    source: 'https://huggingface.co/HuggingFaceTB/SmolLM2-135M/blob/main/config.json: the model’s name' },
  { file: 'site/src/lessons/shared-kv/lesson.js', quote: 'for 5% of the original pre-training steps',
    source: 'Ainslie et al. 2023, “GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints”, ' +
      'section 2.1: the converted checkpoint is uptrained for a proportion α of the original pre-training steps; α = 0.05 in its experiments' },
];
