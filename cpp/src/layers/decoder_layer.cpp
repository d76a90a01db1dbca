#include "attnlab/layers/decoder_layer.hpp"

#include "attnlab/attention/dropout.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

constexpr std::uint64_t kDecoderFeedForwardStream = 58;
constexpr std::uint64_t kDecoderDropoutStream = 59;
// The cross-attention draws its initial weights from a seed of its own, not the self-attention's.
constexpr std::uint64_t kCrossAttentionSeed = 0x9e3779b97f4a7c15ULL;

MultiHeadAttentionConfig attention_config(const TransformerDecoderLayerConfig& c, std::uint64_t seed) {
  detail::require_positive("TransformerDecoderLayer", "d_ff", c.d_ff);
  detail::require_probability("TransformerDecoderLayer", "dropout", c.dropout);
  detail::require_within_budget("TransformerDecoderLayer", 4, c.d_model, c.d_ff, "linear1 and linear2");
  return {.d_model = c.d_model, .num_heads = c.num_heads, .bias = true, .dropout = c.dropout, .seed = seed};
}

// Dropout after a sub-layer: ∂L/∂(sub-layer output) = ∂L/∂(dropped) ⊙ pattern.
Matrix undrop(const Matrix& d, const Matrix& pattern) { return pattern.size() ? Matrix(d.cwiseProduct(pattern)) : d; }

}  // namespace

TransformerDecoderLayer::TransformerDecoderLayer(const TransformerDecoderLayerConfig& config)
    : config_(config),
      self_attn_(attention_config(config, config.seed)),
      cross_attn_(attention_config(config, config.seed ^ kCrossAttentionSeed)),
      init_rng_(config.seed, kDecoderFeedForwardStream),
      feed_forward_(config.d_model, config.d_ff, config.activation, true, init_rng_),
      norm1_(config.d_model, config.norm_eps),
      norm2_(config.d_model, config.norm_eps),
      norm3_(config.d_model, config.norm_eps),
      dropout_rng_(config.seed, kDecoderDropoutStream) {}

void TransformerDecoderLayer::train(bool on) {
  training_ = on;
  self_attn_.train(on);
  cross_attn_.train(on);
}

Matrix TransformerDecoderLayer::forward(const Matrix& x, const Matrix& memory, const Matrix* memory_mask,
                                        const Tracer& tracer, TransformerDecoderLayerCache* cache) {
  // x [n×d_model], memory [m×d_model] → [n×d_model]
  constexpr const char* fn = "TransformerDecoderLayer::forward";
  const int d = config_.d_model;
  if (x.rows() == 0 || x.cols() != d)
    detail::fail(fn, "x is ", shape_of(x), " but the layer takes n×d_model = n×", d, " (n ≥ 1)");
  if (memory.rows() == 0 || memory.cols() != d)
    detail::fail(fn, "memory is ", shape_of(memory), " but the layer takes m×d_model = m×", d, " (m ≥ 1)");
  if (memory_mask) detail::require_shape(fn, "memory_mask", *memory_mask, x.rows(), memory.rows());
  detail::require_within_budget(fn, 2, static_cast<double>(x.rows()), config_.d_ff, "the feed-forward's hidden activations");
  const float p = training_ ? config_.dropout : 0.0f;
  TransformerDecoderLayerCache scratch;  // filled and dropped when no cache is wanted
  TransformerDecoderLayerCache& c = cache ? *cache : scratch;
  const auto drop = [&](const Matrix& m, Matrix& pattern) { return p > 0.0f ? dropout(m, p, dropout_rng_, pattern) : m; };
  const auto checked_sum = [&](const Matrix& a, const Matrix& b) {
    Matrix sum = a + b;
    detail::require_finite_result(fn, sum, "the residual sum is too large");
    return sum;
  };
  if (tracer.enabled())
    tracer.record("input", "Input", "The target so far: " + shape_of(x) + " (target tokens × d_model).", {{"X", x}});
  c.x = x;

  // 1. Causal self-attention: each target token reads the target tokens before it and itself.
  c.self_input = config_.norm_first ? norm1_.forward(x) : x;
  const Matrix attended = drop(
      self_attn_.forward(c.self_input, {.causal = true}, tracer.child("self_attn"), cache ? &c.self_attention : nullptr).output,
      c.self_dropout);
  c.residual1 = checked_sum(x, attended);
  tracer.record("residual1", "Add (residual)", "x + self-attention.", {{"sum", c.residual1}});
  Matrix h = config_.norm_first ? c.residual1 : norm1_.forward(c.residual1);
  if (!config_.norm_first) tracer.record("norm1", "Norm", "Post-norm after the self-attention.", {{"normed", h}});

  // 2. Cross-attention: queries from the target, keys and values from the encoder's memory.
  c.cross_input = config_.norm_first ? norm2_.forward(h) : h;
  const Matrix crossed = drop(cross_attn_.forward(c.cross_input, memory, memory, {.mask = memory_mask},
                                                  tracer.child("cross_attn"), cache ? &c.cross_attention : nullptr)
                                  .output,
                              c.cross_dropout);
  c.residual2 = checked_sum(h, crossed);
  tracer.record("residual2", "Add (residual)", "h + cross-attention over the source.", {{"sum", c.residual2}});
  h = config_.norm_first ? c.residual2 : norm2_.forward(c.residual2);
  if (!config_.norm_first) tracer.record("norm2", "Norm", "Post-norm after the cross-attention.", {{"normed", h}});

  // 3. Feed-forward network.
  c.ffn_input = config_.norm_first ? norm3_.forward(h) : h;
  Rng* ffn_rng = p > 0.0f ? &dropout_rng_ : nullptr;
  const Matrix fed = drop(cache ? feed_forward_.forward(c.ffn_input, c.feed_forward, tracer.child("ffn"), p, ffn_rng)
                                : feed_forward_.forward(c.ffn_input, tracer.child("ffn"), p, ffn_rng),
                          c.ffn_dropout);
  c.residual3 = checked_sum(h, fed);
  tracer.record("residual3", "Add (residual)", "h + FFN.", {{"sum", c.residual3}});
  Matrix out = config_.norm_first ? c.residual3 : norm3_.forward(c.residual3);
  if (!config_.norm_first) tracer.record("norm3", "Norm", "Post-norm after the feed-forward network.", {{"normed", out}});
  if (tracer.enabled())
    tracer.record("output", "Layer output", "Same shape as the input, " + shape_of(out) + ".", {{"output", out}});
  return out;
}

TransformerDecoderLayerGradients TransformerDecoderLayer::backward(const TransformerDecoderLayerCache& c,
                                                                   const Matrix& d_output) {
  // d_output [n×d_model] → ∂L/∂x [n×d_model], ∂L/∂memory [m×d_model]
  constexpr const char* fn = "TransformerDecoderLayer::backward";
  if (c.x.rows() == 0 || c.residual3.rows() != c.x.rows() || c.cross_attention.key.rows() == 0)
    detail::fail(fn, "the cache was not filled by this layer's forward(…, cache)");
  detail::require_shape(fn, "d_output", d_output, c.x.rows(), config_.d_model);
  TransformerDecoderLayerGradients g;
  if (config_.norm_first) {
    // out = r2 + drop(ffn(norm3(r2))),  r2 = r1 + drop(cross(norm2(r1), memory)),  r1 = x + drop(self(norm1(x)))
    Matrix d_r2 = d_output;
    d_r2 += norm3_.backward(c.residual2, feed_forward_.backward(c.feed_forward, undrop(d_output, c.ffn_dropout)));
    MultiHeadAttentionInputGradients cross = cross_attn_.backward(c.cross_attention, undrop(d_r2, c.cross_dropout));
    Matrix d_r1 = d_r2;
    d_r1 += norm2_.backward(c.residual1, cross.d_query);
    g.d_memory = cross.d_key + cross.d_value;
    g.d_x = d_r1;
    g.d_x += norm1_.backward(c.x, self_attn_.backward(c.self_attention, undrop(d_r1, c.self_dropout)).d_query);
    return g;
  }
  // out = norm3(r3), r3 = h2 + drop(ffn(h2)), h2 = norm2(r2), r2 = h1 + drop(cross(h1, memory)),
  // h1 = norm1(r1), r1 = x + drop(self(x))
  const Matrix d_r3 = norm3_.backward(c.residual3, d_output);
  Matrix d_h2 = d_r3;
  d_h2 += feed_forward_.backward(c.feed_forward, undrop(d_r3, c.ffn_dropout));
  const Matrix d_r2 = norm2_.backward(c.residual2, d_h2);
  MultiHeadAttentionInputGradients cross = cross_attn_.backward(c.cross_attention, undrop(d_r2, c.cross_dropout));
  Matrix d_h1 = d_r2;
  d_h1 += cross.d_query;
  g.d_memory = cross.d_key + cross.d_value;
  const Matrix d_r1 = norm1_.backward(c.residual1, d_h1);
  g.d_x = d_r1;
  g.d_x += self_attn_.backward(c.self_attention, undrop(d_r1, c.self_dropout)).d_query;
  return g;
}

void TransformerDecoderLayer::zero_grad() {
  self_attn_.zero_grad();
  cross_attn_.zero_grad();
  feed_forward_.zero_grad();
  for (LayerNorm* norm : {&norm1_, &norm2_, &norm3_}) norm->zero_grad();
}

std::vector<ParameterRef> TransformerDecoderLayer::parameters(std::string_view prefix) {
  std::vector<ParameterRef> all = self_attn_.parameters(parameter_name(prefix, "self_attn"));
  append_parameters(all, cross_attn_.parameters(parameter_name(prefix, "multihead_attn")));
  append_parameters(all, feed_forward_.parameters(prefix));
  append_parameters(all, norm1_.parameters(parameter_name(prefix, "norm1")));
  append_parameters(all, norm2_.parameters(parameter_name(prefix, "norm2")));
  append_parameters(all, norm3_.parameters(parameter_name(prefix, "norm3")));
  return all;
}

void TransformerDecoderLayer::load(const TransformerDecoderLayerWeights& w) {
  // Load into copies so that a bad argument leaves the layer unchanged; copied in (not moved) so
  // ParameterRefs taken before the load stay valid.
  MultiHeadAttention self_attn = self_attn_, cross_attn = cross_attn_;
  FeedForward ffn = feed_forward_;
  LayerNorm norm1 = norm1_, norm2 = norm2_, norm3 = norm3_;
  self_attn.load(w.self_attn);
  cross_attn.load(w.multihead_attn);
  ffn.linear1().load(w.linear1, "TransformerDecoderLayer::load (linear1)");
  ffn.linear2().load(w.linear2, "TransformerDecoderLayer::load (linear2)");
  norm1.load(w.norm1_weight, w.norm1_bias);
  norm2.load(w.norm2_weight, w.norm2_bias);
  norm3.load(w.norm3_weight, w.norm3_bias);
  self_attn_ = self_attn;
  cross_attn_ = cross_attn;
  feed_forward_ = ffn;
  norm1_ = norm1;
  norm2_ = norm2;
  norm3_ = norm3;
}

TransformerDecoderLayerWeights TransformerDecoderLayer::weights() const {
  return {self_attn_.weights(), cross_attn_.weights(), feed_forward_.linear1().weights(), feed_forward_.linear2().weights(),
          norm1_.weight(), norm1_.bias(), norm2_.weight(), norm2_.bias(), norm3_.weight(), norm3_.bias()};
}

std::int64_t TransformerDecoderLayer::parameter_count() const {
  return self_attn_.parameter_count() + cross_attn_.parameter_count() + feed_forward_.parameter_count() +
         norm1_.parameter_count() + norm2_.parameter_count() + norm3_.parameter_count();
}

}  // namespace attnlab
