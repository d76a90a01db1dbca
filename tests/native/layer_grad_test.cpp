// The layers' backward passes against central differences of a double-precision forward pass
// written out here from the formula (not the layers' own forward): for L = Σ y ⊙ d_y, each backward
// given d_y must return ∂L/∂input and accumulate ∂L/∂parameter, for inputs AND parameters.
#include <gtest/gtest.h>

#include <cmath>

#include "attnlab/layers/embedding.hpp"
#include "attnlab/layers/feed_forward.hpp"
#include "attnlab/layers/linear.hpp"
#include "attnlab/layers/norm.hpp"
#include "attnlab/tensor/rng.hpp"
#include "finite_difference.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::row;
using testing::MatricesNear;
using testing::MatrixD;
using testing::fd::GradientNear;
using testing::fd::numerical_gradient;

MatrixD D(const Matrix& m) { return m.cast<double>(); }
MatrixD D(const Vector& v) { return v.transpose().cast<double>(); }  // a parameter [d] as 1×d
double loss(const MatrixD& y, const Matrix& d_y) { return testing::fd::dot(y, D(d_y)); }  // L = Σ y ⊙ d_y

// ---------------------------------------------------------------------------------------------------
// The forward passes again, in double, from the formulas

MatrixD linear_ref(const MatrixD& x, const MatrixD& w, const MatrixD& b) {
  MatrixD y = x * w.transpose();  // y = x·Wᵀ + b
  if (b.size() != 0) y.rowwise() += b.row(0);
  return y;
}

// (x − mean)/√(var + eps)·w + b per row; RMSNorm: no centring (var is then mean(x²)) and no b.
MatrixD norm_ref(const MatrixD& x, const MatrixD& w, const MatrixD& b, double eps, bool centre) {
  MatrixD y(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const Eigen::ArrayXd row_x = x.row(r).transpose().array();
    const double mean = centre ? row_x.mean() : 0.0;
    const double var = (row_x - mean).square().mean();
    Eigen::ArrayXd out = (row_x - mean) / std::sqrt(var + eps) * w.row(0).transpose().array();
    if (b.size() != 0) out += b.row(0).transpose().array();
    y.row(r) = out.matrix().transpose();
  }
  return y;
}

MatrixD activation_ref(const MatrixD& x, Activation a) {
  const double k = std::sqrt(2.0 / 3.14159265358979323846);
  return x.unaryExpr([a, k](double v) {
    switch (a) {
      case Activation::gelu: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
      case Activation::gelu_tanh: return 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v)));
      case Activation::relu: return v > 0.0 ? v : 0.0;
    }
    return 0.0;
  });
}

struct FfnParams {
  MatrixD w1, b1, w2, b2;
};
FfnParams ffn_params(const FeedForward& f) {
  return {D(f.linear1().weight()), D(f.linear1().bias()), D(f.linear2().weight()), D(f.linear2().bias())};
}
MatrixD ffn_ref(const MatrixD& x, const FfnParams& p, Activation a, const Matrix& dropout_scale) {
  MatrixD activated = activation_ref(linear_ref(x, p.w1, p.b1), a);
  if (dropout_scale.size() != 0) activated = activated.cwiseProduct(D(dropout_scale));
  return linear_ref(activated, p.w2, p.b2);
}

// ---------------------------------------------------------------------------------------------------

TEST(LayerGrad, LinearMatchesCentralDifferences) {
  for (bool bias : {true, false}) {
    Rng rng(1);
    Linear linear(5, 3, bias, rng);
    const Matrix x = randn(4, 5, 2), d_y = randn(4, 3, 3);
    const MatrixD w = D(linear.weight()), b = bias ? D(linear.bias()) : MatrixD();
    ASSERT_TRUE(MatricesNear(linear.forward(x), linear_ref(D(x), w, b).cast<float>(), 1e-5f));
    const Matrix d_x = linear.backward(x, d_y);
    EXPECT_TRUE(GradientNear(d_x, numerical_gradient([&](const MatrixD& t) { return loss(linear_ref(t, w, b), d_y); }, D(x))));
    EXPECT_TRUE(GradientNear(linear.grads().weight,
                             numerical_gradient([&](const MatrixD& t) { return loss(linear_ref(D(x), t, b), d_y); }, w)));
    if (bias)
      EXPECT_TRUE(GradientNear(row(linear.grads().bias),
                               numerical_gradient([&](const MatrixD& t) { return loss(linear_ref(D(x), w, t), d_y); }, b)));
    else
      EXPECT_EQ(linear.grads().bias.size(), 0);
  }
}

TEST(LayerGrad, LayerNormMatchesCentralDifferences) {
  LayerNorm norm(6, 1e-5f);
  const Vector weight = (Vector::Ones(6) + 0.3f * randn(6, 1, 4)).eval(), bias = randn(6, 1, 5);
  norm.load(weight, bias);
  const Matrix x = (2.0f * randn(4, 6, 6)).array() + 0.5f, d_y = randn(4, 6, 7);
  const MatrixD w = D(weight), b = D(bias), xd = D(x);
  ASSERT_TRUE(MatricesNear(norm.forward(x), norm_ref(xd, w, b, 1e-5, true).cast<float>(), 1e-5f));
  const Matrix d_x = norm.backward(x, d_y);
  EXPECT_TRUE(GradientNear(d_x, numerical_gradient([&](const MatrixD& t) { return loss(norm_ref(t, w, b, 1e-5, true), d_y); }, xd)));
  EXPECT_TRUE(GradientNear(row(norm.weight_grad()),
                           numerical_gradient([&](const MatrixD& t) { return loss(norm_ref(xd, t, b, 1e-5, true), d_y); }, w)));
  EXPECT_TRUE(GradientNear(row(norm.bias_grad()),
                           numerical_gradient([&](const MatrixD& t) { return loss(norm_ref(xd, w, t, 1e-5, true), d_y); }, b)));
}

TEST(LayerGrad, RMSNormMatchesCentralDifferences) {
  RMSNorm norm(5, 1e-5f);
  const Vector weight = (Vector::Ones(5) + 0.3f * randn(5, 1, 8)).eval();
  norm.load(weight);
  const Matrix x = randn(3, 5, 9), d_y = randn(3, 5, 10);
  const MatrixD w = D(weight), none, xd = D(x);
  ASSERT_TRUE(MatricesNear(norm.forward(x), norm_ref(xd, w, none, 1e-5, false).cast<float>(), 1e-5f));
  const Matrix d_x = norm.backward(x, d_y);
  EXPECT_TRUE(GradientNear(d_x, numerical_gradient([&](const MatrixD& t) { return loss(norm_ref(t, w, none, 1e-5, false), d_y); }, xd)));
  EXPECT_TRUE(GradientNear(row(norm.weight_grad()),
                           numerical_gradient([&](const MatrixD& t) { return loss(norm_ref(xd, t, none, 1e-5, false), d_y); }, w)));
}

TEST(LayerGrad, ActivationsMatchCentralDifferences) {
  Matrix x = 2.5f * randn(4, 6, 11);
  for (Eigen::Index i = 0; i < x.size(); ++i)  // ReLU has no derivative at 0: keep clear of it
    if (std::fabs(x.data()[i]) < 0.05f) x.data()[i] = 0.5f;
  const Matrix d_y = randn(4, 6, 12);
  for (Activation a : {Activation::gelu, Activation::gelu_tanh, Activation::relu}) {
    ASSERT_TRUE(MatricesNear(activate(x, a), activation_ref(D(x), a).cast<float>(), 1e-6f));
    EXPECT_TRUE(GradientNear(activation_backward(x, d_y, a),
                             numerical_gradient([&](const MatrixD& t) { return loss(activation_ref(t, a), d_y); }, D(x))))
        << "activation " << static_cast<int>(a);
  }
}

TEST(LayerGrad, ReluGradientAtZeroIsZeroAsInPyTorch) {
  Matrix x(1, 3), d_y(1, 3), expected(1, 3);
  x << -1, 0, 2;
  d_y << 5, 6, 7;
  expected << 0, 0, 7;
  EXPECT_EQ(activation_backward(x, d_y, Activation::relu), expected);
}

// Checks d_x and all four parameter gradients of `ffn` (gradients still empty) after backward from the
// cache of its forward; with dropout, the reference applies the pattern the cache kept.
void expect_ffn_gradients(FeedForward& ffn, const Matrix& x, float dropout_p, std::uint64_t seed) {
  Rng rng(seed);
  FeedForwardCache cache;
  const Matrix y = ffn.forward(x, cache, {}, dropout_p, dropout_p > 0 ? &rng : nullptr);
  const Matrix d_y = randn(static_cast<int>(x.rows()), static_cast<int>(x.cols()), seed + 100);
  const Activation a = ffn.activation();
  const FfnParams p = ffn_params(ffn);
  const Matrix& scale = cache.dropout_scale;
  ASSERT_TRUE(MatricesNear(y, ffn_ref(D(x), p, a, scale).cast<float>(), 1e-5f));
  const Matrix d_x = ffn.backward(cache, d_y);
  const auto with = [&](auto change) {
    return [&, change](const MatrixD& t) {
      FfnParams q = p;
      change(q, t);
      return loss(ffn_ref(D(x), q, a, scale), d_y);
    };
  };
  EXPECT_TRUE(GradientNear(d_x, numerical_gradient([&](const MatrixD& t) { return loss(ffn_ref(t, p, a, scale), d_y); }, D(x))));
  EXPECT_TRUE(GradientNear(ffn.linear1().grads().weight,
                           numerical_gradient(with([](FfnParams& q, const MatrixD& t) { q.w1 = t; }), p.w1)));
  EXPECT_TRUE(GradientNear(ffn.linear2().grads().weight,
                           numerical_gradient(with([](FfnParams& q, const MatrixD& t) { q.w2 = t; }), p.w2)));
  if (ffn.linear1().has_bias()) {
    EXPECT_TRUE(GradientNear(row(ffn.linear1().grads().bias),
                             numerical_gradient(with([](FfnParams& q, const MatrixD& t) { q.b1 = t; }), p.b1)));
    EXPECT_TRUE(GradientNear(row(ffn.linear2().grads().bias),
                             numerical_gradient(with([](FfnParams& q, const MatrixD& t) { q.b2 = t; }), p.b2)));
  }
}

TEST(LayerGrad, FeedForwardMatchesCentralDifferences) {
  Rng init(13);
  FeedForward gelu_bias(4, 7, Activation::gelu, true, init);
  expect_ffn_gradients(gelu_bias, randn(3, 4, 14), 0.0f, 15);
  FeedForward tanh_no_bias(4, 7, Activation::gelu_tanh, false, init);
  expect_ffn_gradients(tanh_no_bias, randn(3, 4, 16), 0.0f, 17);
  FeedForward relu_bias(4, 7, Activation::relu, true, init);
  expect_ffn_gradients(relu_bias, randn(3, 4, 18), 0.0f, 19);
}

TEST(LayerGrad, FeedForwardReplaysItsDropoutPatternInBackward) {
  Rng init(20);
  FeedForward ffn(4, 8, Activation::gelu, true, init);
  const Matrix x = randn(3, 4, 22);
  Rng rng(21);
  FeedForwardCache cache;
  ffn.forward(x, cache, {}, 0.4f, &rng);
  // The pattern (the same draws as below) holds both dropped (0) and kept (1/(1 − p)) entries, so the
  // check means something.
  const auto dropped = (cache.dropout_scale.array() == 0.0f).count();
  EXPECT_EQ(dropped + (cache.dropout_scale.array() == 1.0f / (1.0f - 0.4f)).count(), 24);
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, 24);
  expect_ffn_gradients(ffn, x, 0.4f, 21);
}

TEST(LayerGrad, EmbeddingScatterAddsRowsOfRepeatedIds) {
  Rng rng(23);
  Embedding embedding(6, 3, rng);
  const std::vector<int> ids = {4, 1, 4, 0, 4};
  const Matrix d_out = randn(5, 3, 24);
  const auto embed = [&](const MatrixD& table) {
    MatrixD out(static_cast<Eigen::Index>(ids.size()), table.cols());
    for (std::size_t i = 0; i < ids.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = table.row(ids[i]);
    return out;
  };
  ASSERT_EQ(embedding.forward(ids), embed(D(embedding.table())).cast<float>());
  embedding.backward(ids, d_out);
  EXPECT_TRUE(GradientNear(embedding.table_grad(),
                           numerical_gradient([&](const MatrixD& t) { return loss(embed(t), d_out); }, D(embedding.table()))));
  // By hand: row 4 is the sum of d_out's rows 0, 2 and 4; unused rows stay 0.
  EXPECT_TRUE(MatricesNear(embedding.table_grad().row(4), d_out.row(0) + d_out.row(2) + d_out.row(4), 1e-6f));
  EXPECT_EQ(embedding.table_grad().row(5), Matrix::Zero(1, 3));
}

TEST(LayerGrad, LearnedPositionalEmbeddingGradientFillsTheFirstRows) {
  Rng rng(25);
  LearnedPositionalEmbedding positions(6, 3, rng);
  const Matrix d_out = randn(4, 3, 26);
  positions.backward(d_out);
  positions.backward(d_out.topRows(2));
  Matrix expected = Matrix::Zero(6, 3);
  expected.topRows(4) = d_out;
  expected.topRows(2) += d_out.topRows(2);
  EXPECT_TRUE(MatricesNear(positions.table_grad(), expected, 1e-6f));
  ASSERT_EQ(positions.parameters("pos").size(), 1u);
  EXPECT_EQ(positions.parameters("pos")[0].name, "pos.weight");
}

}  // namespace
}  // namespace attnlab
