// The Embind face of the GPT (attnlab/gpt*.hpp), the BPE tokenizer (attnlab/bpe.hpp) and sampling:
// the GPT module, attnlab-gpt-<variant>.wasm, which lab.loadGPT() and friends load on first use
// (web/lib/gpt.js makes these handles friendly). Like the other bindings, a method returns undefined
// (or a null handle) on error and keeps the message for takeLastError().
#pragma once

#include <emscripten/val.h>

#include <memory>

#include "attnlab/text/bpe.hpp"
#include "attnlab/gpt/gpt.hpp"
#include "attnlab/gpt/gpt_session.hpp"
#include "attnlab/gpt/gpt_training.hpp"

namespace attnlab::wasm {

using emscripten::val;

class GPTHandle {
 public:
  // bytes: Uint8Array; override_n_head: num_heads wins over a different n_head in the file's metadata.
  static GPTHandle* from_safetensors(const val& bytes, int num_heads, bool override_n_head);
  static GPTHandle* create(const val& config, double seed);  // { vocabSize, contextLength, dModel, numHeads, numLayers }
  val config() const;            // the same keys, plus parameterCount
  val forward(const val& ids, const val& options) const;  // { attention?, trace?, ablate?: [{layer, head}], ablation? }
  val save(const std::string& dtype) const;           // Uint8Array of a .safetensors file
  val head_scores(const val& text, const val& options) const;
  val token_losses(const val& ids, const val& options) const;
  val generate(const val& ids, const val& options) const;
  val tensor_names() const;
  val tensor(const std::string& name) const;          // { shape, data: Float32Array }
  // Training with AdamW: start() once with { maxLr, minLr, warmupSteps, totalSteps, weightDecay,
  // clipNorm, beta1, beta2 }, then step(ids, targets, batch) → { loss, gradNorm, lr }.
  val start_training(const val& config);
  val train_step(const val& ids, const val& targets, int batch);
  val loss(const val& ids, const val& targets, int batch) const;
  val multiply_adds(int n, bool with_cache) const;
  const GPT& model() const { return *model_; }

 private:
  explicit GPTHandle(std::unique_ptr<GPT> model) : model_(std::move(model)) {}
  std::unique_ptr<GPT> model_;
  std::unique_ptr<GPTTrainer> trainer_;
};

class GPTSessionHandle {
 public:
  static GPTSessionHandle* create(const GPTHandle& model);  // the JS layer keeps the model alive
  val append(int id);                 // { logits: Float32Array [V], attention: Matrix[layer][head] (1×t) }
  val cache(int layer) const;         // { keys: Matrix, values: Matrix }, each length×d
  int length() const { return session_.length(); }
  void reset() { session_.reset(); }

 private:
  explicit GPTSessionHandle(const GPT& model) : session_(model) {}
  GPTSession session_;
};

class TokenizerHandle {
 public:
  static TokenizerHandle* from_gpt2(const std::string& vocab_json, const std::string& merges_text);
  static TokenizerHandle* train(const std::string& corpus, int vocab_size, int min_count);
  val encode(const std::string& text) const;        // Int32Array
  val encode_with_steps(const std::string& text) const;
  val decode(const val& ids) const;                 // Uint8Array: the bytes (the JS layer decodes UTF-8)
  val token_bytes(int id) const;                    // Uint8Array
  val token_text(int id) const;
  int vocab_size() const { return tokenizer_.vocab_size(); }
  int end_of_text() const { return tokenizer_.end_of_text(); }
  std::string vocab_json() const { return tokenizer_.vocab_json(); }
  std::string merges_text() const { return tokenizer_.merges_text(); }

 private:
  explicit TokenizerHandle(BpeTokenizer tokenizer) : tokenizer_(std::move(tokenizer)) {}
  BpeTokenizer tokenizer_;
};

// { token, probabilities: Float32Array } from logits (Float32Array) and { temperature, topK, topP, seed }.
val sample_token(const val& logits, const val& options);

// Int32Array of `length` random ids in [low, high) from the seed, then the same ids again.
val repeated_tokens(int length, int low, int high, double seed);

}  // namespace attnlab::wasm
