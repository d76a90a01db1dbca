// The Embind face of the Llama family (attnlab/llama/*.hpp) and of tokenizer.json (attnlab/text/
// hf_tokenizer.hpp), in the GPT module beside the GPT (web/lib/llama.js makes these handles friendly).
// Like the other bindings, a method returns undefined (or a null handle) on error and keeps the message.
#pragma once

#include <emscripten/val.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/llama/llama.hpp"
#include "attnlab/llama/llama_loader.hpp"
#include "attnlab/llama/llama_session.hpp"
#include "attnlab/text/hf_tokenizer.hpp"

namespace attnlab::wasm {

using emscripten::val;

class LlamaHandle;

// A checkpoint streamed into the heap a piece at a time (attnlab/llama/llama_loader.hpp): the heap
// holds the weights and one piece, never a file. The JS layer feeds each of weightFiles() in order.
class LlamaLoaderHandle {
 public:
  // config.json's text, and model.safetensors.index.json's ("" when the weights are model.safetensors).
  static LlamaLoaderHandle* create(const std::string& config_json, const std::string& index_json);
  val weight_files() const;                                 // string[]
  val begin_file(const std::string& name, double size);     // true (undefined on error)
  val feed(const val& piece);                               // Uint8Array → true (undefined on error)
  LlamaHandle* finish();                                    // the model (null on error); the loader is spent

 private:
  LlamaLoaderHandle(std::string_view config_json, std::string_view index_json) : loader_(config_json, index_json) {}
  LlamaLoader loader_;
  std::vector<std::uint8_t> piece_;  // reused: one piece in the heap at a time
};

class LlamaHandle {
 public:
  val config() const;  // { modelType, vocabSize, hiddenSize, …, parameterCount, kvCacheBytesPerToken }
  // { attention?, ablate?, ablation?, logits?, firstPosition? } → { logits, attention? }
  val forward(const val& ids, const val& options) const;
  val generate(const val& ids, const val& options) const;  // the sampling options, maxTokens, seed, sinks, window
  val tensor_names() const;
  val tensor(const std::string& name) const;  // { shape, data: Float32Array }
  val save(const std::string& dtype) const;   // Uint8Array of model.safetensors
  const Llama& model() const { return *model_; }

 private:
  friend class LlamaLoaderHandle;
  explicit LlamaHandle(std::unique_ptr<Llama> model) : model_(std::move(model)) {}
  std::unique_ptr<Llama> model_;
};

class LlamaSessionHandle {
 public:
  static LlamaSessionHandle* create(const LlamaHandle& model, int sinks, int window);  // the JS layer keeps the model alive
  val append(const val& ids);  // Int32Array → { logits: Matrix n×V, attention: Matrix[layer][head] (1×cached) }
  val cache(int layer) const;  // { keys, values }: Matrix cached × Hkv·hd
  val cached_tokens() const;   // Int32Array: the cached tokens' positions in the text
  int length() const { return session_.length(); }
  double cache_bytes() const { return static_cast<double>(session_.cache_bytes()); }
  void reset() { session_.reset(); }

 private:
  LlamaSessionHandle(const Llama& model, LlamaCachePolicy policy) : session_(model, policy) {}
  LlamaSession session_;
};

class HFTokenizerHandle {
 public:
  static HFTokenizerHandle* from_json(const std::string& tokenizer_json);
  val encode(const std::string& text, bool add_special_tokens) const;  // Int32Array
  val decode(const val& ids, bool skip_special_tokens) const;          // Uint8Array (the JS layer decodes UTF-8)
  val token(int id) const;
  val describe() const;  // { vocabSize, normalizer, preTokenizer, addedTokens: [{ id, content, special }] }

 private:
  explicit HFTokenizerHandle(HFTokenizer tokenizer) : tokenizer_(std::move(tokenizer)) {}
  HFTokenizer tokenizer_;
};

}  // namespace attnlab::wasm
