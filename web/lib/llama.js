// LlamaModel, LlamaSession and HFTokenizer: a Llama-family decoder (Llama, SmolLM2, Qwen2, Mistral) as
// Hugging Face saves one, its KV cache (with StreamingLLM's attention sinks), and tokenizer.json; in the
// GPT module (attnlab-gpt-*.wasm). lab.loadModel(files) makes them from a checkpoint folder:
//   const { model, tokenizer } = await lab.loadModel(files);     // config.json, *.safetensors, tokenizer.json
//   const { logits } = model.forward(tokenizer.encode('In the beginning'));
//   const { cache } = model.runWithCache(ids);  cache.get('blocks.0.attn.hook_rot_q');
import { checkBoolean, checkOneOf, checkOptions, checkSize, describe, fail, noMoreArguments, wellFormed } from './checks.js';
import { CacheSession, checkAblate, checkIds, generateOptions, ModelWeights } from './gpt.js';
import { WasmModule } from './modules.js';

const utf8 = new TextDecoder('utf-8');  // a character split between tokens becomes U+FFFD

// { sinks = 0, window = 0 }: the cache policy (llama_session.hpp): window 0 keeps every token; w > 0
// keeps the first `sinks` tokens and the last w.
function cachePolicy(fn, options, more = []) {
  const { sinks = 0, window = 0 } = checkOptions(fn, options, ['sinks', 'window', ...more]);
  checkSize(fn, 'sinks', sinks, { min: 0 });
  checkSize(fn, 'window', window, { min: 0 });
  if (sinks > 0 && window === 0) fail(fn, `sinks = ${sinks} needs a window > 0 (with window 0 every token is kept anyway)`);
  return { sinks, window };
}

export function llamaClasses(module) {
  class LlamaModel extends ModelWeights {
    #config;

    constructor(handle) {
      super('LlamaModel', handle, module);
      this.#config = Object.freeze(this.handle('config').config());
    }

    // 'llama' | 'qwen2' | 'mistral': the family config.json names (the forward is the same code for all).
    get family() {
      return this.#config.modelType;
    }

    // { modelType, vocabSize, hiddenSize, intermediateSize, numLayers, numHeads, numKeyValueHeads, headDim,
    //   rmsNormEps, ropeTheta, ropeScaling, maxPositionEmbeddings, tieWordEmbeddings, slidingWindow,
    //   parameterCount, weightBytes (in memory: BF16 matrices stay BF16), kvCacheBytesPerToken }
    get config() {
      return this.#config;
    }

    parameterCount(...extra) {
      noMoreArguments('LlamaModel.parameterCount', extra);
      return this.#config.parameterCount;
    }

    // ids [n] → { logits: Matrix n×vocabSize (1×V with logits 'last', 0×V with 'none'), attention?:
    // Matrix[layer][head] (n×n) }. ablate: [{ layer, head }] sets those heads' output (hook_z) to 0
    // (ablation 'zero') or its mean over the positions ('mean'). firstPosition: RoPE's position of the
    // first token (shift a prompt along: the scores do not change).
    forward(ids, options) {
      const fn = 'LlamaModel.forward';
      const { attention = false, ablate, ablation = 'zero', logits = 'all', firstPosition = 0 } =
        checkOptions(fn, options, ['attention', 'ablate', 'ablation', 'logits', 'firstPosition']);
      const opts = {
        attention: checkBoolean(fn, 'attention', attention), ablate: checkAblate(fn, ablate),
        ablation: checkOneOf(fn, 'ablation', ablation, ['zero', 'mean']),
        logits: checkOneOf(fn, 'logits', logits, ['all', 'last', 'none']),
        firstPosition: checkSize(fn, 'firstPosition', firstPosition, { min: 0 }),
      };
      const tokens = checkIds(fn, 'ids', ids);
      return this.call(fn, () => this.handle('forward').forward(tokens, opts));
    }

    // The interpretability calls come from ModelWeights (interp.js), as a GPTModel's: runWithCache(ids,
    // { names, firstPosition }) keeps TransformerLens's points for this family (hookNames() lists them:
    // hook_q and hook_rot_q per query head, hook_k, hook_v and hook_rot_k per key/value head);
    // runWithHooks patches them; logitLens, directLogitAttribution, activationPatching and pathPatching (k and v
    // per key/value head), headCircuit(layer, head, { distance }), copyingScores, compositionScores.
    // Their bindings are the GPT's names with "llama" before them.
    get interpPrefix() {
      return 'llama';
    }

    // Every hook point's name, in the order the forward reaches them.
    hookNames(...extra) {
      noMoreArguments('LlamaModel.hookNames', extra);
      return module.raw.llamaHookNames(this.handle('hookNames'));
    }

    // The prompt, then up to maxTokens draws fed back through a KV cache (the sampling options as
    // GPTModel.generate's; sinks and window choose the cache, as session()) → { tokens, probabilities, stopped }.
    generate(ids, options) {
      const fn = 'LlamaModel.generate';
      const tokens = checkIds(fn, 'ids', ids);
      const opts = { ...generateOptions(fn, options, ['sinks', 'window']), ...cachePolicy(fn, pick(options, ['sinks', 'window'])) };
      return this.call(fn, () => this.handle('generate').generate(tokens, opts));
    }

    // A KV-cache decoder: { sinks, window } as cachePolicy above (dispose it, or it is freed with the model).
    session(options) {
      const fn = 'LlamaModel.session';
      const { sinks, window } = cachePolicy(fn, options);
      const handle = this.call(fn, () => module.raw.LlamaSessionHandle.create(this.handle('session'), sinks, window));
      return new LlamaSession(handle, this);
    }

    // (save({ dtype }): model.safetensors, lm_head left out when tied; tensorNames(), tensor(name) by
    // Hugging Face's name, 'model.layers.0.self_attn.k_proj.weight': ModelWeights.)
  }

  class LlamaSession extends CacheSession {
    constructor(handle, model) {
      super('LlamaSession', handle, module.call, model);
    }

    get cacheBytes() {  // what the cache holds now: cached tokens × kvCacheBytesPerToken
      return this.handle('cacheBytes').cacheBytes();
    }

    // The cached tokens' positions in the text (with sinks: the first ones and the last window).
    cachedTokens(...extra) {
      noMoreArguments('LlamaSession.cachedTokens', extra);
      return this.handle('cachedTokens').cachedTokens();
    }

    // One id or several → { logits: Matrix n×vocabSize (the token after each), attention:
    // Matrix[layer][head] (1×cached: the last token's weights over the cache) }. (cache(layer): { keys,
    // values }, Matrix cached × numKeyValueHeads·headDim each.)
    append(ids, ...extra) {
      const fn = 'LlamaSession.append';
      noMoreArguments(fn, extra, ['ids']);
      const tokens = checkIds(fn, 'ids', typeof ids === 'number' ? [ids] : ids);
      this.checkModel('append');
      return this.call(fn, () => this.handle('append').append(tokens));
    }
  }

  class HFTokenizer extends WasmModule {
    constructor(handle) {
      super('HFTokenizer', handle, module.call);
      const { vocabSize, normalizer, preTokenizer, addedTokens } = this.handle('describe').describe();
      Object.assign(this, { vocabSize, normalizer, preTokenizer, addedTokens: Object.freeze(addedTokens) });
    }

    // text → Int32Array of ids, as Hugging Face's tokenizers encodes it (addSpecialTokens: the
    // post-processor's tokens, Llama 3's <|begin_of_text|>; on by default, as there).
    encode(text, options) {
      const fn = 'HFTokenizer.encode';
      if (typeof text !== 'string') fail(fn, `text must be a string, got ${describe(text)}`);
      const { addSpecialTokens = true } = checkOptions(fn, options, ['addSpecialTokens']);
      checkBoolean(fn, 'addSpecialTokens', addSpecialTokens);
      const normalized = this.normalizer === 'NFC' ? wellFormed(text).normalize('NFC') : wellFormed(text);
      return this.call(fn, () => this.handle('encode').encode(normalized, addSpecialTokens));
    }

    // ids → string (a character split across the ids' ends shows as U+FFFD); skipSpecialTokens leaves
    // out the special added tokens.
    decode(ids, options) {
      return utf8.decode(this.decodeBytes(ids, options));
    }

    decodeBytes(ids, options) {
      const fn = 'HFTokenizer.decode';
      const { skipSpecialTokens = false } = checkOptions(fn, options, ['skipSpecialTokens']);
      const tokens = checkIds(fn, 'ids', ids);
      return this.call(fn, () => this.handle('decode').decode(tokens, checkBoolean(fn, 'skipSpecialTokens', skipSpecialTokens)));
    }

    // One token's text (its bytes decoded), and its spelling in tokenizer.json ('Ġthe').
    tokenString(id, ...extra) {
      noMoreArguments('HFTokenizer.tokenString', extra, ['id']);
      return this.decode([id]);
    }

    tokenText(id, ...extra) {
      const fn = 'HFTokenizer.tokenText';
      noMoreArguments(fn, extra, ['id']);
      checkSize(fn, 'id', id, { min: 0 });
      return this.call(fn, () => this.handle('tokenText').token(id));
    }
  }

  return { LlamaModel, LlamaSession, HFTokenizer };
}

function pick(options, names) {
  if (options === undefined || options === null || typeof options !== 'object') return undefined;
  return Object.fromEntries(names.filter((n) => options[n] !== undefined).map((n) => [n, options[n]]));
}
