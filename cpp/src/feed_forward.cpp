#include "attnlab/feed_forward.hpp"

#include <cmath>

#include "attnlab/dropout.hpp"
#include "attnlab/rng.hpp"
#include "checks.hpp"

namespace attnlab {

namespace {
float gelu_exact(float x) { return static_cast<float>(0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)))); }

float gelu_tanh(float x) {
  const double k = std::sqrt(2.0 / 3.14159265358979323846);
  const double xd = x;
  return static_cast<float>(0.5 * xd * (1.0 + std::tanh(k * (xd + 0.044715 * xd * xd * xd))));
}

const char* name_of(Activation a) {
  switch (a) {
    case Activation::gelu: return "GELU";
    case Activation::gelu_tanh: return "GELU (tanh approximation)";
    case Activation::relu: return "ReLU";
  }
  return "?";
}
}  // namespace

Matrix activate(const Matrix& x, Activation activation) {
  switch (activation) {
    case Activation::gelu: return x.unaryExpr(&gelu_exact);
    case Activation::gelu_tanh: return x.unaryExpr(&gelu_tanh);
    case Activation::relu: return x.cwiseMax(0.0f);
  }
  detail::fail("activate", "unknown activation ", static_cast<int>(activation));
}

FeedForward::FeedForward(int d_model, int d_ff, Activation activation, bool bias, Rng& rng)
    : linear1_(d_model, d_ff, bias, rng), linear2_(d_ff, d_model, bias, rng), activation_(activation) {}

Matrix FeedForward::forward(const Matrix& x, const Tracer& tracer, float dropout_p, Rng* rng) const {
  // x [n×d_model] → hidden [n×d_ff] → [n×d_model]
  const Matrix hidden = linear1_.forward(x);
  tracer.record("linear1", "Expand: linear1",
                "Each token is mapped to d_ff = " + std::to_string(hidden.cols()) + " hidden features: [" +
                    shape_of(hidden) + "].",
                {{"hidden", hidden}});
  Matrix activated = activate(hidden, activation_);
  tracer.record("activation", name_of(activation_),
                std::string(name_of(activation_)) + " applied elementwise: the non-linearity of the block.",
                {{"activated", activated}});
  if (dropout_p > 0.0f && rng) {
    activated = dropout(activated, dropout_p, *rng);
    tracer.record("dropout", "Dropout", "Training only: hidden features dropped at random.", {{"activated", activated}});
  }
  const Matrix out = linear2_.forward(activated);
  tracer.record("linear2", "Project back: linear2",
                "Back to d_model = " + std::to_string(out.cols()) + " features per token: [" + shape_of(out) + "].",
                {{"output", out}});
  return out;
}

}  // namespace attnlab
