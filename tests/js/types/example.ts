// Type-checked (tsc --noEmit) against web/index.d.ts: every part of the API as a tutorial uses it.
import {
  AttnLabError, init, loadReferentModel, type ActivationCache, type ActivationPatchingResult, type Attribution, type CompositionScores,
  type HeadCircuit, type HFTokenizer, type Lab, type LlamaConfig, type LlamaModel, type LlamaSession, type LogitLens, type Matrix,
  type FlashAttentionTraceResult, type PathPatchingResult, type Step, type TaskExample, type TaskModelSnapshot,
  type Tensor, type TranslatorPair,
} from 'attnlab';

async function main(): Promise<void> {
  const lab: Lab = await init({ simd: 'auto' });
  const forced = await init({ simd: false, locateFile: (file) => `/assets/${file}` });
  console.log(lab.simd, lab.version, lab.kernels, forced.simd);
  // The "it" model without init(): its own module alone.
  const referent = await loadReferentModel({ simd: 'auto', memoryBudget: 64 * 2 ** 20 });
  const itWeights: Float32Array = referent.forward(referent.sentence({ first: 'animal', second: 'street', adjective: 'wide' }))
    .fromIt[referent.namedHead.layer][referent.namedHead.head];
  console.log(itWeights.length);

  const q: Matrix = lab.randn(4, 8, 1);
  const k = lab.matrix(6, 8, new Float32Array(48));
  const v = lab.matrix(6, 8, Array.from({ length: 48 }, (_, i) => i / 48));
  const { output, weights, scores, scaledScores, maskedScores } = lab.scaledDotProductAttention(q, k, v, {
    causal: true,
    scale: 1,
    mask: lab.combineMasks(lab.causalMask(4, 6), lab.keyPaddingMask(4, 6, 5)),
  });
  const probabilities: Matrix = lab.softmax(scores);
  const attentionSteps: Step[] = lab.traceAttention(q, k, v, { causal: true });
  const flash: FlashAttentionTraceResult = lab.flashAttentionTrace(q, k, v, { blockSize: 2, causal: true });
  console.log(flash.blocks[0].max[0], flash.blocks.at(-1)?.accumulator.rows, flash.output.cols);
  const embedded: Matrix = lab.embedTokens(['the', 'cat'], 16, { seed: 1 });
  console.log(attentionSteps.length, embedded.rows);
  console.log(output.rows, weights.cols, scaledScores.data[0], maskedScores.data[0], probabilities.cols);

  const pe = lab.positionalEncoding(50, 128);
  const learned = lab.positionalEncoding(10, 16, 'learned', { seed: 2 });
  const rotated = lab.applyRotary(pe, 3);
  const slopes: Float32Array = lab.alibiSlopes(8);
  const bias = lab.alibiBias(4, 4, slopes[0]);
  const tokens: string[] = lab.tokenize('The cat sat on the mat');
  console.log(learned.rows, rotated.cols, bias.rows, tokens.length, lab.memory().inUse);

  const mha = new lab.MultiHeadAttention({ dModel: 32, numHeads: 4, bias: false, seed: 0, positions: 'rotary' });
  console.log(mha.parameterCount());
  const exported = mha.weights();
  mha.loadWeights({ inProjWeight: exported.inProjWeight, outProjWeight: exported.outProjWeight });
  const x = lab.randn(5, 32, 3);
  const result = mha.forward(x, undefined, undefined, { causal: true });
  const perHead: Matrix[] = result.weights;
  const steps: Step[] = mha.train(false).trace(x, x, x);
  console.log(perHead.length, result.averageWeights.rows, steps.map((s) => `${s.id}: ${s.explanation}`));
  const lean = mha.forward(x, x, x, { weights: false, out: { output: new Float32Array(x.rows * 32) } });
  const leanCore = lab.scaledDotProductAttention(q, k, v, { weights: false });
  const reused: Float32Array = lab.scaledDotProductAttention(q, k, v, { weights: false, out: { output: new Float32Array(q.rows * v.cols) } }).output.data;
  console.log(lean.output.rows, lean.weights === undefined, leanCore.output.cols, reused.length);
  // The tutorials' shapes: (batch, seq, d_model) → heads → (batch, heads, seq, d_k).
  const xb: Tensor = lab.randn([2, 5, 32], 4);
  const qh: Tensor = lab.transpose(lab.reshape(xb, [2, 5, 4, -1]), 1, 2);
  const causal = lab.reshape(lab.causalMask(5), [1, 1, 5, 5]);
  const batched = lab.scaledDotProductAttention(qh, qh, qh, { mask: causal, dropout: 0.1, seed: 1 });
  const merged: Tensor = lab.reshape(lab.permute(batched.output, [0, 2, 1, 3]), [2, 5, 32]);
  const padded = mha.forward(xb, xb, xb, { causal: true, keyPaddingMask: lab.tensor([2, 5], [0, 0, 0, 0, 0, 0, 0, 0, 1, 1]), averageWeights: true });
  const perHeadWeights: Tensor = padded.weights;
  console.log(merged.shape, batched.weights.shape, perHeadWeights.shape, padded.averageWeights?.shape, padded.output.data.length);
  mha.dispose();

  const layer = new lab.TransformerEncoderLayer({
    dModel: 64, numHeads: 4, dFF: 256, normFirst: false, norm: 'layernorm', activation: 'gelu', seed: 0,
  });
  const y: Matrix = layer.forward(lab.randn(10, 64, 1), { causal: true });
  layer.loadWeights({
    selfAttn: { inProjWeight: lab.randn(192, 64, 1), inProjBias: new Float32Array(192), outProjWeight: lab.randn(64, 64, 2), outProjBias: [0] },
    linear1: { weight: lab.randn(256, 64, 3), bias: new Float32Array(256) },
    linear2: { weight: lab.randn(64, 256, 4), bias: new Float32Array(64) },
    norm1: { weight: new Float32Array(64).fill(1), bias: new Float32Array(64) },
    norm2: { weight: new Float32Array(64).fill(1), bias: new Float32Array(64) },
  });
  console.log(y.rows, layer.parameterCount(), layer.parameterCounts().feedForward, layer.trace(y).length);
  layer.dispose();

  try {
    lab.causalMask(0);
  } catch (e) {
    if (e instanceof AttnLabError) console.log(e.message);
  }

  // Training a small model on a toy task: the training module loads on demand.
  const same: Lab = await lab.loadTraining();
  const trainer = await init({ training: true, trainingWasmBinary: new Uint8Array(0), wasmBinary: new ArrayBuffer(0) });
  const trainingHeap: number | undefined = lab.memory().training?.inUse;
  console.log(same === lab, trainer.simd, trainingHeap);
  const model = new lab.TaskModel({ task: 'copy', dModel: 32, numHeads: 2, lr: 3e-3, seed: 1 });
  const { train, test }: { train: TaskExample[]; test: TaskExample[] } = model.split(160, 20);
  const loss: number = model.trainStep(train.slice(0, 16));
  const { accuracy, sequenceAccuracy } = model.evaluate(test);
  const heads: Matrix[] = model.attentionWeights(test[0]).layers[0];
  const saved: TaskModelSnapshot = model.snapshot();
  model.restore(saved).dispose();
  console.log(loss, accuracy, sequenceAccuracy, heads.length, model.info.vocabulary[0], model.steps);
  const induction = new lab.TaskModel({ task: 'repeat', layers: 2, dFF: 0, positions: false, lr: 5e-3 });
  const headScores: { previousToken: Float32Array; induction: Float32Array } = induction.inductionScores(induction.examples(8));
  console.log(headScores.previousToken[0], headScores.induction[0]);
  induction.dispose();
}

void main();

// The components, as a tutorial page uses them.
import type {
  AttnAttributionElement, AttnHeadViewElement, AttnHeatmapElement, AttnLogitLensElement, AttnModelViewElement, AttnStepperElement,
  AttnTokenColorsElement, AttributionItem, ItemSelectDetail, PePlotElement, RowHoverDetail,
} from 'attnlab/components';
import { pointLabel } from 'attnlab/components';

async function components(lab: Lab): Promise<void> {
  const heatmap = document.createElement('attn-heatmap') satisfies AttnHeatmapElement;
  heatmap.matrix = lab.softmax(lab.randn(4, 4, 1));
  heatmap.rowLabels = ['the', 'cat', 'sat', 'on'];
  heatmap.palette = 'cividis';
  heatmap.highlight = { rows: [1], cells: [[0, 2]] };
  heatmap.addEventListener('cell-focus', (e) => console.log(e.detail.row, e.detail.value));
  const svg: string = heatmap.toSVG();
  const png: Blob = await heatmap.toPNG(2);
  const plot = document.createElement('pe-plot') satisfies PePlotElement;
  plot.matrix = lab.positionalEncoding(50, 8);
  plot.dims = [0, 1, 4];
  const stepper = document.createElement('attn-stepper') satisfies AttnStepperElement;
  stepper.addEventListener('step-change', (e) => console.log(e.detail.index, e.detail.step.id));
  stepper.steps = lab.traceAttention(lab.randn(3, 4, 1), lab.randn(3, 4, 2), lab.randn(3, 4, 3));
  stepper.index = 2;
  Object.assign(stepper, { head: 0, palette: 'cividis', signedPalette: 'PuOr' });
  const shown: number = stepper.shownSteps.length;
  console.log(shown);
  // The attention views take Matrix[layer][head], as GPTModel.forward(ids, { attention: true }) returns it.
  const heads = [lab.softmax(lab.randn(3, 3, 1)), lab.softmax(lab.randn(3, 3, 2))];
  const model = document.createElement('attn-model-view') satisfies AttnModelViewElement;
  model.attention = [heads, heads];
  model.tokens = ['the', 'cat', 'sat'];
  model.selected = { layer: 1, head: 0 };
  model.addEventListener('head-select', (e) => console.log(e.detail.layer, e.detail.head));
  model.addEventListener('row-hover', (e) => console.log(e.detail.row ?? 'none', e.detail.layer, e.detail.head));
  const lines = document.createElement('attn-head-view') satisfies AttnHeadViewElement;
  lines.attention = heads;
  lines.addEventListener('query-change', (e) => console.log(e.detail.query));
  const colors = document.createElement('attn-token-colors') satisfies AttnTokenColorsElement;
  colors.attention = heads[0];
  colors.tokens = ['The', ' cat', ' sat'];
  // One link group: a row or head hovered or picked in one view shows in all of them.
  for (const view of [heatmap, model, lines, colors]) view.link = 'sentence';
  model.query = 2;
  lines.query = null;
  const picked: number | null = colors.query;
  const group: string | null = heatmap.link;
  const onHover = (detail: RowHoverDetail): string => `${detail.row ?? '-'} in ${detail.layer ?? '?'}.${detail.head ?? '?'}`;
  colors.addEventListener('row-hover', (e) => console.log(onHover(e.detail), picked, group));
  lines.addEventListener('row-hover', (e) => console.log(onHover(e.detail)));
  console.log(svg.length, png.size, lines.toSVG().length);
  // Tensors as a batched call returns them: a heatmap draws the slice its batch and head pick, a model
  // view one (batch, heads, n, n) tensor per layer (its batch attribute picks the sequence), a stepper
  // a tensor call's trace.
  const xb = lab.randn([2, 3, 8], 5);
  const batchedMha = new lab.MultiHeadAttention({ dModel: 8, numHeads: 2 });
  const { weights: batchWeights } = batchedMha.forward(xb, xb, xb);
  heatmap.matrix = batchWeights;
  heatmap.batch = 1;
  heatmap.head = 0;
  const slice: number = heatmap.batch + heatmap.head;
  model.attention = [batchWeights, batchWeights];
  model.setAttribute('batch', '1');
  stepper.steps = batchedMha.trace(xb);
  stepper.addEventListener('step-change', (e) => console.log(e.detail.step.id, slice));
  batchedMha.dispose();
  // Cross-attention: queries are the target words, keys the source words.
  const cross = [[{ rows: 2, cols: 3, data: [0.2, 0.3, 0.5, 1, 0, 0] }]];
  model.attention = cross;
  model.tokens = ['le', 'chat'];
  model.keyTokens = ['the', 'small', 'cat'];
  lines.attention = cross[0];
  lines.keyTokens = model.keyTokens;
}
void components;

// The interpretability figures: a lens as the GPT module returns it (or written out), and signed parts.
async function interpretabilityFigures(lab: Lab): Promise<void> {
  const { model, tokenizer } = await lab.loadBuiltinModel();
  const ids = tokenizer.encode('Thou shalt love thy neighbour as');
  const lens = document.createElement('attn-logit-lens') satisfies AttnLogitLensElement;
  lens.lens = model.logitLens(ids, { k: 1 });
  lens.tokens = Array.from(ids, (id) => tokenizer.decode([id]));
  lens.tokenText = (id) => tokenizer.decode([id]);
  lens.position = ids.length - 1;
  lens.palette = 'viridis';
  lens.addEventListener('position-change', (e) => console.log(e.detail.position, lens.position));
  lens.lens = { points: ['blocks.0.hook_resid_pre'], positions: [0], cells: [[{ top: [{ id: 1, probability: 0.5 }] }]] };
  lens.tokenText = ['a', 'b'];
  const label: string = pointLabel(lens.lens.points[0]);
  const dla = model.directLogitAttribution(ids, { target: tokenizer.encode(' thyself')[0], baseline: tokenizer.encode(' himself')[0] });
  const bars = document.createElement('attn-attribution') satisfies AttnAttributionElement;
  const items: AttributionItem[] = dla.terms.map((t) => ({ key: t.label, label: t.label, value: t.value, selectable: t.part === 'head' }));
  bars.items = items;
  bars.chosen = 'L3H0';
  bars.selectable = false;
  const onSelect = (detail: ItemSelectDetail): string => `${detail.key} ${detail.keyboard ? 'by keys' : 'by pointer'}`;
  bars.addEventListener('item-select', (e) => console.log(onSelect(e.detail), label, bars.chosen));
}
void interpretabilityFigures;

// The shipped GPT: the next token from the last row of logits alone, and every head's attention alone.
async function trainedModel(lab: Lab): Promise<void> {
  const { model, tokenizer } = await lab.loadBuiltinModel();
  const ids = tokenizer.encode('In the beginning');
  const { logits } = model.forward(ids, { logits: 'last' });
  const next: number = lab.sample(logits.data, { temperature: 0 }).token;
  const { attention } = model.forward(ids, { attention: true, logits: 'none' });
  console.log(tokenizer.decode([next]), attention?.length);
}
void trainedModel;

// Interpretability on the shipped GPT: the cache, a patched run, the lens, attribution, patching, circuits.
async function interpretability(lab: Lab): Promise<void> {
  const { model, tokenizer } = await lab.loadBuiltinModel();
  const ids = tokenizer.encode('Thou shalt love thy neighbour as');
  const [target] = tokenizer.encode(' thyself');
  const [baseline] = tokenizer.encode(' himself');
  const { cache }: { cache: ActivationCache } = model.runWithCache(ids);
  const pattern: Tensor = cache.get('blocks.1.attn.hook_pattern');
  const patched = model.runWithHooks(ids, { patch: [{ name: 'blocks.1.attn.hook_z', ablate: 'mean', heads: [2] }], keep: ['ln_final.hook_scale'] });
  const lens = model.logitLens(ids, { position: ids.length - 1, k: 3, target });
  const rank: number = lens.rows[0].target.rank;
  const grid: LogitLens = model.logitLens(ids, { k: 1 });
  console.log(grid.cells.length, grid.cells[0][0].top[0].id);
  const dla: Attribution = model.directLogitAttribution(ids, { target, baseline });
  const controller = new AbortController();
  const corrupted = tokenizer.encode('Thou shalt love thy enemy as');
  const patching: ActivationPatchingResult = await model.activationPatching(ids, corrupted, {
    what: 'z', per: 'head', metric: { target, baseline }, signal: controller.signal, onProgress: ({ done, total }) => console.log(done / total),
  });
  const path: PathPatchingResult = model.pathPatching(ids, corrupted, {
    sender: { layer: 0, head: 1 }, receivers: [{ layer: 1, head: 2, input: 'k' }], metric: { target, baseline }, allowUnfavourable: true,
  });
  const warned: string | undefined = patching.warning ?? path.warning;
  console.log(warned, patching.meaning, path.meaning);
  const circuit: HeadCircuit = model.headCircuit(1, 2);
  const processed: Matrix = model.copyingScores({ foldLn: true, centreWriting: true, centreUnembed: false });
  console.log(processed.data[0]);
  const scores: CompositionScores = model.compositionScores({ draws: 100 });
  console.log(pattern.shape, patched.cache?.names(), rank, dla.sum - dla.logit, patching.grid.shape, path.normalised, circuit.copyingScore, scores.baseline);
}
void interpretability;

// A translator trained in the page, and what a PyTorch program needs to start where it starts.
async function translatorTraining(lab: Lab): Promise<void> {
  const trainer = await lab.createTranslatorTrainer({ seed: 3 });
  const weights: { [name: string]: Tensor } = trainer.parameters();
  const coming: TranslatorPair[][] = trainer.upcomingBatches(10, { batch: 32 });
  const ids: Int32Array = coming[0][0].targets;
  const losses: Float32Array = trainer.train(10, { batch: 32 });
  const { source, target, crossAttention } = trainer.watch(0);
  console.log(weights['generator.bias'].shape, ids.length, losses[0], source.length + target.length, crossAttention[1][0].rows);
  trainer.dispose();
}
void translatorTraining;

// A learner's own modern checkpoint: a folder picked in a page, loaded with progress; its family decides the classes.
async function ownModernModel(lab: Lab, picked: FileList): Promise<void> {
  const loaded = await lab.loadModel(picked, { onProgress: ({ file, loaded: done, total }) => console.log(file, done / total) });
  if (loaded.family === 'gpt2') return;
  const { model, tokenizer } = loaded;
  const config: LlamaConfig = model.config;
  const ids: Int32Array = tokenizer.encode('In the beginning', { addSpecialTokens: false });
  const { logits } = model.forward(ids, { logits: 'last', firstPosition: 5 });
  const { cache } = model.runWithCache(ids);
  const rotated: Tensor = cache.get('blocks.0.attn.hook_rot_k');
  const session: LlamaSession = model.session({ sinks: 4, window: 252 });
  const step = session.append(ids);
  const text: string = tokenizer.decode(model.generate(ids, { maxTokens: 8, temperature: 0.8, seed: 1, window: 64 }).tokens);
  const hf: HFTokenizer = tokenizer;
  console.log(config.kvCacheBytesPerToken, logits.cols, rotated.shape, session.cacheBytes, step.logits.rows, text, hf.preTokenizer);
  const bytes: Uint8Array = model.save({ dtype: 'BF16' });
  console.log(bytes.length, (model as LlamaModel).family);
  // The interpretability calls on the modern model: the lens at one position, patching per key/value head,
  // RoPE's QK circuit three tokens back.
  const lens: LogitLens = model.logitLens(ids, { k: 3 });
  const names: string[] = model.hookNames();
  const patched = model.runWithHooks(ids, { patch: [{ name: 'blocks.0.attn.hook_v', ablate: 'mean', heads: [0] }], firstPosition: 2 });
  const grid = await model.activationPatching(ids, ids, { what: 'k', per: 'head', metric: { target: 1, baseline: 2 } });
  const circuit: HeadCircuit = model.headCircuit(0, 0, { distance: 3 });
  console.log(lens.points.length, names[0], patched.logits.rows, grid.grid.shape, circuit.copyingScore, model.copyingScores().rows);
}
void ownModernModel;
