// Part three, lesson 3: patching. Two prompts of the same length, clean and corrupted, side by side with
// their predictions and one head's attention on each; then the corrupted run with one activation of the
// clean run put back (model.activationPatching, denoising): the residual stream at each block and
// position, then each head's output; then attribution patching's first-order estimates of those two grids
// from one backward pass (model.attributionPatching, on a GPT), with where they miss; then path patching
// from one head to each later head's q, k or v (model.pathPatching). The sweeps run in a worker
// (sweep-worker.js, on attnlab-kjv; a kept model of the learner's on the page, one cell per task), with
// their progress and a Stop button beside the inputs.
import { AttnLabError } from 'attnlab';

import { el, field, formatNumber, formatPercent, isolated, select, setOptions } from '../../dom.js';
import { CHOSEN_HEAD, headInModel, layerHeadPickers } from '../../gpt-heads.js';
import { keyValueHeadOf, lessonModelAnyFamily, modelLine, modelShape, promptIds, tokenLabel } from '../../gpt-model.js';
import { oneToken } from '../../one-token.js';
import { lessonPage } from '../../page.js';
import { answerAfterCheck } from '../../try-this.js';
import { checkPositionGuess, differingPositions, estimateWords, exerciseLayer, lengthMismatch, NOT_READ, PRESETS, presetOf, rankedHeads,
  strongestHead, strongestPosition, unfavourableWords } from './parts.js';
import { nextTurn, sweepRunner } from '../../sweep-runner.js';
import { patchingWorkerUrl } from '../../worker-url.js';
import { workerOps } from './sweep-client.js';
import { patchingOps } from './sweeps.js';
import modelSource from '../../../snippets/trained/gpt2_kjv.py?raw';
import pytorchSource from './program.py?raw';
import { PROGRAM } from './settings.js';
import { heatmap, SIGNED, sentenceInput } from '../../views.js';

const [DEFAULT] = PRESETS;
const ONE_LOGIT = 'The measure is logit[target] − logit[baseline] after the last token: type a single token in each — a common word with its leading space usually is.';
const f2 = (x) => formatNumber(x, 2);
const name = ({ layer, head }) => `L${layer}H${head}`;
const INPUTS = ['q', 'k', 'v'];
// The patching grids' colours: 0 (nothing restored) white, 1 (all of it) full blue, −1 full red.
const RESTORED = { ...SIGNED, domain: [-1, 1], decimals: 2, showValues: true };
// What attribution patching is, where it misses and why it matters (its section, under the grid of heads).
const ESTIMATE_INTRO = [
  'Each cell above is a patched run of its own: one forward pass per block and position, one per head. Attribution ' +
    'patching (Nanda, 2023), tested against activation patching in finding circuits (Syed et al., 2023), estimates ' +
    'every cell at once from the corrupted run alone: one forward pass, then one backward pass for the gradient of the ' +
    'logit difference with respect to every activation. A cell’s estimate is (clean activation − corrupted activation) · ' +
    'gradient, multiplied entry by entry and summed over the entries the cell patches — the straight-line guess at how ' +
    'far the patch moves the logit difference — divided by the clean − corrupted gap as the grids above are. The grids ' +
    'below are those estimates, in the same colours.',
  'The guess is exact where the logit difference is a straight line in the activation, and misses where it bends — at ' +
    'every LayerNorm, attention softmax and MLP between the activation and the logits — the more, the larger the change. ' +
    'The residual stream entering a block carries the whole difference between the runs at its position (entering the ' +
    'first block, a whole token swapped), with all of that block and every later one still ahead of it: that is where the ' +
    'estimate tends to miss most. A head’s output carries only what that head wrote, straight into the residual stream ' +
    'through its output matrix; there the estimate misses mainly where later heads read it through their own softmax, ' +
    'as the heads of a circuit read an earlier one.',
  'What it buys is cost. Activation patching takes a forward pass per cell: on a model with thousands of heads and ' +
    'positions, millions of runs. The estimate takes two passes for the whole grid, which is what makes patching ' +
    'affordable on big models — as a map of where to look, checked by patching the few cells it points to.',
];

lessonPage({
  slug: 'patching',
  intro: [
    'The lens and the attribution read one run. Patching compares two: a clean prompt and a corrupted one, as long in ' +
      'tokens, that differ in one token. What is measured is not the top prediction — that can be the same word in both ' +
      'runs — but one number after the last token, the logit difference: the logit of a target token minus that of a ' +
      'baseline token, chosen so that the clean prompt favours the target and the corrupted one the baseline. Then run ' +
      'the corrupted prompt again with one activation taken from the clean run (the patched run) — the residual stream ' +
      'entering one block at one position, or one head’s output — and see how much of the gap between the two logit ' +
      'differences comes back: 0 is none, 1 is all of it. If the clean prompt does not favour the target clearly more ' +
      'than the corrupted one, there is no gap to bring back, and the page says so instead of reading the grids.',
    'Where that fraction is large, the activation carries what the change in the prompt changed. Swept over every block ' +
      'and position it shows the information moving: entering the first block it can only be at the changed token; ' +
      'by the last block it has to be at the last position, where the prediction is read. The heads in between moved it.',
    'Path patching asks a narrower question of one head, the sender: from the clean run, let the sender’s corrupted ' +
      'output reach one later head only, through that head’s queries, keys or values, and nothing else, and see how much ' +
      'of the answer is lost (Wang et al., 2022, as ARENA teaches it). Putting one activation back and taking one away are ' +
      'different questions: where two heads do the same job, putting one back can restore nearly everything while taking ' +
      'one away loses little.',
  ],
  formula: String.raw`\begin{gathered}\text{restored} = \frac{m(\text{patched}) - m(\text{corrupted})}{m(\text{clean}) - m(\text{corrupted})}\\ m = \text{logit}[t] - \text{logit}[b]\end{gathered}`,
  pytorch: { source: pytorchSource, model: modelSource, ...PROGRAM },
  call: () => 'const metric = { target, baseline };\n' +
    'const residual = await model.activationPatching(clean, corrupted, { what: \'resid_pre\', metric, onProgress, signal });\n' +
    'const heads = await model.activationPatching(clean, corrupted, { what: \'z\', per: \'head\', metric, onProgress, signal });\n' +
    '// the same grids estimated from one forward and one backward of the corrupted run (a GPTModel\'s: synchronous)\n' +
    'const estimated = model.attributionPatching(clean, corrupted, { what: \'z\', per: \'head\', metric });\n' +
    'const { normalised } = model.pathPatching(clean, corrupted, { sender, receivers: [{ layer, head, input: \'k\' }], metric });',
  schema: {
    clean: { type: 'text', maxLength: 300, default: DEFAULT.clean },
    corrupted: { type: 'text', maxLength: 300, default: DEFAULT.corrupted },
    target: { type: 'text', maxLength: 40, default: DEFAULT.target },
    baseline: { type: 'text', maxLength: 40, default: DEFAULT.baseline },
    ...CHOSEN_HEAD,  // the sender; −1: the strongest head of the heads grid outside the last layer
  },
  prepare: lessonModelAnyFamily,  // a kept Llama-family model too (path patching into its keys and values: per key/value head)
  setup(ctx) {
    const { state, root, prepared } = ctx;
    const { model, tokenizer } = prepared;
    const shape = modelShape(model);
    const { numLayers, numHeads } = shape;
    // A Llama's query heads share key/value heads: a receiver's keys and values are its key/value head's,
    // patched once for the whole group (the package's pathPatching takes k and v per key/value head).
    const grouped = shape.numKeyValueHeads < numHeads;
    const receiverHead = (head, input) => (input === 'q' || !grouped ? head : keyValueHeadOf(shape, head));
    const inputWords = ({ layer, head }, input) => {
      const what = input === 'q' ? 'queries' : input === 'k' ? 'keys' : 'values';
      if (input === 'q' || !grouped) return `${name({ layer, head })}’s ${what}`;
      const kv = keyValueHeadOf(shape, head);
      const group = numHeads / shape.numKeyValueHeads;
      const readers = Array.from({ length: group }, (_, i) => name({ layer, head: kv * group + i })).join(', ');
      return `the ${what} of layer ${layer}’s key/value head ${kv} (which ${readers} read)`;
    };
    const senderLayers = Math.max(1, numLayers - 1);  // a sender needs a later layer to send to

    const presets = select([...PRESETS.map((p) => [p.id, p.label]), ['own', 'your own pair']], presetOf(state)?.id ?? 'own', (id) => {
      const preset = PRESETS.find((p) => p.id === id);
      if (preset) ctx.set({ clean: preset.clean, corrupted: preset.corrupted, target: preset.target, baseline: preset.baseline, layer: -1, head: -1 });
    });
    const cleanBox = sentenceInput('Clean prompt', state.clean, (clean) => ctx.set({ clean }), 300, { key: 'clean', lines: 2 });
    const corruptedBox = sentenceInput('Corrupted prompt', state.corrupted, (corrupted) => ctx.set({ corrupted }), 300, { key: 'corrupted', lines: 2 });
    const targetBox = sentenceInput('Target token', state.target, (target) => ctx.set({ target }), 40, { key: 'target' });
    const baselineBox = sentenceInput('Baseline token', state.baseline, (baseline) => ctx.set({ baseline }), 40, { key: 'baseline' });
    const senderPickers = layerHeadPickers({ numLayers: senderLayers, numHeads }, (layer, head) => ctx.set({ layer, head }));

    // The two runs, side by side: tokens (the changed ones marked), prediction, the sender's attention.
    const side = (title) => {
      const chips = el('ul', { class: 'tokens', 'aria-label': `${title} prompt’s tokens` });
      const said = el('p', { class: 'explain' });
      const map = heatmap({ decimals: 2, showValues: false, rowTitle: 'Query', colTitle: 'Key' });
      return { chips, said, map, node: el('section', { class: 'panel run-side', 'aria-label': `${title} run` }, el('h3', { text: title }), chips, said, map) };
    };
    const sides = [side('Clean'), side('Corrupted')];
    const runs = el('p', { class: 'readout patch-runs', 'aria-live': 'polite' });
    const warning = el('p', { class: 'notice patch-warning', role: 'status', hidden: true });

    const sweep = sweepRunner('the patching sweeps', (error) => ctx.report(error));
    // attnlab-kjv's sweeps run in a worker that loads it too; a kept model of the learner's, on this thread.
    const ops = prepared.yours ? patchingOps(model) : workerOps(() => new Worker(patchingWorkerUrl(), { type: 'module' }));
    const residMap = heatmap({ ...RESTORED, rowTitle: 'Entering block', colTitle: 'Position' });
    const residReadout = el('p', { class: 'explain resid-readout' });
    const headAxes = { rowTitle: 'Layer', colTitle: 'Head', cellName: (layer, head) => name({ layer, head }),
      rowLabels: Array.from({ length: numLayers }, (_, l) => String(l)), colLabels: Array.from({ length: numHeads }, (_, h) => String(h)) };
    const headMap = heatmap({ ...RESTORED, ...headAxes });
    // A head tapped in the grid (or chosen there with Enter or Space) becomes the sender; the grid's own export
    // buttons are not heads. The cell is the one the grid last reported (a tap on it moves it there first).
    let gridCell = { row: 0, col: 0 };
    headMap.addEventListener('cell-focus', (event) => { gridCell = event.detail; });
    const onGrid = (event) => event.composedPath().some((node) => node.getAttribute?.('role') === 'grid');
    const sendFrom = (event) => onGrid(event) && ctx.set({ layer: gridCell.row, head: gridCell.col });
    headMap.addEventListener('click', sendFrom);
    headMap.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); sendFrom(event); }
    });
    const headReadout = el('p', { class: 'explain head-readout' });
    // Attribution patching's estimates of the two grids, in their colours. The section comes after the grid of heads
    // and before path patching: it estimates the two grids just drawn and is read beside them, while path patching
    // asks another question, of one sender. A Llama-family model of the learner's has no backward pass in attnlab:
    // the section says so and draws nothing.
    const estimating = typeof model.attributionPatching === 'function';
    const residEstimateMap = heatmap({ ...RESTORED, rowTitle: 'Entering block', colTitle: 'Position' });
    const headEstimateMap = heatmap({ ...RESTORED, ...headAxes });
    const estimateReadout = el('p', { class: 'explain estimate-readout' });
    const estimateNote = el('p', { class: 'notice estimate-note', text: 'Your model is a Llama-family model, and attnlab computes ' +
      'gradients for its GPT models only: there is no backward pass to estimate these grids from, so no estimate is drawn here. ' +
      'The two grids above are the patched runs themselves.' });
    // The residual stream's estimate and the misses would give the Try-this away too: hidden with its answer until Check.
    const estimateAnswer = answerAfterCheck('the estimates and where they miss', estimateReadout,
      el('div', { class: 'panel' }, residEstimateMap), el('div', { class: 'panel' }, headEstimateMap));
    const pathMap = heatmap({ ...RESTORED, rowTitle: 'Receiver', colTitle: 'Through its' });
    const pathReadout = el('p', { class: 'explain path-readout' });
    const pathPanel = el('div', { class: 'panel' }, pathMap);

    // Try this: which position carries the answer into block 1?
    const askLayer = exerciseLayer(numLayers);
    const guess = select([], 0, () => {});
    const verdict = el('p', { class: 'explain', role: 'status' });
    let checkable = null;  // { grid, labels, differing } of the sweep drawn last
    const check = el('button', { type: 'button', text: 'Check', on: { click: () => {
      verdict.textContent = checkable?.misleading ? `${NOT_READ} Choose a pair the warning does not stop.`
        : checkable ? checkPositionGuess(checkable.grid, askLayer, Number(guess.value), checkable.labels, checkable.differing).message
        : 'The sweep has not finished yet: check again when it is done.';
      if (checkable) {
        answer.reveal();
        estimateAnswer.reveal();
      }
    } } });
    // The residual stream's grid and readout give the answer: hidden until the learner has checked one.
    const answer = answerAfterCheck('the residual stream put back at each block and position', residReadout, el('div', { class: 'panel' }, residMap));
    const exercise = el('section', { class: 'exercise', 'aria-label': `Try this: which position carries it into block ${askLayer}?` },
      el('h2', { text: `Try this: which position carries it into block ${askLayer}?` }),
      el('p', { text: `Before you read the grid: put back the residual stream entering block ${askLayer} at one position only. ` +
        'At which position does that restore most of the clean answer? The prompts differ at one token, but the heads of the ' +
        'blocks before may already have copied the difference elsewhere. Pick a position and check.' }),
      el('div', { class: 'controls' }, field('Position', guess), check), verdict);

    root.append(modelLine(prepared),
      el('div', { class: 'controls' }, field('Pair', presets)),
      el('div', { class: 'controls' }, cleanBox, corruptedBox),
      el('div', { class: 'controls' }, targetBox, baselineBox),
      sweep.node, runs, warning,
      el('p', { class: 'explain', text: 'The sender: the head drawn on both prompts below, and the one path patching sends from ' +
        '(at first the head whose output restores most, outside the last layer; on a pair patching cannot read, the first head). ' +
        'A head tapped in the grid of heads below becomes the sender too (on the keyboard: Enter on its cell).' }),
      el('div', { class: 'controls', role: 'group', 'aria-label': 'Sender head' }, ...senderPickers.nodes),
      el('div', { class: 'grid' }, ...sides.map((s) => s.node)),
      exercise,
      el('h2', { text: 'Patching the residual stream' }), ...answer.nodes,
      el('h2', { text: 'Patching one head’s output' }), headReadout, el('div', { class: 'panel' }, headMap),
      el('h2', { text: 'Attribution patching: the same grids from one backward pass' }),
      ...ESTIMATE_INTRO.map((text) => el('p', { text })), ...(estimating ? estimateAnswer.nodes : [estimateNote]),
      el('h2', { text: 'Path patching from the sender' }), pathReadout, pathPanel);

    let grids = null;  // { key, resid, heads, estimates } of the prompts and metric drawn last
    let estimated = null;  // the key of the grids whose estimates are drawn
    const readable = (g) => g.resid.warning === undefined;

    // A sweep's result with the package's warning (or null, before the sweep): the warning in the learner's words.
    function showWarning(result, t, b) {
      warning.hidden = result?.warning === undefined;
      warning.textContent = warning.hidden ? '' : unfavourableWords(result.clean, result.corrupted, t, b);
    }

    // The sender's attention is computed where the sweeps are (two forwards: not on this thread for attnlab-kjv);
    // only the latest call draws, so a slower earlier one cannot overwrite it.
    let senderDrawn = 0;
    async function drawSender(ids, labels, sender) {
      senderPickers.show(sender.layer, sender.head);
      headMap.highlight = { cells: [[sender.layer, sender.head]] };  // the sender, outlined in the grid of heads
      const mine = ++senderDrawn;
      const maps = await ops.attention({ runs: ids, layer: sender.layer, head: sender.head });
      if (mine !== senderDrawn) return;
      maps.forEach((matrix, i) => {
        Object.assign(sides[i].map, { matrix, rowLabels: labels[i], colLabels: labels[i],
          caption: `${name(sender)}’s attention on the ${i ? 'corrupted' : 'clean'} prompt` });
      });
    }

    // A pair the package warns about (the clean run does not favour the target more): the grids are drawn, but
    // no readout names a position or head as restoring anything.
    function drawGrids(resid, heads, labels, differing) {
      const T = labels.length;
      const misleading = resid.warning !== undefined;
      const share = misleading ? '(patched − corrupted) / (clean − corrupted), not a share restored on this pair, for'
        : 'Share of the clean answer restored by';
      Object.assign(residMap, { matrix: { rows: numLayers, cols: T, data: resid.grid.data },
        rowLabels: Array.from({ length: numLayers }, (_, l) => `${l}`), colLabels: labels.map((text, j) => `${j}: ${text}`),
        caption: `${share} putting back resid_pre at one block and position` });
      const moves = Array.from({ length: numLayers }, (_, l) => strongestPosition(resid.grid, l));
      residReadout.textContent = 'The position that restores most, entering each block: ' + moves.map(({ position, value }, l) =>
        `block ${l}, position ${position} (“${isolated(labels[position])}”, ${f2(value)})`).join('; ') +
        `. The prompts differ at ${differing.map((j) => `position ${j} (“${isolated(labels[j])}”)`).join(' and ')}.`;
      residReadout.dataset.moves = moves.map((m) => m.position).join(',');
      if (misleading) residReadout.textContent = NOT_READ;
      checkable = { grid: resid.grid, labels, differing, misleading };

      headMap.matrix = { rows: numLayers, cols: numHeads, data: heads.grid.data };
      headMap.caption = `${share} putting back one head’s output (hook_z) at every position`;
      const ranked = rankedHeads(heads.grid).slice(0, 3).map((x) => `${name(x)} (${f2(x.value)})`);
      headReadout.textContent = misleading ? NOT_READ : `Putting back one head’s output restores most with ${ranked.join(', then ')}.`;
    }

    // Attribution patching's two grids beside the patched ones (patched: { resid, heads } as drawn above), and
    // where the estimate misses them on this pair; on a pair patching cannot read, no readout.
    function drawEstimates(patched, estimates, labels, misleading) {
      const share = misleading ? 'Estimated (patched − corrupted) / (clean − corrupted), not a share restored on this pair, for'
        : 'Estimated from one backward pass: the share of the clean answer restored by';
      Object.assign(residEstimateMap, { matrix: { ...residMap.matrix, data: estimates.resid.grid.data }, rowLabels: residMap.rowLabels,
        colLabels: residMap.colLabels, caption: `${share} putting back resid_pre at one block and position` });
      headEstimateMap.matrix = { rows: numLayers, cols: numHeads, data: estimates.heads.grid.data };
      headEstimateMap.caption = `${share} putting back one head’s output (hook_z) at every position`;
      const pairs = ['resid', 'heads'].map((k) => ({ patched: patched[k].grid, estimate: estimates[k].grid }));
      const { text, resid, heads } = estimateWords(...pairs, labels);
      estimateReadout.textContent = misleading ? NOT_READ : text;
      estimateReadout.dataset.residMiss = `${resid.row},${resid.col},${resid.miss}`;
      estimateReadout.dataset.headsMiss = `${heads.row},${heads.col},${heads.miss}`;
    }

    async function pathPatch(clean, corrupted, metric, measures, sender, restoredBy, { signal, progress }) {
      const receivers = [];
      for (let l = sender.layer + 1; l < numLayers; l++) for (let h = 0; h < numHeads; h++) receivers.push({ layer: l, head: h });
      const values = new Float32Array(receivers.length * INPUTS.length);
      // One cell per receiver input; a key/value head's cell shared by the query heads that read it.
      const cells = new Map();
      for (const r of receivers) for (const input of INPUTS) {
        const head = receiverHead(r.head, input);
        cells.set(`${r.layer} ${head} ${input}`, { layer: r.layer, head, input });
      }
      const computed = await ops.path({ clean, corrupted, metric, sender, cells: [...cells.values()], numLayers }, { signal, progress });
      const done = new Map([...cells.keys()].map((key, i) => [key, computed[i]]));
      for (const [i, r] of receivers.entries()) {
        for (const [k, input] of INPUTS.entries()) values[i * INPUTS.length + k] = done.get(`${r.layer} ${receiverHead(r.head, input)} ${input}`);
      }
      Object.assign(pathMap, { matrix: { rows: receivers.length, cols: INPUTS.length, data: values }, rowLabels: receivers.map(name),
        colLabels: INPUTS, caption: `Change in the answer, as a share of the clean − corrupted gap, when ${name(sender)}’s corrupted output reaches only this input` +
          (grouped ? ' (k and v: the key/value head the receiver reads, shared by its group)' : '') });
      // Taking away instead of putting back: the clean run with the sender's corrupted output on every path,
      // then with the two heads that restored most both corrupted.
      const second = rankedHeads(grids.heads.grid).find((x) => x.layer !== sender.layer || x.head !== sender.head);
      const [lost, lostBoth] = await ops.takenAway({ clean, corrupted, metric, heads: [[sender], [sender, second]], measures }, { signal });
      let largest = 0;
      for (let i = 1; i < values.length; i++) if (Math.abs(values[i]) > Math.abs(values[largest])) largest = i;
      const receiver = receivers[Math.floor(largest / INPUTS.length)], input = INPUTS[largest % INPUTS.length];
      pathReadout.textContent = `Sender ${name(sender)}. Its largest effect through one input: ${inputWords(receiver, input)}, ` +
        `${f2(values[largest])} of the gap. For comparison, putting ${name(sender)}’s clean output back alone restored ` +
        `${f2(restoredBy(sender))} of it, above. Taking it away instead — the clean run with ${name(sender)}’s corrupted output ` +
        `on every path — moves the answer by ${f2(lost)} of the gap; with ${name(second)}’s corrupted output as well, by ${f2(lostBoth)}.`;
      pathReadout.dataset.largest = String(values[largest]);
      pathReadout.dataset.lost = `${lost},${lostBoth}`;
    }

    // The two prompts' ids and the metric's tokens, or an AttnLabError in the learner's words.
    function inputs() {
      const texts = [state.clean, state.corrupted];
      const [clean, corrupted] = texts.map((text, i) => Array.from(promptIds(tokenizer, model, text, i ? DEFAULT.corrupted : DEFAULT.clean,
        { box: i ? corruptedBox : cleanBox }).ids));
      setOptions(presets, [...PRESETS.map((p) => [p.id, p.label]), ['own', 'your own pair']], presetOf(state)?.id ?? 'own');
      const mismatch = lengthMismatch(tokenizer, clean, corrupted);
      if (mismatch) throw new AttnLabError(mismatch);
      const target = oneToken(tokenizer, state.target, 'target', ONE_LOGIT);
      const baseline = oneToken(tokenizer, state.baseline, 'baseline', ONE_LOGIT);
      if (target === baseline) throw new AttnLabError('The target and the baseline are the same token: their difference is 0 in both runs. Choose two different tokens.');
      if (differingPositions(clean, corrupted).length === 0) throw new AttnLabError('The two prompts are the same tokens: there is nothing to patch. Change a word in the corrupted one.');
      return { clean, corrupted, target, baseline };
    }

    return () => {
      let input;
      try {
        input = inputs();
      } catch (error) {
        sweep.halt();  // a sweep of the prompts before would draw behind the refusal
        throw error;
      }
      const { clean, corrupted, target, baseline } = input;
      const metric = { target, baseline };
      const differing = differingPositions(clean, corrupted);
      const labels = [clean, corrupted].map((ids) => ids.map((id) => tokenLabel(tokenizer, id)));
      const rowLabels = labels.map((l) => l.map((text, j) => `${j}: ${text}`));

      // Each run: its tokens, what it predicts, and the measure.
      const measures = [clean, corrupted].map((ids, i) => {
        const logits = model.forward(ids, { logits: 'last' }).logits.data;
        const probs = ctx.lab.sample(logits, { temperature: 1 }).probabilities;
        const top = Array.from(probs.keys()).sort((a, b) => probs[b] - probs[a]).slice(0, 3);
        sides[i].chips.replaceChildren(...ids.map((id, j) => el('li', { class: differing.includes(j) ? 'differs' : '',
          text: `${j}: ${isolated(labels[i][j])}`, 'aria-label': `${j}: ${labels[i][j]}${differing.includes(j) ? ' (differs)' : ''}` })));
        sides[i].said.textContent = 'Next token: ' + top.map((id) => `“${isolated(tokenLabel(tokenizer, id))}” ${formatPercent(probs[id])}`).join(', ') + '.';
        return logits[target] - logits[baseline];
      });
      const [t, b] = [target, baseline].map((id) => `“${isolated(tokenLabel(tokenizer, id))}”`);
      runs.textContent = `logit[${t}] − logit[${b}] after the last token: ${formatNumber(measures[0], 3)} on the clean prompt, ` +
        `${formatNumber(measures[1], 3)} on the corrupted one.`;
      runs.dataset.clean = String(measures[0]);
      runs.dataset.corrupted = String(measures[1]);

      const T = clean.length;
      if (guess.options.length !== T || [...guess.options].some((o, j) => o.textContent !== rowLabels[0][j])) {
        setOptions(guess, rowLabels[0].map((label, j) => [j, label]), Math.min(Number(guess.value) || 0, T - 1));
        verdict.textContent = '';
      }
      const gridKey = JSON.stringify([clean, corrupted, target, baseline]);
      // The package's verdict on the pair arrives with its first sweep; until then, none from earlier prompts.
      showWarning(grids?.key === gridKey ? grids.resid : null, t, b);
      const wanted = state.layer < 0 || state.head < 0 ? null : headInModel(ctx, modelShape(model), state.layer, state.head, senderLayers);
      // Drawn at once: the chosen head, or the strongest of these prompts' sweep; before that sweep has found
      // it, the first head, redrawn as the strongest when the sweep is done.
      const known = grids?.key === gridKey && readable(grids) ? strongestHead(grids.heads.grid, senderLayers) : { layer: 0, head: 0 };
      drawSender([clean, corrupted], rowLabels, wanted ?? known).catch((error) => ctx.report(error));
      sweep.start(JSON.stringify([gridKey, wanted]), async ({ signal, progress }) => {
        if (grids?.key !== gridKey) {
          checkable = null;
          // allowUnfavourable (in ops.grids): a pair patching cannot read is drawn with the package's warning, put in words above.
          const { resid, heads, estimates } = await ops.grids({ clean, corrupted, metric }, { signal, progress });
          grids = { key: gridKey, resid, heads, estimates };
          drawGrids(resid, heads, labels[0], differing);
          showWarning(resid, t, b);
        }
        // The estimates' two grids in a task of their own (four grids in one task are too long on a phone).
        if (grids.estimates && estimated !== gridKey) {
          await nextTurn(signal);
          drawEstimates(grids, grids.estimates, labels[0], !readable(grids));
          estimated = gridKey;
        }
        const { layer, head } = wanted ?? (readable(grids) ? strongestHead(grids.heads.grid, senderLayers) : { layer: 0, head: 0 });
        const sender = { layer, head };
        await drawSender([clean, corrupted], rowLabels, sender);
        pathPanel.hidden = !readable(grids);
        if (!readable(grids)) {
          pathReadout.textContent = `${NOT_READ} Path patching is not run on it.`;
          return;
        }
        if (numLayers < 2) {
          pathReadout.textContent = 'Path patching needs a later layer to send to: this model has one layer.';
          return;
        }
        await pathPatch(clean, corrupted, metric, measures, sender, (s) => grids.heads.grid.data[s.layer * numHeads + s.head], { signal, progress });
      });
    };
  },
});
