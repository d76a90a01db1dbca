// One Transformer decoder layer, as nn.TransformerDecoderLayer (batch_first, one sequence): causal
// self-attention over the target so far, cross-attention from the target to the encoder's memory,
// then the feed-forward network, each with a residual connection and a LayerNorm.
//   post-norm (PyTorch's default):
//     x = norm1(x + self_attn(x));  x = norm2(x + cross_attn(x, memory));  x = norm3(x + ffn(x))
//   pre-norm (norm_first):
//     x = x + self_attn(norm1(x));  x = x + cross_attn(norm2(x), memory);  x = x + ffn(norm3(x))
// PyTorch calls the cross-attention `multihead_attn`; the parameters keep that name. Dropout after
// each sub-layer and inside the FFN, in training mode only, as in the encoder layer.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

#include "attnlab/layers/feed_forward.hpp"
#include "attnlab/layers/multi_head_attention.hpp"
#include "attnlab/layers/norm.hpp"
#include "attnlab/tensor/rng.hpp"
#include "attnlab/tensor/trace.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct TransformerDecoderLayerConfig {
  int d_model = 0;
  int num_heads = 1;
  int d_ff = 2048;
  float dropout = 0.1f;  // PyTorch's default; used in training mode only
  Activation activation = Activation::relu;  // nn.TransformerDecoderLayer's default
  bool norm_first = false;
  float norm_eps = 1e-5f;
  std::uint64_t seed = 0;
};

// nn.TransformerDecoderLayer's state_dict, names as in PyTorch.
struct TransformerDecoderLayerWeights {
  MultiHeadAttentionWeights self_attn;
  MultiHeadAttentionWeights multihead_attn;  // the cross-attention
  LinearWeights linear1;  // [d_ff×d_model], [d_ff]
  LinearWeights linear2;  // [d_model×d_ff], [d_model]
  Vector norm1_weight, norm1_bias, norm2_weight, norm2_bias, norm3_weight, norm3_bias;  // [d_model]
};

// What TransformerDecoderLayer::backward needs from a forward pass (filled by forward(…, cache)).
struct TransformerDecoderLayerCache {
  Matrix x;                 // [n×d_model] the input
  Matrix self_input;        // what the self-attention read: norm1(x) (pre-norm) or x (post-norm)
  MultiHeadAttentionCache self_attention;
  Matrix self_dropout;      // dropout's pattern after the self-attention (empty without dropout)
  Matrix residual1;         // x + self-attention
  Matrix cross_input;       // what the cross-attention's queries read
  MultiHeadAttentionCache cross_attention;
  Matrix cross_dropout;
  Matrix residual2;         // h + cross-attention
  Matrix ffn_input;
  FeedForwardCache feed_forward;
  Matrix ffn_dropout;
  Matrix residual3;         // h + ffn (post-norm: norm3's input)
};

struct TransformerDecoderLayerGradients {
  Matrix d_x;       // [n×d_model]
  Matrix d_memory;  // [m×d_model]: the cross-attention's keys and values both read the memory
};

class TransformerDecoderLayer {
 public:
  explicit TransformerDecoderLayer(const TransformerDecoderLayerConfig& config);

  // x [n×d_model] (the target so far), memory [m×d_model] (the encoder's output) → [n×d_model].
  // The self-attention is causal; `memory_mask` ([n×m], 1 = may attend) is optional. Traced: input,
  // self_attn.*, residual1, norm1, cross_attn.*, residual2, norm2, ffn.*, residual3, norm3, output.
  Matrix forward(const Matrix& x, const Matrix& memory, const Matrix* memory_mask = nullptr, const Tracer& tracer = {},
                 TransformerDecoderLayerCache* cache = nullptr);
  // d_output = ∂L/∂forward(x, memory) [n×d_model] of the pass that filled `cache` → ∂L/∂x and
  // ∂L/∂memory; adds every parameter's gradient to the layer's (accumulated until zero_grad).
  TransformerDecoderLayerGradients backward(const TransformerDecoderLayerCache& cache, const Matrix& d_output);
  void zero_grad();
  // PyTorch's structure: "<prefix>.self_attn.q_proj.weight" …, "multihead_attn.…", "linear1.weight",
  // "norm1.weight", … (the attentions' projections separate; weights() gives the fused layout).
  std::vector<ParameterRef> parameters(std::string_view prefix = "");

  void load(const TransformerDecoderLayerWeights& weights);
  TransformerDecoderLayerWeights weights() const;
  void train(bool on = true);
  bool training() const { return training_; }

  const TransformerDecoderLayerConfig& config() const { return config_; }
  const MultiHeadAttention& self_attn() const { return self_attn_; }
  const MultiHeadAttention& cross_attn() const { return cross_attn_; }
  const FeedForward& feed_forward() const { return feed_forward_; }
  const LayerNorm& norm1() const { return norm1_; }
  const LayerNorm& norm2() const { return norm2_; }
  const LayerNorm& norm3() const { return norm3_; }
  std::int64_t parameter_count() const;

 private:
  TransformerDecoderLayerConfig config_;
  MultiHeadAttention self_attn_, cross_attn_;
  Rng init_rng_;
  FeedForward feed_forward_;
  LayerNorm norm1_, norm2_, norm3_;
  Rng dropout_rng_;
  bool training_ = false;
};

}  // namespace attnlab
ATTNLAB_API_END
