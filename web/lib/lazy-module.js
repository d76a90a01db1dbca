// A wasm module the lab loads only when asked (training, GPT): the same build (SIMD or scalar) as the
// main one, with the lab's memory budget applied when it arrives. load() returns the same promise to
// every caller, resolving to `owner` (the lab); after a failed load (a network error, say) the next
// call tries again. Once loaded, `loaded` is { raw, call }.
import { makeCaller } from './call.js';
import { fail } from './checks.js';
import { instantiate } from './loader.js';

export class LazyModule {
  #file;
  #source;
  #loading = null;
  #onLoad;
  #owner;
  #callerOptions;
  loaded = null;

  // file: 'attnlab-train-simd' etc.; source: { wasmBinary?, locateFile? }; onLoad(module) runs once it is
  // instantiated (the lab applies its current budget there).
  // callerOptions: how its errors are named (call.js makeCaller).
  constructor(file, source, owner, onLoad, callerOptions = {}) {
    this.#callerOptions = callerOptions;
    this.#file = file;
    this.#source = source;
    this.#owner = owner;
    this.#onLoad = onLoad;
  }

  load(fn) {
    this.#loading ??= this.#instantiate(fn).catch((error) => {
      this.#loading = null;
      throw error;
    });
    return this.#loading;
  }

  async #instantiate(fn) {
    const raw = await instantiate(this.#file, this.#source, fn);
    const module = { raw, call: makeCaller(raw, this.#callerOptions) };
    this.#onLoad(module);
    this.loaded = module;
    return this.#owner;
  }

  // The loaded module, or an AttnLabError naming `fn` and what to call first.
  require(fn, hint) {
    if (!this.loaded) fail(fn, hint);
    return this.loaded;
  }
}
