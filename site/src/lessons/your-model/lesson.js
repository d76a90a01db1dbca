// Trained model, lesson 8: your own model. The learner picks a Llama-family folder (Llama, Qwen2, Mistral,
// SmolLM2: config.json, model.safetensors or its shards, tokenizer.json; lab.loadModel streams the weights
// in, with progress and a Cancel) or a GPT-2-format checkpoint and its tokenizer files; the package loads
// them in the page (nothing is uploaded) and every lesson that runs on a trained model (lessons.js,
// yourModel; a Llama: yourLlama) then runs on it. The page says, from the picked files' own headers and
// config.json, how much of the memory budget it needs; a refused file gets the page's words for the
// package's message (errors.js), the message itself folded under them, and the model in use stays.
import { el, field, formatNumber, formatPercent, select } from '../../dom.js';
import { describeConfig, FAMILY_NAMES, forgetYourModel, isLlamaFamily, loadPickedFolder, loadPickedModel, readYourModel,
  saveYourModel } from '../../gpt-model.js';
import { LESSONS } from '../../lessons.js';
import { checkpointSizes, GiB, headerValues, llamaMemoryAdvice, llamaSizes, memoryAdvice, readCheckpointHeader,
  sizeText } from './model-memory.js';
import { lessonPage } from '../../page.js';
import { folderWords, pageWords } from './errors.js';
import modelSource from '../../../snippets/trained/gpt2_kjv.py?raw';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';

// The budgets offered, ascending: 2 GiB is the most a wasm32 heap can grow to.
const BUDGETS = [GiB / 2, GiB, 2 * GiB];
const DEFAULT_BUDGET = GiB;
const RUNS_ON = LESSONS.filter((l) => l.yourModel);

const fileInput = (accept) => el('input', { type: 'file', accept });
const mib = (bytes) => `${formatNumber(bytes / 2 ** 20, 1)} MiB`;

// The files of a picked folder the model needs: config.json, tokenizer.json, and its weights —
// model.safetensors, or model.safetensors.index.json and the shards it names. → { kept: { name: File },
// weights: [names], folder } (folder: the picked folder's name, '' for files picked one by one); the
// rest of a folder (a PyTorch checkpoint, a README) is left out.
async function folderFiles(list) {
  const byName = new Map(Array.from(list, (file) => [file.name, file]));
  const index = byName.get('model.safetensors.index.json');
  let weights = byName.has('model.safetensors') ? ['model.safetensors'] : [];
  if (index) {
    try {
      weights = [...new Set(Object.values(JSON.parse(await index.text()).weight_map ?? {}))].filter((n) => typeof n === 'string');
    } catch {
      weights = [];  // the package names what is wrong with the index when Load is pressed
    }
  }
  const names = ['config.json', 'tokenizer.json', 'model.safetensors.index.json', 'vocab.json', 'merges.txt', ...weights];
  const kept = Object.fromEntries(names.filter((n) => byName.has(n)).map((n) => [n, byName.get(n)]));
  const folder = Array.from(list, (f) => f.webkitRelativePath?.split('/')[0] ?? '').find(Boolean) ?? '';
  return { kept, weights: weights.filter((n) => byName.has(n)), folder };
}

// The picked folder's sizes before loading, from config.json and the weight files' headers: { name,
// family, sizes (llamaSizes), fileBytes, values, dtypes }, or null when there is no config.json of the
// family to read (the package says what is wrong when Load is pressed).
async function folderSizes({ kept, weights, folder }) {
  let config;
  try {
    config = JSON.parse(await kept['config.json']?.text());
  } catch {
    return null;
  }
  const sizes = isLlamaFamily(config?.model_type) ? llamaSizes(config) : null;
  if (!sizes) return null;
  let values = 0;
  const dtypes = new Set();
  for (const name of weights) {
    const header = await readCheckpointHeader(kept[name]);
    if (!header) return null;
    const read = headerValues(header);
    values += read.values;
    read.dtypes.forEach((d) => dtypes.add(d));
  }
  const fileBytes = weights.reduce((sum, n) => sum + kept[n].size, 0);
  return { name: folder || weights[0] || 'model.safetensors', family: config.model_type, sizes, fileBytes,
    values: weights.length ? values : undefined, dtypes: [...dtypes].sort() };
}

lessonPage({
  slug: 'your-model',
  intro: [
    'The lessons listed below run on attnlab’s own small model. They run on a model of your own too: a folder ' +
      'of today’s Llama family as Hugging Face saves it (Llama, Qwen2, Mistral or SmolLM2: config.json, ' +
      'model.safetensors or its shards, and tokenizer.json), or a GPT-2-architecture ' +
      'checkpoint: a .safetensors file with Hugging Face GPT-2’s tensor names (F32, F16 or BF16), and the ' +
      'tokenizer’s vocab.json and merges.txt — GPT-2 small as Hugging Face ships it, or a model you trained with ' +
      'nanoGPT and exported. Some lessons run on a GPT only; the list says which run on a Llama.',
    'Nothing leaves your browser. The files are read by this page, checked and loaded by the attnlab package ' +
      'in WebAssembly, and kept in this browser’s own storage (IndexedDB) so the other lessons can find them. ' +
      'No server ever sees them.',
    'The model is held in float32 whatever the file’s dtype, so it needs about 4 bytes per parameter; a GPT-2 ' +
      'checkpoint, while it loads, room for the file’s own bytes as well (a Llama folder’s weights stream in a piece ' +
      'at a time instead). When you pick a model the page reads its sizes and says how much of the memory budget it ' +
      'needs, and whether the budget chosen holds it.',
  ],
  // What the memory budget must hold while a checkpoint loads: the parameters as float32, whatever the
  // file's dtype, and for a GPT-2 checkpoint the file's own bytes (model-memory.js); a Llama's stream in.
  formula: String.raw`\begin{aligned}\text{memory} &\approx 4\ \text{bytes} \times N_{\text{params}} + F\\ N_{\text{params}} &= V d + C d + L(12d^2 + 13d) + 2d\\ F &= \text{file size (Llama: 0)}\end{aligned}`,
  pytorch: { source: pytorchSource, model: modelSource, ...PROGRAM },
  call: 'const { model, tokenizer, family } = await lab.loadModel(folderInput.files, { onProgress });  // a Llama-family folder\n' +
    'const model = await lab.loadGPT(bytes, { numHeads });  // a GPT-2 checkpoint\nconst tokenizer = await lab.loadTokenizer(vocabJson, mergesText);',
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
      typeof l.yourModel === 'string' ? ` (${l.yourModel})` : '', l.yourLlama ? ' — a GPT or a Llama' : ' — a GPT only')));

    // A Llama-family folder: a folder pick, or its files picked together (browsers without folder picks).
    const folderInput = el('input', { type: 'file', webkitdirectory: '', multiple: true });
    const filesInput = el('input', { type: 'file', multiple: true, accept: '.json,.safetensors' });
    const folderAdvice = el('p', { class: 'explain folder-advice', 'aria-live': 'polite', hidden: true });
    const progressBar = el('progress', { max: 1, value: 0, 'aria-label': 'Loading the weights' });
    const progressText = el('span', { class: 'field-hint' });
    const cancel = el('button', { type: 'button', text: 'Cancel', on: { click: () => { cancelled = true; } } });
    const progress = el('div', { class: 'controls load-progress', hidden: true }, progressBar, progressText, cancel);
    let pickedFolder = null;  // folderFiles() of the last pick
    let folderSized = null;   // folderSizes() of it
    let cancelled = false;
    let loadingFolder = false;

    // The picked checkpoint's sizes, read from its header (a few bytes) as soon as it is picked.
    let picked = null;  // { name, fileBytes, parameters } or null
    const showAdvice = () => {
      advice.hidden = picked === null;
      advice.textContent = picked ? memoryAdvice({ ...picked, budget, budgets: BUDGETS }) : '';
      folderAdvice.hidden = folderSized === null;
      folderAdvice.textContent = folderSized ? llamaMemoryAdvice({ name: folderSized.name, parameters: folderSized.sizes.parameters,
        fileBytes: folderSized.fileBytes, values: folderSized.values, dtypes: folderSized.dtypes, budget, budgets: BUDGETS }) : '';
    };
    const pickFolder = async (input) => {
      const list = input.files;
      const files = await folderFiles(list);
      const sized = await folderSizes(files);
      if (list !== input.files) return;  // another pick meanwhile
      (input === folderInput ? filesInput : folderInput).value = '';
      [pickedFolder, folderSized] = [files, sized];
      showAdvice();
    };
    folderInput.addEventListener('change', () => pickFolder(folderInput));
    filesInput.addEventListener('change', () => pickFolder(filesInput));
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
      const llama = stored && isLlamaFamily(stored.family);
      status.textContent = !stored ? 'The lessons run on attnlab’s own model (attnlab-kjv).'
        : llama ? `The lessons marked “a GPT or a Llama” run on your model ${stored.name}, a ${FAMILY_NAMES[stored.family]} ` +
          `(${mib(Object.values(stored.files).reduce((sum, f) => sum + f.size, 0))} of files); the others on attnlab’s own model.`
          : `The lessons run on your model ${stored.name} (${mib(stored.weights.byteLength)}).`;
    };

    // The picked folder, loaded with its weights' progress (Cancel stops between pieces), then kept.
    const loadFolder = async () => {
      ctx.clearError();
      if (loadingFolder) return;
      if (!pickedFolder || Object.keys(pickedFolder.kept).length === 0) {
        status.textContent = 'Pick the model’s folder first (or its config.json, tokenizer.json and .safetensors files together).';
        return;
      }
      const { kept, weights, folder } = pickedFolder;
      const name = folder || weights[0] || 'model.safetensors';
      const record = { family: undefined, name, files: kept, memoryBudget: budget };
      loadingFolder = true;
      cancelled = false;
      progress.hidden = false;
      progressBar.value = 0;
      progressText.textContent = 'Reading config.json and tokenizer.json…';
      status.textContent = `Loading ${name}…`;
      const onProgress = ({ file, loaded, total }) => {
        if (cancelled) throw new DOMException('The learner pressed Cancel.', 'AbortError');
        progressBar.value = total ? loaded / total : 1;
        progressText.textContent = `Reading ${file}: ${mib(loaded)} of ${mib(total)} (${formatPercent(total ? loaded / total : 1)})`;
      };
      try {
        const started = performance.now();
        const { model, tokenizer, family } = await loadPickedFolder(ctx.lab, record, { onProgress });
        const seconds = (performance.now() - started) / 1000;
        const shape = describeConfig(model);
        const count = model.parameterCount();
        model.dispose();
        tokenizer.dispose();
        record.family = family;
        const loaded = `Loaded ${name} in ${formatNumber(seconds, 1)} s: ${shape}, ${count.toLocaleString('en')} parameters.`;
        const stored = await saveYourModel(record).then(() => true, () => false);
        const earlier = stored ? undefined : await readYourModel();
        status.textContent = stored ? `${loaded} The lessons marked “a GPT or a Llama” below now run on it; the others stay on attnlab’s GPT.`
          : `${loaded} But this browser would not keep its files (${mib(Object.values(kept).reduce((sum, f) => sum + f.size, 0))}) ` +
            'for the other lessons to open — a private window, or storage that is full or turned off refuses them — so they still run on ' +
            `${earlier ? `the model kept before, ${earlier.name}` : 'attnlab’s model'}. In a normal window they would run on this one.`;
      } catch (error) {
        await showCurrent();
        if (error?.name === 'AbortError') {
          status.textContent = `Loading ${name} stopped (Cancel). ${status.textContent}`;
        } else {
          ctx.report(error, folderWords(error.message ?? String(error), { weights: weights.length ? weights : ['model.safetensors'], budgets: BUDGETS }));
        }
      } finally {
        loadingFolder = false;
        progress.hidden = true;
      }
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
        field('Memory budget', select(BUDGETS.map((b) => [b, sizeText(b)]), budget, (b) => {
          budget = Number(b);
          showAdvice();
        }))),
      el('h2', { text: 'A Llama, Qwen2, Mistral or SmolLM2 folder' }),
      el('div', { class: 'controls' },
        field('Model folder', folderInput, 'config.json, model.safetensors (or its shards and index), tokenizer.json'),
        field('Or its files, picked together', filesInput)),
      folderAdvice,
      el('div', { class: 'controls' }, el('button', { type: 'button', text: 'Load and use this folder', on: { click: loadFolder } })),
      progress,
      el('h2', { text: 'A GPT-2 checkpoint' }),
      el('div', { class: 'controls' },
        field('Checkpoint (.safetensors)', weights), field('vocab.json', vocab), field('merges.txt', merges),
        field('Heads', heads, '0 = from the file’s metadata (n_head); GPT-2 small: 12')),
      advice,
      el('div', { class: 'controls' },
        el('button', { type: 'button', text: 'Load and use this model', on: { click: load } })),
      el('h2', { text: 'The model the lessons use' }),
      status,
      el('div', { class: 'controls' },
        el('button', { type: 'button', text: 'Use attnlab’s model again', on: { click: async () => {
          ctx.clearError();
          await forgetYourModel();
          await showCurrent();
        } } })),
      el('h2', { text: 'Lessons that run on it' }), links);
    showCurrent();
    return () => {};
  },
});
