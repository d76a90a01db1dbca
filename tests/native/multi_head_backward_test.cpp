// MultiHeadAttention::backward against central differences of the same layer written again in double
// precision: ∂L/∂inputs and ∂L/∂(every projection's weight and bias) for L = Σ output ⊙ G.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "attnlab/attnlab.hpp"
#include "finite_difference.hpp"

namespace attnlab {
namespace {

using testing::MatrixD;
using testing::fd::dot;
using testing::fd::GradientNear;
using testing::fd::numerical_gradient;

MatrixD to_double(const Matrix& m) { return m.cast<double>(); }

// The layer's parameters in double, the ones the reference forward reads.
struct Params {
  MatrixD w[4];  // q, k, v, out: [d×d]
  MatrixD b[4];  // [1×d] each (zeros without bias)
};

Params params_of(const MultiHeadAttention& mha) {
  Params p;
  const Linear* layers[] = {&mha.q_proj(), &mha.k_proj(), &mha.v_proj(), &mha.out_proj()};
  for (int i = 0; i < 4; ++i) {
    p.w[i] = to_double(layers[i]->weight());
    p.b[i] = layers[i]->has_bias() ? MatrixD(layers[i]->bias().cast<double>().transpose())
                                   : MatrixD::Zero(1, layers[i]->out_features());
  }
  return p;
}

// RoPE in double: pair (2i, 2i+1) of row r turned by (r + offset)·10000^(−2i/d).
MatrixD rotate(const MatrixD& x, int offset) {
  MatrixD out = x;
  for (Eigen::Index r = 0; r < x.rows(); ++r)
    for (Eigen::Index i = 0; 2 * i < x.cols(); ++i) {
      const double angle = static_cast<double>(r + offset) * std::pow(10000.0, -2.0 * i / x.cols());
      const double a = x(r, 2 * i), b = x(r, 2 * i + 1);
      out(r, 2 * i) = a * std::cos(angle) - b * std::sin(angle);
      out(r, 2 * i + 1) = a * std::sin(angle) + b * std::cos(angle);
    }
  return out;
}

struct Setup {
  int heads;
  PositionalScheme positions = PositionalScheme::none;
  const MatrixD* mask = nullptr;  // 1 = may attend
  bool causal = false;
};

// nn.MultiheadAttention's forward in double, from the formula.
MatrixD reference(const Params& p, const MatrixD& query, const MatrixD& key, const MatrixD& value, const Setup& s) {
  const auto project = [&](const MatrixD& x, int i) {
    MatrixD y = x * p.w[i].transpose();
    y.rowwise() += p.b[i].row(0);
    return y;
  };
  const MatrixD q = project(query, 0), k = project(key, 1), v = project(value, 2);
  const Eigen::Index n_q = q.rows(), n_k = k.rows(), d_k = q.cols() / s.heads;
  const std::vector<float> slopes = s.positions == PositionalScheme::alibi ? alibi_slopes(s.heads) : std::vector<float>{};
  MatrixD concat(n_q, q.cols());
  for (int h = 0; h < s.heads; ++h) {
    MatrixD q_h = q.middleCols(h * d_k, d_k), k_h = k.middleCols(h * d_k, d_k);
    if (s.positions == PositionalScheme::rotary) {
      q_h = rotate(q_h, static_cast<int>(std::max<Eigen::Index>(0, n_k - n_q)));
      k_h = rotate(k_h, 0);
    }
    MatrixD scores = q_h * k_h.transpose() / std::sqrt(static_cast<double>(d_k));
    for (Eigen::Index i = 0; i < n_q; ++i)
      for (Eigen::Index j = 0; j < n_k; ++j) {
        if (!slopes.empty()) scores(i, j) -= slopes[static_cast<std::size_t>(h)] * std::abs(double(i + n_k - n_q - j));
        const bool blocked = (s.mask && (*s.mask)(i, j) == 0.0) || (s.causal && j > i + n_k - n_q);
        if (blocked) scores(i, j) = -std::numeric_limits<double>::infinity();
      }
    for (Eigen::Index i = 0; i < n_q; ++i) {
      const double top = scores.row(i).maxCoeff();
      if (std::isinf(top)) {
        scores.row(i).setZero();
        continue;
      }
      scores.row(i) = (scores.row(i).array() - top).exp().matrix();
      scores.row(i) /= scores.row(i).sum();
    }
    concat.middleCols(h * d_k, d_k) = scores * v.middleCols(h * d_k, d_k);
  }
  MatrixD out = concat * p.w[3].transpose();
  out.rowwise() += p.b[3].row(0);
  return out;
}

// Runs forward + backward on `mha` and checks every gradient against central differences.
void check(MultiHeadAttention& mha, const Matrix& query, const Matrix& key, const Matrix& value, const Setup& s,
           bool self) {
  const Matrix mask_f = s.mask ? Matrix(s.mask->cast<float>()) : Matrix();
  const MaskOptions masking{.mask = s.mask ? &mask_f : nullptr, .causal = s.causal};
  MultiHeadAttentionCache cache;
  const MultiHeadAttentionOutput out =
      self ? mha.forward(query, masking, {}, &cache) : mha.forward(query, key, value, masking, {}, &cache);
  const Matrix g = randn(static_cast<int>(out.output.rows()), static_cast<int>(out.output.cols()), 99);
  mha.zero_grad();
  const MultiHeadAttentionInputGradients grads = mha.backward(cache, g);
  const MatrixD gd = to_double(g);
  const Params p = params_of(mha);
  const MatrixD qd = to_double(query), kd = to_double(key), vd = to_double(value);

  ASSERT_TRUE(GradientNear(out.output, reference(p, qd, kd, vd, s), 1e-4)) << "forward";
  if (self) {
    EXPECT_TRUE(GradientNear(grads.d_query, numerical_gradient([&](const MatrixD& x) {
      return dot(reference(p, x, x, x, s), gd); }, qd))) << "d_x";
    EXPECT_EQ(grads.d_key.size(), 0);
  } else {
    EXPECT_TRUE(GradientNear(grads.d_query, numerical_gradient([&](const MatrixD& x) { return dot(reference(p, x, kd, vd, s), gd); }, qd)));
    EXPECT_TRUE(GradientNear(grads.d_key, numerical_gradient([&](const MatrixD& x) { return dot(reference(p, qd, x, vd, s), gd); }, kd)));
    EXPECT_TRUE(GradientNear(grads.d_value, numerical_gradient([&](const MatrixD& x) { return dot(reference(p, qd, kd, x, s), gd); }, vd)));
  }
  const Linear* layers[] = {&mha.q_proj(), &mha.k_proj(), &mha.v_proj(), &mha.out_proj()};
  for (int i = 0; i < 4; ++i) {
    const auto loss_with_weight = [&](const MatrixD& w) {
      Params changed = p;
      changed.w[i] = w;
      return dot(reference(changed, qd, self ? qd : kd, self ? qd : vd, s), gd);
    };
    EXPECT_TRUE(GradientNear(layers[i]->grads().weight, numerical_gradient(loss_with_weight, p.w[i]))) << "weight " << i;
    if (!layers[i]->has_bias()) continue;
    if (i == 1 && s.positions != PositionalScheme::rotary) {
      // b_k adds q·b_k to every score of a query's row, which the softmax ignores: ∂L/∂b_k is exactly
      // 0 (float rounding leaves ~1e-8), as in PyTorch. (Under RoPE each key's b_k is turned by its
      // own angle, so it does matter.)
      EXPECT_LT(layers[i]->grads().bias.cwiseAbs().maxCoeff(), 1e-6f);
      continue;
    }
    const auto loss_with_bias = [&](const MatrixD& b) {
      Params changed = p;
      changed.b[i] = b;
      return dot(reference(changed, qd, self ? qd : kd, self ? qd : vd, s), gd);
    };
    EXPECT_TRUE(GradientNear(Matrix(layers[i]->grads().bias.transpose()), numerical_gradient(loss_with_bias, p.b[i])))
        << "bias " << i;
  }
}

TEST(MultiHeadBackward, CausalSelfAttention) {
  MultiHeadAttention mha({.d_model = 8, .num_heads = 2, .seed = 1});
  const Matrix x = randn(5, 8, 2);
  check(mha, x, x, x, {.heads = 2, .causal = true}, true);
}

TEST(MultiHeadBackward, CrossAttentionWithAMaskAndABlockedRow) {
  MultiHeadAttention mha({.d_model = 6, .num_heads = 3, .bias = false, .seed = 3});
  MatrixD mask = MatrixD::Ones(3, 4);
  mask(0, 1) = 0;
  mask.row(2).setZero();  // a query with every key blocked: output 0, gradient 0, no NaN
  check(mha, randn(3, 6, 4), randn(4, 6, 5), randn(4, 6, 6), {.heads = 3, .mask = &mask}, false);
}

TEST(MultiHeadBackward, RotaryAndAlibiPositions) {
  MultiHeadAttention rotary({.d_model = 8, .num_heads = 2, .positions = PositionalScheme::rotary, .seed = 7});
  const Matrix x = randn(4, 8, 8);
  check(rotary, x, x, x, {.heads = 2, .positions = PositionalScheme::rotary, .causal = true}, true);
  MultiHeadAttention alibi({.d_model = 8, .num_heads = 4, .positions = PositionalScheme::alibi, .seed = 9});
  check(alibi, randn(3, 8, 10), randn(5, 8, 11), randn(5, 8, 12), {.heads = 4, .positions = PositionalScheme::alibi}, false);
}

TEST(MultiHeadBackward, GradientsAccumulateUntilZeroGrad) {
  MultiHeadAttention mha({.d_model = 4, .num_heads = 2, .seed = 5});
  const Matrix x = randn(3, 4, 6), g = randn(3, 4, 7);
  MultiHeadAttentionCache cache;
  mha.forward(x, {}, {}, &cache);
  mha.zero_grad();
  mha.backward(cache, g);
  const Matrix once = mha.q_proj().grads().weight;
  mha.backward(cache, g);
  EXPECT_TRUE(mha.q_proj().grads().weight.isApprox(2 * once));
  mha.zero_grad();
  EXPECT_EQ(mha.q_proj().grads().weight.cwiseAbs().maxCoeff(), 0.0f);
  EXPECT_EQ(mha.parameters("attn").size(), 8u);
  EXPECT_EQ(mha.parameters("attn")[0].name, "attn.q_proj.weight");
}

TEST(MultiHeadBackward, ACacheFromElsewhereIsAnError) {
  MultiHeadAttention mha({.d_model = 4, .num_heads = 2});
  EXPECT_THROW(mha.backward(MultiHeadAttentionCache{}, Matrix::Ones(3, 4)), Error);
}

}  // namespace
}  // namespace attnlab
