// SGD and Adam: steps computed by hand, PyTorch's trajectories (tests/fixtures/make_training_fixtures.py),
// zero_grad/step semantics, refused input, and state snapshots.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "attnlab/layers/linear.hpp"
#include "attnlab/training/optimizer.hpp"
#include "attnlab/tensor/rng.hpp"
#include "expect_error.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::kNaN;
using testing::Fixture;
using testing::MatricesNear;

// A free-standing parameter (no layer): a weight [rows×cols] or bias [d] and its gradient.
struct Param {
  Matrix value, grad;
  ParameterRef ref(const std::string& name) { return make_parameter(name, value, grad); }
};

// One scalar parameter p (1×1) stepped with the gradients `g`, returning p after the last step.
float adam_steps(float p0, std::initializer_list<float> g, const AdamOptions& options = {}) {
  Param p{Matrix::Constant(1, 1, p0), {}};
  Adam opt({p.ref("p")}, options);
  for (float gi : g) {
    p.grad(0, 0) = gi;
    opt.step();
  }
  return p.value(0, 0);
}
float sgd_steps(float p0, std::initializer_list<float> g, double lr, SGDOptions options = {}) {
  Param p{Matrix::Constant(1, 1, p0), {}};
  SGD opt({p.ref("p")}, lr, options);
  for (float gi : g) {
    p.grad(0, 0) = gi;
    opt.step();
  }
  return p.value(0, 0);
}

// ---------------------------------------------------------------------------------------------------
// By hand

TEST(Optimizer, AdamFirstStepMovesEveryEntryByLrTimesTheSignOfItsGradient) {
  // m̂ = g and v̂ = g² after one step, so the update is lr·g/(|g| + eps): −lr·sign(g) up to eps, and 0 for g = 0.
  Param p{Matrix(1, 6), Matrix(1, 6)};
  p.value << 1.0f, -2.0f, 0.5f, 3.0f, 0.0f, -0.25f;
  p.grad << 1e-3f, -50.0f, 2.0f, 0.0f, -1e-6f, 7.0f;
  const Matrix before = p.value;
  Adam adam({p.ref("w")});
  adam.step();
  for (Eigen::Index j = 0; j < 6; ++j) {
    const double g = p.grad(0, j);
    const double expected = before(0, j) - 1e-3 * g / (std::fabs(g) + 1e-8);
    EXPECT_NEAR(p.value(0, j), expected, 2e-7) << "entry " << j;
  }
  EXPECT_EQ(p.value(0, 3), 3.0f);  // g = 0: 0/(0 + eps) = 0, the entry stays where it was
  EXPECT_EQ(adam.steps(), 1);
}

TEST(Optimizer, AdamSecondStepByHand) {
  // g = 1 then −1, β = (0.9, 0.999): step 1 moves −lr. Step 2: m = 0.09 − 0.1 = −0.01, v = 0.000999 + 0.001
  // = 0.001999, bias corrections 0.19 and 0.001999, so m̂ = −0.01/0.19 and v̂ = 1: p = 1 − 0.001 + 0.001·0.01/0.19.
  EXPECT_NEAR(adam_steps(1.0f, {1.0f, -1.0f}), 1.0 - 0.001 + 0.001 * 0.01 / 0.19, 1e-7);
}

TEST(Optimizer, SgdStepsByHand) {
  // p = 1, lr = 0.1, gradients 1 then 0.5.
  EXPECT_NEAR(sgd_steps(1.0f, {1.0f, 0.5f}, 0.1), 1.0 - 0.1 - 0.05, 1e-7);
  // momentum 0.9: buf = 1 → p = 0.9; buf = 0.9·1 + 0.5 = 1.4 → p = 0.76
  EXPECT_NEAR(sgd_steps(1.0f, {1.0f, 0.5f}, 0.1, {.momentum = 0.9}), 0.76, 1e-7);
  // nesterov: d = 1 + 0.9·1 → p = 0.81; buf = 1.4, d = 0.5 + 0.9·1.4 = 1.76 → p = 0.634
  EXPECT_NEAR(sgd_steps(1.0f, {1.0f, 0.5f}, 0.1, {.momentum = 0.9, .nesterov = true}), 0.634, 1e-7);
  // dampening 0.5 (not applied to the first buffer): buf = 1 → 0.9; buf = 0.9 + 0.5·0.5 = 1.15 → 0.785
  EXPECT_NEAR(sgd_steps(1.0f, {1.0f, 0.5f}, 0.1, {.momentum = 0.9, .dampening = 0.5}), 0.785, 1e-7);
  // weight_decay 0.1: d = 1 + 0.1·1 → 0.89; d = 0.5 + 0.1·0.89 = 0.589 → 0.8311
  EXPECT_NEAR(sgd_steps(1.0f, {1.0f, 0.5f}, 0.1, {.weight_decay = 0.1}), 0.8311, 1e-7);
}

TEST(Optimizer, ZeroGradClearsTheGradientsAndMomentumCarriesOn) {
  Param p{Matrix::Constant(1, 1, 1.0f), {}};
  SGD sgd({p.ref("p")}, 0.1, {.momentum = 0.5});
  p.grad(0, 0) = 1.0f;
  sgd.step();  // buf = 1, p = 0.9
  sgd.zero_grad();
  EXPECT_EQ(p.grad(0, 0), 0.0f);
  sgd.step();  // buf = 0.5·1 + 0 = 0.5, p = 0.85: with a zero gradient the momentum still moves it
  EXPECT_NEAR(p.value(0, 0), 0.85f, 1e-7f);
}

TEST(Optimizer, TrainsALinearLayerOnALine) {
  // y = 2x + 1 from 8 points, mean squared error: ∂L/∂y = 2(y − t)/n; Adam (lr 0.05) finds w ≈ 2, b ≈ 1.
  Rng rng(1);
  Linear linear(1, 1, true, rng);
  Matrix x(8, 1);
  for (int i = 0; i < 8; ++i) x(i, 0) = -1.0f + 0.25f * static_cast<float>(i);
  const Matrix target = (2.0f * x).array() + 1.0f;
  Adam adam(linear.parameters(), {.lr = 0.05});
  for (int step = 0; step < 600; ++step) {
    adam.zero_grad();
    const Matrix d_y = 2.0f * (linear.forward(x) - target) / 8.0f;
    linear.backward(x, d_y);
    adam.step();
  }
  EXPECT_NEAR(linear.weight()(0, 0), 2.0f, 1e-3f);
  EXPECT_NEAR(linear.bias()(0), 1.0f, 1e-3f);
}

// ---------------------------------------------------------------------------------------------------
// PyTorch's trajectories

// Steps weight [2×3] and bias [3] through the fixture's 5 gradients with `make(refs, options)`, comparing
// each step's values with PyTorch's.
template <typename Make>
void expect_trajectory(const Fixture& f, const std::string& name, Make make) {
  Param weight{f.matrix("weight"), {}};
  Vector bias_value = f.vector("bias"), bias_grad;
  auto optimizer = make({weight.ref("weight"), make_parameter("bias", bias_value, bias_grad)},
                        f.json().at(name + "_options"));
  const std::vector<Matrix> w_grads = f.stack("weight_grads"), w_expected = f.stack(name + "_weight");
  const Matrix b_grads = f.matrix("bias_grads"), b_expected = f.matrix(name + "_bias");
  for (std::size_t step = 0; step < w_grads.size(); ++step) {
    optimizer.zero_grad();
    weight.grad = w_grads[step];
    bias_grad = b_grads.row(static_cast<Eigen::Index>(step)).transpose();
    optimizer.step();
    EXPECT_TRUE(MatricesNear(weight.value, w_expected[step], 1e-6f, 1e-6f)) << name << " step " << step + 1;
    EXPECT_TRUE(MatricesNear(bias_value.transpose(), b_expected.row(static_cast<Eigen::Index>(step)), 1e-6f, 1e-6f))
        << name << " step " << step + 1;
  }
}

TEST(OptimizerTorch, SgdTrajectories) {
  const Fixture f("sgd_steps");
  for (const std::string name : f.json().at("cases")) {
    expect_trajectory(f, name, [](std::vector<ParameterRef> refs, const nlohmann::json& o) {
      return SGD(std::move(refs), o.at("lr").get<double>(),
                 {.momentum = o.at("momentum").get<double>(), .dampening = o.at("dampening").get<double>(),
                  .weight_decay = o.at("weight_decay").get<double>(), .nesterov = o.at("nesterov").get<bool>()});
    });
  }
}

TEST(OptimizerTorch, AdamTrajectories) {
  const Fixture f("adam_steps");
  for (const std::string name : f.json().at("cases")) {
    expect_trajectory(f, name, [](std::vector<ParameterRef> refs, const nlohmann::json& o) {
      return Adam(std::move(refs), {.lr = o.at("lr").get<double>(), .beta1 = o.at("beta1").get<double>(),
                                    .beta2 = o.at("beta2").get<double>(), .eps = o.at("eps").get<double>(),
                                    .weight_decay = o.at("weight_decay").get<double>(),
                                    .amsgrad = o.at("amsgrad").get<bool>()});
    });
  }
}

// ---------------------------------------------------------------------------------------------------
// Refused input, snapshots

TEST(Optimizer, ANonFiniteGradientStopsTheStepAndChangesNothing) {
  Param w{Matrix::Ones(2, 3), Matrix::Ones(2, 3)};
  Vector b = Vector::Ones(3), b_grad = Vector::Ones(3);
  Adam adam({w.ref("linear1.weight"), make_parameter("linear1.bias", b, b_grad)});
  b_grad(1) = kNaN;
  expect_error([&] { adam.step(); },
               "Adam::step: the gradient of linear1.bias (3) at [1] is NaN; no parameter was changed");
  EXPECT_EQ(w.value, Matrix::Ones(2, 3));  // the weight, listed first and fine, was not stepped either
  EXPECT_EQ(adam.steps(), 0);
  EXPECT_EQ(adam.state().exp_avg[0], std::vector<float>(6, 0.0f));
  SGD sgd({w.ref("w")}, 0.1);
  w.grad(1, 2) = -std::numeric_limits<float>::infinity();
  expect_error([&] { sgd.step(); }, "SGD::step: the gradient of w (2×3) at (1, 2) is -Inf; no parameter was changed");
}

TEST(Optimizer, AnOverflowingUpdateChangesNothing) {
  Param w{Matrix::Ones(1, 2), Matrix::Ones(1, 2)};
  w.grad(0, 1) = 1e10f;
  SGD sgd({w.ref("w")}, 1e30);
  expect_error([&] { sgd.step(); },
               "SGD::step: updating w (1×2) at (0, 1) overflows float32 (lr × the update is too large); no parameter "
               "was changed");
  EXPECT_EQ(w.value, Matrix::Ones(1, 2));
  w.grad(0, 1) = 1e30f;  // (1 − β2)·g·g = 1e-3·1e30·1e30 overflows
  Adam adam({w.ref("w")});
  expect_error([&] { adam.step(); },
               "Adam::step: updating w (1×2) at (0, 1) gives a float32 overflow (the squared gradient is too large); "
               "no parameter was changed");
  EXPECT_EQ(w.value, Matrix::Ones(1, 2));
  EXPECT_EQ(adam.steps(), 0);
}

TEST(Optimizer, RefusesBadOptionsAndParameterLists) {
  Param w{Matrix::Ones(1, 2), {}};
  const ParameterRef ref = w.ref("w");
  expect_error([] { Adam({}); }, "Adam: the parameter list is empty");
  expect_error([&] { Adam({ref}, {.lr = -0.1}); }, "Adam: lr must be finite and ≥ 0, got -0.1");
  expect_error([&] { Adam({ref}, {.beta1 = 1.0}); }, "Adam: beta1 must be in [0, 1), got 1");
  expect_error([&] { Adam({ref}, {.beta2 = -0.5}); }, "Adam: beta2 must be in [0, 1), got -0.5");
  expect_error([&] { Adam({ref}, {.eps = std::nan("")}); }, "Adam: eps must be finite and ≥ 0, got nan");
  expect_error([&] { Adam({ref}, {.lr = std::numeric_limits<double>::infinity()}); },
               "Adam: lr must be finite and ≥ 0, got inf");
  expect_error([&] { Adam({ref, ref}); },
               "Adam: parameters[1] (w) shares its values with parameters[0] (w): each parameter may be listed once");
  expect_error([&] { SGD({ref}, -1.0); }, "SGD: lr must be finite and ≥ 0, got -1");
  expect_error([&] { SGD({ref}, 0.1, {.momentum = -0.9}); }, "SGD: momentum must be finite and ≥ 0, got -0.9");
  expect_error([&] { SGD({ref}, 0.1, {.nesterov = true}); },
               "SGD: nesterov needs momentum > 0 and dampening = 0, got momentum 0 and dampening 0");
  expect_error([&] { SGD({ParameterRef{"x", nullptr, nullptr, 0, {}}}, 0.1); },
               "SGD: parameters[0] (x) is not a usable view: it needs a value, a gradient and a positive size equal to "
               "its shape's product (make it with make_parameter or a layer's parameters())");
  Adam adam({ref});
  expect_error([&] { adam.set_lr(-1); }, "Adam::set_lr: lr must be finite and ≥ 0, got -1");
  adam.set_lr(0.5);
  EXPECT_EQ(adam.lr(), 0.5);
}

TEST(Optimizer, StateSnapshotsRestoreATrainingRun) {
  for (bool use_adam : {true, false}) {
    Param w{randn(2, 3, 2), {}};
    Adam adam({w.ref("w")}, {.lr = 0.01, .amsgrad = true});
    SGD sgd({w.ref("w")}, 0.1, {.momentum = 0.9});
    const auto step = [&](std::uint64_t seed) {
      const Matrix g = randn(2, 3, seed);
      w.grad = g;  // a copy into the buffer the refs view (moving a temporary in would swap buffers)
      use_adam ? adam.step() : sgd.step();
    };
    step(10);
    step(11);
    const Matrix saved_value = w.value;
    const AdamState saved_adam = adam.state();
    const SGDState saved_sgd = sgd.state();
    for (std::uint64_t s = 12; s < 15; ++s) step(s);
    const Matrix continued = w.value;
    w.value = saved_value;
    use_adam ? adam.load_state(saved_adam) : sgd.load_state(saved_sgd);
    for (std::uint64_t s = 12; s < 15; ++s) step(s);
    EXPECT_EQ(w.value, continued) << (use_adam ? "Adam" : "SGD");
  }
  Param w{Matrix::Ones(1, 2), {}};
  Adam adam({w.ref("w")});
  AdamState bad = adam.state();
  bad.exp_avg_sq[0][1] = -1.0f;
  expect_error([&] { adam.load_state(bad); },
               "Adam::load_state: exp_avg_sq[0] for w (1×2) at (0, 1) is -1 (it must be finite and ≥ 0)");
  bad = adam.state();
  bad.exp_avg[0].pop_back();
  expect_error([&] { adam.load_state(bad); }, "Adam::load_state: exp_avg[0] has 1 values but w has 2");
  SGD sgd({w.ref("w")}, 0.1);
  expect_error([&] { sgd.load_state({}); }, "SGD::load_state: momentum_buffer has 0 entries but the optimizer has 1 parameters");
}

}  // namespace
}  // namespace attnlab
