// Options checked on every call, round 2 (issue 53, item 8). The TypeScript compiler lists every call
// index.d.ts declares (functions, constructors, every method of every interface) and whether it takes an
// options-like argument. One table says how to call each call with options on a small real object, and
// each must refuse a misspelt option with the nearest name; the other says how to call each call without
// options, and each must refuse an options object rather than ignore it (model.session({ maxLen: 10 })
// took an object and did nothing with it). A call index.d.ts declares that no table names fails the first
// test: a new call cannot be missed. Nested option objects (ablate[0], metric, patches, weights) are
// checked like top-level ones.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import ts from 'typescript';

import { AttnLabError, init, loadReferentModel, prefetch } from '../../web/index.js';
import { lab } from './helpers.js';

const DECLARATIONS = new URL('../../web/index.d.ts', import.meta.url).pathname;

// An options-like type: an object (not an array, not a function) with an optional property, in itself or
// in an object it holds (pathPatching's metric, a layer's linear1.bias). Data arguments (a Matrix, a
// Tensor, a TaskExample, a ReferentSentence) have every property required.
function optionLike(checker, type, seen = new Set()) {
  if (seen.has(type)) return false;
  seen.add(type);
  if (type.isUnion() || type.isIntersection()) return type.types.some((t) => optionLike(checker, t, seen));
  if (!(type.flags & ts.TypeFlags.Object) || checker.isArrayType(type) || checker.isTupleType(type)) return false;
  if (type.getCallSignatures().length || type.getConstructSignatures().length) return false;
  return type.getProperties().some((property) => {
    if (property.flags & ts.SymbolFlags.Optional) return true;
    if (!property.valueDeclaration) return false;
    const held = checker.getTypeOfSymbolAtLocation(property, property.valueDeclaration);
    return optionLike(checker, checker.isArrayType(held) ? checker.getTypeArguments(held)[0] : held, seen);
  });
}

// Every call index.d.ts declares → whether it takes an options-like argument: 'init', 'new MultiHeadAttention'
// (from MultiHeadAttentionConstructor), 'Lab.softmax', 'GPTModel.logitLens' (inherited members too).
function declaredCalls() {
  const program = ts.createProgram([DECLARATIONS], { strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  const takesOptions = (signatures) => signatures.some((signature) =>
    signature.parameters.some((p) => optionLike(checker, checker.getTypeOfSymbolAtLocation(p, signature.declaration))));
  const calls = new Map();
  const add = (name, signatures) => calls.set(name, (calls.get(name) ?? false) || takesOptions(signatures));
  for (const statement of program.getSourceFile(DECLARATIONS).statements) {
    if (ts.isFunctionDeclaration(statement)) add(statement.name.text, [checker.getSignatureFromDeclaration(statement)]);
    if (!ts.isInterfaceDeclaration(statement)) continue;
    const name = statement.name.text;
    const constructors = statement.members.filter(ts.isConstructSignatureDeclaration);
    if (constructors.length) add(`new ${name.replace(/Constructor$/, '')}`, constructors.map((d) => checker.getSignatureFromDeclaration(d)));
    const type = checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(statement.name));
    for (const member of checker.getPropertiesOfType(type)) {
      if (!member.declarations?.some(ts.isMethodSignature)) continue;
      add(`${name}.${member.name}`, checker.getTypeOfSymbolAtLocation(member, statement).getCallSignatures());
    }
  }
  return calls;
}

// Calls not in the tables, and why.
const EXCLUDED = new Map([
  // A base interface of GPTModel and LlamaModel: its method is called as theirs (GPTModel.logitLens, LlamaModel.logitLens).
  ['LogitLensCalls.logitLens', 'called through GPTModel and LlamaModel'],
]);

const IDS = [1, 2, 3, 4];
const matrix = (rows, cols) => ({ rows, cols, data: new Float32Array(rows * cols).fill(0.5) });

// The Llama fixture as lab.loadModel reads a picked folder (tests/js/llama.test.js), with a tokenizer.json.
function llamaFolder() {
  const files = {};
  const read = (dir, name) => new Uint8Array(readFileSync(new URL(`../fixtures/llama/${dir}/${name}`, import.meta.url)));
  for (const name of readdirSync(new URL('../fixtures/llama/llama_gqa/', import.meta.url))) {
    if (name !== 'expected.json' && !statSync(new URL(`../fixtures/llama/llama_gqa/${name}`, import.meta.url)).isDirectory()) {
      files[name] = read('llama_gqa', name);
    }
  }
  files['tokenizer.json'] = read('kjv_vocab_folder', 'tokenizer.json');
  return files;
}

// One small real object of every kind the package makes.
async function objects() {
  const l = await (await lab(true)).loadTraining();
  const gpt = await l.createGPT({ vocabSize: 11, contextLength: 8, dModel: 8, numHeads: 2, numLayers: 1, seed: 3 });
  const { model: llama, tokenizer: hf } = await l.loadModel(llamaFolder());
  const referent = await l.loadReferentModel();
  const frame = referent.frames[0];
  const translator = await l.loadBuiltinTranslator();
  const task = new l.TaskModel({ task: 'repeat', layers: 2, dFF: 0, seed: 1 });
  const tokenizer = await l.trainTokenizer('the cat sat on the mat; the cat sat. '.repeat(4), { vocabSize: 270 });
  return {
    lab: l, gpt, llama, hf, referent, task, tokenizer,
    gptFile: gpt.save(),
    gpt2Files: tokenizer.toGPT2Files(),
    gptSession: gpt.session(),
    llamaSession: llama.session(),
    cache: gpt.runWithCache(IDS).cache,
    mha: new l.MultiHeadAttention({ dModel: 4, numHeads: 2, seed: 1 }),
    layer: new l.TransformerEncoderLayer({ dModel: 4, numHeads: 2, dFF: 8 }),
    example: task.examples(1)[0],
    snapshot: task.snapshot(),
    sentence: referent.sentence({ frame: frame.name, first: frame.firstNouns[0], second: frame.secondNouns[0], adjective: frame.firstAdjectives[0] }),
    seq2seq: translator.model,
    words: translator.sourceTokenizer,
    trainer: await l.createTranslatorTrainer(),
    m: matrix(2, 2),
    mask: { rows: 2, cols: 2, data: Float32Array.of(1, 0, 1, 1) },
    x: matrix(3, 4),
  };
}

// Calls with options: [misspelt name, the name it must suggest, (objects, options) => the call]. The
// messages name 'softmax' for Lab.softmax, 'MultiHeadAttention' for its constructor; `fn` where a call's
// messages go by another name.
const OPTION_CALLS = {
  init: ['threds', 'threads', (c, o) => init(o)],
  loadReferentModel: ['memoryBudgt', 'memoryBudget', (c, o) => loadReferentModel(o)],
  prefetch: ['smd', 'simd', (c, o) => prefetch([], o)],
  'Lab.scaledDotProductAttention': ['casual', 'causal', (c, o) => c.lab.scaledDotProductAttention(c.m, c.m, c.m, o)],
  'Lab.traceAttention': ['casual', 'causal', (c, o) => c.lab.traceAttention(c.m, c.m, c.m, o)],
  'Lab.flashAttentionTrace': ['blocksize', 'blockSize', (c, o) => c.lab.flashAttentionTrace(c.m, c.m, c.m, o)],
  'Lab.embedTokens': ['postions', 'positions', (c, o) => c.lab.embedTokens(['a', 'b'], 4, o)],
  'Lab.positionalEncoding': ['sed', 'seed', (c, o) => c.lab.positionalEncoding(4, 4, 'learned', o)],
  'Lab.loadGPT': ['numHead', 'numHeads', (c, o) => c.lab.loadGPT(c.gptFile, o)],
  'Lab.loadModel': ['onProgres', 'onProgress', (c, o) => c.lab.loadModel(llamaFolder(), o)],
  'Lab.loadBuiltinModel': ['baseURL', 'baseUrl', (c, o) => c.lab.loadBuiltinModel(o)],
  'Lab.loadBuiltinTokenizer': ['baseURL', 'baseUrl', (c, o) => c.lab.loadBuiltinTokenizer(o)],
  'Lab.loadReferentModel': ['baseURL', 'baseUrl', (c, o) => c.lab.loadReferentModel(o)],
  'Lab.loadBuiltinTranslator': ['baseURL', 'baseUrl', (c, o) => c.lab.loadBuiltinTranslator(o)],
  'Lab.loadBuiltinTrainingLog': ['baseURL', 'baseUrl', (c, o) => c.lab.loadBuiltinTrainingLog(o)],
  'Lab.loadBuiltinLlama': ['baseURL', 'baseUrl', (c, o) => c.lab.loadBuiltinLlama(o)],
  'Lab.loadBuiltinLlamaTrainingLog': ['baseURL', 'baseUrl', (c, o) => c.lab.loadBuiltinLlamaTrainingLog(o)],
  'Lab.loadSeq2Seq': ['dmodel', 'dModel', (c, o) => c.lab.loadSeq2Seq(new Uint8Array(8), o)],
  'Lab.createTranslatorTrainer': ['totalStep', 'totalSteps', (c, o) => c.lab.createTranslatorTrainer(o)],
  'Lab.createGPT': ['numLayer', 'numLayers', (c, o) => c.lab.createGPT({ vocabSize: 11, contextLength: 8, dModel: 8, numHeads: 2, ...o })],
  'Lab.trainTokenizer': ['minCont', 'minCount', (c, o) => c.lab.trainTokenizer('the cat', o)],
  'Lab.repeatedRandomTokens': ['sed', 'seed', (c, o) => c.lab.repeatedRandomTokens(4, { high: 11, ...o })],
  'Lab.sample': ['temprature', 'temperature', (c, o) => c.lab.sample([0, 1, 2], o)],
  'new MultiHeadAttention': ['bais', 'bias', (c, o) => new c.lab.MultiHeadAttention({ dModel: 4, numHeads: 2, ...o })],
  'new TransformerEncoderLayer': ['dff', 'dFF', (c, o) => new c.lab.TransformerEncoderLayer({ dModel: 4, numHeads: 2, ...o })],
  'new TaskModel': ['dmodel', 'dModel', (c, o) => new c.lab.TaskModel({ task: 'copy', ...o })],
  'MultiHeadAttention.forward': ['casual', 'causal', (c, o) => c.mha.forward(c.x, c.x, c.x, o)],
  'MultiHeadAttention.trace': ['casual', 'causal', (c, o) => c.mha.trace(c.x, c.x, c.x, o)],
  'MultiHeadAttention.loadWeights': ['inProjBais', 'inProjBias', (c, o) => c.mha.loadWeights({ ...c.mha.weights(), ...o })],
  'TransformerEncoderLayer.forward': ['casual', 'causal', (c, o) => c.layer.forward(c.x, o)],
  'TransformerEncoderLayer.trace': ['casual', 'causal', (c, o) => c.layer.trace(c.x, o)],
  'TransformerEncoderLayer.loadWeights': ['selfAtn', 'selfAttn', (c, o) => c.layer.loadWeights(o)],
  'GPTModel.forward': ['attentions', 'attention', (c, o) => c.gpt.forward(IDS, o)],
  'GPTModel.tokenLosses': ['ablte', 'ablate', (c, o) => c.gpt.tokenLosses(IDS, o)],
  'GPTModel.headScores': ['sample', 'samples', (c, o) => c.gpt.headScores(IDS, o)],
  'GPTModel.generate': ['maxToken', 'maxTokens', (c, o) => c.gpt.generate(IDS, o)],
  'GPTModel.multiplyAdds': ['cahce', 'cache', (c, o) => c.gpt.multiplyAdds(3, o)],
  'GPTModel.save': ['dtyp', 'dtype', (c, o) => c.gpt.save(o)],
  'GPTModel.startTraining': ['maxLR', 'maxLr', (c, o) => c.gpt.startTraining(o)],
  'GPTModel.runWithCache': ['name', 'names', (c, o) => c.gpt.runWithCache(IDS, o)],
  'ActivationCache.accumulatedResid': ['inclMd', 'inclMid', (c, o) => c.cache.accumulatedResid(o)],
  'ActivationCache.decomposeResid': ['mlpInpt', 'mlpInput', (c, o) => c.cache.decomposeResid(o)],
  'ActivationCache.stackHeadResults': ['inclRemaindr', 'inclRemainder', (c, o) => c.cache.stackHeadResults(o)],
  'ActivationCache.stackActivation': ['layerTyp', 'layerType', (c, o) => c.cache.stackActivation('pattern', o)],
  'ActivationCache.applyLnToStack': ['recomputeLN', 'recomputeLn', (c, o) => c.cache.applyLnToStack(c.cache.decomposeResid().stack, o)],
  'ActivationCache.logitAttrs': ['positon', 'position', (c, o) => c.cache.logitAttrs(c.cache.decomposeResid().stack, { tokens: 1, ...o })],
  'GPTModel.runWithHooks': ['pach', 'patch', (c, o) => c.gpt.runWithHooks(IDS, { patch: [], ...o })],
  'GPTModel.directLogitAttribution': ['targt', 'target', (c, o) => c.gpt.directLogitAttribution(IDS, { target: 1, ...o })],
  'GPTModel.activationPatching': ['wat', 'what', (c, o) => c.gpt.activationPatching(IDS, IDS, o)],
  'GPTModel.pathPatching': ['sendr', 'sender', (c, o) => c.gpt.pathPatching(IDS, IDS, o)],
  'GPTModel.attributionPatching': ['pr', 'per', (c, o) => c.gpt.attributionPatching(IDS, IDS, o)],
  'GPTModel.compositionScores': ['draw', 'draws', (c, o) => c.gpt.compositionScores(o)],
  'GPTModel.logitLens': ['positon', 'position', (c, o) => c.gpt.logitLens(IDS, o)],
  'LlamaModel.forward': ['firstPositon', 'firstPosition', (c, o) => c.llama.forward(IDS, o)],
  'LlamaModel.runWithCache': ['firstPositon', 'firstPosition', (c, o) => c.llama.runWithCache(IDS, o)],
  'LlamaModel.runWithHooks': ['keeps', 'keep', (c, o) => c.llama.runWithHooks(IDS, { patch: [], ...o })],
  'LlamaModel.directLogitAttribution': ['baselin', 'baseline', (c, o) => c.llama.directLogitAttribution(IDS, { target: 1, ...o })],
  'LlamaModel.activationPatching': ['metrc', 'metric', (c, o) => c.llama.activationPatching(IDS, IDS, o)],
  'LlamaModel.pathPatching': ['sendr', 'sender', (c, o) => c.llama.pathPatching(IDS, IDS, o)],
  'LlamaModel.headCircuit': ['distanse', 'distance', (c, o) => c.llama.headCircuit(0, 0, o)],
  'LlamaModel.compositionScores': ['sed', 'seed', (c, o) => c.llama.compositionScores(o)],
  'GPTModel.copyingScores': ['foldLm', 'foldLn', (c, o) => c.gpt.copyingScores(o)],
  'GPTModel.copyingTop1': ['centreUnembd', 'centreUnembed', (c, o) => c.gpt.copyingTop1(o)],
  'LlamaModel.copyingScores': ['centreUnembd', 'centreUnembed', (c, o) => c.llama.copyingScores(o)],
  'LlamaModel.generate': ['windw', 'window', (c, o) => c.llama.generate(IDS, o)],
  'LlamaModel.session': ['sink', 'sinks', (c, o) => c.llama.session(o)],
  'LlamaModel.save': ['dtyp', 'dtype', (c, o) => c.llama.save(o)],
  'LlamaModel.logitLens': ['targte', 'target', (c, o) => c.llama.logitLens(IDS, o)],
  'HFTokenizer.encode': ['addSpecialToken', 'addSpecialTokens', (c, o) => c.hf.encode('the', o)],
  'HFTokenizer.decode': ['skipSpecialToken', 'skipSpecialTokens', (c, o) => c.hf.decode(IDS, o)],
  // decodeBytes is decode's own work: its messages name decode.
  'HFTokenizer.decodeBytes': ['skipSpecialToken', 'skipSpecialTokens', (c, o) => c.hf.decodeBytes(IDS, o), 'HFTokenizer.decode'],
  'ReferentModel.sentence': ['adjectve', 'adjective', (c, o) => c.referent.sentence(o)],
  'Seq2SeqModel.decode': ['bem', 'beam', (c, o) => c.seq2seq.decode([4, 5], o)],
  'Seq2SeqModel.translate': ['maxToken', 'maxTokens', (c, o) => c.seq2seq.translate('the cat', o)],
  'TranslatorTrainer.train': ['bach', 'batch', (c, o) => c.trainer.train(1, o)],
  'TranslatorTrainer.upcomingBatches': ['bach', 'batch', (c, o) => c.trainer.upcomingBatches(1, o)],
};

// Calls without options: (objects, extra) => the call with its own arguments, then `extra`.
const NO_OPTION_CALLS = {
  'Lab.matrix': (c, x) => c.lab.matrix(2, 2, [1, 2, 3, 4], x),
  'Lab.randn': (c, x) => c.lab.randn(2, 2, 1, x),
  'Lab.tensor': (c, x) => c.lab.tensor([2], [1, 2], x),
  'Lab.reshape': (c, x) => c.lab.reshape(c.m, [4], x),
  'Lab.permute': (c, x) => c.lab.permute(c.m, [1, 0], x),
  'Lab.transpose': (c, x) => c.lab.transpose(c.m, 0, 1, x),
  'Lab.softmax': (c, x) => c.lab.softmax(c.m, x),
  'Lab.causalMask': (c, x) => c.lab.causalMask(2, 2, x),
  'Lab.keyPaddingMask': (c, x) => c.lab.keyPaddingMask(2, 2, 1, x),
  'Lab.combineMasks': (c, x) => c.lab.combineMasks(c.mask, c.mask, x),
  'Lab.applyRotary': (c, x) => c.lab.applyRotary(c.m, 0, x),
  'Lab.alibiSlopes': (c, x) => c.lab.alibiSlopes(2, x),
  'Lab.alibiBias': (c, x) => c.lab.alibiBias(2, 2, 0.5, x),
  'Lab.tokenize': (c, x) => c.lab.tokenize('the cat', x),
  'Lab.memory': (c, x) => c.lab.memory(x),
  'Lab.setMemoryBudget': (c, x) => c.lab.setMemoryBudget(2 ** 29, x),
  'Lab.loadTraining': (c, x) => c.lab.loadTraining(x),
  'Lab.loadGPTModule': (c, x) => c.lab.loadGPTModule(x),
  'Lab.loadTokenizer': (c, x) => c.lab.loadTokenizer(c.gpt2Files.vocabJson, c.gpt2Files.mergesText, x),
  'MultiHeadAttention.parameterCount': (c, x) => c.mha.parameterCount(x),
  'MultiHeadAttention.weights': (c, x) => c.mha.weights(x),
  'MultiHeadAttention.train': (c, x) => c.mha.train(false, x),
  'MultiHeadAttention.dispose': (c, x) => c.mha.dispose(x),
  'TransformerEncoderLayer.parameterCount': (c, x) => c.layer.parameterCount(x),
  'TransformerEncoderLayer.parameterCounts': (c, x) => c.layer.parameterCounts(x),
  'TransformerEncoderLayer.train': (c, x) => c.layer.train(false, x),
  'TransformerEncoderLayer.dispose': (c, x) => c.layer.dispose(x),
  'TaskModel.parameterCount': (c, x) => c.task.parameterCount(x),
  'TaskModel.examples': (c, x) => c.task.examples(1, 0, x),
  'TaskModel.split': (c, x) => c.task.split(1, 1, 0, x),
  'TaskModel.trainStep': (c, x) => c.task.trainStep([c.example], x),
  'TaskModel.evaluate': (c, x) => c.task.evaluate([c.example], x),
  'TaskModel.attentionWeights': (c, x) => c.task.attentionWeights(c.example, x),
  'TaskModel.inductionScores': (c, x) => c.task.inductionScores([c.example], x),
  'TaskModel.snapshot': (c, x) => c.task.snapshot(x),
  'TaskModel.restore': (c, x) => c.task.restore(c.snapshot, x),
  'TaskModel.decode': (c, x) => c.task.decode([1], x),
  'TaskModel.dispose': (c, x) => c.task.dispose(x),
  'ActivationCache.names': (c, x) => c.cache.names(x),
  'ActivationCache.has': (c, x) => c.cache.has('hook_embed', undefined, undefined, x),
  'ActivationCache.get': (c, x) => c.cache.get('hook_embed', undefined, undefined, x),
  'GPTModel.parameterCount': (c, x) => c.gpt.parameterCount(x),
  'GPTModel.session': (c, x) => c.gpt.session(x),
  'GPTModel.tensorNames': (c, x) => c.gpt.tensorNames(x),
  'GPTModel.tensor': (c, x) => c.gpt.tensor('wte.weight', x),
  'GPTModel.trainStep': (c, x) => c.gpt.startTraining().trainStep(IDS, IDS, 1, x),
  'GPTModel.loss': (c, x) => c.gpt.loss(IDS, IDS, 1, x),
  'GPTModel.headCircuit': (c, x) => c.gpt.headCircuit(0, 0, x),
  'GPTModel.dispose': (c, x) => c.gpt.dispose(x),
  'GPTSession.append': (c, x) => c.gptSession.append(1, x),
  'GPTSession.cache': (c, x) => c.gptSession.cache(0, x),
  'GPTSession.reset': (c, x) => c.gptSession.reset(x),
  'GPTSession.dispose': (c, x) => c.gptSession.dispose(x),
  'Tokenizer.encode': (c, x) => c.tokenizer.encode('the cat', x),
  'Tokenizer.encodeWithSteps': (c, x) => c.tokenizer.encodeWithSteps('the cat', x),
  'Tokenizer.decode': (c, x) => c.tokenizer.decode(IDS, x),
  'Tokenizer.decodeBytes': (c, x) => c.tokenizer.decodeBytes(IDS, x),
  'Tokenizer.tokenString': (c, x) => c.tokenizer.tokenString(1, x),
  'Tokenizer.tokenBytes': (c, x) => c.tokenizer.tokenBytes(1, x),
  'Tokenizer.tokenText': (c, x) => c.tokenizer.tokenText(1, x),
  'Tokenizer.toGPT2Files': (c, x) => c.tokenizer.toGPT2Files(x),
  'Tokenizer.dispose': (c, x) => c.tokenizer.dispose(x),
  'LlamaModel.parameterCount': (c, x) => c.llama.parameterCount(x),
  'LlamaModel.hookNames': (c, x) => c.llama.hookNames(x),
  'LlamaModel.tensorNames': (c, x) => c.llama.tensorNames(x),
  'LlamaModel.tensor': (c, x) => c.llama.tensor('model.norm.weight', x),
  'LlamaModel.dispose': (c, x) => c.llama.dispose(x),
  'LlamaSession.cachedTokens': (c, x) => c.llamaSession.cachedTokens(x),
  'LlamaSession.append': (c, x) => c.llamaSession.append(IDS, x),
  'LlamaSession.cache': (c, x) => c.llamaSession.cache(0, x),
  'LlamaSession.reset': (c, x) => c.llamaSession.reset(x),
  'LlamaSession.dispose': (c, x) => c.llamaSession.dispose(x),
  'HFTokenizer.tokenString': (c, x) => c.hf.tokenString(1, x),
  'HFTokenizer.tokenText': (c, x) => c.hf.tokenText(1, x),
  'HFTokenizer.dispose': (c, x) => c.hf.dispose(x),
  'ReferentModel.parameterCount': (c, x) => c.referent.parameterCount(x),
  'ReferentModel.forward': (c, x) => c.referent.forward(c.sentence, x),
  'ReferentModel.dispose': (c, x) => c.referent.dispose(x),
  'WordTokenizer.encode': (c, x) => c.words.encode('the cat', x),
  'WordTokenizer.decode': (c, x) => c.words.decode([4, 5], x),
  'Seq2SeqModel.parameterCount': (c, x) => c.seq2seq.parameterCount(x),
  'Seq2SeqModel.forward': (c, x) => c.seq2seq.forward([4, 5], [1], x),
  'Seq2SeqModel.dispose': (c, x) => c.seq2seq.dispose(x),
  'TranslatorTrainer.evaluate': (c, x) => c.trainer.evaluate(1, x),
  'TranslatorTrainer.watch': (c, x) => c.trainer.watch(0, x),
  'TranslatorTrainer.parameters': (c, x) => c.trainer.parameters(x),
  'TranslatorTrainer.dispose': (c, x) => c.trainer.dispose(x),
};

// The name a call's messages begin with: 'softmax' for Lab.softmax, 'MultiHeadAttention' for its constructor.
const messageName = (call) => call.replace(/^(Lab\.|new )/, '');
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The message of the AttnLabError a call throws or rejects with; else what happened instead.
async function refusal(run) {
  try {
    await run();
  } catch (error) {
    return error instanceof AttnLabError ? error.message : `(not an AttnLabError) ${error}`;
  }
  return '(no error)';
}

const calls = declaredCalls();

test('index.d.ts: every call it declares is in one table, the one its options say; no table names a call it does not declare', () => {
  const named = new Set([...Object.keys(OPTION_CALLS), ...Object.keys(NO_OPTION_CALLS), ...EXCLUDED.keys()]);
  assert.ok(calls.size > 150, `the walk found ${calls.size} calls`);
  assert.deepEqual([...calls.keys()].filter((call) => !named.has(call)), [], 'calls no table names');
  assert.deepEqual([...named].filter((call) => !calls.has(call)), [], 'table entries index.d.ts does not declare');
  const misplaced = [...calls].filter(([call, options]) => !EXCLUDED.has(call) && options !== Object.hasOwn(OPTION_CALLS, call));
  assert.deepEqual(misplaced.map(([call, options]) => `${call} ${options ? 'takes' : 'takes no'} options`), [], 'calls in the wrong table');
  // The calls the issue names, as the walk sees them.
  for (const call of ['Tokenizer.encode', 'GPTModel.session']) assert.equal(calls.get(call), false, call);
  assert.equal(calls.get('GPTModel.copyingScores'), true, 'TransformerLens\'s processing steps (issue 51)');
  assert.equal(calls.get('GPTModel.pathPatching'), true, 'its metric has an optional position');
});

describe('every call refuses what it does not take', () => {
  let c;
  before(async () => {
    c = await objects();
  });
  after(() => {
    for (const object of [c.gptSession, c.llamaSession, c.gpt, c.llama, c.hf, c.tokenizer, c.mha, c.layer, c.task, c.trainer]) object.dispose();
  });

  test('each call with options refuses a misspelt one and names the nearest', async () => {
    const wrong = [];
    for (const [call, [typo, near, run, fn = messageName(call)]] of Object.entries(OPTION_CALLS)) {
      const message = await refusal(() => run(c, { [typo]: 1 }));
      // 'unknown option "casual"', 'unknown config field "numLayer"', 'weights: unknown field "inProjBais"'
      const expected = new RegExp(`^${escape(fn)}: (?:[\\w.[\\]]+: )?unknown (?:option|[\\w.]+ field|field) "${typo}" ` +
        `— did you mean "${near}"\\? \\(it takes [^)]*\\)$`);
      if (!expected.test(message)) wrong.push(`${call}: ${message}`);
    }
    assert.deepEqual(wrong, []);
  });

  test('each call without options refuses an options object, naming the call', async () => {
    const wrong = [];
    for (const [call, run] of Object.entries(NO_OPTION_CALLS)) {
      const message = await refusal(() => run(c, { verbose: true }));
      if (message !== `${messageName(call)}: takes no options, got { verbose }`) wrong.push(`${call}: ${message}`);
    }
    assert.deepEqual(wrong, []);
  });

  test('the calls the issue names, and extra arguments that are not objects', async () => {
    const refused = (run, message) => assert.throws(run, (e) => e instanceof AttnLabError && e.message === message);
    refused(() => c.tokenizer.encode('x', { allowed_special: 'all' }), 'Tokenizer.encode: takes no options, got { allowed_special }');
    refused(() => c.gpt.session({ maxLen: 10 }), 'GPTModel.session: takes no options, got { maxLen }');
    refused(() => c.gpt.copyingScores({ foldLn: 1 }), 'GPTModel.copyingScores: foldLn must be a boolean, got 1');
    refused(() => c.gpt.copyingScores({}, 2), 'GPTModel.copyingScores: takes options only, got 2 too');
    assert.throws(() => c.llama.copyingScores({ centreWriting: true }), (e) => e instanceof AttnLabError &&
      /^LlamaModel\.copyingScores: .*centre_writing needs a LayerNorm/.test(e.message));
    // A GPT's circuit has no RoPE distance (a Llama's has).
    refused(() => c.gpt.headCircuit(0, 0, { distance: 2 }), 'GPTModel.headCircuit: takes no options, got { distance }');
    refused(() => c.gpt.session(5), 'GPTModel.session: takes no arguments, got 5');
    refused(() => c.gptSession.append(1, 2), 'GPTSession.append: takes id only, got 2 too');
    refused(() => c.tokenizer.decode([1], { skipSpecialTokens: true }), 'Tokenizer.decode: takes no options, got { skipSpecialTokens }');
    // randn's tensor form takes (shape, seed): a third argument is refused, not read as the Matrix form's.
    refused(() => c.lab.randn([3], 5, 7), 'randn: takes shape, seed only, got 7 too');
    await assert.rejects(c.lab.loadTokenizer(c.gpt2Files.vocabJson, c.gpt2Files.mergesText, { special: [] }),
      (e) => e instanceof AttnLabError && e.message === 'loadTokenizer: takes no options, got { special }');
  });

  test('nested option objects are checked like top-level ones, with the nearest name', async () => {
    const refused = (run, message) => assert.throws(run, (e) => e instanceof AttnLabError && e.message === message);
    const ablate = [{ layer: 1, haed: 0 }];
    const field = 'ablate[0]: unknown field "haed" — did you mean "head"? (it takes layer, head)';
    refused(() => c.gpt.forward(IDS, { ablate }), `GPTModel.forward: ${field}`);
    refused(() => c.gpt.tokenLosses(IDS, { ablate }), `GPTModel.tokenLosses: ${field}`);
    refused(() => c.llama.forward(IDS, { ablate }), `LlamaModel.forward: ${field}`);
    await assert.rejects(c.gpt.activationPatching(IDS, IDS, { what: 'resid_pre', metric: { target: 1, baselin: 2 } }),
      (e) => e.message === 'GPTModel.activationPatching: metric: unknown field "baselin" — did you mean "baseline"? (it takes target, baseline, position)');
    refused(() => c.gpt.runWithHooks(IDS, { patch: [{ nme: 'hook_embed', ablate: 'zero' }] }),
      'GPTModel.runWithHooks: patch[0]: unknown field "nme" — did you mean "name"? (it takes name, value, from, ablate, positions, heads)');
    const metric = { target: 1, baseline: 2 };
    refused(() => c.gpt.pathPatching(IDS, IDS, { sender: { layr: 0, head: 0 }, receivers: [], metric }),
      'GPTModel.pathPatching: sender: unknown field "layr" — did you mean "layer"? (it takes layer, head)');
    refused(() => c.gpt.pathPatching(IDS, IDS, { sender: { layer: 0, head: 0 }, receivers: [{ layer: 0, head: 1, inpt: 'q' }], metric }),
      'GPTModel.pathPatching: receivers[0]: unknown field "inpt" — did you mean "input"? (it takes layer, head, input)');
    // Weights: a misspelt bias was dropped without a word (the layer then ran without it).
    const attention = c.mha.weights();
    refused(() => c.layer.loadWeights({ selfAttn: { ...attention, outProjBais: attention.outProjBias } }),
      'TransformerEncoderLayer.loadWeights: selfAttn: unknown field "outProjBais" — did you mean "outProjBias"? ' +
      '(it takes inProjWeight, inProjBias, outProjWeight, outProjBias)');
    refused(() => c.layer.loadWeights({ selfAttn: attention, linear1: { weight: matrix(8, 4), bais: new Float32Array(8) } }),
      'TransformerEncoderLayer.loadWeights: linear1: unknown field "bais" — did you mean "bias"? (it takes weight, bias)');
    // out: the arrays a call writes into.
    refused(() => c.lab.scaledDotProductAttention(c.m, c.m, c.m, { out: { outptu: new Float32Array(4) } }),
      'scaledDotProductAttention: out.outptu: this call returns output, weights, scores, scaledScores, maskedScores, not outptu — did you mean "output"?');
  });

  test('after every refusal the objects work (none was disposed or changed)', () => {
    const again = c.gpt.forward(IDS).logits;
    assert.equal(again.rows, IDS.length);
    assert.ok(c.gptSession.append(1).logits.length === 11);
    assert.ok(c.llama.forward(IDS).logits.data.every(Number.isFinite));
    assert.equal(c.mha.parameterCount(), 4 * 4 * 4 + 4 * 4);
    assert.ok(c.layer.forward(c.x).data.every(Number.isFinite));
    assert.deepEqual([...c.tokenizer.encode('the cat')], [...c.tokenizer.encode('the cat')]);
    assert.ok(c.trainer.evaluate(1).loss > 0);
    assert.equal(c.task.steps, 0);
    assert.equal(c.gpt.loss(IDS, IDS), c.gpt.loss(IDS, IDS));
    assert.ok(c.referent.forward(c.sentence).prediction);
    assert.equal(c.seq2seq.decode([4, 5]).tokens[0], 1);
    assert.ok(c.lab.memory().budget > 0);
  });

  // Last, as it trains, and disposes everything: the table's own arguments make calls that work, and an
  // undefined past them is no argument (a wrapper passing its own optional argument on).
  test('with their own arguments alone, the calls of the no-options table work', async () => {
    const last = (call) => (call.endsWith('.dispose') ? 1 : 0);
    const entries = Object.entries(NO_OPTION_CALLS).sort(([a], [b]) => last(a) - last(b));
    const failed = [];
    for (const [call, run] of entries) {
      const message = await refusal(() => run(c, undefined));
      if (message !== '(no error)') failed.push(`${call}: ${message}`);
    }
    assert.deepEqual(failed, []);
  });
});
