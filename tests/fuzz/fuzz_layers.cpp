// Fuzz target: the layers — MultiHeadAttention and TransformerEncoderLayer built from random
// configurations, loaded with random weight blobs (right and wrong shapes, NaN and ±Inf inside), run
// on random inputs and masks, in evaluation and training mode, traced and not; and the norms.
#include "fuzz_input.hpp"

namespace attnlab::fuzz {
namespace {

constexpr int kMaxTokens = 24;

PositionalScheme positions(FuzzInput& in) {
  const int pick = in.choice(3);
  return pick == 0 ? PositionalScheme::none : pick == 1 ? PositionalScheme::rotary : PositionalScheme::alibi;
}

// A weight matrix that is mostly the right shape, sometimes a row or column off. A side may be 0 (the
// feed-forward of an attention-only layer, d_ff = 0): then the wrong shape has one column more, not −1.
Matrix blob(FuzzInput& in, int rows, int cols) {
  const int pick = in.choice(16);
  const int wrong_cols = cols > 0 ? cols - 1 : cols + 1;
  return in.matrix(rows + (pick == 0 ? 1 : 0), pick == 1 ? wrong_cols : cols);
}
Vector bias_blob(FuzzInput& in, int size, bool has_bias) {
  if (!has_bias && in.choice(8) != 0) return {};
  return in.vector(size + (in.choice(16) == 0 ? 1 : 0));
}

MultiHeadAttentionWeights attention_blob(FuzzInput& in, int d, bool bias) {
  return {blob(in, 3 * d, d), bias_blob(in, 3 * d, bias), blob(in, d, d), bias_blob(in, d, bias)};
}

bool same(const MultiHeadAttentionWeights& a, const MultiHeadAttentionWeights& b) {
  return a.in_proj_weight == b.in_proj_weight && a.out_proj_weight == b.out_proj_weight &&
         a.in_proj_bias == b.in_proj_bias && a.out_proj_bias == b.out_proj_bias;
}

MaskOptions masking(FuzzInput& in, int n_q, int n_k, Matrix& storage) {
  MaskOptions m;
  if (in.flag()) {
    storage = in.mask(n_q, n_k + (in.choice(16) == 0 ? 1 : 0));
    m.mask = &storage;
  }
  m.causal = in.flag();
  m.need_weights = in.flag();
  return m;
}

void fuzz_multi_head(FuzzInput& in) {
  const MultiHeadAttentionConfig config{.d_model = in.size(32), .num_heads = in.size(8), .bias = in.flag(),
                                        .dropout = in.choice(4) == 0 ? in.value() : 0.0f, .positions = positions(in),
                                        .seed = in.seed()};
  std::optional<MultiHeadAttention> mha;
  if (!accepted([&] { mha.emplace(config); })) return;
  const int d = config.d_model;
  if (in.flag()) {
    const MultiHeadAttentionWeights before = mha->weights();
    if (!accepted([&] { mha->load(attention_blob(in, d, config.bias)); }))
      require(same(before, mha->weights()), "a refused load changed the weights");
  }
  mha->train(in.flag());
  const int n_q = in.dim(kMaxTokens), n_k = in.flag() ? n_q : in.dim(kMaxTokens);
  const Matrix query = in.matrix(n_q, d + (in.choice(16) == 0 ? 1 : 0));
  const Matrix key = n_k == n_q ? query : in.matrix(n_k, d), value = n_k == n_q ? query : in.matrix(n_k, d);
  Matrix mask;
  const MaskOptions options = masking(in, n_q, n_k, mask);
  Trace trace;
  const Tracer tracer = in.flag() ? Tracer(trace) : Tracer();
  MultiHeadAttentionOutput out;
  if (!accepted([&] { out = mha->forward(query, key, value, options, tracer); })) return;
  require(out.output.rows() == n_q && out.output.cols() == d, "MHA output shape");
  require(finite(out.output), "an accepted MHA forward returned NaN or Inf");
  for (const Matrix& w : out.head_weights) require(finite(w) && w.rows() == n_q && w.cols() == n_k, "head weights");
  if (!out.head_weights.empty()) require(out.head_weights.size() == static_cast<std::size_t>(config.num_heads), "one weight matrix per head");
}

void fuzz_encoder(FuzzInput& in) {
  const Activation activations[] = {Activation::gelu, Activation::gelu_tanh, Activation::relu};
  const TransformerEncoderLayerConfig config{
      .d_model = in.size(32), .num_heads = in.size(8), .d_ff = in.size(64),
      .dropout = in.choice(4) == 0 ? in.value() : 0.0f, .activation = activations[in.choice(3)],
      .norm_first = in.flag(), .norm = in.flag() ? NormKind::layer_norm : NormKind::rms_norm,
      .norm_eps = in.flag() ? 1e-5f : in.value(), .bias = in.flag(), .positions = positions(in), .seed = in.seed()};
  std::optional<TransformerEncoderLayer> layer;
  if (!accepted([&] { layer.emplace(config); })) return;
  const int d = config.d_model, d_ff = config.d_ff;
  if (in.flag()) {
    const bool layer_norm = config.norm == NormKind::layer_norm;
    TransformerEncoderLayerWeights w{attention_blob(in, d, config.bias),
                                     {blob(in, d_ff, d), bias_blob(in, d_ff, config.bias)},
                                     {blob(in, d, d_ff), bias_blob(in, d, config.bias)},
                                     in.vector(d), bias_blob(in, d, layer_norm),
                                     in.vector(d), bias_blob(in, d, layer_norm)};
    accepted([&] { layer->load(w); });
  }
  layer->train(in.flag());
  const int n = in.dim(kMaxTokens);
  const Matrix x = in.matrix(n, d);
  Matrix mask;
  const MaskOptions options = masking(in, n, n, mask);
  Trace trace;
  const Tracer tracer = in.flag() ? Tracer(trace) : Tracer();
  Matrix y;
  if (!accepted([&] { y = layer->forward(x, options, tracer); })) return;
  require(y.rows() == n && y.cols() == d, "encoder output shape");
  require(finite(y), "an accepted encoder forward returned NaN or Inf");
}

void fuzz_norms(FuzzInput& in) {
  const int d = in.size(32);
  const float eps = in.flag() ? 1e-5f : in.value();
  const Matrix x = in.matrix(in.dim(kMaxTokens), in.flag() ? std::max(d, 0) % 64 : in.dim(32));
  Matrix y;
  if (in.flag()) {
    std::optional<LayerNorm> norm;
    if (!accepted([&] { norm.emplace(d, eps); })) return;
    if (in.flag()) accepted([&] { norm->load(in.vector(d), in.vector(d)); });
    if (!accepted([&] { y = norm->forward(x); })) return;
  } else {
    std::optional<RMSNorm> norm;
    if (!accepted([&] { norm.emplace(d, eps); })) return;
    if (in.flag()) accepted([&] { norm->load(in.vector(d)); });
    if (!accepted([&] { y = norm->forward(x); })) return;
  }
  require(finite(y) && y.rows() == x.rows() && y.cols() == x.cols(), "a norm returned NaN/Inf or a new shape");
}

}  // namespace
}  // namespace attnlab::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab::fuzz;
  static const FuzzCase cases[] = {fuzz_multi_head, fuzz_encoder, fuzz_norms};
  return run_one_case(data, size, cases);
}
