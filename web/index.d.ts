// Type declarations for attnlab (hand-written: Emscripten 3.1.6 cannot emit them).

/** A row-major float32 matrix: entry (r, c) is data[r * cols + c]. */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float32Array;
}

/** Numbers as the package takes them: a Float32Array (used as is), another typed array of numbers or a
 *  plain number array (converted to float32). Not BigInt arrays, DataViews or other array-likes; a typed
 *  array whose ArrayBuffer was transferred (detached) is refused with an AttnLabError. */
export type NumberArray =
  | Float32Array | Float64Array | Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array
  | Int32Array | Uint32Array | readonly number[];

/** What a Matrix argument may be: data may also be another typed array or a plain number array. */
export interface MatrixInput {
  rows: number;
  cols: number;
  data: NumberArray;
}

/** A row-major float32 tensor in the tutorials' shapes, 1 to 5 dims: x (batch, seq, d_model) = (2, 4, 8)
 *  has data.length 64, element (b, s, d) at data[(b * 4 + s) * 8 + d]. */
export interface Tensor {
  shape: number[];
  data: Float32Array;
}

/** What a tensor argument may be: data may also be another typed array or a plain number array; a
 *  MatrixInput is taken as the 2-D tensor (rows, cols). */
export type TensorInput = { shape: readonly number[]; data: NumberArray } | MatrixInput;

/** The masks of a tensor call. mask broadcasts to the scores (…, n_q, n_k) by PyTorch's rules: (seq, seq)
 *  or (1, 1, seq, seq) against (batch, heads, seq, seq). maskKind 'binary' (default): 1 = may attend,
 *  0 = blocked (F.scaled_dot_product_attention's boolean attn_mask). 'block': 1 = blocked, 0 = may
 *  attend (nn.MultiheadAttention's boolean attn_mask; values other than 0 and 1 are refused).
 *  'additive': added to the scaled scores, −Infinity blocks (torch's float attn_mask). keyPaddingMask
 *  (batch, n_k): 1 = PAD, 0 = real token — PyTorch's key_padding_mask,
 *  the opposite sense of a binary mask. All that are given apply together. */
export interface TensorMaskOptions {
  mask?: TensorInput;
  maskKind?: 'binary' | 'block' | 'additive';
  causal?: boolean;
  keyPaddingMask?: TensorInput;
}

export interface TensorAttentionOptions extends TensorMaskOptions {
  /** false: { output } alone, computed with the online softmax (no (…, n_q, n_k) weights). */
  weights?: boolean;
  /** Default 1/√d_k. */
  scale?: number;
  /** Dropout on the weights after the softmax (as the tutorials' exercise adds it), drawn from seed. */
  dropout?: number;
  seed?: number;
}

export interface TensorAttentionResult {
  /** (…, n_q, d_v) */
  output: Tensor;
  /** (…, n_q, n_k), after dropout if any */
  weights: Tensor;
}

export interface TensorMultiHeadOptions extends TensorMaskOptions {
  /** false: { output } alone, every head by the online softmax. */
  weights?: boolean;
  /** Also return the mean over heads (PyTorch's average_attn_weights=True). */
  averageWeights?: boolean;
  /** The dropout draws while the layer is training with dropout > 0. */
  seed?: number;
}

export interface TensorMultiHeadResult {
  /** (batch, n_q, dModel) */
  output: Tensor;
  /** (batch, heads, n_q, n_k): per head, as average_attn_weights=False */
  weights: Tensor;
  /** (batch, n_q, n_k), when asked for */
  averageWeights?: Tensor;
}

/** A weight vector (bias, norm weight). */
export type VectorInput = NumberArray;

/** Thrown for every bad argument; the message names the function, the argument and the shapes. */
export class AttnLabError extends Error {
  name: 'AttnLabError';
}

export interface InitOptions {
  /** 'auto' (default) uses the SIMD build when the engine supports WebAssembly SIMD. */
  simd?: 'auto' | boolean;
  /** Threads for the main and GPT modules. 'auto' (default): on a cross-origin-isolated page (COOP
   *  same-origin + COEP require-corp) the threaded SIMD build with every core the browser reports
   *  (at most 8); a number asks for at most that many. Elsewhere (a page that is not isolated, Node,
   *  an engine without SIMD) and with 1, the single-threaded build. Results are bit-identical either
   *  way; Lab.threads says what was picked. Giving wasmBinary, gptWasmBinary or locateFile
   *  picks the single-threaded build too (they name its files). */
  threads?: 'auto' | number;
  /** The .wasm bytes of the chosen build (attnlab-simd.wasm or attnlab-scalar.wasm), if you load them yourself. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** The bytes of the chosen build's training module (attnlab-train-simd.wasm or attnlab-train-scalar.wasm),
   *  used when it loads (see `training` and Lab.loadTraining). */
  trainingWasmBinary?: ArrayBuffer | Uint8Array;
  /** The bytes of the chosen build's GPT module (attnlab-gpt-simd.wasm or attnlab-gpt-scalar.wasm), used
   *  when it loads (the first Lab.loadGPT, createGPT, loadTokenizer, trainTokenizer or loadGPTModule). */
  gptWasmBinary?: ArrayBuffer | Uint8Array;
  /** The bytes of the chosen build's referent module (attnlab-referent-simd.wasm or
   *  attnlab-referent-scalar.wasm), used when Lab.loadReferentModel loads it. */
  referentWasmBinary?: ArrayBuffer | Uint8Array;
  /** The bytes of the chosen build's encoder–decoder module (attnlab-seq2seq-simd.wasm or
   *  attnlab-seq2seq-scalar.wasm), used when Lab.loadBuiltinTranslator or Lab.loadSeq2Seq loads it. */
  seq2seqWasmBinary?: ArrayBuffer | Uint8Array;
  /** Where to fetch each .wasm from (browsers): given the file name, return its URL. Used for the
   *  training, GPT and referent modules too, unless their bytes are given. */
  locateFile?: (file: string, scriptDirectory: string) => string;
  /** Bytes one call may use for what it creates (default 512 MiB, at most 2 GiB). A call that would
   *  need more is refused with an AttnLabError before it allocates anything. */
  memoryBudget?: number;
  /** true: also load the training module (TaskModel) before resolving, as Lab.loadTraining() does.
   *  Default false: init() leaves it alone, and pages that never train never download it. */
  training?: boolean;
}

/** One wasm heap: its size, the bytes in use by live allocations, and the memory budget (bytes). */
export interface HeapStats {
  heapSize: number;
  inUse: number;
  budget: number;
}

export interface MaskOptions {
  /** n_q×n_k, 1 = may attend, 0 = blocked (or the other way round with maskKind: 'block'). */
  mask?: MatrixInput;
  /** 'binary' (default): 1 = may attend. 'block': 1 = blocked, as nn.MultiheadAttention's boolean attn_mask. */
  maskKind?: 'binary' | 'block';
  /** Causal mask aligned to the last key (combined with `mask` if both are given). */
  causal?: boolean;
  /** false: return only `output`, computed with an online softmax over key blocks (FlashAttention):
   *  no n×n matrix is ever made, so memory grows with n·d, not n² — seq 16,384 fits. */
  weights?: boolean;
}

export interface AttentionOptions extends MaskOptions {
  /** Multiplies QKᵀ; default 1/√d_k; 1 means no scaling. */
  scale?: number;
}

/** Float32Arrays that scaledDotProductAttention writes its result matrices into, instead of making new
 *  ones: each of exactly that matrix's rows × cols values (output n_q×d_v, the others n_q×n_k), and the
 *  result's `data` is then that array. A call made every frame then allocates nothing for its result.
 *  The matrices absent with weights: false cannot be named. On an error nothing is written. */
export interface AttentionOutArrays {
  output?: Float32Array;
  weights?: Float32Array;
  scores?: Float32Array;
  scaledScores?: Float32Array;
  maskedScores?: Float32Array;
}

export interface ScaledDotProductAttentionOptions extends AttentionOptions {
  out?: AttentionOutArrays;
}

export interface AttentionResult {
  /** n_q×d_v */
  output: Matrix;
  /** n_q×n_k softmax weights; rows sum to 1 (or are all 0 when every key is blocked). Absent with weights: false. */
  weights?: Matrix;
  /** n_q×n_k raw QKᵀ (absent with weights: false) */
  scores?: Matrix;
  /** scores × scale (absent with weights: false) */
  scaledScores?: Matrix;
  /** scaled scores with blocked entries at −Infinity (absent with weights: false) */
  maskedScores?: Matrix;
}

/** What scaledDotProductAttention returns when the weights were asked for (the default). */
export interface FullAttentionResult extends AttentionResult {
  weights: Matrix;
  scores: Matrix;
  scaledScores: Matrix;
  maskedScores: Matrix;
}

export interface FlashAttentionTraceOptions extends Omit<AttentionOptions, 'weights'> {
  /** Keys per block, an integer ≥ 1 (default 256, the size scaledDotProductAttention's own blocks have). */
  blockSize?: number;
}

/** The state of every query row after one key block of flashAttentionTrace. */
export interface FlashAttentionBlock {
  /** This block holds keys keyStart … keyStart + keyCount − 1. */
  keyStart: number;
  keyCount: number;
  /** n_q×keyCount: this block's scaled scores (bias added, blocked entries −Infinity). */
  scores: Matrix;
  /** n_q values, m: the largest score each row has seen so far (−Infinity while all its keys so far are blocked). */
  max: Float32Array;
  /** n_q values, l: Σ exp(score − m) over the keys seen so far. */
  sum: Float32Array;
  /** n_q values, exp(m_before − m): what the accumulator from earlier blocks was multiplied by (0 on the first). */
  rescale: Float32Array;
  /** n_q×d_v: Σ exp(score − m)·v over the keys seen so far, the output before it is divided by l. */
  accumulator: Matrix;
}

export interface FlashAttentionTraceResult {
  /** One per key block, in order. */
  blocks: FlashAttentionBlock[];
  /** n_q×d_v: the last accumulator divided by the last sum, scaledDotProductAttention's output. */
  output: Matrix;
}

/** One named intermediate of a forward pass, in the order it was computed. */
export interface Step {
  /** Stable id, e.g. "head0.scores", "attn.head1.weights", "ffn.linear1". */
  id: string;
  title: string;
  /** One line, with this step's shapes and numbers. */
  explanation: string;
  tensors: { [name: string]: Matrix };
}

/** A step of a tensor call's trace: each tensor keeps its shape, (2, 4, 3, 2, 4) say. */
export interface TensorStep {
  id: string;
  title: string;
  explanation: string;
  tensors: { [name: string]: Tensor };
}

export type PositionalScheme = 'none' | 'rotary' | 'alibi';

export interface MultiHeadAttentionOptions {
  dModel: number;
  /** Must divide dModel. */
  numHeads: number;
  bias?: boolean;
  seed?: number;
  /** Dropout on the attention weights, in training mode only. */
  dropout?: number;
  positions?: PositionalScheme;
}

/** nn.MultiheadAttention's state_dict with camelCase names. */
export interface MultiHeadAttentionWeights {
  /** 3·dModel×dModel: rows of W_q, then W_k, then W_v. */
  inProjWeight: MatrixInput;
  inProjBias?: VectorInput;
  outProjWeight: MatrixInput;
  outProjBias?: VectorInput;
}

export interface MultiHeadAttentionResult {
  /** n_q×dModel */
  output: Matrix;
  /** One n_q×n_k matrix per head (absent with weights: false). */
  weights?: Matrix[];
  /** Mean of the heads' weights, PyTorch's default return (absent with weights: false). */
  averageWeights?: Matrix;
}

/** MultiHeadAttention.forward's options; `out` as in scaledDotProductAttention (AttentionOutArrays):
 *  output n_q×dModel, averageWeights n_q×n_k (not with weights: false). */
export interface MultiHeadForwardOptions extends MaskOptions {
  out?: { output?: Float32Array; averageWeights?: Float32Array };
}

/** What forward returns when the weights were asked for (the default). */
export interface FullMultiHeadAttentionResult extends MultiHeadAttentionResult {
  weights: Matrix[];
  averageWeights: Matrix;
}

export interface MultiHeadAttention {
  parameterCount(): number;
  loadWeights(weights: MultiHeadAttentionWeights): this;
  weights(): { inProjWeight: Matrix; inProjBias?: Float32Array; outProjWeight: Matrix; outProjBias?: Float32Array };
  /** Tensors: x (batch, seq, d_model) for self-attention, or query (batch, n_q, d_model) with key and
   *  value (batch, n_k, d_model); each sequence's result is the Matrix call's on that sequence alone. */
  forward(query: { shape: readonly number[]; data: NumberArray }, key: TensorInput | undefined, value: TensorInput | undefined,
          options: TensorMultiHeadOptions & { weights: false }): { output: Tensor };
  forward(query: { shape: readonly number[]; data: NumberArray }, key?: TensorInput, value?: TensorInput,
          options?: TensorMultiHeadOptions): TensorMultiHeadResult;
  forward(query: MatrixInput, key: MatrixInput | undefined, value: MatrixInput | undefined,
          options: TensorMultiHeadOptions & { keyPaddingMask: TensorInput }): TensorMultiHeadResult;
  forward(query: MatrixInput, key: MatrixInput | undefined, value: MatrixInput | undefined,
          options: MultiHeadForwardOptions & { weights: false }): MultiHeadAttentionResult;
  forward(query: MatrixInput, key?: MatrixInput, value?: MatrixInput, options?: MultiHeadForwardOptions): FullMultiHeadAttentionResult;
  /** Tensors: the tutorials' steps — x, qkv (batch, seq, 3·d_model), qkv.reshape (batch, seq, 3, heads, d_k),
   *  qkv.permute (3, batch, heads, seq, d_k), q_k_v, scores, weights, heads, transpose, concat, output. */
  trace(query: { shape: readonly number[]; data: NumberArray }, key?: TensorInput, value?: TensorInput,
        options?: TensorMaskOptions): TensorStep[];
  trace(query: MatrixInput, key?: MatrixInput, value?: MatrixInput, options?: MaskOptions): Step[];
  /** Training mode turns seeded dropout on; modules start in evaluation mode. */
  train(on?: boolean): this;
  dispose(): void;
}

/** The constructor on the Lab object (`new lab.MultiHeadAttention(options)`); the package exports no class of
 *  this name: every instance belongs to one initialised Lab and its wasm heap. */
export interface MultiHeadAttentionConstructor {
  new (options: MultiHeadAttentionOptions): MultiHeadAttention;
}

export interface TransformerEncoderLayerOptions {
  dModel: number;
  numHeads: number;
  dFF?: number;
  normFirst?: boolean;
  norm?: 'layernorm' | 'rmsnorm';
  activation?: 'gelu' | 'gelu_tanh' | 'relu';
  seed?: number;
  dropout?: number;
  normEps?: number;
  /** Biases of the attention and feed-forward projections. Unlike PyTorch's bias=False, the LayerNorms
   *  keep theirs (norm1.bias and norm2.bias are still loaded). */
  bias?: boolean;
  positions?: PositionalScheme;
}

export interface LinearWeights {
  weight: MatrixInput;
  bias?: VectorInput;
}

export interface NormWeights {
  weight: VectorInput;
  /** Absent for RMSNorm. */
  bias?: VectorInput;
}

/** nn.TransformerEncoderLayer's state_dict names. */
export interface TransformerEncoderLayerWeights {
  selfAttn: MultiHeadAttentionWeights;
  linear1: LinearWeights;
  linear2: LinearWeights;
  norm1: NormWeights;
  norm2: NormWeights;
}

export interface TransformerEncoderLayer {
  parameterCount(): number;
  parameterCounts(): { selfAttn: number; feedForward: number; norms: number; total: number };
  loadWeights(weights: TransformerEncoderLayerWeights): this;
  /** x (batch, seq, d_model) → (batch, seq, d_model): each sequence the Matrix call's on that sequence alone.
   *  mask is (seq, seq) or (batch, seq, seq), binary; keyPaddingMask (batch, seq), 1 = PAD. */
  forward(x: { shape: readonly number[]; data: NumberArray }, options?: TensorMaskOptions): Tensor;
  forward(x: MatrixInput, options?: MaskOptions): Matrix;
  trace(x: MatrixInput, options?: MaskOptions): Step[];
  train(on?: boolean): this;
  dispose(): void;
}

/** The constructor on the Lab object (`new lab.TransformerEncoderLayer(options)`); the package exports no class of
 *  this name: every instance belongs to one initialised Lab and its wasm heap. */
export interface TransformerEncoderLayerConstructor {
  new (options: TransformerEncoderLayerOptions): TransformerEncoderLayer;
}

export type TaskName = 'copy' | 'reverse' | 'sort' | 'coreference' | 'sentiment' | 'repeat';

export interface TaskModelOptions {
  task: TaskName;
  /** Symbols to copy / reverse / sort (2 … 16; 0 = 6); repeat's sequence length (24 … 64; 0 = 32).
   *  Ignored by the classification tasks. */
  length?: number;
  dModel?: number;
  numHeads?: number;
  /** Encoder layers of the causal transformer (sequence tasks; 1 … 4). */
  layers?: number;
  /** The feed-forward's hidden size (default 64); 0 = attention-only layers (no MLP, no second norm). */
  dFF?: number;
  /** false: no position embedding (sequence tasks; default true). */
  positions?: boolean;
  /** Adam's learning rate (default 1e-3, the tutorials'). */
  lr?: number;
  seed?: number;
}

/** One example: seqLen token ids, and seqLen next-token targets (-100 = no loss) or one class id. */
export interface TaskExample {
  tokens: number[] | Int32Array;
  targets: number[] | Int32Array;
}

export interface TaskModelSnapshot {
  task: TaskName;
  parameters: Float32Array[];
  expAvg: Float32Array[];
  expAvgSq: Float32Array[];
  adamStep: number;
  steps: number;
}

/** A small transformer trained on a toy task in the wasm heap: a causal transformer for copy, reverse,
 *  sort and repeat (next-token prediction), the tutorials' AttentionClassifier for coreference and sentiment.
 *  It lives in the training module: the constructor throws an AttnLabError until Lab.loadTraining()
 *  has resolved (or init({ training: true }) was used). */
export interface TaskModel {
  readonly info: Readonly<{ task: TaskName; seqLen: number; vocabulary: string[]; classNames: string[]; sequence: boolean; parameterCount: number }>;
  /** Adam steps taken so far. */
  readonly steps: number;
  parameterCount(): number;
  examples(count: number, seed?: number): TaskExample[];
  /** Training and held-out examples; no held-out input is among the training ones. */
  split(trainCount: number, testCount: number, seed?: number): { train: TaskExample[]; test: TaskExample[] };
  /** One Adam step on the batch's mean cross-entropy; returns that loss. */
  trainStep(batch: TaskExample[]): number;
  /** accuracy: scored positions (or sentences) right; sequenceAccuracy: examples entirely right. */
  evaluate(examples: TaskExample[]): { loss: number; accuracy: number; sequenceAccuracy: number };
  /** Every head's n×n weights, layer by layer, with the example's logits and loss. */
  attentionWeights(example: TaskExample): { layers: Matrix[][]; logits: Matrix; loss: number };
  /** Repeat models only: per head, layer-major (layer · numHeads + head), the mean over the examples of
   *  the attention from the second copy's positions to the position before each (previousToken) and
   *  from the second copy's s_i to the first copy's s_{i+1} (induction). */
  inductionScores(examples: TaskExample[]): { previousToken: Float32Array; induction: Float32Array };
  snapshot(): TaskModelSnapshot;
  restore(snapshot: TaskModelSnapshot): this;
  decode(ids: number[] | Int32Array): string;
  dispose(): void;
}

/** The constructor on the Lab object (`new lab.TaskModel(options)`); the package exports no class of
 *  this name: every instance belongs to one initialised Lab and its wasm heap. */
export interface TaskModelConstructor {
  new (options: TaskModelOptions): TaskModel;
}

export interface GPTConfig {
  vocabSize: number;
  contextLength: number;
  dModel: number;
  numHeads: number;
  numLayers: number;
}

/** Temperature (0 = greedy), then top-k (0 = all), then top-p (nucleus), renormalised; seeded. */
/** Applied in Hugging Face generate()'s order: the penalties (given the context), then temperature,
 *  top-k, top-p. */
export interface SamplingOptions {
  /** ≥ 0; 0 = greedy. Default 1. */
  temperature?: number;
  /** Keep the k most probable tokens; 0 (default) = all. */
  topK?: number;
  /** Keep the most probable tokens until their mass reaches topP, in (0, 1]; default 1. */
  topP?: number;
  seed?: number;
  /** CTRL's penalty θ > 0 as Hugging Face's repetition_penalty: a logit of a token already in the
   *  context is divided by θ if positive, multiplied by θ if negative. Default 1 (off). */
  repetitionPenalty?: number;
  /** Hugging Face's no_repeat_ngram_size: a token that would complete an n-gram already in the context
   *  is blocked. Default 0 (off). */
  noRepeatNgramSize?: number;
  /** OpenAI's presence_penalty: subtracted from the logit of every token the context holds. Default 0. */
  presencePenalty?: number;
  /** OpenAI's frequency_penalty: subtracted once per occurrence in the context. Default 0. */
  frequencyPenalty?: number;
}

/** What GPTModel.generate returns. */
export interface Generation {
  tokens: Int32Array;
  /** Each token's probability in the distribution it was drawn from. */
  probabilities: Float32Array;
  /** Why it ended: maxTokens reached, a stop token drawn, or the model's context full (fewer tokens). */
  stopped: 'maxTokens' | 'stopToken' | 'context';
}

export interface SampledToken {
  token: number;
  /** The distribution the token was drawn from (0 for filtered tokens). */
  probabilities: Float32Array;
}

export interface HeadAblation {
  layer: number;
  head: number;
}

export interface GPTForwardOptions {
  /** Also return every head's attention weights. */
  attention?: boolean;
  /** Also return the named steps (embed, h0.ln_1, h0.attn.qkv, h0.attn.head0.weights, …, logits). */
  trace?: boolean;
  /** Heads to knock out: their output set to 0 ('zero', default) or to its mean over the positions ('mean'). */
  ablate?: HeadAblation[];
  ablation?: 'zero' | 'mean';
}

export interface GPTModelForwardOptions extends GPTForwardOptions {
  /**
   * Which rows of logits to compute: 'all' (default, n×vocabSize), 'last' (1×vocabSize: the token after
   * the last position) or 'none' (0×vocabSize, when only the attention is wanted). The logits are much
   * of a short prompt's work.
   */
  logits?: 'all' | 'last' | 'none';
}

export interface GPTForwardResult {
  /** n×vocabSize: row t scores the token after position t (1×vocabSize or 0×vocabSize with `logits`). */
  logits: Matrix;
  /** [layer][head], each n×n (with `attention: true`). */
  attention?: Matrix[][];
  trace?: Step[];
}

/** Mean attention weights per layer and head, each a numLayers×numHeads Matrix. */
export interface HeadScores {
  previousToken: Matrix;
  firstToken: Matrix;
  induction: Matrix;
  duplicateToken: Matrix;
}

export interface GPTTrainingOptions {
  maxLr?: number;
  minLr?: number;
  warmupSteps?: number;
  totalSteps?: number;
  weightDecay?: number;
  clipNorm?: number;
  beta1?: number;
  beta2?: number;
}

export interface GPTStepResult {
  loss: number;
  gradNorm: number;
  lr: number;
  step: number;
}

/** A GPT-2-architecture model in the GPT module's heap (Lab.loadGPT, Lab.createGPT). */
/** The hook points of a GPT's forward, as TransformerLens names them: 'hook_embed', 'hook_pos_embed',
 *  'blocks.{l}.hook_resid_pre', 'blocks.{l}.ln1.hook_scale', 'blocks.{l}.ln1.hook_normalized',
 *  'blocks.{l}.attn.hook_q' | 'hook_k' | 'hook_v' | 'hook_z' (seq, heads, dHead),
 *  'blocks.{l}.attn.hook_attn_scores' | 'hook_pattern' (heads, seq, seq), 'blocks.{l}.hook_attn_out',
 *  'blocks.{l}.hook_resid_mid', 'blocks.{l}.ln2.hook_scale' | 'ln2.hook_normalized', 'blocks.{l}.mlp.hook_pre' |
 *  'mlp.hook_post' (seq, 4·dModel), 'blocks.{l}.hook_mlp_out', 'blocks.{l}.hook_resid_post',
 *  'ln_final.hook_scale' (seq, 1), 'ln_final.hook_normalized'. */
export type HookName = string;

/** One run's activations in TransformerLens's shapes for one sequence (no batch dimension). */
/** A stack of residual-stream components, TransformerLens's (components, seq, dModel), or (components, dModel) when
 *  one position was chosen, with a label for each component. */
export interface ResidualStack {
  stack: Tensor;
  labels: string[];
}

/** What the stacking calls share: layer 0 … numLayers, or −1 (= numLayers, up to the unembed); position one position
 *  (−1 the last; TransformerLens's pos_slice=int: the positions dim is dropped), every position when left out. */
export interface StackOptions {
  layer?: number;
  position?: number;
  /** Apply the LayerNorm read at layer to the stack (applyLnToStack). */
  applyLn?: boolean;
}

export interface ActivationCache {
  /** The run's token ids. */
  readonly ids: Int32Array;
  /** The kept points, in forward order. */
  names(): HookName[];
  /** By full name or get_act_name's short form, as get. */
  has(name: HookName, layer?: number, layerType?: string): boolean;
  /** A copy of one point's values; AttnLabError if this run did not keep it. The name is a full name or
   *  TransformerLens's utils.get_act_name short form: get('pattern', 0) and get('pattern0') are
   *  blocks.0.attn.hook_pattern, get('scale', 1, 'ln2') blocks.1.ln2.hook_scale, get('scale') ln_final.hook_scale.
   *  On a GPT's cache also blocks.{l}.attn.hook_result (get('result', l)): (seq, heads, dModel), each head's z·W_O
   *  before the output bias (hook_attn_out = Σ heads + b_O), computed from the kept hook_z. */
  get(name: HookName, layer?: number, layerType?: string): Tensor;
  /** TransformerLens's accumulated_resid: the residual stream at 0_pre (0_mid with inclMid), 1_pre, …, final_post (up to
   *  layer's resid_pre; its resid_mid too with mlpInput). applyLn at the unembed applies ln_final itself to each
   *  component, weight and bias, with the component's own statistics (TransformerLens's recompute_ln): times wteᵀ that
   *  is logitLens's logits; at an earlier layer, the cached ln1 (ln2) scale. GPT only: refused on a Llama's cache. */
  accumulatedResid(options?: StackOptions & { inclMid?: boolean; mlpInput?: boolean }): ResidualStack;
  /** TransformerLens's decompose_resid: embed, pos_embed, 0_attn_out, 0_mlp_out, … (what wrote the stream entering
   *  layer; mlpInput adds layer's attn_out; mode 'attn' or 'mlp' keeps one kind). Their sum is the stream. GPT only. */
  decomposeResid(options?: StackOptions & { mlpInput?: boolean; mode?: 'all' | 'attn' | 'mlp'; inclEmbeds?: boolean }): ResidualStack;
  /** TransformerLens's stack_head_results: L0H0, L0H1, … for every head before layer (hook_result, no b_O), and with
   *  inclRemainder 'remainder' = resid_post of layer − 1 − Σ heads. GPT only. */
  stackHeadResults(options?: StackOptions & { inclRemainder?: boolean }): ResidualStack;
  /** TransformerLens's stack_activation: the point `name` (a short form: 'pattern', 'resid_pre', 'result') of layers
   *  0 … layer − 1 stacked on a new first dim; labels are the full names (TransformerLens returns none). GPT only. */
  stackActivation(name: string, options?: { layer?: number; layerType?: string }): ResidualStack;
  /** TransformerLens's apply_ln_to_stack: each component centred (a LayerNorm removes the mean) and divided by the
   *  cached scale of the LayerNorm at layer — ln_final (default), ln1, or ln2 with mlpInput — at each position; no
   *  weight or bias. recomputeLn at the unembed: ln_final itself on each component (weight, bias, its own statistics).
   *  position: the one the stack was taken at. GPT only. */
  applyLnToStack(stack: Tensor, options?: { layer?: number; mlpInput?: boolean; recomputeLn?: boolean; position?: number }): Tensor;
  /** TransformerLens's logit_attrs: each component through ln_final with its cached scale, read along
   *  ln_final.weight ⊙ wte[token] (− wte[incorrectTokens]) — the residual direction TransformerLens's default fold_ln
   *  gives — so decomposeResid's parts plus ln_final.bias·(wte[token] − wte[incorrect]) sum to the model's logit
   *  (difference), and stackHeadResults' parts are directLogitAttribution's head terms. tokens: one id, or one per
   *  position. → (components, seq), or (components) with a position. GPT only. */
  logitAttrs(stack: Tensor, options: { tokens: number | ArrayLike<number>; incorrectTokens?: number | ArrayLike<number>; position?: number }): Tensor;
}

/** One replacement in runWithHooks: exactly one of value (the point's whole shape), from (a cache of a
 *  run of the same length: its value of this point) or ablate. Positions (query rows of a pattern) and
 *  heads (at per-head points: q, k, v, attn_scores, pattern, z) choose the entries; all when left out. */
export interface ActivationPatch {
  name: HookName;
  value?: Tensor;
  from?: ActivationCache;
  ablate?: 'zero' | 'mean';
  positions?: number[];
  heads?: number[];
}

/** A hook function in runWithHooks (TransformerLens's fwd_hooks): called at the point `name` (a full hook name) after
 *  its patches, with the point's value in TransformerLens's shape. Change value.data in place, or return a tensor of
 *  the same shape; the rest of the run reads what it leaves. A NaN or +∞ left in it, a wrong shape or an unknown name
 *  is an AttnLabError; an error the function throws is rethrown as it was, and the model stays usable. */
export interface HookFunction {
  name: HookName;
  fn: (value: Tensor, hook: { name: string }) => Tensor | void;
}

/** One cell of the logit lens: the top k tokens at that point and position, and the target's standing. */
export interface LensCell {
  top: { id: number; probability: number }[];
  /** With a target: its probability and rank (1 = the most likely). */
  target?: { probability: number; rank: number };
}

/** A lens cell when the call named a target. */
export interface TargetLensCell extends LensCell {
  target: { probability: number; rank: number };
}

export interface LogitLens<Cell extends LensCell = LensCell> {
  /** blocks.{l}.hook_resid_pre and hook_resid_mid of every block, then the last block's hook_resid_post. */
  points: HookName[];
  positions: number[];
  /** cells[point][i]: at positions[i]. */
  cells: Cell[][];
}

/** The lens at one position: also its cells as rows, one per point. */
export interface LogitLensAt<Cell extends LensCell = LensCell> extends LogitLens<Cell> {
  rows: (Cell & { point: HookName })[];
}

export interface AttributionTerm {
  part: 'embed' | 'pos_embed' | 'head' | 'attn_bias' | 'mlp' | 'ln_final_bias';
  /** −1 where the part has none. */
  layer: number;
  head: number;
  /** 'embed', 'pos_embed', 'L1H3', 'L1 b_O', 'L1 mlp_out', 'ln_final.b' */
  label: string;
  value: number;
}

export interface Attribution {
  terms: AttributionTerm[];
  /** Σ terms, beside the model's own logit (difference) it explains. */
  sum: number;
  logit: number;
}

/** logit[target] − logit[baseline] at position (default: the last). */
export interface LogitDiffMetric {
  target: number;
  baseline: number;
  position?: number;
}

export interface ActivationPatchingOptions {
  what: 'resid_pre' | 'attn_out' | 'mlp_out' | 'z' | 'pattern' | 'q' | 'k' | 'v';
  /** 'position' (default): (layers, seq), or (layers, seq, heads) at a per-head point; 'head': (layers, heads);
   *  'all': (layers). */
  per?: 'position' | 'head' | 'all';
  /** A logit difference (measured in the core), or any function of the patched run's logits (seq × vocab) → a finite
   *  number: a probability, a loss, a difference at any position. A function's sweep runs each cell as a runWithHooks
   *  here (slower); its pair is refused unless the clean run scores higher (with allowUnfavourable: a warning), and a
   *  dispose() during it stops it at the next cell. */
  metric: LogitDiffMetric | ((logits: Matrix) => number);
  /** After each layer's cells. */
  onProgress?: (progress: { done: number; total: number }) => void;
  /** Checked before the clean and corrupted runs (an already-aborted signal rejects at once, nothing computed) and
   *  before each cell (one patched forward): the promise rejects with the signal's reason (an AbortError); the model
   *  stays usable. The cells are computed one at a time and the thread is given back at least every 30 ms and after
   *  each layer, so no task is much longer than one cell. For no long task at all, run the sweep in a Worker (web/README.md). */
  signal?: AbortSignal;
  /** A pair whose clean run does not favour the target over the baseline by more than 0.5 logit beyond the
   *  corrupted run (clean − corrupted ≤ 0.5) is refused with an AttnLabError giving both values; true returns
   *  its numbers instead, with `warning` set. */
  allowUnfavourable?: boolean;
}

/** attributionPatching's options: activationPatching's grid, no progress or signal (one backward, synchronous). */
export type AttributionPatchingOptions = Omit<ActivationPatchingOptions, 'onProgress' | 'signal' | 'metric'> & { metric: LogitDiffMetric };

export interface ActivationPatchingResult {
  /** (patched − corrupted) / (clean − corrupted): 0 = the corrupted run's metric, 1 = the clean run's. */
  grid: Tensor;
  clean: number;
  corrupted: number;
  /** The position a LogitDiffMetric is read at (none with a function metric). */
  position?: number;
  /** What a cell means, outside [0, 1] too: above 1 past the clean run's value, below 0 away from it. */
  meaning: string;
  /** Only with allowUnfavourable, when clean − corrupted ≤ 0.5 (a logit difference) or ≤ 0 (a function metric): why
   *  the shares mislead, with both values. */
  warning?: string;
}

/** TransformerLens's weight processing (HookedTransformer.process_weights_) for the copying score, each step off by
 *  default. The score moves with each: on attnlab-kjv L3H0 is −0.866 raw, +0.339 with foldLn and centreWriting, −0.384
 *  with centreUnembed as well — a shift of every logit by the same amount, which softmax ignores, changes an eigenvalue score. */
/** compositionScores' options: the baseline's draws (200) and seed (0), and TransformerLens's processing of the heads'
 *  factors, each off by default (the raw weights). The scores move with each step: say which a score was computed under. */
export interface CompositionOptions {
  draws?: number;
  seed?: number;
  /** Each head's layer's ln_1 weight (a Llama's input_layernorm) into its W_Q, W_K and W_V, then those centred over
   *  d_model (not on a Llama: an RMSNorm removes no mean). */
  foldLn?: boolean;
  /** W_O centred over d_model (a GPTModel's only: a Llama refuses it). */
  centreWriting?: boolean;
}

export interface CopyingProcessing {
  /** ln_1's weight into W_V and ln_f's into W_U, then those reading weights centred over d_model. */
  foldLn?: boolean;
  /** W_E and W_O centred over d_model (what a LayerNorm removes from the residual stream anyway). */
  centreWriting?: boolean;
  /** W_U centred over the vocabulary. */
  centreUnembed?: boolean;
}

/** Path patching's sender (a head), its receivers (heads of later layers, each read through its q, k or v) and metric. */
/** Exactly one of receivers (heads, through their queries, keys or values) and to. */
export interface PathPatchingOptions {
  sender: { layer: number; head: number };
  receivers?: { layer: number; head: number; input: 'q' | 'k' | 'v' }[];
  /** A GPTModel's receiver that is not a head: 'logits' (the sender's change reaching them along paths with no head on
   *  them: every other head, from the sender's layer on, frozen at its clean output; the MLPs recomputed), or a later
   *  block's 'blocks.{l}.hook_resid_pre' (that run's value there, put into the clean prompt alone). As ARENA's path
   *  patching to the final residual stream. */
  to?: 'logits' | HookName;
  metric: LogitDiffMetric;
  /** As ActivationPatchingOptions.allowUnfavourable. */
  allowUnfavourable?: boolean;
}

export interface PathPatchingResult {
  clean: number;
  corrupted: number;
  /** The logit difference with the sender's corrupted output reaching the receivers only through their inputs. */
  patched: number;
  /** (patched − clean) / (clean − corrupted): 0 = no effect, −1 = the whole drop to the corrupted run. */
  normalised: number;
  /** What normalised means, outside [−1, 0] too. */
  meaning: string;
  /** Only with allowUnfavourable, when clean − corrupted ≤ 0.5 (see ActivationPatchingOptions). */
  warning?: string;
}

/** A head's circuits from the weights: QK = wQ·wKᵀ, OV = wV·wO (row-vector convention, biases left out). */
export interface HeadCircuit {
  wQ: Matrix;
  wK: Matrix;
  wV: Matrix;
  wO: Matrix;
  /** Σλ / Σ|λ| over the eigenvalues of W_E·OV·W_U: 1 for a head that copies what it attends to. */
  copyingScore: number;
}

export interface CompositionScores {
  /** Every head against every head of a later layer: Q-, K- and V-composition (Frobenius-norm ratios). */
  pairs: { from: { layer: number; head: number }; to: { layer: number; head: number }; q: number; k: number; v: number }[];
  /** The mean score of random factors of the same shapes over `draws` seeded draws. */
  baseline: number;
  draws: number;
}

/** The logit lens of a GPTModel (ln_final and the unembedding) or a LlamaModel (model.norm with each point's own
 *  RMS, and the unembedding), applied at every resid_pre and resid_mid, then the model's own last row; k defaults
 *  to 5. One position gives its column as rows; a target adds its probability and rank to every cell. */
export interface LogitLensCalls {
  logitLens(ids: ArrayLike<number>, options: { position: number; k?: number; target: number }): LogitLensAt<TargetLensCell>;
  logitLens(ids: ArrayLike<number>, options: { position: number; k?: number; target?: number }): LogitLensAt;
  logitLens(ids: ArrayLike<number>, options: { positions?: number[]; k?: number; target: number }): LogitLens<TargetLensCell>;
  logitLens(ids: ArrayLike<number>, options?: { positions?: number[]; k?: number; target?: number }): LogitLens;
}

export interface GPTModel extends LogitLensCalls {
  readonly config: GPTConfig;
  parameterCount(): number;
  /** A batch of sequences of one length, ids { shape: [batch, seq], data } (pad at the end: causal attention
   *  never reads a later position) → logits (batch, seq, vocab) ((batch, 1, vocab) with logits 'last',
   *  null with 'none') and, with attention: true, one (batch, heads, seq, seq) tensor per layer. Each
   *  sequence is the one-sequence call's, bit for bit. trace is for one sequence. */
  forward(ids: { shape: readonly number[]; data: ArrayLike<number> }, options?: GPTModelForwardOptions): { logits: Tensor | null; attention?: Tensor[] };
  forward(ids: ArrayLike<number>, options?: GPTModelForwardOptions): GPTForwardResult;
  /** Per position t, −log p(ids[t + 1]): n − 1 values. */
  tokenLosses(ids: ArrayLike<number>, options?: GPTForwardOptions): Float32Array;
  headScores(text: ArrayLike<number>, options?: { repeatLength?: number; samples?: number; seed?: number; tokenLow?: number; tokenHigh?: number }): HeadScores;
  /** The penalties see the prompt and the tokens generated so far. */
  generate(ids: ArrayLike<number>, options?: SamplingOptions & { maxTokens?: number; stopToken?: number; stopTokens?: ArrayLike<number> }): Generation;
  session(): GPTSession;
  /** Multiply-adds for the next token's logits after n tokens, with the KV cache (default) or a full forward. */
  multiplyAdds(n: number, options?: { cache?: boolean }): number;
  save(options?: { dtype?: 'F32' | 'F16' | 'BF16' }): Uint8Array;
  tensorNames(): string[];
  tensor(name: string): { shape: number[]; data: Float32Array };
  startTraining(options?: GPTTrainingOptions): this;
  /** `batch` sequences of equal length laid end to end; targets −1 = no loss. */
  trainStep(ids: ArrayLike<number>, targets: ArrayLike<number>, batch?: number): GPTStepResult;
  loss(ids: ArrayLike<number>, targets: ArrayLike<number>, batch?: number): number;
  /** ids → the logits and every hook point (or the named ones), equal to forward's bit for bit. */
  /** names: full hook names, or TransformerLens's short forms ('pattern0'; 'resid_pre' or 'pattern' for that point
   *  in every block), a misspelt one refused with the nearest. Every point when left out. */
  runWithCache(ids: ArrayLike<number>, options?: { names?: HookName[] }): { logits: Matrix; cache: ActivationCache };
  /** A run with replaced activations; keep names points of the patched run to cache. */
  /** patch and hooks together: at each point the patches apply first, then the hook functions. */
  runWithHooks(ids: ArrayLike<number>, options: { patch?: ActivationPatch[]; hooks?: HookFunction[]; keep?: HookName[] }): { logits: Matrix; cache?: ActivationCache };
  /** Contributions to logit[target] (− logit[baseline]) at position (default: the last), ln_final's scale frozen. */
  directLogitAttribution(ids: ArrayLike<number>, options: { position?: number; target: number; baseline?: number }): Attribution;
  /** The corrupted prompt with one clean activation put back per cell (prompts of the same token length). The model
   *  is held while the sweep runs: dispose() meanwhile refuses new calls at once and frees the model when the sweep ends. */
  activationPatching(clean: ArrayLike<number>, corrupted: ArrayLike<number>, options: ActivationPatchingOptions): Promise<ActivationPatchingResult>;
  /** Wang et al.'s path patching: the sender's corrupted output reaching the receivers (later layers) only through the named inputs. */
  pathPatching(clean: ArrayLike<number>, corrupted: ArrayLike<number>, options: PathPatchingOptions): PathPatchingResult;
  /** Attribution patching: activationPatching's grid (same shape, same normalisation) estimated to first order from one
   *  forward and one backward of the corrupted run, (clean − corrupted activation) · ∂metric/∂activation per cell. Close
   *  where the path to the logits is nearly linear (a head's z, attn_out); it misses where the patch passes later
   *  LayerNorms, softmaxes and MLPs (resid_pre) or saturates a softmax. GPTModel only (a LlamaModel has no backward). */
  attributionPatching(clean: ArrayLike<number>, corrupted: ArrayLike<number>, options: AttributionPatchingOptions): ActivationPatchingResult;
  headCircuit(layer: number, head: number): HeadCircuit;
  /** Every head's HeadCircuit.copyingScore at once, layers × heads (the product they share computed once): of the raw
   *  W_E·W_V·W_O·W_U, no LayerNorm folded and nothing centred, unless options ask for TransformerLens's processing. */
  copyingScores(options?: CopyingProcessing): Matrix;
  /** ARENA's check of each head's full OV circuit W_E·W_V·W_O·W_U (V×V), layers × heads: the share of the vocabulary's
   *  tokens whose own column holds the largest entry of their row (1: attending to a token, the head writes that token
   *  first). It reads only each row's order, which the shift softmax ignores cannot change: centreUnembed leaves it as
   *  it is, unlike copyingScores. V²·d_head·2 multiply-adds a head: seconds for a 4,096-token vocabulary. */
  copyingTop1(options?: CopyingProcessing): Matrix;
  /** draws defaults to 200, seed to 0. */
  compositionScores(options?: CompositionOptions): CompositionScores;
  dispose(): void;
}

/** Decoding one token at a time with a KV cache (GPTModel.session()). */
export interface GPTSession {
  readonly length: number;
  append(id: number): { logits: Float32Array; attention: Matrix[][] };
  /** Layer `layer`'s cached keys and values, each length×dModel. */
  cache(layer: number): { keys: Matrix; values: Matrix };
  reset(): this;
  dispose(): void;
}

export interface MergeStep {
  rank: number;
  left: number;
  right: number;
  merged: number;
  tokens: Int32Array;
}

/** Byte-level BPE as GPT-2 tokenizes (Lab.loadTokenizer, Lab.trainTokenizer). */
export interface Tokenizer {
  readonly vocabSize: number;
  /** The id of <|endoftext|>, or null. */
  readonly endOfText: number | null;
  encode(text: string): Int32Array;
  encodeWithSteps(text: string): { text: string; start: Int32Array; steps: MergeStep[]; ids: Int32Array }[];
  decode(ids: ArrayLike<number>): string;
  decodeBytes(ids: ArrayLike<number>): Uint8Array;
  tokenString(id: number): string;
  tokenBytes(id: number): Uint8Array;
  /** GPT-2's spelling ('Ġcat' for ' cat'). */
  tokenText(id: number): string;
  toGPT2Files(): { vocabJson: string; mergesText: string };
  dispose(): void;
}

/** A Llama-family model's config.json, as the core read it (Lab.loadModel). */
export interface LlamaConfig {
  /** The family config.json names; the forward is the same for all three. */
  modelType: 'llama' | 'qwen2' | 'mistral';
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  numLayers: number;
  numHeads: number;
  /** Key/value heads, dividing numHeads: 1 is multi-query attention, numHeads multi-head. */
  numKeyValueHeads: number;
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  ropeScaling: 'llama3' | null;
  maxPositionEmbeddings: number;
  tieWordEmbeddings: boolean;
  /** Mistral's window (0: none): a query sees its own key and the slidingWindow − 1 before it. */
  slidingWindow: number;
  parameterCount: number;
  /** The bytes the loaded weights take in memory: a matrix read from a BF16 file stays BF16 (2 bytes a value;
   *  products widen it exactly, so the numbers are those of the same weights in float32), every other tensor
   *  is float32 (4 bytes). */
  weightBytes: number;
  /** 2 · numLayers · numKeyValueHeads · headDim · 4 bytes: what the KV cache keeps per token. */
  kvCacheBytesPerToken: number;
}

/** A KV cache's policy: window 0 keeps every token; window w > 0 keeps the first `sinks` tokens (StreamingLLM's
 *  attention sinks) and the last w, with RoPE's positions counted within the cache. */
export interface CachePolicy {
  sinks?: number;
  window?: number;
}

/** A Llama, SmolLM2, Qwen2 or Mistral checkpoint in the GPT module's heap (Lab.loadModel). */
export interface LlamaModel extends LogitLensCalls {
  readonly family: 'llama' | 'qwen2' | 'mistral';
  readonly config: LlamaConfig;
  parameterCount(): number;
  /** ids [n] → logits n×vocabSize (1×V with logits 'last', 0×V with 'none'); firstPosition shifts RoPE's positions. */
  forward(ids: ArrayLike<number>, options?: {
    attention?: boolean; ablate?: { layer: number; head: number }[]; ablation?: 'zero' | 'mean';
    logits?: 'all' | 'last' | 'none'; firstPosition?: number;
  }): { logits: Matrix; attention?: Matrix[][] };
  /** TransformerLens's hook points of this family, in forward order: hook_q and hook_rot_q (seq, numHeads, headDim);
   *  hook_k, hook_v, hook_rot_k (seq, numKeyValueHeads, headDim); ln1/ln2/ln_final hook_scale and hook_normalized
   *  (RMSNorm, before its weight); mlp.hook_pre (gate), mlp.hook_pre_linear (up), mlp.hook_post; the rest as the
   *  GPT's (no hook_pos_embed: RoPE adds nothing to the residual stream). */
  hookNames(): HookName[];
  /** ids → the logits and every hook point (or the named ones); firstPosition shifts RoPE's positions. */
  runWithCache(ids: ArrayLike<number>, options?: { names?: HookName[]; firstPosition?: number }): { logits: Matrix; cache: ActivationCache };
  /** A run with replaced activations (heads at hook_k, hook_v, hook_rot_k are key/value heads). */
  runWithHooks(ids: ArrayLike<number>, options: { patch?: ActivationPatch[]; hooks?: HookFunction[]; keep?: HookName[]; firstPosition?: number }): { logits: Matrix; cache?: ActivationCache };
  /** Parts of logit[target] (− logit[baseline]): embed, each head, o_proj's bias (where the config has one), each MLP,
   *  through the final RMSNorm with its scale frozen; nothing is centred (RMSNorm does not centre). */
  directLogitAttribution(ids: ArrayLike<number>, options: { position?: number; target: number; baseline?: number }): Attribution;
  /** As GPTModel's; what 'k' and 'v' per head gives one cell per key/value head. Each cell runs the whole forward. */
  activationPatching(clean: ArrayLike<number>, corrupted: ArrayLike<number>, options: ActivationPatchingOptions): Promise<ActivationPatchingResult>;
  /** As GPTModel's; a receiver read through 'q' is a query head, through 'k' or 'v' a key/value head (0 … numKeyValueHeads − 1),
   *  which every query head of its group reads. */
  pathPatching(clean: ArrayLike<number>, corrupted: ArrayLike<number>, options: PathPatchingOptions): PathPatchingResult;
  /** wQ is W_Q·R(distance): the QK circuit wQ·wKᵀ between a query and a key `distance` tokens before it (RoPE makes it
   *  depend on the distance; default 0); wK, wV are the key/value head the head reads. */
  headCircuit(layer: number, head: number, options?: { distance?: number }): HeadCircuit;
  /** Every head's copying score, layers × heads, of the raw weights unless options ask for processing: foldLn
   *  scales by the RMSNorms' weights without centring (an RMSNorm removes no mean); centreWriting is refused. */
  copyingScores(options?: CopyingProcessing): Matrix;
  /** Q-, K- and V-composition with the QK circuits at distance 0; draws defaults to 200, seed to 0. */
  compositionScores(options?: CompositionOptions): CompositionScores;
  generate(ids: ArrayLike<number>, options?: SamplingOptions & CachePolicy & {
    maxTokens?: number; stopToken?: number; stopTokens?: ArrayLike<number>;
  }): Generation;
  session(options?: CachePolicy): LlamaSession;
  /** The weights as model.safetensors (Hugging Face's names; lm_head left out when tied). */
  save(options?: { dtype?: 'F32' | 'F16' | 'BF16' }): Uint8Array;
  tensorNames(): string[];
  tensor(name: string): { shape: number[]; data: Float32Array };
  dispose(): void;
}

/** A Llama-family model's KV cache (LlamaModel.session). */
export interface LlamaSession {
  /** Tokens read so far. */
  readonly length: number;
  /** Bytes the cache holds now: cached tokens × kvCacheBytesPerToken. */
  readonly cacheBytes: number;
  /** The cached tokens' positions in the text. */
  cachedTokens(): Int32Array;
  /** One id or several → the logits after each (n×vocabSize) and the last token's weights over the cache. */
  append(ids: number | ArrayLike<number>): { logits: Matrix; attention: Matrix[][] };
  /** Layer `layer`'s cache, cached × numKeyValueHeads·headDim each (keys turned by RoPE, unless sinks). */
  cache(layer: number): { keys: Matrix; values: Matrix };
  reset(): this;
  dispose(): void;
}

/** A tokenizer.json (Hugging Face's tokenizers): byte-level BPE as GPT-2, Llama 3, Qwen2 and SmolLM2 use it. */
export interface HFTokenizer {
  readonly vocabSize: number;
  /** '' or 'NFC' (applied by encode). */
  readonly normalizer: string;
  /** 'ByteLevel', 'Split(Llama 3) + ByteLevel', 'Digits + ByteLevel', … */
  readonly preTokenizer: string;
  readonly addedTokens: readonly { id: number; content: string; special: boolean }[];
  /** addSpecialTokens (default true, as Hugging Face's): the post-processor's tokens, Llama 3's <|begin_of_text|>. */
  encode(text: string, options?: { addSpecialTokens?: boolean }): Int32Array;
  decode(ids: ArrayLike<number>, options?: { skipSpecialTokens?: boolean }): string;
  decodeBytes(ids: ArrayLike<number>, options?: { skipSpecialTokens?: boolean }): Uint8Array;
  tokenString(id: number): string;
  /** tokenizer.json's spelling ('Ġthe'). */
  tokenText(id: number): string;
  dispose(): void;
}

/** A checkpoint folder: the FileList of a folder picked in a page, File objects, or name → bytes. */
export type CheckpointFiles =
  | ArrayLike<File>
  | Record<string, Uint8Array | ArrayBuffer | string>
  | Map<string, Uint8Array | ArrayBuffer | string>;

export interface Lab {
  /** True when the SIMD build was loaded. */
  readonly simd: boolean;
  /** How many threads the core uses (1 unless the threaded build was loaded: InitOptions.threads). */
  readonly threads: number;
  /** Why the threaded build was wanted (a cross-origin-isolated page) but not used, when its worker
   *  threads could not start within 15 s or it failed to load; null otherwise. */
  readonly threadsFallback: string | null;
  readonly version: string;
  /** 'wasm-simd128' or 'wasm-scalar'. */
  readonly kernels: string;
  matrix(rows: number, cols: number, data?: VectorInput): Matrix;
  /** rows×cols standard normals from the seeded generator (the same numbers natively and in wasm). */
  randn(rows: number, cols: number, seed: number): Matrix;
  /** A tensor of standard normals: randn([2, 4, 8], seed) holds randn(8, 8, seed)'s numbers. */
  randn(shape: readonly number[], seed?: number): Tensor;
  /** A tensor owning a copy of data (zeros when omitted). */
  tensor(shape: readonly number[], data?: NumberArray): Tensor;
  /** torch's reshape (one dim may be −1): the same numbers in the same order under a new shape. */
  reshape(t: TensorInput, shape: readonly number[]): Tensor;
  /** torch's permute: result dim n is t's dim dims[n]; the numbers move (a row-major copy). */
  permute(t: TensorInput, dims: readonly number[]): Tensor;
  /** torch's transpose(dim0, dim1); negative dims count from the end. */
  transpose(t: TensorInput, dim0: number, dim1: number): Tensor;
  softmax(m: MatrixInput): Matrix;
  /** Tensors: q (…, n_q, d_k), k (…, n_k, d_k), v (…, n_k, d_v), the leading dims broadcasting. */
  scaledDotProductAttention(q: { shape: readonly number[]; data: NumberArray }, k: TensorInput, v: TensorInput, options: TensorAttentionOptions & { weights: false }): { output: Tensor };
  scaledDotProductAttention(q: { shape: readonly number[]; data: NumberArray }, k: TensorInput, v: TensorInput, options?: TensorAttentionOptions): TensorAttentionResult;
  scaledDotProductAttention(q: MatrixInput, k: { shape: readonly number[]; data: NumberArray }, v: TensorInput, options?: TensorAttentionOptions): TensorAttentionResult;
  scaledDotProductAttention(q: MatrixInput, k: MatrixInput, v: MatrixInput, options: TensorAttentionOptions & ({ keyPaddingMask: TensorInput } | { mask: { shape: readonly number[]; data: NumberArray } })): TensorAttentionResult;
  scaledDotProductAttention(q: MatrixInput, k: MatrixInput, v: MatrixInput, options: ScaledDotProductAttentionOptions & { weights: false }): AttentionResult;
  scaledDotProductAttention(q: MatrixInput, k: MatrixInput, v: MatrixInput, options?: ScaledDotProductAttentionOptions): FullAttentionResult;
  /** The same computation as named steps (scores … output, with the softmax's exp and row sums). */
  traceAttention(q: MatrixInput, k: MatrixInput, v: MatrixInput, options?: AttentionOptions): Step[];
  /** The output as weights: false computes it (FlashAttention: keys in blocks, an online softmax per
   *  query row), with every block's scores, running max, running sum, rescale factor and unnormalised
   *  output kept. Memory grows with n_q·n_k: for looking inside, not for long sequences. */
  flashAttentionTrace(q: MatrixInput, k: MatrixInput, v: MatrixInput, options?: FlashAttentionTraceOptions): FlashAttentionTraceResult;
  /** One row per token; a word's row depends only on the word and the seed ('sinusoidal' adds positions). */
  embedTokens(tokens: string[], dModel: number, options?: { seed?: number; positions?: 'none' | 'sinusoidal' }): Matrix;
  causalMask(rows: number, cols?: number): Matrix;
  keyPaddingMask(rows: number, cols: number, validLength: number): Matrix;
  combineMasks(a: MatrixInput, b: MatrixInput): Matrix;
  positionalEncoding(seqLen: number, dModel: number, kind?: 'sinusoidal' | 'learned', options?: { seed?: number }): Matrix;
  applyRotary(x: MatrixInput, positionOffset?: number): Matrix;
  alibiSlopes(numHeads: number): Float32Array;
  alibiBias(rows: number, cols: number, slope: number): Matrix;
  tokenize(text: string): string[];
  /** The main wasm heap's size, the bytes in use, and the memory budget; the training and GPT modules'
   *  own heaps as `training` and `gpt` once they are loaded. */
  memory(): HeapStats & { training?: HeapStats; gpt?: HeapStats };
  /** Changes the memory budget (see InitOptions.memoryBudget), in the training and GPT modules too. */
  setMemoryBudget(bytes: number): this;
  /** Loads the training module (TaskModel): the same build (SIMD or scalar) as the main one, with the
   *  current memory budget. Resolves to this lab; every call returns the same promise (after a failed
   *  load, the next call tries again). */
  loadTraining(): Promise<Lab>;
  /** Loads the GPT module (GPTModel, Tokenizer, sample); the GPT calls below load it on first use. */
  loadGPTModule(): Promise<Lab>;
  /** A GPT from a .safetensors file in Hugging Face GPT-2's layout (F32, F16 or BF16). */
  /** numHeads: the head count when the file's metadata has no n_head; one that differs from the file's n_head
   *  is refused unless overrideNumHeads: true. */
  loadGPT(bytes: Uint8Array | ArrayBuffer, options?: { numHeads?: number; overrideNumHeads?: boolean }): Promise<GPTModel>;
  /** A checkpoint folder as Hugging Face saves it: config.json, model.safetensors (or the index and its shards),
   *  tokenizer.json (or GPT-2's vocab.json and merges.txt). A Llama's weights stream into the model a piece at a
   *  time: the module's memory holds the float32 weights, not the files as well. onProgress reports each weight
   *  file's bytes as they are read (a GPT-2 folder's model.safetensors: when it is a File). */
  loadModel(files: CheckpointFiles, options?: { onProgress?: (progress: { file: string; loaded: number; total: number }) => void }):
    Promise<
      | { family: 'llama' | 'qwen2' | 'mistral'; model: LlamaModel; tokenizer: HFTokenizer }
      | { family: 'gpt2'; model: GPTModel; tokenizer: Tokenizer | HFTokenizer }>;
  /** attnlab's own trained GPT (4 layers × 4 heads, d 192, context 128, a 4,096-token BPE vocabulary
   *  learned on the King James Bible) and its tokenizer, from the package's models/kjv/ files, fetched
   *  on this call (in Node, read from disk). `baseUrl`: a folder serving model.safetensors, vocab.json
   *  and merges.txt, when the host does not serve them next to the package. */
  loadBuiltinModel(options?: { baseUrl?: string | URL }): Promise<{ model: GPTModel; tokenizer: Tokenizer }>;
  /** The built-in model's tokenizer alone (models/kjv/vocab.json and merges.txt, not the weights). */
  loadBuiltinTokenizer(options?: { baseUrl?: string | URL }): Promise<Tokenizer>;
  /** The "it" sentence model attnlab trained (models/referent/, scripts/train-referent.sh), fetched on this
   *  call, with its training log. */
  loadReferentModel(options?: { baseUrl?: string | URL }): Promise<ReferentModel>;
  /** The English → French translator attnlab trained (models/translator/, scripts/train-translator.sh),
   *  fetched on this call (import 'attnlab/translator' in a bundled app). */
  loadBuiltinTranslator(options?: { baseUrl?: string | URL }): Promise<{
    model: Seq2SeqModel;
    sourceTokenizer: WordTokenizer;
    targetTokenizer: WordTokenizer;
    /** Held-out sentences (never trained on) with each French word's English word index. */
    heldOut: { english: string; french: string; alignment: number[] }[];
    /** The training log (training-log.jsonl), keys in camelCase: { setup, evals, summary }. */
    log: { setup: any; steps: any[]; evals: any[]; summary: any };
  }>;
  /** A learner's own encoder–decoder: a .safetensors state_dict of PyTorch's translation-tutorial model
   *  (src_tok_emb, tgt_tok_emb, transformer.* as nn.Transformer names them, generator). */
  loadSeq2Seq(bytes: Uint8Array, config: Seq2SeqConfig & {
    unkId?: number;
    /** One word per id; with both, translate() works. */
    sourceVocabulary?: string[];
    targetVocabulary?: string[];
  }): Promise<Seq2SeqModel>;
  /** A fresh, untrained translator of the built-in one's shape and recipe, to train in the page. */
  createTranslatorTrainer(options?: { seed?: number; totalSteps?: number }): Promise<TranslatorTrainer>;
  /** The built-in model's training log (models/kjv/training-log.jsonl), parsed. */
  loadBuiltinTrainingLog(options?: { baseUrl?: string | URL }): Promise<TrainingLog>;
  /** attnlab-kjv-llama (models/kjv-llama/, import 'attnlab/builtin-llama'): the Llama-architecture model trained
   *  beside attnlab-kjv on the same King James text — 4 query heads sharing 2 key/value heads, RoPE, RMSNorm,
   *  SwiGLU, context 256 — read as loadModel reads a Hugging Face folder. */
  loadBuiltinLlama(options?: { baseUrl?: string | URL }): Promise<{ model: LlamaModel; tokenizer: HFTokenizer }>;
  /** attnlab-kjv-llama's training log (models/kjv-llama/training-log.jsonl), parsed. */
  loadBuiltinLlamaTrainingLog(options?: { baseUrl?: string | URL }): Promise<LlamaTrainingLog>;
  /** A GPT with GPT-2's initialisation from a seed. */
  createGPT(config: GPTConfig & { seed?: number }): Promise<GPTModel>;
  /** GPT-2's tokenizer from the text of its vocab.json and merges.txt. */
  loadTokenizer(vocabJson: string, mergesText: string): Promise<Tokenizer>;
  /** A byte-level BPE tokenizer learned on `corpus` (vocabSize counts the 256 bytes, the merges and <|endoftext|>). */
  trainTokenizer(corpus: string, options?: { vocabSize?: number; minCount?: number }): Promise<Tokenizer>;
  /** `length` random token ids, uniform in [low, high) from the seed, then the same ids again
   *  (Int32Array of 2·length): the sequence GPTModel.headScores' induction score runs on. Needs the
   *  GPT module loaded. */
  repeatedRandomTokens(length: number, options: { low?: number; high: number; seed?: number }): Int32Array;
  /** One token drawn from a row of logits; needs the GPT module loaded. */
  /** −Infinity in `logits` is a blocked token. The penalties look at `context`: the ids so far. */
  sample(logits: NumberArray, options?: SamplingOptions & { context?: ArrayLike<number> }): SampledToken;
  MultiHeadAttention: MultiHeadAttentionConstructor;
  TransformerEncoderLayer: TransformerEncoderLayerConstructor;
  TaskModel: TaskModelConstructor;
}

/** Per layer and head ([layer][head]), each a mean attention weight in [0, 1] (see GPTModel.headScores). */
export interface LoggedHeadScores {
  previousToken: number[][];
  firstToken: number[][];
  induction: number[][];
  duplicateToken: number[][];
  maxPreviousToken: number;
  maxInduction: number;
}

/** scripts/train-model.sh's log of the built-in model's training run (Lab.loadBuiltinTrainingLog). */
export interface TrainingLog {
  /** The config file as committed, the corpus's sizes, the parameter count and the n-gram baselines
   *  (held-out cross-entropy, nats per token). */
  setup: {
    config: Record<string, unknown>;
    corpus: { verses: number; chapters: number; trainChapters: number; heldoutChapters: number;
              trainBytes: number; heldoutBytes: number; trainTokens: number; heldoutTokens: number };
    bpeSeconds: number;
    parameters: number;
    baselines: { unigram: number; bigram: number; bigramAlpha: number };
  };
  /** Every training step: the batch's loss before the update, the learning rate, the gradient norm
   *  before clipping, and the step's time. */
  steps: { step: number; loss: number; lr: number; gradNorm: number; ms: number }[];
  /** Every evaluation: held-out cross-entropy and every head's scores. */
  evals: { step: number; heldoutLoss: number; heads: LoggedHeadScores; seconds: number }[];
  /** The shipped checkpoint (the evaluation with the lowest held-out loss), saved in F16. */
  summary: {
    bestStep: number;
    heldoutLossF32: number;
    heldoutLossF16: number;
    baselines: { unigram: number; bigram: number };
    heads: LoggedHeadScores;
    trainingSeconds: number;
    tokensPerSecond: number;
    fileBytes: number;
    samples: { prompt: string; seed: number; text: string }[];
  } | null;
}

/** scripts/llama/train.py's log of attnlab-kjv-llama's run (Lab.loadBuiltinLlamaTrainingLog), keys in camelCase.
 *  The run stops and resumes across sessions: a resume from the last checkpoint logs the steps after it
 *  again, and `steps` keeps the resumed run's record of each (the steps the weights went through). */
export interface LlamaTrainingLog {
  /** The training config as committed (corpus, tokenizer, model, optimiser, schedule). */
  setup: { config: Record<string, unknown> } & Record<string, unknown>;
  /** Every step once, in order: the batch's loss, the learning rate, the gradient norm before clipping, seconds. */
  steps: { step: number; loss: number; lr: number; gradNorm: number; seconds: number }[];
  /** Every evaluation: held-out cross-entropy in windows of 256 and of 128 tokens, and each head's scores
   *  (one number per head, layer after layer); bestStep: the evaluation whose weights are shipped. */
  evals: { step: number; heldoutLoss: number; heldoutLoss128: number; bestStep: number;
           heads: { previousToken: number[]; firstToken: number[]; induction: number[]; duplicateToken: number[] } }[];
  stops: { atStep: number; reason: string; time: string }[];
  resumes: { fromStep: number; lastLoggedStep: number; time: string; threads: number }[];
  /** The run's last line once it has reached its steps (null before): the step count, the evaluation whose weights
   *  are shipped (its held-out loss in windows of 256) and the hours of the session that finished it. */
  summary: { steps: number; best: { loss: number; step: number }; hoursThisSession: number } | null;
}

export function init(options?: InitOptions): Promise<Lab>;
/** The "it" sentence model without init(): its own small module alone (a page whose only computation is
 *  this model need not download the main module). Calls with the same build and budget and no files of
 *  their own share one module instance; lab.loadReferentModel() uses the lab's. */
export function loadReferentModel(options?: {
  simd?: 'auto' | boolean;
  referentWasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (file: string, scriptDirectory: string) => string;
  memoryBudget?: number;
  baseUrl?: string | URL;
}): Promise<ReferentModel>;
/** Starts downloading, in a browser, the module and files a later lab.loadReferentModel() ('referent-model'),
 *  lab.loadBuiltinTranslator() ('translator') or lab.loadTraining() ('training') will need, alongside
 *  init()'s main module instead of after it. Only what the app ships is fetched; nothing in Node. */
export function prefetch(features: Array<'referent-model' | 'translator' | 'training'>, options?: { simd?: 'auto' | boolean }): void;

/** One sentence of the "it" model's frames (ReferentModel.sentence). */
export interface ReferentSentence {
  frame: string;
  words: string[];
  tokens: number[];
  itPosition: number;
  firstPosition: number;
  secondPosition: number;
  /** The position of the noun "it" stands for, and that noun. */
  answerPosition: number;
  answer: string;
  /** True when this (noun, noun, adjective) combination was never trained on. */
  heldOut: boolean;
}

export interface ReferentFrame {
  name: string;
  /** The frame's words, with the slots "<1>", "<2>" and "<adj>". */
  words: string[];
  firstNouns: string[];
  secondNouns: string[];
  /** Adjectives that make "it" the first noun, and the second. */
  firstAdjectives: string[];
  secondAdjectives: string[];
}

/** The "it" sentence model: a 2-layer bidirectional encoder that predicts, at "it", the noun it stands for. */
export interface ReferentModel {
  readonly config: { vocabSize: number; maxLen: number; dModel: number; numHeads: number; numLayers: number; dFf: number };
  readonly frames: readonly ReferentFrame[];
  readonly vocabulary: string[];
  readonly sentenceCounts: { train: number; heldOut: number };
  /** The training log (training-log.jsonl), keys in camelCase: { setup, steps, evals, summary }. */
  readonly log: { setup: any; steps: any[]; evals: any[]; summary: any };
  /** The head the training run named, by its rule on the training sentences. */
  readonly namedHead: { layer: number; head: number };
  parameterCount(): number;
  sentence(choice: { frame?: string | number; first: string; second: string; adjective: string }): ReferentSentence;
  forward(sentence: ReferentSentence): {
    prediction: string;
    probabilities: Float32Array;
    attention: Matrix[][];
    /** Each head's weights from "it" ([layer][head], n values). */
    fromIt: Float32Array[][];
  };
  dispose(): void;
}

/** An encoder–decoder's shape, in nn.Transformer's terms (post-norm unless normFirst). */
export interface Seq2SeqConfig {
  sourceVocabSize: number;
  targetVocabSize: number;
  /** The longest source and the longest target the model reads (its position table's rows). */
  maxLen: number;
  dModel: number;
  numHeads: number;
  numEncoderLayers: number;
  numDecoderLayers: number;
  dFf: number;
  normFirst?: boolean;
  /** The token the decoder reads first (default 1) and the one that ends a translation (default 2). */
  bosId?: number;
  eosId?: number;
}

/** A word-level tokenizer over a fixed vocabulary: lower case, letters, digits and apostrophes; an unknown word becomes unkId. */
export interface WordTokenizer {
  readonly vocabulary: readonly string[];
  readonly unkId: number;
  encode(text: string): { words: string[]; ids: Int32Array; unknown: string[] };
  decode(ids: ArrayLike<number>): string;
}

/** A kind of word of the built-in translator's grammar: 'a verb agreeing with a singular subject', and its words. */
export interface WordKind {
  kind: string;
  words: string[];
}

export interface Translation {
  text: string;
  /** The words read (lower case): the columns of every cross-attention matrix. */
  sourceTokens: string[];
  /** '<s>' then each produced word: the decoder's query positions, the rows of every cross-attention matrix. */
  targetTokens: string[];
  /** [layer][head]: targetTokens × sourceTokens. */
  crossAttention: Matrix[][];
  /** The end token was produced (false: maxTokens ran out). */
  finished: boolean;
  logProb: number;
  /** Words not in the vocabulary (each read as '<unk>'). */
  unknownWords: string[];
  /** Set when the text had more words than the model reads: only the first `kept` were translated. */
  truncated: { kept: number; dropped: number } | null;
  /**
   * The built-in translator only (null for your own checkpoint): whether the text's words, all of them,
   * are a sentence of the grammar it was trained on; if not, `position` is the first word outside it
   * (the number of words when the sentence stops too early; -1 when `inGrammar`) and `expected` what
   * the grammar allows there.
   */
  grammar: { inGrammar: boolean; position: number; expected: WordKind[] } | null;
  /**
   * The source words that no written word's cross-attention row puts its largest weight on, in the
   * last decoder layer with its heads averaged (the row that writes the end token not counted). A
   * measurement of where the model looked, not a claim about what it translated.
   */
  unattendedWords: { position: number; word: string }[];
  /** With { selfAttention: true }: [layer][head], source × source and target × target (causal). */
  encoderSelfAttention?: Matrix[][];
  decoderSelfAttention?: Matrix[][];
}

/** An encoder–decoder transformer (nn.Transformer's layout) in its own wasm module. */
export interface Seq2SeqModel {
  readonly config: Required<Seq2SeqConfig>;
  readonly sourceTokenizer: WordTokenizer | null;
  readonly targetTokenizer: WordTokenizer | null;
  /** The built-in translator's English words by kind, every source word once; null for your own checkpoint. */
  readonly sourceWordKinds: readonly WordKind[] | null;
  parameterCount(): number;
  /** Teacher-forced: target ids are what the decoder reads (the start token first). */
  forward(sourceIds: ArrayLike<number>, targetIds: ArrayLike<number>): {
    logits: Matrix;
    encoderSelfAttention: Matrix[][];
    decoderSelfAttention: Matrix[][];
    crossAttention: Matrix[][];
  };
  /** Greedy (beam 1) or beam search, with a key/value cache. */
  decode(sourceIds: ArrayLike<number>, options?: { beam?: number; maxTokens?: number }): {
    tokens: number[];
    output: number[];
    finished: boolean;
    logProb: number;
    crossAttention: Matrix[][];
  };
  /** Needs both tokenizers (the built-in translator has them). */
  translate(text: string, options?: { beam?: number; maxTokens?: number; selfAttention?: boolean }): Translation;
  dispose(): void;
}

/** A translator trained in the page on the grammar's English → French pairs (the built-in one's recipe). */
export interface TranslatorTrainer {
  readonly steps: number;
  /** `count` AdamW steps on batches of fresh pairs → their losses. */
  train(count?: number, options?: { batch?: number }): Float32Array;
  /** The first `count` (≤ 100) held-out pairs: loss, per-token accuracy, exact translations, and each head's alignment share. */
  evaluate(count?: number): { loss: number; tokenAccuracy: number; exactMatch: number; alignment: number[][] };
  /** One held-out pair with its gold alignment, the greedy translation, the ids the encoder and the decoder
   *  read (source; target, the start token first) and the teacher-forced cross-attention. */
  watch(index?: number): {
    english: string[]; french: string[]; alignment: number[]; translation: string[];
    source: Int32Array; target: Int32Array; crossAttention: Matrix[][];
  };
  /** The weights now, named as nn.Transformer's state_dict names them (src_tok_emb.weight,
   *  transformer.encoder.layers.0.self_attn.in_proj_weight, …, generator.bias), in PyTorch's order. */
  parameters(): { [name: string]: Tensor };
  /** The pairs the next `count` train() steps of `batch` (32) pairs will take, without taking them:
   *  [step][pair], ids as the encoder reads them (source), the decoder reads them (target, the start token
   *  first) and each decoder position must predict them (targets, the end token last). */
  upcomingBatches(count?: number, options?: { batch?: number }): TranslatorPair[][];
  dispose(): void;
}

/** One training pair of a TranslatorTrainer: its words and the ids the model reads and predicts. */
export interface TranslatorPair {
  english: string[];
  french: string[];
  source: Int32Array;
  target: Int32Array;
  targets: Int32Array;
}
