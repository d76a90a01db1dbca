// A single attention layer with learned Q/K/V/O projections (the tutorials' first nn.Module): the
// one-head case of MultiHeadAttention, so both share one implementation and one set of tests.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>

#include "attnlab/layers/multi_head_attention.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct AttentionLayerOutput {
  Matrix output;   // [n_q×d_model]
  Matrix weights;  // [n_q×n_k]
};

class AttentionLayer {
 public:
  explicit AttentionLayer(int d_model, bool bias = true, std::uint64_t seed = 0);

  // Self-attention: x [n×d_model] → output [n×d_model], weights [n×n].
  AttentionLayerOutput forward(const Matrix& x, const MaskOptions& masking = {}, const Tracer& tracer = {});
  // Cross-attention: query [n_q×d_model], key/value [n_k×d_model].
  AttentionLayerOutput forward(const Matrix& query, const Matrix& key, const Matrix& value,
                               const MaskOptions& masking = {}, const Tracer& tracer = {});

  MultiHeadAttention& attention() { return attention_; }
  const MultiHeadAttention& attention() const { return attention_; }
  std::int64_t parameter_count() const { return attention_.parameter_count(); }

 private:
  MultiHeadAttention attention_;
};

}  // namespace attnlab
ATTNLAB_API_END
