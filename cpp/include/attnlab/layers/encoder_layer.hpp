// One Transformer encoder layer, as nn.TransformerEncoderLayer (batch_first, one sequence):
//   post-norm (PyTorch's default, the tutorials' layout):
//     x = norm1(x + attn(x));  x = norm2(x + ffn(x))
//   pre-norm (norm_first):
//     x = x + attn(norm1(x));  x = x + ffn(norm2(x))
// with dropout after attention, inside the FFN and after the FFN in training mode only.
// d_ff = 0 makes an attention-only layer (the toy models of induction-head studies): no feed-forward
// sub-layer and no norm2, so x = x + attn(norm1(x)) (pre-norm) or x = norm1(x + attn(x)) (post-norm).
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <optional>
#include <variant>

#include "attnlab/layers/feed_forward.hpp"
#include "attnlab/layers/multi_head_attention.hpp"
#include "attnlab/layers/norm.hpp"
#include "attnlab/tensor/rng.hpp"
#include "attnlab/tensor/trace.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

enum class NormKind { layer_norm, rms_norm };

struct TransformerEncoderLayerConfig {
  int d_model = 0;
  int num_heads = 1;
  int d_ff = 2048;  // 0: attention only (no feed-forward sub-layer, no norm2)
  float dropout = 0.1f;  // PyTorch's default; used in training mode only
  Activation activation = Activation::gelu;
  bool norm_first = false;
  NormKind norm = NormKind::layer_norm;
  float norm_eps = 1e-5f;
  bool bias = true;  // in the attention and FFN projections
  PositionalScheme positions = PositionalScheme::none;
  std::uint64_t seed = 0;
};

// nn.TransformerEncoderLayer's state_dict, names as in PyTorch (dots → struct members).
struct TransformerEncoderLayerWeights {
  MultiHeadAttentionWeights self_attn;
  LinearWeights linear1;  // [d_ff×d_model], [d_ff] (empty when d_ff = 0)
  LinearWeights linear2;  // [d_model×d_ff], [d_model] (empty when d_ff = 0)
  Vector norm1_weight, norm1_bias;  // [d_model]; the biases are empty for RMSNorm
  Vector norm2_weight, norm2_bias;  // empty when d_ff = 0
};

// What TransformerEncoderLayer::backward needs from a forward pass (filled by forward(…, cache)).
struct TransformerEncoderLayerCache {
  Matrix x;                            // [n×d_model] the input
  Matrix attention_input;              // what the attention read: norm1(x) (pre-norm) or x (post-norm)
  MultiHeadAttentionCache attention;
  Matrix attention_dropout;            // dropout's pattern after attention (empty without dropout)
  Matrix residual1;                    // x + attention (post-norm: norm1's input)
  Matrix ffn_input;                    // norm2(residual1) (pre-norm) or norm1(residual1) (post-norm); empty when d_ff = 0
  FeedForwardCache feed_forward;
  Matrix ffn_dropout;                  // dropout's pattern after the FFN (empty without dropout)
  Matrix residual2;                    // post-norm: norm2's input
};

class TransformerEncoderLayer {
 public:
  explicit TransformerEncoderLayer(const TransformerEncoderLayerConfig& config);

  // x [n×d_model] → [n×d_model]. Traced: input, attn.* (the attention's own steps), residual1,
  // norm1, ffn.*, residual2, norm2, output — in the order they are computed for the chosen layout.
  Matrix forward(const Matrix& x, const MaskOptions& masking = {}, const Tracer& tracer = {},
                 TransformerEncoderLayerCache* cache = nullptr);
  // d_output = ∂L/∂forward(x) [n×d_model] of the pass that filled `cache` → ∂L/∂x [n×d_model]; adds
  // every parameter's gradient to the layer's (accumulated until zero_grad, as in PyTorch).
  Matrix backward(const TransformerEncoderLayerCache& cache, const Matrix& d_output);
  void zero_grad();
  // PyTorch's names: "<prefix>.self_attn.q_proj.weight" …, "linear1.weight", "norm1.weight", …
  std::vector<ParameterRef> parameters(std::string_view prefix = "");

  void load(const TransformerEncoderLayerWeights& weights);
  TransformerEncoderLayerWeights weights() const;  // what load() takes (RMSNorm's biases empty)
  void train(bool on = true);
  bool training() const { return training_; }

  const TransformerEncoderLayerConfig& config() const { return config_; }
  MultiHeadAttention& self_attn() { return self_attn_; }
  const MultiHeadAttention& self_attn() const { return self_attn_; }
  bool attention_only() const { return !feed_forward_.has_value(); }  // d_ff = 0
  const FeedForward& feed_forward() const;  // Error when the layer is attention-only
  std::int64_t norm_parameter_count() const;  // both norms together
  std::int64_t parameter_count() const;

 private:
  using Norm = std::variant<LayerNorm, RMSNorm>;
  static Norm make_norm(const TransformerEncoderLayerConfig& config);
  static Matrix apply(const Norm& norm, const Matrix& x);
  static Matrix backward_norm(Norm& norm, const Matrix& x, const Matrix& d_y);
  static void load_norm(Norm& norm, const Vector& weight, const Vector& bias, std::string_view name);

  TransformerEncoderLayerConfig config_;
  MultiHeadAttention self_attn_;
  Rng init_rng_;
  std::optional<FeedForward> feed_forward_;  // absent when d_ff = 0
  Norm norm1_, norm2_;
  Rng dropout_rng_;
  bool training_ = false;
};

}  // namespace attnlab
ATTNLAB_API_END
