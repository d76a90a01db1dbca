// TaskModel: a small transformer trained on a toy task in the wasm heap (attnlab/training.hpp):
// copy, reverse, sort and repeat with a causal transformer, coreference and sentiment with the
// tutorials' AttentionClassifier, Adam underneath. It lives in the training module (attnlab-train-*.wasm):
//   await lab.loadTraining();
//   const model = new lab.TaskModel({ task: 'copy', seed: 1 });
//   const { train, test } = model.split(4000, 300);
//   model.trainStep(train.slice(0, 16));            // → the batch's mean loss
//   model.evaluate(test);                            // → { loss, accuracy, sequenceAccuracy }
//   model.attentionWeights(test[0]).layers[0][0];    // head 0 of layer 0, a Matrix
// The induction-head lesson: { task: 'repeat', layers: 2, dFF: 0 } (attention only; positions: false
// drops the position embedding), and model.inductionScores(test) per head.
import {
  checkBoolean, checkNumber, checkOneOf, checkOptions, checkSeed, checkSize, describe, fail, noMoreArguments,
} from './checks.js';
import { WasmModule } from './modules.js';

const TASKS = ['copy', 'reverse', 'sort', 'coreference', 'sentiment', 'repeat'];

// trainingModule(fn) → { raw, call }: the training module's raw bindings and its error conversion,
// or an AttnLabError naming `fn` if lab.loadTraining() has not finished.
export function taskModelClass(trainingModule) {
  return class TaskModel extends WasmModule {
    #info;

    constructor(options) {
      const fn = 'TaskModel';
      const { task, length = 0, dModel = 32, numHeads = 2, layers = 1, dFF = 64, positions = true, lr = 1e-3, seed = 0 } =
        checkOptions(fn, options, ['task', 'length', 'dModel', 'numHeads', 'layers', 'dFF', 'positions', 'lr', 'seed']);
      const { raw, call } = trainingModule(fn);
      const config = {
        task: checkOneOf(fn, 'task', task, TASKS),
        length: checkSize(fn, 'length', length, { min: 0 }),
        dModel: checkSize(fn, 'dModel', dModel),
        numHeads: checkSize(fn, 'numHeads', numHeads),
        layers: checkSize(fn, 'layers', layers),
        dFF: checkSize(fn, 'dFF', dFF, { min: 0 }),
        positions: checkBoolean(fn, 'positions', positions),
        lr: checkNumber(fn, 'lr', lr),
        seed: checkSeed(fn, seed),
      };
      super(fn, call(fn, () => raw.TaskModelHandle.create(config)), call);
      this.#info = Object.freeze(this.handle('info').info());
    }

    // { task, seqLen, vocabulary (id → token), classNames, sequence, parameterCount }
    get info() {
      return this.#info;
    }

    get steps() {
      return this.handle('steps').steps();
    }

    parameterCount(...extra) {
      noMoreArguments('TaskModel.parameterCount', extra);
      return this.#info.parameterCount;
    }

    // `count` examples drawn from the seed: [{ tokens, targets }].
    examples(count, seed = 0, ...extra) {
      const fn = 'TaskModel.examples';
      noMoreArguments(fn, extra, ['count', 'seed']);
      checkSize(fn, 'count', count, { min: 0 });
      checkSeed(fn, seed);
      return this.call(fn, () => this.handle('examples').examples(count, seed));
    }

    // Training and held-out examples, no held-out input ever among the training ones.
    split(trainCount, testCount, seed = 0, ...extra) {
      const fn = 'TaskModel.split';
      noMoreArguments(fn, extra, ['trainCount', 'testCount', 'seed']);
      checkSize(fn, 'trainCount', trainCount, { min: 0 });
      checkSize(fn, 'testCount', testCount, { min: 0 });
      checkSeed(fn, seed);
      return this.call(fn, () => this.handle('split').split(trainCount, testCount, seed));
    }

    // One Adam step on the batch's mean loss; returns that loss. A NaN loss stops with an AttnLabError
    // and leaves the model as it was.
    trainStep(batch, ...extra) {
      const fn = 'TaskModel.trainStep';
      noMoreArguments(fn, extra, ['batch']);
      const examples = this.#examples(fn, 'batch', batch);
      return this.call(fn, () => this.handle('trainStep').trainStep(examples));
    }

    evaluate(examples, ...extra) {
      const fn = 'TaskModel.evaluate';
      noMoreArguments(fn, extra, ['examples']);
      const checked = this.#examples(fn, 'examples', examples);
      return this.call(fn, () => this.handle('evaluate').evaluate(checked));
    }

    // { layers: Matrix[layer][head] (n×n attention weights), logits, loss } for one example.
    attentionWeights(example, ...extra) {
      const fn = 'TaskModel.attentionWeights';
      noMoreArguments(fn, extra, ['example']);
      const [checked] = this.#examples(fn, 'example', [example], false);
      const { attention, logits, loss } = this.call(fn, () => this.handle('inspect').inspect(checked));
      return { layers: attention, logits, loss };
    }

    // Repeat examples → { previousToken, induction }: one Float32Array entry per head, layer-major
    // (layer · numHeads + head), each the mean over the examples of: the attention from each position of
    // the second copy to the position before it; the attention from the second copy's s_i to the first
    // copy's s_{i+1}, the token to predict.
    inductionScores(examples, ...extra) {
      const fn = 'TaskModel.inductionScores';
      noMoreArguments(fn, extra, ['examples']);
      if (this.#info.task !== 'repeat') fail(fn, `the model's task is '${this.#info.task}', not 'repeat'`);
      const checked = this.#examples(fn, 'examples', examples);
      return this.call(fn, () => this.handle('inductionScores').inductionScores(checked));
    }

    // Everything training changes (parameters, Adam's moments, the step count), as plain data.
    snapshot(...extra) {
      const fn = 'TaskModel.snapshot';
      noMoreArguments(fn, extra);
      return { task: this.#info.task, ...this.call(fn, () => this.handle('snapshot').snapshot()) };
    }

    restore(snapshot, ...extra) {
      const fn = 'TaskModel.restore';
      noMoreArguments(fn, extra, ['snapshot']);
      if (snapshot === null || typeof snapshot !== 'object') fail(fn, `snapshot must be an object from snapshot(), got ${describe(snapshot)}`);
      if (snapshot.task !== this.#info.task) fail(fn, `the snapshot is of task ${describe(snapshot.task)} but this model's task is '${this.#info.task}'`);
      const lists = (name) => {
        const list = snapshot[name];
        if (!Array.isArray(list) || list.some((a) => !(a instanceof Float32Array))) fail(fn, `snapshot.${name} must be an array of Float32Array`);
        return list;
      };
      const checked = {
        parameters: lists('parameters'), expAvg: lists('expAvg'), expAvgSq: lists('expAvgSq'),
        adamStep: checkSize(fn, 'snapshot.adamStep', snapshot.adamStep, { min: 0 }),
        steps: checkSize(fn, 'snapshot.steps', snapshot.steps, { min: 0 }),
      };
      this.call(fn, () => this.handle('restore').restore(checked));
      return this;
    }

    decode(ids, ...extra) {
      const fn = 'TaskModel.decode';
      noMoreArguments(fn, extra, ['ids']);
      return this.#ids(fn, 'ids', ids).map((id) => this.#info.vocabulary[id]).join(' ');
    }

    // Examples as the core takes them: { tokens, targets } with seqLen token ids in the vocabulary, and
    // seqLen targets (sequence tasks; -100 = no loss) or one class id.
    #examples(fn, name, list, nonEmpty = true) {
      if (!Array.isArray(list)) fail(fn, `${name} must be an array of { tokens, targets }, got ${describe(list)}`);
      if (nonEmpty && list.length === 0) fail(fn, `${name} is empty`);
      const { seqLen, sequence, vocabulary, classNames } = this.#info;
      return list.map((e, i) => {
        const where = list.length === 1 && !nonEmpty ? name : `${name}[${i}]`;
        if (e === null || typeof e !== 'object') fail(fn, `${where} must be { tokens, targets }, got ${describe(e)}`);
        const tokens = this.#ids(fn, `${where}.tokens`, e.tokens);
        if (tokens.length !== seqLen) fail(fn, `${where}.tokens has ${tokens.length} ids but the ${this.#info.task} task's sequences have ${seqLen}`);
        const targets = this.#ids(fn, `${where}.targets`, e.targets, sequence);
        const wanted = sequence ? seqLen : 1;
        if (targets.length !== wanted) fail(fn, `${where}.targets has ${targets.length} entries but must have ${wanted}`);
        const limit = sequence ? vocabulary.length : classNames.length;
        targets.forEach((t, j) => {
          if (t >= limit || (t < 0 && !(sequence && t === -100))) {
            fail(fn, `${where}.targets[${j}] = ${t} is not ${sequence ? `a token id 0 … ${limit - 1} or -100` : `a class 0 … ${limit - 1}`}`);
          }
        });
        return { tokens, targets };
      });
    }

    // Integer ids (tokens in the vocabulary unless `anyInteger`), from an array or typed array.
    #ids(fn, name, ids, anyInteger = false) {
      if (!Array.isArray(ids) && !(ArrayBuffer.isView(ids) && !(ids instanceof DataView))) {
        fail(fn, `${name} must be an array of integers, got ${describe(ids)}`);
      }
      const out = Array.from(ids);
      out.forEach((id, j) => {
        if (typeof id !== 'number' || !Number.isInteger(id)) fail(fn, `${name}[${j}] is not an integer (${describe(id)})`);
        if (!anyInteger && (id < 0 || id >= this.#info.vocabulary.length)) {
          fail(fn, `${name}[${j}] = ${id} is outside the vocabulary 0 … ${this.#info.vocabulary.length - 1}`);
        }
      });
      return out;
    }
  };
}
