// Trained model, lesson 8: your own model. The learner picks a GPT-2-format checkpoint and its
// tokenizer files; the package loads them in the page (nothing is uploaded) and every lesson that runs
// on a trained GPT (lessons.js, yourModel) then runs on it. The page says, from the picked file's own
// size, how much of the memory budget it needs; a refused file gets the page's words for the package's
// message (your-model-errors.js), the message itself folded under them, and the model in use stays.
import { el, field, formatNumber, select } from '../dom.js';
import { forgetYourModel, loadPickedModel, readYourModel, saveYourModel } from '../gpt-model.js';
import { LESSONS } from '../lessons.js';
import { checkpointSizes, GiB, memoryAdvice, readCheckpointHeader, sizeText } from '../model-memory.js';
import { lessonPage } from '../page.js';
import { pageWords } from '../your-model-errors.js';
import modelSource from '../../snippets/trained/gpt2_kjv.py?raw';
import pytorchSource from '../../snippets/trained/your-model.py?raw';
import { TRAINED_SNIPPETS } from '../../snippets/trained/settings.js';

// The budgets offered, ascending: 2 GiB is the most a wasm32 heap can grow to.
const BUDGETS = [GiB / 2, GiB, 2 * GiB];
const DEFAULT_BUDGET = GiB;
const RUNS_ON = LESSONS.filter((l) => l.yourModel);

const fileInput = (accept) => el('input', { type: 'file', accept });

lessonPage({
  slug: 'your-model',
  intro: [
    'The lessons listed below run on attnlab’s own small model. They run just as well on a GPT-2-architecture ' +
      'model of your own: a .safetensors checkpoint with Hugging Face GPT-2’s tensor names (F32, F16 or BF16), ' +
      'and the tokenizer’s vocab.json and merges.txt — for example GPT-2 small as Hugging Face ships it, or a ' +
      'model you trained with nanoGPT and exported.',
    'Nothing leaves your browser. The files are read by this page, checked and loaded by the attnlab package ' +
      'in WebAssembly, and kept in this browser’s own storage (IndexedDB) so the other lessons can find them. ' +
      'No server ever sees them.',
    'The model is held in float32 whatever the file’s dtype, so it needs about 4 bytes per parameter, and while it ' +
      'loads, room for the file’s own bytes as well. When you pick a checkpoint the page reads its size and says how ' +
      'much of the memory budget it needs, and whether the budget chosen holds it.',
  ],
  // What the memory budget must hold while a checkpoint loads: the parameters as float32, whatever the
  // file's dtype, and the file's own bytes (model-memory.js).
  formula: String.raw`\begin{aligned}\text{memory} &\approx 4\ \text{bytes} \times N_{\text{params}} + \text{the file}\\ N_{\text{params}} &= V d + C d + L(12d^2 + 13d) + 2d\end{aligned}`,
  pytorch: { source: pytorchSource, model: modelSource, ...TRAINED_SNIPPETS['your-model'] },
  call: 'const model = await lab.loadGPT(bytes, { numHeads });\nconst tokenizer = await lab.loadTokenizer(vocabJson, mergesText);',
  schema: {},
  setup(ctx) {
    const { lab, root } = ctx;
    const weights = fileInput('.safetensors');
    const vocab = fileInput('.json,application/json');
    const merges = fileInput('.txt,text/plain');
    const heads = el('input', { type: 'number', min: 0, max: 256, value: 0 });
    let budget = DEFAULT_BUDGET;
    const advice = el('p', { class: 'explain memory-advice', 'aria-live': 'polite', hidden: true });
    const status = el('div', { class: 'explain', role: 'status', 'aria-live': 'polite' });
    const links = el('ul', {}, RUNS_ON.map((l) => el('li', {}, el('a', { href: `./${l.slug}.html`, text: l.title }),
      typeof l.yourModel === 'string' ? ` (${l.yourModel})` : '')));

    // The picked checkpoint's sizes, read from its header (a few bytes) as soon as it is picked.
    let picked = null;  // { name, fileBytes, parameters } or null
    const showAdvice = () => {
      advice.hidden = picked === null;
      advice.textContent = picked ? memoryAdvice({ ...picked, budget, budgets: BUDGETS }) : '';
    };
    weights.addEventListener('change', async () => {
      const file = weights.files[0];
      const header = file ? await readCheckpointHeader(file) : null;
      if (file !== weights.files[0]) return;  // another file was picked meanwhile
      const sizes = header && checkpointSizes(header);
      picked = sizes ? { name: file.name, fileBytes: file.size, parameters: sizes.parameters } : null;
      showAdvice();
    });

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
        ctx.report(error, pageWords(error.message, { weights: w.name, vocab: v.name, merges: m.name }, BUDGETS));
      }
    };
    root.append(
      el('div', { class: 'controls' },
        field('Checkpoint (.safetensors)', weights), field('vocab.json', vocab), field('merges.txt', merges),
        field('Heads', heads, '0 = from the file’s metadata (n_head); GPT-2 small: 12'),
        field('Memory budget', select(BUDGETS.map((b) => [b, sizeText(b)]), budget, (b) => {
          budget = Number(b);
          showAdvice();
        }))),
      advice,
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
