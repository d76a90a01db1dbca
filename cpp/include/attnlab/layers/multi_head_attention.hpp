// Multi-head attention as in nn.MultiheadAttention: project X to Q, K, V (d_model → d_model), split
// into num_heads heads of d_k = d_model/num_heads columns, attend in each head, concatenate, project.
// Weights load in PyTorch's fused layout (in_proj_weight [3·d_model×d_model], in_proj_bias,
// out_proj.weight, out_proj.bias) or as four separate Linear layers.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

#include "attnlab/attention/attention.hpp"
#include "attnlab/layers/linear.hpp"
#include "attnlab/tensor/parameter.hpp"
#include "attnlab/tensor/matrix.hpp"
#include "attnlab/tensor/rng.hpp"
#include "attnlab/tensor/trace.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// How positions enter the scores (sinusoidal and learned encodings are added to X instead).
enum class PositionalScheme { none, rotary, alibi };

struct MultiHeadAttentionConfig {
  int d_model = 0;
  int num_heads = 1;  // must divide d_model
  bool bias = true;   // biases on all four projections
  float dropout = 0.0f;  // on the attention weights, in training mode only
  PositionalScheme positions = PositionalScheme::none;  // rotary needs an even d_k
  std::uint64_t seed = 0;  // initial weights (nn.Linear-style uniform) and the dropout stream
};

// nn.MultiheadAttention's state_dict, names as in PyTorch.
struct MultiHeadAttentionWeights {
  Matrix in_proj_weight;   // [3·d_model×d_model]: rows of W_q, then W_k, then W_v
  Vector in_proj_bias;     // [3·d_model], or empty without bias
  Matrix out_proj_weight;  // [d_model×d_model]
  Vector out_proj_bias;    // [d_model], or empty without bias
};

// The forward pass's options: masking, and whether the attention weights are wanted.
struct MaskOptions {
  const Matrix* mask = nullptr;  // [n_q×n_k], 1 = may attend, 0 = blocked; shared by all heads
  bool causal = false;           // causal_mask(n_q, n_k), combined with `mask` if both are given
  // false: each head runs attention_output (online softmax, O(n·d) memory) and the result has no
  // head_weights / average_weights. Ignored while dropout is active (training needs the weights).
  bool need_weights = true;
};

struct MultiHeadAttentionOutput {
  Matrix output;                     // [n_q×d_model]
  std::vector<Matrix> head_weights;  // num_heads × [n_q×n_k] (empty when need_weights is false)
  Matrix average_weights;            // [n_q×n_k], mean over heads, PyTorch's default return (or empty)
};

// What MultiHeadAttention::backward needs from a forward pass (filled by forward(…, cache)).
struct MultiHeadAttentionCache {
  Matrix query, key, value;            // the inputs ([n_q×d_model], [n_k×d_model] ×2)
  bool self = false;                   // query, key and value were one matrix X
  Matrix mask;                         // a copy of masking.mask (empty when none)
  bool causal = false;
  int rotary_offset = 0;               // RoPE position of the first query
  std::vector<Matrix> q_heads, k_heads, v_heads;  // per head, as attended (after RoPE)
  std::vector<AttentionResult> heads;  // per head: scores … weights (before and after dropout), output
  Matrix concat;                       // [n_q×d_model], the heads' outputs side by side
};

// ∂L/∂query, ∂L/∂key, ∂L/∂value. For self-attention d_query is ∂L/∂X (the three paths summed) and
// d_key, d_value are empty.
struct MultiHeadAttentionInputGradients {
  Matrix d_query, d_key, d_value;
};

// [n×d_model] → num_heads × [n×d_k]; head h takes columns h·d_k … (h+1)·d_k − 1.
std::vector<Matrix> split_heads(const Matrix& x, int num_heads);
// num_heads × [n×d_k] → [n×(num_heads·d_k)]: the inverse of split_heads.
Matrix combine_heads(const std::vector<Matrix>& heads);

class MultiHeadAttention {
 public:
  explicit MultiHeadAttention(const MultiHeadAttentionConfig& config);

  // Self-attention: query = key = value = x [n×d_model].
  MultiHeadAttentionOutput forward(const Matrix& x, const MaskOptions& masking = {},
                                   const Tracer& tracer = {}, MultiHeadAttentionCache* cache = nullptr);
  // query [n_q×d_model], key and value [n_k×d_model] → output [n_q×d_model]. With a cache, every head
  // runs the full softmax (not the online one) and keeps what backward needs; the result is the same.
  MultiHeadAttentionOutput forward(const Matrix& query, const Matrix& key, const Matrix& value,
                                   const MaskOptions& masking = {}, const Tracer& tracer = {},
                                   MultiHeadAttentionCache* cache = nullptr);

  // d_output = ∂L/∂output [n_q×d_model] of the forward pass that filled `cache` → the inputs'
  // gradients; adds the projections' gradients to theirs (accumulated until zero_grad, as in PyTorch).
  MultiHeadAttentionInputGradients backward(const MultiHeadAttentionCache& cache, const Matrix& d_output);
  void zero_grad();
  // "<prefix>.q_proj.weight", "<prefix>.q_proj.bias", … k_proj, v_proj, out_proj.
  std::vector<ParameterRef> parameters(std::string_view prefix = "");

  void load(const MultiHeadAttentionWeights& weights);  // PyTorch's fused layout
  void load_separate(const LinearWeights& q, const LinearWeights& k, const LinearWeights& v,
                     const LinearWeights& out);
  MultiHeadAttentionWeights weights() const;  // in PyTorch's fused layout

  void train(bool on = true) { training_ = on; }
  bool training() const { return training_; }

  const MultiHeadAttentionConfig& config() const { return config_; }
  int d_model() const { return config_.d_model; }
  int num_heads() const { return config_.num_heads; }
  int d_k() const { return config_.d_model / config_.num_heads; }
  const Linear& q_proj() const { return q_proj_; }
  const Linear& k_proj() const { return k_proj_; }
  const Linear& v_proj() const { return v_proj_; }
  const Linear& out_proj() const { return out_proj_; }
  std::int64_t parameter_count() const;

 private:
  MultiHeadAttentionConfig config_;
  Rng init_rng_;  // consumed by the four projections' initialisation, in order q, k, v, out
  Linear q_proj_, k_proj_, v_proj_, out_proj_;
  Rng dropout_rng_;
  bool training_ = false;
};

}  // namespace attnlab
ATTNLAB_API_END
