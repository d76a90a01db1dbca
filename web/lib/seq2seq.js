// Seq2SeqModel: an encoder–decoder transformer in nn.Transformer's layout (cpp/src/seq2seq/), in its
// own module (attnlab-seq2seq-*.wasm). lab.loadBuiltinTranslator() gives the English → French
// translator attnlab trained (models/translator/), with word tokenizers for both sides:
//   const { model } = await lab.loadBuiltinTranslator();
//   const t = model.translate('the small cat sees the red car');
//   t.text                       // 'le petit chat voit la voiture rouge'
//   t.crossAttention[1][2]       // Matrix: rows t.targetTokens ('<s>', 'le', …), columns t.sourceTokens
// lab.loadSeq2Seq(bytes, config) loads a learner's own nn.Transformer checkpoint (ids in, ids out;
// translate() too when the config names both vocabularies).
import { checkBoolean, checkOptions, checkSize, describe, fail, noMoreArguments } from './checks.js';
import { WasmModule } from './modules.js';

// Words as the translator's vocabularies hold them: lower case, letters, digits and apostrophes;
// anything else separates words and is dropped.
const WORD = /[\p{L}\p{N}']+/gu;

// A word-level tokenizer over a fixed vocabulary: a word it does not know becomes `unkId` (and is
// listed), never an error.
export class WordTokenizer {
  #ids;

  constructor(vocabulary, { unkId }) {
    this.vocabulary = Object.freeze([...vocabulary]);
    this.unkId = unkId;
    this.#ids = new Map(this.vocabulary.map((w, i) => [w, i]));
  }

  // text → { words, ids: Int32Array, unknown: the words not in the vocabulary }
  encode(text, ...extra) {
    noMoreArguments('WordTokenizer.encode', extra, ['text']);
    if (typeof text !== 'string') fail('WordTokenizer.encode', `text must be a string, got ${describe(text)}`);
    const words = text.toLowerCase().match(WORD) ?? [];
    const unknown = words.filter((w) => !this.#ids.has(w));
    return { words, ids: Int32Array.from(words, (w) => this.#ids.get(w) ?? this.unkId), unknown: [...new Set(unknown)] };
  }

  // ids → the words joined by spaces
  decode(ids, ...extra) {
    noMoreArguments('WordTokenizer.decode', extra, ['ids']);
    return Array.from(ids, (id) => this.vocabulary[id] ?? '<unk>').join(' ');
  }
}

const CONFIG_SIZES = ['sourceVocabSize', 'targetVocabSize', 'maxLen', 'dModel', 'numHeads', 'numEncoderLayers',
  'numDecoderLayers', 'dFf'];

// config → the checked config the module takes, plus the special ids and vocabularies.
export function checkSeq2SeqConfig(fn, config) {
  const c = checkOptions(fn, config, [...CONFIG_SIZES, 'normFirst', 'bosId', 'eosId', 'unkId', 'sourceVocabulary',
    'targetVocabulary'], 'config');
  const checked = {};
  for (const name of CONFIG_SIZES) checked[name] = checkSize(fn, `config.${name}`, c[name]);
  checked.normFirst = c.normFirst === undefined ? false : checkBoolean(fn, 'config.normFirst', c.normFirst);
  for (const name of ['bosId', 'eosId']) {
    const value = c[name] ?? { bosId: 1, eosId: 2 }[name];
    checked[name] = checkSize(fn, `config.${name}`, value, { min: 0 });
    if (value >= checked.targetVocabSize) {
      fail(fn, `config.${name} = ${value} is outside the target vocabulary 0 … ${checked.targetVocabSize - 1}`);
    }
  }
  if (checked.dModel % checked.numHeads !== 0) {
    fail(fn, `config.dModel = ${checked.dModel} is not divisible by config.numHeads = ${checked.numHeads}`);
  }
  for (const [name, size] of [['sourceVocabulary', checked.sourceVocabSize], ['targetVocabulary', checked.targetVocabSize]]) {
    const words = c[name];
    if (words === undefined) continue;
    if (!Array.isArray(words) || words.length !== size || !words.every((w) => typeof w === 'string')) {
      fail(fn, `config.${name} must be ${size} words (strings), one per id, got ${describe(words)}`);
    }
    checked[name] = words;
  }
  checked.unkId = c.unkId ?? 3;
  return checked;
}

// The source words no written word looks at most: the rows of `heads` (one layer's cross-attention,
// Matrix [tokens × source] per head) that write a word (the first `written`), averaged over heads,
// each row's largest weight → its source position; the positions never chosen.
function unattendedWords(words, heads, written) {
  const { rows, cols } = heads[0];
  const chosen = new Set();
  for (let r = 0; r < Math.min(written, rows); r++) {
    let best = 0, bestWeight = -Infinity;
    for (let j = 0; j < cols; j++) {
      let sum = 0;
      for (const m of heads) sum += m.data[r * cols + j];
      if (sum > bestWeight) [best, bestWeight] = [j, sum];
    }
    chosen.add(best);
  }
  return words.flatMap((word, position) => (chosen.has(position) ? [] : [{ position, word }]));
}

export function seq2seqClass(module) {
  const { raw, call } = module;

  class Seq2SeqModel extends WasmModule {
    #config;

    #knowsGrammar;

    // extras: { sourceTokenizer?, targetTokenizer? (translate() needs both), grammar? (true for the
    // built-in translator: the English grammar it was trained on is in the module) }
    constructor(handle, config, extras = {}) {
      super('Seq2SeqModel', handle, call);
      this.#config = Object.freeze({ ...config });
      this.sourceTokenizer = extras.sourceTokenizer ?? null;
      this.targetTokenizer = extras.targetTokenizer ?? null;
      this.#knowsGrammar = extras.grammar === true;
      // The built-in translator's English words by kind ([{ kind: 'a determiner', words: ['the', …] }, …],
      // every word of its source vocabulary once); null for a learner's own checkpoint.
      this.sourceWordKinds = this.#knowsGrammar
        ? Object.freeze(call('Seq2SeqModel', () => raw.englishWordKinds()).map((k) => Object.freeze(k))) : null;
    }

    // { sourceVocabSize, targetVocabSize, maxLen, dModel, numHeads, numEncoderLayers, numDecoderLayers,
    // dFf, normFirst, bosId, eosId }
    get config() {
      return this.#config;
    }

    // source ids, target ids (what the decoder reads, the start token first) → { logits: Matrix
    // [n × targetVocabSize], encoderSelfAttention, decoderSelfAttention, crossAttention: Matrix[layer][head] }.
    forward(sourceIds, targetIds, ...extra) {
      const fn = 'Seq2SeqModel.forward';
      noMoreArguments(fn, extra, ['sourceIds', 'targetIds']);
      const source = this.#ids(fn, 'sourceIds', sourceIds, this.#config.sourceVocabSize);
      const target = this.#ids(fn, 'targetIds', targetIds, this.#config.targetVocabSize);
      const out = this.call(fn, () => this.handle('forward').forward(source, target));
      return { logits: out.logits, encoderSelfAttention: out.encoderSelf, decoderSelfAttention: out.decoderSelf,
        crossAttention: out.cross };
    }

    // source ids, { beam = 1, maxTokens = maxLen − 1 } → { tokens (what the decoder read: the start token,
    // then each produced token but the end token), output (the produced tokens), finished (the end
    // token came), logProb, crossAttention: Matrix[layer][head], tokens × source }.
    decode(sourceIds, options) {
      const fn = 'Seq2SeqModel.decode';
      const source = this.#ids(fn, 'sourceIds', sourceIds, this.#config.sourceVocabSize);
      return this.#decode(fn, source, this.#decodeOptions(fn, options));
    }

    // Errors name `fn`: decode, or translate (whose options the learner wrote).
    #decode(fn, source, { beam, maxTokens }) {
      const { bosId, eosId } = this.#config;
      const out = this.call(fn, () => this.handle('decode').decode(source, { bosId, eosId, maxTokens, beam }));
      return { tokens: Array.from(out.tokens), output: Array.from(out.output), finished: out.finished,
        logProb: out.logProb, crossAttention: out.crossAttention };
    }

    // text (English) → { text (the translation), sourceTokens (the words read, lower case), targetTokens
    // ('<s>' then each produced word: the decoder's query positions), crossAttention: Matrix[layer][head]
    // (targetTokens × sourceTokens), finished, logProb, unknownWords (read as '<unk>'), truncated (null, or
    // { kept, dropped } when the text had more words than the model reads) } and, with
    // { selfAttention: true }, encoderSelfAttention and decoderSelfAttention. options: { beam, maxTokens, selfAttention }.
    // What the translation may have left out, for a reader to judge it by:
    //   grammar: for the built-in translator, whether the text's words (all of them, the truncated tail
    //     too) are a sentence of the grammar it was trained on: { inGrammar, position (the index of the
    //     first word outside it, the number of words when the sentence stops too early; -1 when inGrammar),
    //     expected: [{ kind, words }] (what the grammar allows there) }; null for a learner's own checkpoint.
    //   unattendedWords: [{ position, word }] the source words that no written word's cross-attention
    //     row in the last decoder layer, averaged over heads, puts its largest weight on (rows that
    //     write </s> not counted). A measurement of where the model looked, not a claim about meaning.
    translate(text, options) {
      const fn = 'Seq2SeqModel.translate';
      if (!this.sourceTokenizer || !this.targetTokenizer) {
        fail(fn, 'this model has no vocabularies: load it with config.sourceVocabulary and config.targetVocabulary, or call decode() with ids');
      }
      if (typeof text !== 'string') fail(fn, `text must be a string, got ${describe(text)}`);
      const { selfAttention = false, beam, maxTokens } = checkOptions(fn, options, ['beam', 'maxTokens', 'selfAttention']);
      checkBoolean(fn, 'selfAttention', selfAttention);
      const encoded = this.sourceTokenizer.encode(text);
      if (encoded.words.length === 0) fail(fn, `text has no words to translate, got ${describe(text)}`);
      const kept = Math.min(encoded.words.length, this.#config.maxLen);
      const sourceIds = encoded.ids.slice(0, kept);
      const source = this.#ids(fn, 'sourceIds', sourceIds, this.#config.sourceVocabSize);
      const decoded = this.#decode(fn, source, this.#decodeOptions(fn, { beam, maxTokens }));
      const result = {
        text: this.targetTokenizer.decode(decoded.output),
        sourceTokens: encoded.words.slice(0, kept),
        targetTokens: decoded.tokens.map((id, i) => (i === 0 ? '<s>' : this.targetTokenizer.vocabulary[id])),
        crossAttention: decoded.crossAttention,
        finished: decoded.finished,
        logProb: decoded.logProb,
        unknownWords: encoded.unknown,
        truncated: kept < encoded.words.length ? { kept, dropped: encoded.words.length - kept } : null,
        grammar: this.#knowsGrammar ? this.call(fn, () => raw.checkEnglish(encoded.words)) : null,
        unattendedWords: unattendedWords(encoded.words.slice(0, kept), decoded.crossAttention.at(-1), decoded.output.length),
      };
      if (selfAttention) {
        const full = this.forward(sourceIds, decoded.tokens);
        result.encoderSelfAttention = full.encoderSelfAttention;
        result.decoderSelfAttention = full.decoderSelfAttention;
      }
      return result;
    }

    #ids(fn, name, ids, vocab) {
      if (!(ids instanceof Int32Array) && !Array.isArray(ids)) fail(fn, `${name} must be an array of token ids, got ${describe(ids)}`);
      if (ids.length === 0) fail(fn, `${name} is empty (give at least one token)`);
      if (ids.length > this.#config.maxLen) {
        fail(fn, `${name} has ${ids.length} tokens, more than the model's maxLen = ${this.#config.maxLen}`);
      }
      for (let i = 0; i < ids.length; i++) {
        if (!Number.isInteger(ids[i]) || ids[i] < 0 || ids[i] >= vocab) {
          fail(fn, `${name}[${i}] = ${describe(ids[i])} is not a token id in 0 … ${vocab - 1}`);
        }
      }
      return Int32Array.from(ids);
    }

    #decodeOptions(fn, options) {
      const { beam = 1, maxTokens = this.#config.maxLen - 1 } = checkOptions(fn, options, ['beam', 'maxTokens']);
      checkSize(fn, 'beam', beam);
      if (beam > 16) fail(fn, `beam must be at most 16, got ${beam}`);
      checkSize(fn, 'maxTokens', maxTokens);
      return { beam, maxTokens: Math.min(maxTokens, this.#config.maxLen - 1) };
    }
  }
  return Seq2SeqModel;
}

// TranslatorTrainer: a fresh translator of the built-in one's shape and recipe, trained in the page on
// the grammar's sentence pairs (lab.createTranslatorTrainer({ seed, totalSteps })), for watching its
// cross-attention turn into an alignment.
export function translatorTrainerClass(module) {
  const { call } = module;

  class TranslatorTrainer extends WasmModule {
    constructor(handle) {
      super('TranslatorTrainer', handle, call);
    }

    get steps() {
      return this.handle('steps').steps();
    }

    // `count` AdamW steps on batches of `batch` fresh sentence pairs → their losses (Float32Array).
    train(count = 1, options) {
      const fn = 'TranslatorTrainer.train';
      const { batch = 32 } = checkOptions(fn, options, ['batch']);
      checkSize(fn, 'count', count);
      checkSize(fn, 'batch', batch);
      return this.call(fn, () => this.handle('train').train(count, batch));
    }

    // The first `count` held-out pairs (at most 100; never trained on) → { loss, tokenAccuracy,
    // exactMatch, alignment: [layer][head] share of French words on their gold English word }.
    evaluate(count = 100, ...extra) {
      const fn = 'TranslatorTrainer.evaluate';
      noMoreArguments(fn, extra, ['count']);
      checkSize(fn, 'count', count);
      return this.call(fn, () => this.handle('evaluate').evaluate(count));
    }

    // Held-out pair `index` → { english, french (word lists), alignment (gold: each French word's
    // English index), translation (greedy, words), source, target (Int32Array: the ids the encoder and
    // the decoder read, the start token first), crossAttention: Matrix[layer][head] (French × English,
    // teacher-forced: row i is the query that must write French word i) }.
    watch(index = 0, ...extra) {
      const fn = 'TranslatorTrainer.watch';
      noMoreArguments(fn, extra, ['index']);
      checkSize(fn, 'index', index, { min: 0 });
      const out = this.call(fn, () => this.handle('watch').watch(index));
      return { ...out, alignment: Array.from(out.alignment) };
    }

    // The weights as they are now, named as nn.Transformer's state_dict names them (the translation
    // tutorial's model: src_tok_emb.weight, transformer.encoder.layers.0.self_attn.in_proj_weight, …,
    // generator.bias) → { name: Tensor { shape, data: Float32Array } } in PyTorch's order: what a
    // PyTorch program loads to start where this trainer stands.
    parameters(...extra) {
      const fn = 'TranslatorTrainer.parameters';
      noMoreArguments(fn, extra);
      const list = this.call(fn, () => this.handle('parameters').parameters());
      return Object.fromEntries(list.map((t) => [t.name, { shape: t.shape, data: t.data }]));
    }

    // The sentence pairs the next `count` train() steps of `batch` pairs will take, without taking them
    // (train() then draws the same) → [step][pair] { english, french (words), source, target, targets
    // (Int32Array ids: what the encoder reads, what the decoder reads from the start token on, what each
    // decoder position must predict, the end token last) }.
    upcomingBatches(count = 1, options) {
      const fn = 'TranslatorTrainer.upcomingBatches';
      const { batch = 32 } = checkOptions(fn, options, ['batch']);
      checkSize(fn, 'count', count);
      checkSize(fn, 'batch', batch);
      return this.call(fn, () => this.handle('upcomingBatches').upcomingBatches(count, batch));
    }
  }
  return TranslatorTrainer;
}
