// The GPT module's Embind declarations, as web/lib/gpt.js and web/lib/llama.js call them. Its own module
// (attnlab-gpt-*.wasm): pages that never load a GPT do not download the model, tokenizer and sampler.
#include <emscripten/bind.h>

#include "gpt.hpp"
#include "interp.hpp"
#include "llama.hpp"
#include "llama_interp.hpp"

using namespace emscripten;
using namespace attnlab::wasm;

EMSCRIPTEN_BINDINGS(attnlab_gpt) {
  class_<GPTHandle>("GPTHandle")
      .class_function("fromSafetensors", &GPTHandle::from_safetensors, allow_raw_pointers())
      .class_function("create", &GPTHandle::create, allow_raw_pointers())
      .function("config", &GPTHandle::config)
      .function("forward", &GPTHandle::forward)
      .function("save", &GPTHandle::save)
      .function("headScores", &GPTHandle::head_scores)
      .function("tokenLosses", &GPTHandle::token_losses)
      .function("generate", &GPTHandle::generate)
      .function("tensorNames", &GPTHandle::tensor_names)
      .function("tensor", &GPTHandle::tensor)
      .function("startTraining", &GPTHandle::start_training)
      .function("trainStep", &GPTHandle::train_step)
      .function("loss", &GPTHandle::loss)
      .function("multiplyAdds", &GPTHandle::multiply_adds);
  class_<GPTSessionHandle>("GPTSessionHandle")
      .class_function("create", &GPTSessionHandle::create, allow_raw_pointers())
      .function("append", &GPTSessionHandle::append)
      .function("cache", &GPTSessionHandle::cache)
      .function("length", &GPTSessionHandle::length)
      .function("reset", &GPTSessionHandle::reset);
  class_<TokenizerHandle>("TokenizerHandle")
      .class_function("fromGPT2", &TokenizerHandle::from_gpt2, allow_raw_pointers())
      .class_function("train", &TokenizerHandle::train, allow_raw_pointers())
      .function("encode", &TokenizerHandle::encode)
      .function("encodeWithSteps", &TokenizerHandle::encode_with_steps)
      .function("decode", &TokenizerHandle::decode)
      .function("tokenBytes", &TokenizerHandle::token_bytes)
      .function("tokenText", &TokenizerHandle::token_text)
      .function("vocabSize", &TokenizerHandle::vocab_size)
      .function("endOfText", &TokenizerHandle::end_of_text)
      .function("vocabJson", &TokenizerHandle::vocab_json)
      .function("mergesText", &TokenizerHandle::merges_text);
  class_<ActivationCacheHandle>("ActivationCacheHandle")
      .class_function("run", &ActivationCacheHandle::run, allow_raw_pointers())
      .function("logits", &ActivationCacheHandle::logits)
      .function("names", &ActivationCacheHandle::names)
      .function("get", &ActivationCacheHandle::get)
      .function("ids", &ActivationCacheHandle::ids);
  class_<PatchingSweepHandle>("PatchingSweepHandle")
      .class_function("create", &PatchingSweepHandle::create, allow_raw_pointers())
      .function("metrics", &PatchingSweepHandle::metrics)
      .function("gridShape", &PatchingSweepHandle::grid_shape)
      .function("layerCells", &PatchingSweepHandle::layer_cells)
      .function("cells", &PatchingSweepHandle::cells)
      .function("pathPatching", &PatchingSweepHandle::path_patching)
      .function("attribution", &PatchingSweepHandle::attribution);
  class_<LlamaLoaderHandle>("LlamaLoaderHandle")
      .class_function("create", &LlamaLoaderHandle::create, allow_raw_pointers())
      .function("weightFiles", &LlamaLoaderHandle::weight_files)
      .function("beginFile", &LlamaLoaderHandle::begin_file)
      .function("feed", &LlamaLoaderHandle::feed)
      .function("finish", &LlamaLoaderHandle::finish, allow_raw_pointers());
  class_<LlamaHandle>("LlamaHandle")
      .function("config", &LlamaHandle::config)
      .function("forward", &LlamaHandle::forward)
      .function("generate", &LlamaHandle::generate)
      .function("tensorNames", &LlamaHandle::tensor_names)
      .function("tensor", &LlamaHandle::tensor)
      .function("save", &LlamaHandle::save);
  class_<LlamaSessionHandle>("LlamaSessionHandle")
      .class_function("create", &LlamaSessionHandle::create, allow_raw_pointers())
      .function("append", &LlamaSessionHandle::append)
      .function("cache", &LlamaSessionHandle::cache)
      .function("cachedTokens", &LlamaSessionHandle::cached_tokens)
      .function("length", &LlamaSessionHandle::length)
      .function("cacheBytes", &LlamaSessionHandle::cache_bytes)
      .function("reset", &LlamaSessionHandle::reset);
  class_<HFTokenizerHandle>("HFTokenizerHandle")
      .class_function("fromJson", &HFTokenizerHandle::from_json, allow_raw_pointers())
      .function("encode", &HFTokenizerHandle::encode)
      .function("decode", &HFTokenizerHandle::decode)
      .function("token", &HFTokenizerHandle::token)
      .function("describe", &HFTokenizerHandle::describe);
  function("logitLens", &logit_lens_js);
  function("directLogitAttribution", &direct_logit_attribution_js);
  function("headCircuit", &head_circuit_js);
  function("ovCopyingScore", &ov_copying_score_js);
  function("ovCopyingScores", &ov_copying_scores_js);
  function("compositionScores", &composition_scores_js);
  function("cacheAlgebra", &cache_algebra_js);
  function("actName", &act_name_js);
  // The same calls on a Llama (llama_interp.hpp), named llama<Call>.
  class_<LlamaPatchingSweepHandle>("llamaPatchingSweepHandle")
      .class_function("create", &LlamaPatchingSweepHandle::create, allow_raw_pointers())
      .function("metrics", &LlamaPatchingSweepHandle::metrics)
      .function("gridShape", &LlamaPatchingSweepHandle::grid_shape)
      .function("layerCells", &LlamaPatchingSweepHandle::layer_cells)
      .function("cells", &LlamaPatchingSweepHandle::cells)
      .function("pathPatching", &LlamaPatchingSweepHandle::path_patching);
  function("llamaRunWithHooks", &llama_run_with_hooks_js);
  function("llamaHookNames", &llama_hook_names_js);
  function("llamaLogitLens", &llama_logit_lens_js);
  function("llamaDirectLogitAttribution", &llama_direct_logit_attribution_js);
  function("llamaHeadCircuit", &llama_head_circuit_js);
  function("llamaOvCopyingScore", &llama_ov_copying_score_js);
  function("llamaOvCopyingScores", &llama_ov_copying_scores_js);
  function("llamaCompositionScores", &llama_composition_scores_js);
  function("sample", &sample_token);
  function("repeatedRandomTokens", &repeated_tokens);
}
