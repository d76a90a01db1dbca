// Fuzz target: attention and everything it is built from — softmax, scaled dot-product attention
// (full and online-softmax), masks, positional encodings, the seeded generator, and the N-d Tensor
// with batched attention over it (fuzz_batched.cpp). Any input must give
// either attnlab::Error or a result that keeps the properties checked below.
#include <cmath>
#include <iostream>
#include <optional>

#include "fuzz_batched.hpp"
#include "fuzz_input.hpp"

namespace attnlab::fuzz {
namespace {

constexpr int kMaxDim = 40;  // input matrices the fuzzer allocates itself stay small

bool is_mask(const Matrix& m) { return ((m.array() == 0.0f) || (m.array() == 1.0f)).all(); }

// The visibility the core must honour, computed here independently: the mask's 1s, and causally
// (aligned to the last key) keys at positions ≤ the query's.
bool visible(const AttentionOptions& o, Eigen::Index i, Eigen::Index j, Eigen::Index n_q, Eigen::Index n_k) {
  if (o.mask && (*o.mask)(i, j) == 0.0f) return false;
  return !o.causal || j <= i + n_k - n_q;
}

void check_attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionOptions& options) {
  // On a violated property, the inputs are printed before aborting: the crash file alone is bytes.
  const auto check = [&](bool ok, const char* property) {
    if (!ok) {
      std::cerr << "Q\n" << q << "\nK\n" << k << "\nV\n" << v << "\ncausal " << options.causal << ", scale "
                << options.scale.value_or(NAN) << ", alibi " << options.alibi_slope.value_or(NAN) << ", dropout "
                << options.dropout << "\n";
      if (options.mask) std::cerr << "mask\n" << *options.mask << "\n";
      if (options.bias) std::cerr << "bias\n" << *options.bias << "\n";
    }
    require(ok, property);
  };
  AttentionResult r;
  if (!accepted([&] { r = scaled_dot_product_attention(q, k, v, options); })) {
    // The online path checks the same arguments: it must refuse too (dropout aside, which it never takes).
    if (options.dropout == 0.0f) check(!accepted([&] { attention_output(q, k, v, options); }), "attention_output accepted what SDPA refused");
    return;
  }
  const Eigen::Index n_q = q.rows(), n_k = k.rows();
  check(r.weights.rows() == n_q && r.weights.cols() == n_k && r.output.rows() == n_q && r.output.cols() == v.cols(),
          "result shapes");
  check(finite(r.scores) && finite(r.scaled_scores) && finite(r.weights) && finite(r.output),
          "an accepted attention call returned NaN or Inf");
  check(!r.masked_scores.hasNaN() && (r.masked_scores.array() < std::numeric_limits<float>::infinity()).all(),
          "masked scores hold NaN or +Inf");
  if (options.dropout > 0.0f) return;
  for (Eigen::Index i = 0; i < n_q; ++i) {
    bool any_visible = false;
    for (Eigen::Index j = 0; j < n_k; ++j) {
      if (visible(options, i, j, n_q, n_k)) any_visible = true;
      else check(r.weights(i, j) == 0.0f, "a blocked key got a non-zero weight");
    }
    const double sum = r.weights.row(i).cast<double>().sum();
    check(any_visible ? std::abs(sum - 1.0) < 1e-4 : sum == 0.0, "a weight row does not sum to 1 (or 0 when blocked)");
  }
  // The online-softmax path gives the same output. Its scores come from other matrix products (blocks),
  // so they round differently: by up to ~1e-7 × (Σ|q·k|·|scale| + |bias| + |ALiBi|), which moves the
  // weights by as much. Compared where that bound is small; beyond, near-ties between enormous
  // scores may resolve either way (as they may in PyTorch).
  Matrix online;
  check(accepted([&] { online = attention_output(q, k, v, options); }), "attention_output refused what SDPA accepted");
  const double d_k = static_cast<double>(q.cols());
  const double magnitude = (q.cwiseAbs() * k.cwiseAbs().transpose()).maxCoeff() *
                               std::abs(options.scale.value_or(static_cast<float>(1.0 / std::sqrt(d_k)))) +
                           (options.bias ? options.bias->cwiseAbs().maxCoeff() : 0.0f) +
                           std::abs(options.alibi_slope.value_or(0.0f)) * static_cast<double>(n_q + n_k);
  if (!(magnitude <= 100.0)) return;
  const float v_scale = 1.0f + v.cwiseAbs().maxCoeff();
  check(((online - r.output).cwiseAbs().array() <= 1e-4f * v_scale).all(), "attention_output differs from SDPA");
  // A trace records the very numbers computed.
  Trace trace;
  scaled_dot_product_attention(q, k, v, options, Tracer(trace));
  check(((trace.tensor("weights", "weights") - r.weights).cwiseAbs().array() <= 1e-6f).all(),
          "the traced weights differ from the computed ones");
}

void fuzz_attention(FuzzInput& in) {
  const int n_q = in.dim(kMaxDim), n_k = in.dim(kMaxDim), d_k = in.dim(16), d_v = in.dim(16);
  // Mostly consistent shapes; sometimes one dimension off by one.
  const bool off = in.choice(8) == 0;
  const Matrix q = in.matrix(n_q, d_k), k = in.matrix(n_k, d_k + (off ? 1 : 0)), v = in.matrix(n_k, d_v);
  Matrix mask, bias;
  Rng rng(in.seed());
  AttentionOptions options;
  if (in.flag()) {
    mask = in.mask(n_q + (in.choice(8) == 0 ? 1 : 0), n_k);
    options.mask = &mask;
  }
  options.causal = in.flag();
  if (in.flag()) options.scale = in.value();
  if (in.choice(4) == 0) {
    bias = in.matrix(n_q, n_k);
    options.bias = &bias;
  }
  if (in.choice(4) == 0) options.alibi_slope = in.value();
  if (in.choice(4) == 0) {
    options.dropout = in.value();
    if (in.flag()) options.rng = &rng;
  }
  check_attention(q, k, v, options);
}

void fuzz_softmax(FuzzInput& in) {
  const Matrix logits = in.matrix(in.dim(kMaxDim), in.dim(kMaxDim));
  Matrix w;
  if (!accepted([&] { w = softmax(logits); })) return;
  require(finite(w) && (w.array() >= 0.0f).all(), "softmax gave NaN, Inf or a negative weight");
  // −∞ is how a blocked logit is written: a row of only −∞ gives zeros, every other row sums to 1.
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    const bool blocked = (logits.row(i).array() == -std::numeric_limits<float>::infinity()).all();
    const double sum = w.row(i).cast<double>().sum();
    require(blocked ? sum == 0.0 : std::abs(sum - 1.0) < 1e-4, "a softmax row does not sum to 1 (or 0 when all −∞)");
  }
}

void fuzz_masks(FuzzInput& in) {
  const int n_q = in.size(64), n_k = in.size(64);
  Matrix m;
  switch (in.choice(3)) {
    case 0:
      if (!accepted([&] { m = causal_mask(n_q, n_k); })) return;
      break;
    case 1:
      if (!accepted([&] { m = key_padding_mask(n_q, n_k, in.size(64)); })) return;
      break;
    default: {
      const int rows = in.dim(kMaxDim), cols = in.dim(kMaxDim);
      const Matrix a = in.mask(rows, cols), b = in.mask(in.flag() ? rows : in.dim(kMaxDim), cols);
      if (!accepted([&] { m = combine_masks(a, b); })) return;
      require(m.rows() == rows && m.cols() == cols, "combine_masks shape");
      return require(is_mask(m), "combine_masks gave a value other than 0 or 1");
    }
  }
  require(m.rows() == n_q && m.cols() == n_k && is_mask(m), "a mask with the wrong shape or values");
}

void fuzz_positions(FuzzInput& in) {
  switch (in.choice(5)) {
    case 0: {
      const int seq = in.size(64), d = in.size(64);
      const double base = in.flag() ? 10000.0 : static_cast<double>(in.value()) * 1000.0;
      Matrix pe;
      if (!accepted([&] { pe = sinusoidal_encoding(seq, d, base); })) return;
      return require(finite(pe) && (pe.cwiseAbs().array() <= 1.0f).all(), "sinusoidal entries outside [−1, 1]");
    }
    case 1: {
      const Matrix x = in.matrix(in.dim(kMaxDim), 2 * in.dim(8) + (in.choice(8) == 0 ? 1 : 0));
      const int offset = in.size(1 << 20);
      Matrix y;
      if (!accepted([&] { y = apply_rotary(x, offset); })) return;
      require(finite(y) && y.rows() == x.rows() && y.cols() == x.cols(), "apply_rotary gave NaN/Inf or a new shape");
      // A rotation keeps each column pair's length.
      for (Eigen::Index r = 0; r < x.rows(); ++r)
        for (Eigen::Index c = 0; c + 1 < x.cols(); c += 2) {
          const double before = std::hypot(double{x(r, c)}, double{x(r, c + 1)});
          const double after = std::hypot(double{y(r, c)}, double{y(r, c + 1)});
          require(std::abs(after - before) <= 1e-5 * (1.0 + before), "RoPE changed a pair's length");
        }
      return;
    }
    case 2: {
      std::vector<float> slopes;
      const int heads = in.size(64);
      if (!accepted([&] { slopes = alibi_slopes(heads); })) return;
      require(slopes.size() == static_cast<std::size_t>(heads), "alibi_slopes count");
      for (float s : slopes) require(s > 0.0f && s < 1.0f, "an ALiBi slope outside (0, 1)");
      return;
    }
    case 3: {
      Matrix b;
      const int n_q = in.size(64), n_k = in.size(64);
      const float slope = in.value();
      if (!accepted([&] { b = alibi_bias(n_q, n_k, slope); })) return;
      return require(finite(b) && b.rows() == n_q && b.cols() == n_k, "alibi_bias gave NaN/Inf or a wrong shape");
    }
    default: {
      Matrix x;
      const int rows = in.size(64), cols = in.size(64);
      if (!accepted([&] { x = randn(rows, cols, in.seed()); })) return;
      return require(finite(x) && x.rows() == rows && x.cols() == cols, "randn gave NaN/Inf or a wrong shape");
    }
  }
}

}  // namespace
}  // namespace attnlab::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab::fuzz;
  static const FuzzCase cases[] = {fuzz_attention, fuzz_softmax, fuzz_masks,
                                   fuzz_positions, fuzz_tensor, fuzz_batched_attention};
  return run_one_case(data, size, cases);
}
