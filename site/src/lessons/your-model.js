// Trained model, lesson 8: your own model. The learner picks a GPT-2-format checkpoint and its
// tokenizer files; the package loads them in the page (nothing is uploaded) and every trained-model
// lesson then runs on it. A refused file gets the package's message, and the model in use stays.
import { AttnLabError } from 'attnlab';

import { el, field, formatNumber, select } from '../dom.js';
import { forgetYourModel, loadPickedModel, readYourModel, saveYourModel } from '../gpt-model.js';
import { LESSONS } from '../lessons.js';
import { lessonPage } from '../page.js';
import modelSource from '../../snippets/trained/gpt2_kjv.py?raw';
import pytorchSource from '../../snippets/trained/your-model.py?raw';
import { TRAINED_SNIPPETS } from '../../snippets/trained/settings.js';

const GiB = 2 ** 30;
const sizeText = (bytes) => (bytes < GiB ? `${bytes / 2 ** 20} MiB` : `${bytes / GiB} GiB`);
const BUDGETS = [[GiB / 2, sizeText(GiB / 2)], [GiB, sizeText(GiB)], [2 * GiB, `${sizeText(2 * GiB)} (GPT-2 small needs this)`]];
const RUNS_ON = LESSONS.filter((l) => l.part === 'trained' && !['it-sentence', 'your-model'].includes(l.slug));

const fileInput = (accept) => el('input', { type: 'file', accept });

// The package names the head count as its option (numHeads); on this page it is the Heads field, and
// the model's width is d_model as everywhere on the site.
const inFieldNames = (error) => (error instanceof AttnLabError
  ? new AttnLabError(error.message.replace(/\bnumHeads = (\d+) \(as passed\)/,
    'Heads = $1 (the field above; 0 takes n_head from the file)').replace(/\bdModel\b/g, 'd_model')
    .replace(/: leave numHeads out to take the count from the file, or override it \(overrideNumHeads\)$/, ''))
  : error);

lessonPage({
  slug: 'your-model',
  intro: [
    'The lessons of this part run on attnlab’s own small model. They run just as well on a GPT-2-architecture ' +
      'model of your own: a .safetensors checkpoint with Hugging Face GPT-2’s tensor names (F32, F16 or BF16), ' +
      'and the tokenizer’s vocab.json and merges.txt — for example GPT-2 small as Hugging Face ships it, or a ' +
      'model you trained with nanoGPT and exported.',
    'Nothing leaves your browser. The files are read by this page, checked and loaded by the attnlab package ' +
      'in WebAssembly, and kept in this browser’s own storage (IndexedDB) so the other lessons can find them. ' +
      'No server ever sees them.',
    'The model is held in float32 whatever the file’s dtype, so it needs about 4 bytes per parameter: GPT-2 small ' +
      '(124M parameters) about 500 MB, more than the page’s default memory budget — pick 2 GiB for it below.',
  ],
  // What the memory budget must hold: the parameters as float32, whatever the file's dtype.
  formula: String.raw`\text{memory} \approx 4\ \text{bytes} \times N_{\text{params}} = 4 \times (V d + C d + L(12d^2 + 13d) + 2d)`,
  pytorch: { source: pytorchSource, model: modelSource, ...TRAINED_SNIPPETS['your-model'] },
  call: 'const model = await lab.loadGPT(bytes, { numHeads });\nconst tokenizer = await lab.loadTokenizer(vocabJson, mergesText);',
  schema: {},
  setup(ctx) {
    const { lab, root } = ctx;
    const weights = fileInput('.safetensors');
    const vocab = fileInput('.json,application/json');
    const merges = fileInput('.txt,text/plain');
    const heads = el('input', { type: 'number', min: 0, max: 256, value: 0 });
    let budget = BUDGETS[1][0];
    const status = el('div', { class: 'explain', role: 'status', 'aria-live': 'polite' });
    const links = el('ul', {}, RUNS_ON.map((l) => el('li', {}, el('a', { href: `./${l.slug}.html`, text: l.title }))));

    const showCurrent = async () => {
      const stored = await readYourModel();
      status.textContent = stored
        ? `The lessons run on your model ${stored.name} (${formatNumber(stored.weights.byteLength / 2 ** 20, 1)} MiB).`
        : 'The lessons run on attnlab’s own model (attnlab-kjv).';
    };
    const load = async () => {
      ctx.clearError();
      const [w, v, m] = [weights.files[0], vocab.files[0], merges.files[0]];
      if (!w || !v || !m) {
        status.textContent = 'Pick all three files first: the .safetensors checkpoint, vocab.json and merges.txt.';
        return;
      }
      status.textContent = `Loading ${w.name}…`;
      const files = { name: w.name, weights: await w.arrayBuffer(), vocabJson: await v.text(), mergesText: await m.text(),
        numHeads: Math.max(0, Math.trunc(Number(heads.value)) || 0), memoryBudget: budget };
      try {
        const started = performance.now();
        const { model, tokenizer } = await loadPickedModel(lab, files);
        const { numLayers, numHeads, dModel, contextLength, vocabSize } = model.config;
        const seconds = (performance.now() - started) / 1000;
        const count = model.parameterCount();
        model.dispose();
        tokenizer.dispose();
        const loaded = `Loaded ${w.name} in ${formatNumber(seconds, 1)} s: ${numLayers} layers × ${numHeads} heads, d_model ${dModel}, ` +
          `context ${contextLength}, vocabulary ${vocabSize.toLocaleString('en')}, ${count.toLocaleString('en')} parameters.`;
        // The lessons are pages of their own: they find the model in this browser's storage. A browser
        // that will not keep it (a private window, full or turned-off storage) leaves them on attnlab's.
        const kept = await saveYourModel(files).then(() => true, () => false);
        const earlier = kept ? undefined : await readYourModel();
        status.textContent = kept ? `${loaded} The lessons below now run on it.`
          : `${loaded} But this browser would not keep the file (${formatNumber(w.size / 2 ** 20, 1)} MiB) for the other ` +
            'lessons to open — a private window, or storage that is full or turned off refuses it — so they still run on ' +
            `${earlier ? `the model kept before, ${earlier.name}` : 'attnlab’s model'}. In a normal window they would run on this one.`;
      } catch (error) {
        await showCurrent();
        ctx.report(inFieldNames(error));
      }
    };
    root.append(
      el('div', { class: 'controls' },
        field('Checkpoint (.safetensors)', weights), field('vocab.json', vocab), field('merges.txt', merges),
        field('Heads', heads, '0 = from the file’s metadata (n_head); GPT-2 small: 12'),
        field('Memory budget', select(BUDGETS.map(([b, label]) => [b, label]), budget, (b) => { budget = Number(b); }))),
      el('div', { class: 'controls' },
        el('button', { type: 'button', text: 'Load and use this model', on: { click: load } }),
        el('button', { type: 'button', text: 'Use attnlab’s model again', on: { click: async () => {
          ctx.clearError();
          await forgetYourModel();
          await showCurrent();
        } } })),
      status,
      el('h2', { text: 'Lessons that run on it' }), links);
    showCurrent();
    return () => {};
  },
});
