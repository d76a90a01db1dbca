#include "attnlab/layers/attention_layer.hpp"

namespace attnlab {

AttentionLayer::AttentionLayer(int d_model, bool bias, std::uint64_t seed)
    : attention_({.d_model = d_model, .num_heads = 1, .bias = bias, .seed = seed}) {}

AttentionLayerOutput AttentionLayer::forward(const Matrix& x, const MaskOptions& masking, const Tracer& tracer) {
  MultiHeadAttentionOutput r = attention_.forward(x, masking, tracer);
  return {std::move(r.output), std::move(r.head_weights.front())};
}

AttentionLayerOutput AttentionLayer::forward(const Matrix& query, const Matrix& key, const Matrix& value,
                                             const MaskOptions& masking, const Tracer& tracer) {
  MultiHeadAttentionOutput r = attention_.forward(query, key, value, masking, tracer);
  return {std::move(r.output), std::move(r.head_weights.front())};
}

}  // namespace attnlab
