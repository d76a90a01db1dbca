#include "attnlab/layers/encoder_layer.hpp"

#include "attnlab/attention/dropout.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

constexpr std::uint64_t kEncoderFeedForwardStream = 56;
constexpr std::uint64_t kEncoderDropoutStream = 57;

MultiHeadAttentionConfig attention_config(const TransformerEncoderLayerConfig& c) {
  if (c.d_ff < 0) detail::fail("TransformerEncoderLayer", "d_ff must be ≥ 0 (0 = attention only), got ", c.d_ff);
  detail::require_probability("TransformerEncoderLayer", "dropout", c.dropout);
  detail::require_within_budget("TransformerEncoderLayer", 4, c.d_model, c.d_ff, "linear1 and linear2");
  return {.d_model = c.d_model, .num_heads = c.num_heads, .bias = c.bias, .dropout = c.dropout,
          .positions = c.positions, .seed = c.seed};
}

std::optional<FeedForward> make_feed_forward(const TransformerEncoderLayerConfig& c, Rng& rng) {
  if (c.d_ff == 0) return std::nullopt;  // attention only
  return FeedForward(c.d_model, c.d_ff, c.activation, c.bias, rng);
}

}  // namespace

TransformerEncoderLayer::Norm TransformerEncoderLayer::make_norm(const TransformerEncoderLayerConfig& c) {
  if (c.norm == NormKind::rms_norm) return RMSNorm(c.d_model, c.norm_eps);
  return LayerNorm(c.d_model, c.norm_eps);
}

Matrix TransformerEncoderLayer::apply(const Norm& norm, const Matrix& x) {
  return std::visit([&](const auto& n) { return n.forward(x); }, norm);
}

void TransformerEncoderLayer::load_norm(Norm& norm, const Vector& weight, const Vector& bias,
                                        std::string_view name) {
  const std::string fn = "TransformerEncoderLayer::load (" + std::string(name) + ")";
  if (auto* layer_norm = std::get_if<LayerNorm>(&norm)) {
    layer_norm->load(weight, bias);
    return;
  }
  if (bias.size() != 0) detail::fail(fn, "bias has ", bias.size(), " entries but RMSNorm has no bias");
  std::get<RMSNorm>(norm).load(weight);
}

TransformerEncoderLayer::TransformerEncoderLayer(const TransformerEncoderLayerConfig& config)
    : config_(config),
      self_attn_(attention_config(config)),
      init_rng_(config.seed, kEncoderFeedForwardStream),
      feed_forward_(make_feed_forward(config, init_rng_)),
      norm1_(make_norm(config)),
      norm2_(make_norm(config)),
      dropout_rng_(config.seed, kEncoderDropoutStream) {}

void TransformerEncoderLayer::train(bool on) {
  training_ = on;
  self_attn_.train(on);
}

Matrix TransformerEncoderLayer::forward(const Matrix& x, const MaskOptions& masking, const Tracer& tracer,
                                       TransformerEncoderLayerCache* cache) {
  // x [n×d_model] → [n×d_model]
  constexpr const char* fn = "TransformerEncoderLayer::forward";
  if (x.rows() == 0 || x.cols() != config_.d_model)
    detail::fail(fn, "x is ", shape_of(x), " but the layer takes n×d_model = n×", config_.d_model, " (n ≥ 1)");
  detail::require_within_budget(fn, 2, static_cast<double>(x.rows()), config_.d_ff, "the feed-forward's hidden activations");
  const float p = training_ ? config_.dropout : 0.0f;
  TransformerEncoderLayerCache scratch;  // filled and dropped when no cache is wanted
  TransformerEncoderLayerCache& c = cache ? *cache : scratch;
  MultiHeadAttentionCache* attention_cache = cache ? &cache->attention : nullptr;
  FeedForwardCache ffn_scratch;
  const auto drop = [&](const Matrix& m, Matrix& pattern) { return p > 0.0f ? dropout(m, p, dropout_rng_, pattern) : m; };
  if (tracer.enabled())
    tracer.record("input", "Input X", "The layer's input: " + shape_of(x) + " (tokens × d_model).", {{"X", x}});
  if (cache) c.x = x;

  Matrix h;
  // 1. Attention sub-layer with its residual connection.
  if (config_.norm_first) {
    c.attention_input = apply(norm1_, x);
    tracer.record("norm1", "Norm before attention", "Pre-norm: each token is normalised before attention.",
                  {{"normed", c.attention_input}});
    const Matrix attended =
        drop(self_attn_.forward(c.attention_input, masking, tracer.child("attn"), attention_cache).output, c.attention_dropout);
    h = x + attended;
    detail::require_finite_result(fn, h, "the residual sum is too large");
    if (cache) c.residual1 = h;
    tracer.record("residual1", "Add (residual)", "x + attention(norm1(x)): the input is carried around the sub-layer.",
                  {{"attention", attended}, {"sum", h}});
  } else {
    const Matrix attended = drop(self_attn_.forward(x, masking, tracer.child("attn"), attention_cache).output, c.attention_dropout);
    h = x + attended;
    detail::require_finite_result(fn, h, "the residual sum is too large");
    tracer.record("residual1", "Add (residual)", "x + attention(x): the input is carried around the sub-layer.",
                  {{"attention", attended}, {"sum", h}});
    if (cache) c.residual1 = h;
    h = apply(norm1_, h);
    tracer.record("norm1", "Norm", "Post-norm: each token of the sum is normalised.", {{"normed", h}});
  }

  // 2. Feed-forward sub-layer with its residual connection (none in an attention-only layer).
  if (attention_only()) {
    if (tracer.enabled())
      tracer.record("output", "Layer output", "Same shape as the input, " + shape_of(h) + ": layers can be stacked.",
                    {{"output", h}});
    return h;
  }
  const FeedForward& feed_forward = *feed_forward_;
  const Tracer ffn_tracer = tracer.child("ffn");
  Rng* ffn_rng = p > 0.0f ? &dropout_rng_ : nullptr;
  FeedForwardCache& ffn_cache = cache ? cache->feed_forward : ffn_scratch;
  const auto feed = [&](const Matrix& in) {
    return cache ? feed_forward.forward(in, ffn_cache, ffn_tracer, p, ffn_rng) : feed_forward.forward(in, ffn_tracer, p, ffn_rng);
  };
  if (config_.norm_first) {
    c.ffn_input = apply(norm2_, h);
    tracer.record("norm2", "Norm before FFN", "Pre-norm: each token is normalised before the feed-forward network.",
                  {{"normed", c.ffn_input}});
    const Matrix fed = drop(feed(c.ffn_input), c.ffn_dropout);
    h += fed;
    detail::require_finite_result(fn, h, "the residual sum is too large");
    tracer.record("residual2", "Add (residual)", "h + FFN(norm2(h)).", {{"ffn", fed}, {"sum", h}});
  } else {
    if (cache) c.ffn_input = h;
    const Matrix fed = drop(feed(h), c.ffn_dropout);
    h += fed;
    detail::require_finite_result(fn, h, "the residual sum is too large");
    tracer.record("residual2", "Add (residual)", "h + FFN(h).", {{"ffn", fed}, {"sum", h}});
    if (cache) c.residual2 = h;
    h = apply(norm2_, h);
    tracer.record("norm2", "Norm", "Post-norm: each token of the sum is normalised.", {{"normed", h}});
  }
  if (tracer.enabled())
    tracer.record("output", "Layer output", "Same shape as the input, " + shape_of(h) + ": layers can be stacked.",
                {{"output", h}});
  return h;
}

Matrix TransformerEncoderLayer::backward_norm(Norm& norm, const Matrix& x, const Matrix& d_y) {
  return std::visit([&](auto& n) { return n.backward(x, d_y); }, norm);
}

Matrix TransformerEncoderLayer::backward(const TransformerEncoderLayerCache& c, const Matrix& d_output) {
  // d_output [n×d_model] → ∂L/∂x [n×d_model]
  constexpr const char* fn = "TransformerEncoderLayer::backward";
  if (c.x.rows() == 0 || c.residual1.rows() != c.x.rows())
    detail::fail(fn, "the cache was not filled by this layer's forward(…, cache)");
  detail::require_shape(fn, "d_output", d_output, c.x.rows(), config_.d_model);
  // Dropout after a sub-layer: ∂L/∂(sub-layer output) = ∂L/∂(dropped) ⊙ pattern.
  const auto undrop = [](const Matrix& d, const Matrix& pattern) { return pattern.size() ? Matrix(d.cwiseProduct(pattern)) : d; };
  if (config_.norm_first) {
    // out = h + drop(ffn(norm2(h))) (attention only: out = h),  h = x + drop(attn(norm1(x)))
    Matrix d_h = d_output;
    if (feed_forward_)
      d_h += backward_norm(norm2_, c.residual1, feed_forward_->backward(c.feed_forward, undrop(d_output, c.ffn_dropout)));
    Matrix d_x = d_h;
    d_x += backward_norm(norm1_, c.x, self_attn_.backward(c.attention, undrop(d_h, c.attention_dropout)).d_query);
    return d_x;
  }
  // out = norm2(r2), r2 = h + drop(ffn(h)), h = norm1(r1), r1 = x + drop(attn(x)) (attention only: out = h)
  if (attention_only()) {
    const Matrix d_r1 = backward_norm(norm1_, c.residual1, d_output);
    Matrix d_x = d_r1;
    d_x += self_attn_.backward(c.attention, undrop(d_r1, c.attention_dropout)).d_query;
    return d_x;
  }
  const Matrix d_r2 = backward_norm(norm2_, c.residual2, d_output);
  Matrix d_h = d_r2;
  d_h += feed_forward_->backward(c.feed_forward, undrop(d_r2, c.ffn_dropout));
  const Matrix d_r1 = backward_norm(norm1_, c.residual1, d_h);
  Matrix d_x = d_r1;
  d_x += self_attn_.backward(c.attention, undrop(d_r1, c.attention_dropout)).d_query;
  return d_x;
}

void TransformerEncoderLayer::zero_grad() {
  self_attn_.zero_grad();
  if (feed_forward_) feed_forward_->zero_grad();
  for (Norm* norm : {&norm1_, &norm2_}) std::visit([](auto& n) { n.zero_grad(); }, *norm);
}

const FeedForward& TransformerEncoderLayer::feed_forward() const {
  if (!feed_forward_) detail::fail("TransformerEncoderLayer::feed_forward", "the layer is attention-only (d_ff = 0)");
  return *feed_forward_;
}

std::vector<ParameterRef> TransformerEncoderLayer::parameters(std::string_view prefix) {
  std::vector<ParameterRef> all = self_attn_.parameters(parameter_name(prefix, "self_attn"));
  if (feed_forward_) append_parameters(all, feed_forward_->parameters(prefix));
  const std::pair<const char*, Norm*> norms[] = {{"norm1", &norm1_}, {"norm2", &norm2_}};
  for (const auto& named : norms) {  // (not a structured binding: clang 14 cannot capture one in a lambda)
    if (named.second == &norm2_ && attention_only()) continue;  // no norm2 without a feed-forward sub-layer
    const std::string name = parameter_name(prefix, named.first);
    append_parameters(all, std::visit([&](auto& n) { return n.parameters(name); }, *named.second));
  }
  return all;
}

void TransformerEncoderLayer::load(const TransformerEncoderLayerWeights& w) {
  // Load into copies so that a bad argument leaves the layer unchanged.
  MultiHeadAttention attn = self_attn_;
  std::optional<FeedForward> ffn = feed_forward_;
  Norm norm1 = norm1_, norm2 = norm2_;
  attn.load(w.self_attn);
  load_norm(norm1, w.norm1_weight, w.norm1_bias, "norm1");
  if (ffn) {
    ffn->linear1().load(w.linear1, "TransformerEncoderLayer::load (linear1)");
    ffn->linear2().load(w.linear2, "TransformerEncoderLayer::load (linear2)");
    load_norm(norm2, w.norm2_weight, w.norm2_bias, "norm2");
  } else if (w.linear1.weight.size() || w.linear2.weight.size() || w.norm2_weight.size()) {
    detail::fail("TransformerEncoderLayer::load", "the layer is attention-only (d_ff = 0) but the weights have ",
                 "linear1, linear2 or norm2");
  }
  // Copied in, not moved, so ParameterRefs taken before the load stay valid (see MultiHeadAttention).
  self_attn_ = attn;
  feed_forward_ = ffn;
  norm1_ = norm1;
  norm2_ = norm2;
}

TransformerEncoderLayerWeights TransformerEncoderLayer::weights() const {
  const auto weight = [](const Norm& n) { return std::visit([](const auto& m) { return m.weight(); }, n); };
  const auto bias = [](const Norm& n) {
    const auto* layer_norm = std::get_if<LayerNorm>(&n);
    return layer_norm ? layer_norm->bias() : Vector();
  };
  if (!feed_forward_) return {self_attn_.weights(), {}, {}, weight(norm1_), bias(norm1_), {}, {}};
  return {self_attn_.weights(), feed_forward_->linear1().weights(), feed_forward_->linear2().weights(),
          weight(norm1_), bias(norm1_), weight(norm2_), bias(norm2_)};
}

std::int64_t TransformerEncoderLayer::norm_parameter_count() const {
  const auto count = [](const Norm& n) { return std::visit([](const auto& m) { return m.parameter_count(); }, n); };
  return count(norm1_) + (feed_forward_ ? count(norm2_) : 0);
}

std::int64_t TransformerEncoderLayer::parameter_count() const {
  return self_attn_.parameter_count() + (feed_forward_ ? feed_forward_->parameter_count() : 0) + norm_parameter_count();
}

}  // namespace attnlab
