// Part four, lesson 3: sliding windows and attention sinks. A long held-out King James passage through
// attnlab-kjv-llama with four KV caches (parts.js says exactly what each is): each token's loss in each, measured
// in a worker (cache-worker.js) with progress and Stop, plotted with running means as it arrives; whether dropping the
// first tokens hurts this model's window cache and whether keeping s of them (StreamingLLM) restores it; the heads
// that put their attention on the first token; each cache's size in bytes.
import { AttnLabError } from 'attnlab';

import { el, field, formatNumber, select } from '../../dom.js';
import { chartWidth, lineChart } from '../../line-chart.js';
import { MODERN_PROGRAM } from '../../modern-program.js';
import { llamaLine } from '../../modern-model.js';
import { lessonPage } from '../../page.js';
import { answerAfterCheck } from '../../try-this.js';
import { sweepRunner } from '../../sweep-runner.js';
import { heatmap, showsState } from '../../views.js';
import { cacheWorkerUrl } from '../../worker-url.js';
import { MODERN_FILES } from '../../../snippets/modern/model-files.js';
import { afterEviction, blockMeans, blockSize, CACHES, checkHighest, DEFAULTS, LENGTHS, MAX_SINKS, mean, rankedSinkHeads, runningMeans,
  runView, sinkVerdict, SLOT_CACHES, WINDOWS } from './parts.js';
import { CHAPTERS } from '../../held-out-text.js';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';

const SINKS = [0, 1, 2, 4, 8, MAX_SINKS];
const DRAW_MS = 1000;  // the figures are redrawn at most this often while the caches run
const f2 = (x) => formatNumber(x, 2);
const f3 = (x) => formatNumber(x, 3);
const kib = (bytes) => `${(bytes / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} KiB`;
const headName = (l, h) => `L${l}H${h}`;
const chapterName = ({ number, book, chapter }) => `${number ? `${number} ` : ''}${book} ${chapter}`;

// attnlab-kjv-llama's own files, as the page ships them, for the same weights under Mistral's sliding_window.
async function modelFiles() {
  const url = (name) => MODERN_FILES.find((f) => f.name === `kjv-llama/${name}`).url;
  const read = async (name) => {
    const response = await fetch(url(name));
    if (!response.ok) throw new Error(`${name} could not be read (HTTP ${response.status})`);
    return response;
  };
  const [config, weights, tokenizer] = await Promise.all(['config.json', 'model.safetensors', 'tokenizer.json'].map(read));
  return { 'config.json': await config.text(), 'model.safetensors': new Uint8Array(await weights.arrayBuffer()),
    'tokenizer.json': new Uint8Array(await tokenizer.arrayBuffer()) };
}

lessonPage({
  slug: 'windows-and-sinks',
  intro: [
    'A KV cache grows by one token’s keys and values at every step. For a text longer than the model was trained on, ' +
      'or longer than the memory can hold, something has to go. The simplest rule keeps the last w tokens and drops the ' +
      'rest: a sliding window. Xiao et al. (2023, StreamingLLM) found that this breaks the models they studied as soon as ' +
      'the first token is dropped, and that keeping the first few tokens (four, in their paper) besides the window mends ' +
      'them: many heads put their spare attention on the first token, an “attention sink”, and without it the softmax ' +
      'has to spread that weight over tokens that mean something.',
    'Below, a long passage of King James text that attnlab’s small Llama never trained on goes through four caches at ' +
      'once, a token at a time, and each token’s loss (how surprised the model is by the next token, in nats) is ' +
      'measured in this page. Whether this model leans on its first token the way the models StreamingLLM studied did is ' +
      'not assumed: it is what the figures show.',
  ],
  formula: String.raw`\begin{gathered}\text{kept}_t=\{0,\dots,s{-}1\}\cup\{t{-}w{+}1,\dots,t\}\\ \ell_t=-\log p\left(x_{t+1}\mid \text{kept}_t\right)\end{gathered}`,
  pytorch: { source: pytorchSource, ...MODERN_PROGRAM, ...PROGRAM },
  call: (state) => 'const { model, tokenizer } = await lab.loadBuiltinLlama();\n' +
    'const full = model.session();                  // every token, RoPE at its text position\n' +
    `const window = model.session({ window: ${state.window} });   // the last w, positions within the cache\n` +
    `const sinks = model.session({ sinks: ${state.sinks}, window: ${state.window} });\n` +
    `// the mask: the same files with config.json's model_type 'mistral' and sliding_window ${state.window}\n` +
    'const { model: masked } = await lab.loadModel({ ...files, \'config.json\': mistralConfig });\n' +
    'const mask = masked.session();\n' +
    'const { logits, attention } = sinks.append(id);  // attention[layer][head]: 1 × cached\n' +
    'sinks.cacheBytes;                              // cached tokens × model.config.kvCacheBytesPerToken',
  schema: {
    length: { type: 'enum', values: LENGTHS, default: DEFAULTS.length },
    sinks: { type: 'enum', values: SINKS, default: DEFAULTS.sinks },
    window: { type: 'enum', values: WINDOWS, default: DEFAULTS.window },
  },
  prepare: async (lab, notices, loading) => {
    loading('attnlab-kjv-llama, attnlab’s small Llama, in a worker beside the page');
    const files = await modelFiles();
    const worker = new Worker(cacheWorkerUrl(), { type: 'module' });
    const ready = await new Promise((resolve, reject) => {
      worker.addEventListener('message', ({ data }) => {
        if (data.type === 'ready') resolve(data);
        else if (data.type === 'error' && data.id === 0) reject(new Error(data.message));
      });
      worker.addEventListener('error', (event) => reject(new Error(`the worker could not start (${event.message ?? 'the browser gave no reason'})`)));
      worker.postMessage({ type: 'load', files });
    });
    return { worker, tokens: ready.tokens, model: { config: ready.config } };
  },
  setup(ctx) {
    const { state, root, prepared } = ctx;
    const { model, worker } = prepared;
    const { numLayers, numHeads, maxPositionEmbeddings: context, kvCacheBytesPerToken } = model.config;

    const lengthSelect = showsState('length', select(LENGTHS.map((n) => [n, `${n.toLocaleString('en')} tokens`]), state.length,
      (v) => ctx.set({ length: Number(v) })));
    const sinksSelect = showsState('sinks', select(SINKS.map((s) => [s, String(s)]), state.sinks, (v) => ctx.set({ sinks: Number(v) })));
    const windowSelect = showsState('window', select(WINDOWS.map((w) => [w, String(w)]), state.window, (v) => ctx.set({ window: Number(v) })));

    const sweep = sweepRunner('the four caches', (error) => ctx.report(error,
      'The caches could not be run on these settings. Choose another window or number of sinks.'));
    sweep.node.classList.add('ws-figure');  // its line changes while the caches run: laid out on its own
    const lossChart = el('div', { class: 'panel loss-chart ws-figure' });
    const meanChart = el('div', { class: 'panel mean-chart ws-figure' });
    const table = el('table', { class: 'data cache-table ws-figure' });
    const verdict = el('p', { class: 'readout sink-verdict', 'aria-live': 'polite' });
    const sameness = el('p', { class: 'explain mask-readout' });
    const headMap = heatmap({ decimals: 2, showValues: true, rowTitle: 'Head', colTitle: 'Cache',
      rowLabels: Array.from({ length: numLayers * numHeads }, (_, i) => headName(Math.floor(i / numHeads), i % numHeads)),
      colLabels: SLOT_CACHES.map((id) => id), caption: 'Mean attention on the first slot of the cache, each head (rows) in each cache (columns)' });
    const headReadout = el('p', { class: 'explain head-readout' });

    // Try this: which cache has the highest mean loss over the whole passage?
    const guess = select(CACHES.map(({ id, name }) => [id, name]), 'full', () => {});
    const answer = el('p', { class: 'explain', role: 'status' });
    let finished = null;  // the run whose every token has been read, for the check
    const check = el('button', { type: 'button', text: 'Check', on: { click: () => {
      answer.textContent = finished ? checkHighest(guess.value, Object.fromEntries(CACHES.map(({ id }) => [id, mean(finished.losses[id])]))).message
        : 'The caches have not read the whole passage yet: check again when the progress line above is gone.';
      if (finished) meanAnswer.reveal();
    } } });
    // Each cache's mean loss over the passage (the running means, the table) is the answer: hidden until checked.
    const meanAnswer = answerAfterCheck('each cache’s mean loss', meanChart, table);
    const exercise = el('section', { class: 'exercise', 'aria-label': 'Try this: which cache does worst?' },
      el('h2', { text: 'Try this: which cache does worst?' }),
      el('p', { text: 'Before the caches finish: which of the four will have the highest mean loss over the whole passage, with ' +
        'the s and w you chose? Think about what each one can see: the full cache starts again from nothing at every restart; ' +
        'the window never sees further back than w tokens; the sinks cache sees s tokens more. Then try s = 0 and a small w.' }),
      el('div', { class: 'controls' }, field('Highest mean loss', guess), check), answer);

    root.append(llamaLine(prepared),
      el('p', { class: 'explain', text: `The passage: ${CHAPTERS.map(chapterName).join(', ')}, four of ` +
        `the chapters held out of training (every twentieth chapter of the Bible), one verse a line, ${prepared.tokens.toLocaleString('en')} ` +
        'tokens in all. Pick how much of it to read: the first length reads in a few seconds, the longest takes a while.' }),
      el('div', { class: 'controls' }, field('Passage length', lengthSelect), field('Sinks s', sinksSelect), field('Window w', windowSelect)),
      el('ul', { class: 'explain cache-list' },
        el('li', { text: `Full cache: every token kept, each at its position in the text. The model was trained on ${context} tokens, ` +
          `so when the cache holds ${context} it is emptied and starts again from the next token (the way its held-out loss is ` +
          `measured: stretches of ${context} side by side). model.session().` }),
        el('li', { text: 'Window: only the last w tokens (the new one included); the rest are dropped. RoPE’s positions are counted ' +
          'within the cache, 0 to w − 1, the keys turned again at every step. model.session({ window: w }).' }),
        el('li', { text: 'Sinks: the first s tokens of the text are kept for ever, then the last w, positions counted within the ' +
          'cache as StreamingLLM does. model.session({ sinks: s, window: w }).' }),
        el('li', { text: 'Sliding-window mask: the same weights read as a Mistral whose config says sliding_window = w. Every ' +
          'token is kept, at its position in the text, and each query sees its own key and the w − 1 before it: a ' +
          'mask, not an eviction. model.session() on that model.' })),
      sweep.node, exercise,
      el('h2', { text: 'The loss, token by token' }), lossChart,
      el('h2', { text: 'Each cache, side by side' }), ...meanAnswer.nodes, verdict, sameness,
      el('h2', { text: 'The heads that look at the first token' }),
      el('p', { class: 'explain', text: 'Each head’s mean attention weight on the first slot of its cache, over every token ' +
        'that had more than one to look at. In the full cache that is the first token of each stretch; in the sinks cache the ' +
        'first token of the text (with s ≥ 1); in the window cache whichever token is oldest in the window.' }),
      el('div', { class: 'panel ws-figure' }, headMap), headReadout);

    // ---- drawing what a run has read so far ----
    // The charts' width, measured once and again when the window is resized: measuring reads the layout, which
    // after the page has changed costs a whole layout of the page.
    let width = 0;
    globalThis.addEventListener('resize', () => { width = 0; });
    const widthNow = () => (width ||= chartWidth(lossChart));
    function drawLossChart(run, block) {
      const n = run.done;
      lossChart.replaceChildren(lineChart(CACHES.map(({ id, name }) => ({ name, points: blockMeans(run.losses[id], n, block) })), {
        xLabel: 'Token in the passage', yLabel: `Mean loss of ${block} tokens`, width: widthNow(),
        title: `Loss per token in each cache, the mean of each ${block} tokens, over the first ${n.toLocaleString('en')} predictions` }));
    }

    function drawMeanChart(run, block) {
      const n = run.done;
      meanChart.replaceChildren(lineChart(CACHES.map(({ id, name }) => ({ name, points: runningMeans(run.losses[id], n, block) })), {
        xLabel: 'Token in the passage', yLabel: 'Running mean loss', width: widthNow(),
        title: `Running mean of the loss in each cache over the first ${n.toLocaleString('en')} predictions` }));
    }

    function drawNumbers(run, { final }) {
      const n = run.done;
      if (n === 0) return;
      const after = afterEviction(run);
      const firstEvicted = run.window + 1;  // the first token predicted after the window cache dropped token 0
      const means = Object.fromEntries(CACHES.map(({ id }) => [id, mean(run.losses[id], 0, n)]));
      table.replaceChildren(
        el('caption', { text: `After ${n.toLocaleString('en')} of ${run.steps.toLocaleString('en')} predictions` +
          `${final ? '' : ' (still reading)'}; s = ${run.sinks}, w = ${run.window}` }),
        el('thead', {}, el('tr', {}, ['Cache', 'Mean loss', `Mean loss from token ${firstEvicted}`, 'Cache now', 'Largest']
          .map((t) => el('th', { scope: 'col', text: t })))),
        el('tbody', {}, CACHES.map(({ id, name }) => el('tr', { 'data-cache': id, 'data-mean': String(means[id]),
          'data-after': String(after[id]), 'data-bytes': String(run.bytes[id].now) },
        el('th', { scope: 'row', text: name }), el('td', { text: f3(means[id]) }), el('td', { text: Number.isNaN(after[id]) ? 'not yet' : f3(after[id]) }),
        el('td', { text: `${kib(run.bytes[id].now)} (${(run.bytes[id].now / kvCacheBytesPerToken).toLocaleString('en')} tokens)` }),
        el('td', { text: kib(run.bytes[id].most) })))));
      table.dataset.done = String(n);

      const { kept, lost } = sinkVerdict(after, run.sinks);
      verdict.textContent = n <= run.window
        ? `The window has not dropped anything yet: the caches differ once more than w = ${run.window} tokens have been read.`
        : `From token ${firstEvicted} on, once the window cache has started dropping the first tokens: window ${f3(after.window)}, ` +
          `sinks ${f3(after.sinks)}, full ${f3(after.full)} nats per token (the window minus the sinks: ${f2(lost)}). ${kept}`;
      verdict.dataset.lost = String(lost);
      let largest = 0;
      for (let i = 0; i < n; i++) largest = Math.max(largest, Math.abs(run.losses.window[i] - run.losses.mask[i]));
      sameness.textContent = `The window cache and the sliding-window mask differ by at most ${largest.toExponential(1)} nats on ` +
        'any token: float rounding. RoPE’s score between two tokens depends only on how far apart they are, and both keep ' +
        'exactly the last w keys, so renumbering the positions within the cache changes nothing. The two differ in memory: ' +
        `this mask keeps every token (${kib(run.bytes.mask.now)} now) and only reads the last w; Mistral’s own code keeps a ` +
        `rolling buffer of w tokens, ${kib(run.window * kvCacheBytesPerToken)}.`;
      sameness.dataset.largest = String(largest);
    }

    function drawHeads(run) {
      const columns = SLOT_CACHES.map((id) => run.firstSlot(id));
      headMap.matrix = { rows: numLayers * numHeads, cols: SLOT_CACHES.length,
        data: Float32Array.from({ length: numLayers * numHeads * SLOT_CACHES.length }, (_, k) => columns[k % SLOT_CACHES.length][Math.floor(k / SLOT_CACHES.length)]) };
      headMap.dataset.values = JSON.stringify(columns);
      const top = (id) => rankedSinkHeads(run.firstSlot(id), numHeads).slice(0, 3).map((x) => `${headName(x.layer, x.head)} (${f2(x.value)})`).join(', ');
      headReadout.textContent = `Most attention on the first token, full cache: ${top('full')}. With the sinks cache: ${top('sinks')}. ` +
        'A head with a large share here is a sink head: drop its first token and its weight has to land somewhere else.';
    }

    // ---- the run, in the worker: the snapshots it sends are drawn ----
    let runId = 0, said = 0;
    const waiting = new Map();  // run id → { resolve, reject, progress, key }
    // Each figure in a task of its own, at most one drawing a second while the caches run (a phone draws a chart in
    // tens of milliseconds, more when it is busy); the last snapshot always.
    let drawing = false, pending = null, currentKey = '';
    function show(snapshot, key) {
      if (key !== currentKey) return;  // a run the learner has left
      pending = { snapshot, key };
      if (drawing || snapshot.done === 0) return;
      const run = runView(snapshot);
      const final = run.done === run.steps;
      drawing = true;
      pending = null;
      const block = blockSize(run.steps);
      const steps = [() => drawLossChart(run, block), () => drawMeanChart(run, block), () => drawNumbers(run, { final }), () => {
        drawHeads(run);
        if (final && key === currentKey) {
          finished = run;
          table.dataset.run = key;  // on the table, not the lesson body: an attribute there restyles everything under it
        }
      }];
      const next = () => {
        steps.shift()();
        if (steps.length) setTimeout(next);
        else {
          setTimeout(() => {
            drawing = false;
            if (pending) show(pending.snapshot, pending.key);
          }, final ? 0 : DRAW_MS);
        }
      };
      setTimeout(next);
    }

    worker.addEventListener('message', ({ data }) => {
      const job = waiting.get(data.id);
      if (!job) return;
      if (data.type === 'progress') {
        show(data.snapshot, job.key);
        if (performance.now() - said > DRAW_MS) {  // the line changes once a second: each change is a layout of the page
          job.progress(`${data.snapshot.done.toLocaleString('en')} of ${data.snapshot.steps.toLocaleString('en')} tokens`);
          said = performance.now();
        }
      } else if (data.type === 'done') {
        waiting.delete(data.id);
        job.resolve();
      } else if (data.type === 'error') {
        waiting.delete(data.id);
        job.reject(new AttnLabError(data.message));
      }
    });

    return () => {
      const { length, sinks, window } = state;
      const key = JSON.stringify([length, sinks, window]);
      sweep.start(key, ({ signal, progress }) => new Promise((resolve, reject) => {
        const id = ++runId;
        currentKey = key;
        finished = null;
        answer.textContent = '';
        progress('starting the caches');
        waiting.set(id, { resolve, reject, progress, key });
        signal.addEventListener('abort', () => {
          waiting.delete(id);
          worker.postMessage({ type: 'stop', id });
          reject(new DOMException('The caches were stopped', 'AbortError'));
        });
        worker.postMessage({ type: 'run', id, length, sinks, window });
      }));
    };
  },
});
