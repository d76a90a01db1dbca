// ReferentModel: the "it" sentence model attnlab trained (cpp/train/train_referent.cpp; the package's
// models/referent/), in its own small module (attnlab-referent-*.wasm). It reads a sentence such as
//   "the animal didn't cross the street because it was too tired"
// and, at "it", says which noun "it" stands for; every head's attention is returned with the answer.
//   const referent = await lab.loadReferentModel();
//   const s = referent.sentence({ frame: 'cross', first: 'animal', second: 'street', adjective: 'wide' });
//   const { prediction, fromIt } = referent.forward(s);   // fromIt[layer][head]: Float32Array [n]
//   referent.namedHead  // { layer, head }: the head the training run named (see its log)
import { checkOptions, describe, fail, noMoreArguments } from './checks.js';
import { WasmModule } from './modules.js';

export function referentClass(module, { log }) {
  const { raw, call } = module;
  const lists = call('loadReferentModel', () => raw.referentSentenceLists());
  const frames = Object.freeze(lists.frames.map((f) => Object.freeze(f)));

  class ReferentModel extends WasmModule {
    #config;

    constructor(handle) {
      super('ReferentModel', handle, call);
      const { parameterCount, ...config } = this.handle('config').config();
      this.#config = Object.freeze(config);
      this.parameterCountValue = parameterCount;
    }

    // { vocabSize, maxLen, dModel, numHeads, numLayers, dFf }
    get config() {
      return this.#config;
    }

    parameterCount(...extra) {
      noMoreArguments('ReferentModel.parameterCount', extra);
      return this.parameterCountValue;
    }

    // The sentence frames and their word lists: [{ name, words (with <1>, <2>, <adj>), firstNouns,
    // secondNouns, firstAdjectives ("it" = the first noun), secondAdjectives }].
    get frames() {
      return frames;
    }

    get vocabulary() {
      return lists.vocabulary;
    }

    // How many sentences the run trained on and held out ({ train, heldOut }).
    get sentenceCounts() {
      return { train: lists.trainCount, heldOut: lists.heldOutCount };
    }

    // The training log: { setup, steps: [...], summary } (summary: namedHead, namedHeadHeldoutShare,
    // heldoutAccuracy, heldoutHeadShares [layer][head], trainHeadShares, seconds, …).
    get log() {
      return log;
    }

    // The head the training run named by its rule (on training sentences): { layer, head }.
    get namedHead() {
      const { layer, head } = log.summary.namedHead;
      return { layer, head };
    }

    // { frame: name or index, first, second, adjective } → { frame, words, tokens, itPosition,
    // firstPosition, secondPosition, answerPosition, answer, heldOut }.
    sentence(choice) {
      const fn = 'ReferentModel.sentence';
      const { frame = 0, first, second, adjective } = checkOptions(fn, choice, ['frame', 'first', 'second', 'adjective'], 'choice');
      const index = typeof frame === 'number' ? frame : frames.findIndex((f) => f.name === frame);
      if (!Number.isInteger(index) || index < 0 || index >= frames.length) {
        fail(fn, `frame must be one of ${frames.map((f) => `"${f.name}"`).join(', ')}, got ${describe(frame)}`);
      }
      for (const [name, word] of [['first', first], ['second', second], ['adjective', adjective]]) {
        if (typeof word !== 'string') fail(fn, `${name} must be a word (string), got ${describe(word)}`);
      }
      const s = call(fn, () => raw.referentSentence(index, first, second, adjective));
      return { frame: frames[index].name, ...s, tokens: Array.from(s.tokens) };
    }

    // A sentence from sentence() → { prediction (the word), probabilities: Float32Array [vocabSize],
    // attention: Matrix[layer][head] (n×n), fromIt: Float32Array[layer][head] (the row of "it") }.
    forward(sentence, ...extra) {
      const fn = 'ReferentModel.forward';
      noMoreArguments(fn, extra, ['sentence']);
      if (sentence === null || typeof sentence !== 'object' || !Array.isArray(sentence.tokens) ||
          !Number.isInteger(sentence.itPosition)) {
        fail(fn, `sentence must be what referent.sentence() returns, got ${describe(sentence)}`);
      }
      const out = this.call(fn, () => this.handle('forward').forward(Int32Array.from(sentence.tokens), sentence.itPosition));
      const n = sentence.tokens.length;
      const fromIt = out.attention.map((heads) => heads.map((m) => m.data.slice(sentence.itPosition * n, (sentence.itPosition + 1) * n)));
      return {
        prediction: lists.vocabulary[out.prediction],
        probabilities: out.probabilities.data,
        attention: out.attention,
        fromIt,
      };
    }
  }
  return ReferentModel;
}
