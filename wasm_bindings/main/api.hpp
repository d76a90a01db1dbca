// What the Embind layer exposes: thin wrappers that convert JS values, call the core, convert back.
// No math here. Each returns undefined (or a null handle) on error, with the message kept for
// takeLastError(); see convert.hpp for why errors do not unwind through wasm as JS exceptions.
#pragma once

#include <emscripten/val.h>

#include <string>

#include "attnlab/layers/encoder_layer.hpp"
#include "attnlab/layers/multi_head_attention.hpp"

namespace attnlab::wasm {

using emscripten::val;

val softmax(const val& logits);
// options: { mask?: Matrix, causal?: boolean, scale?: number }
val scaled_dot_product_attention(const val& q, const val& k, const val& v, const val& options);
// The same, returning the trace's steps (scores … output, with the softmax's exp and row sums).
val trace_attention(const val& q, const val& k, const val& v, const val& options);
// attention_output's key-block loop with every block's state kept: { blocks: [{ keyStart, keyCount,
// scores, max, sum, rescale, accumulator }], output } (flash_attention_trace).
val flash_attention_trace(const val& q, const val& k, const val& v, int block_size, const val& options);
// tokens (string[]) → [n×d_model], each word's row seeded by the word itself (hashed_embedding),
// plus the sinusoidal encoding of its position when asked.
val embed_tokens(const val& tokens, int d_model, double seed, bool sinusoidal_positions);
val causal_mask(int rows, int cols);
val key_padding_mask(int n_q, int n_k, int valid_length);
val combine_masks(const val& a, const val& b);
// kind: "sinusoidal" or "learned" (a seeded N(0, 1) table, as nn.Embedding initialises it)
val positional_encoding(int seq_len, int d_model, const std::string& kind, double seed);
val randn(int rows, int cols, double seed);
val apply_rotary(const val& x, int position_offset);
val alibi_slopes(int num_heads);
val alibi_bias(int n_q, int n_k, float slope);
val tokenize(const std::string& text);

class MultiHeadAttentionHandle {
 public:
  // config: { dModel, numHeads, bias, dropout, positions: "none"|"rotary"|"alibi", seed }
  static MultiHeadAttentionHandle* create(const val& config);  // nullptr on error
  double parameter_count() const;
  val load_weights(const val& weights);  // { inProjWeight, inProjBias?, outProjWeight, outProjBias? }
  val weights() const;
  val forward(const val& query, const val& key, const val& value, const val& options);
  val trace(const val& query, const val& key, const val& value, const val& options);
  void set_training(bool on) { attention_.train(on); }
  const MultiHeadAttention& layer() const { return attention_; }

 private:
  explicit MultiHeadAttentionHandle(const MultiHeadAttentionConfig& config) : attention_(config) {}
  MultiHeadAttentionOutput run(const val& query, const val& key, const val& value, const val& options,
                               const Tracer& tracer);
  MultiHeadAttention attention_;
};

class TransformerEncoderLayerHandle {
 public:
  // config: { dModel, numHeads, dFF, dropout, activation, normFirst, norm, normEps, bias, positions, seed }
  static TransformerEncoderLayerHandle* create(const val& config);  // nullptr on error
  double parameter_count() const;
  val parameter_counts() const;  // { selfAttn, feedForward, norms, total }
  val load_weights(const val& weights);  // nn.TransformerEncoderLayer's names, see index.d.ts
  val forward(const val& x, const val& options);
  val trace(const val& x, const val& options);
  void set_training(bool on) { layer_.train(on); }
  TransformerEncoderLayer& layer() { return layer_; }

 private:
  explicit TransformerEncoderLayerHandle(const TransformerEncoderLayerConfig& config) : layer_(config) {}
  TransformerEncoderLayer layer_;
};

}  // namespace attnlab::wasm
