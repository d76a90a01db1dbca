#include "attnlab/layers/feed_forward.hpp"

#include "attnlab/attention/dropout.hpp"
#include "attnlab/tensor/rng.hpp"
#include "tensor/checks.hpp"
#include "layers/gradients.hpp"

namespace attnlab {

namespace {
const char* name_of(Activation a) {
  switch (a) {
    case Activation::gelu: return "GELU";
    case Activation::gelu_tanh: return "GELU (tanh approximation)";
    case Activation::relu: return "ReLU";
  }
  return "?";
}
}  // namespace

FeedForward::FeedForward(int d_model, int d_ff, Activation activation, bool bias, Rng& rng)
    : linear1_(d_model, d_ff, bias, rng), linear2_(d_ff, d_model, bias, rng), activation_(activation) {}

Matrix FeedForward::forward(const Matrix& x, const Tracer& tracer, float dropout_p, Rng* rng) const {
  return run(x, tracer, dropout_p, rng, nullptr);
}

Matrix FeedForward::forward(const Matrix& x, FeedForwardCache& cache, const Tracer& tracer, float dropout_p,
                            Rng* rng) const {
  return run(x, tracer, dropout_p, rng, &cache);
}

Matrix FeedForward::run(const Matrix& x, const Tracer& tracer, float dropout_p, Rng* rng,
                        FeedForwardCache* cache) const {
  // x [n×d_model] → hidden [n×d_ff] → [n×d_model]
  Matrix hidden = linear1_.forward(x);
  if (tracer.enabled())
    tracer.record("linear1", "Expand: linear1",
                "Each token is mapped to d_ff = " + std::to_string(hidden.cols()) + " hidden features: [" +
                    shape_of(hidden) + "].",
                {{"hidden", hidden}});
  Matrix activated = activate(hidden, activation_);
  if (tracer.enabled())
    tracer.record("activation", name_of(activation_),
                std::string(name_of(activation_)) + " applied elementwise: the non-linearity of the block.",
                {{"activated", activated}});
  Matrix dropout_scale;
  if (dropout_p > 0.0f && rng) {
    // With a cache, dropout also keeps its pattern (the same draws and values) for backward.
    activated = cache ? dropout(activated, dropout_p, *rng, dropout_scale) : dropout(activated, dropout_p, *rng);
    tracer.record("dropout", "Dropout", "Training only: hidden features dropped at random.", {{"activated", activated}});
  }
  Matrix out = linear2_.forward(activated);
  if (tracer.enabled())
    tracer.record("linear2", "Project back: linear2",
                "Back to d_model = " + std::to_string(out.cols()) + " features per token: [" + shape_of(out) + "].",
                {{"output", out}});
  if (cache) *cache = {x, std::move(hidden), std::move(activated), std::move(dropout_scale)};
  return out;
}

Matrix FeedForward::backward(const FeedForwardCache& cache, const Matrix& d_out) {
  // cache (x [n×d_model], hidden and activated [n×d_ff]), d_out [n×d_model] → d_x [n×d_model]
  const char* fn = "FeedForward::backward";
  const Eigen::Index d_ff = linear1_.out_features();
  if (cache.x.rows() == 0 || cache.x.cols() != linear1_.in_features() || cache.hidden.rows() != cache.x.rows() ||
      cache.hidden.cols() != d_ff || cache.activated.rows() != cache.x.rows() || cache.activated.cols() != d_ff)
    detail::fail(fn, "the cache (x ", shape_of(cache.x), ", hidden ", shape_of(cache.hidden), ", activated ",
                 shape_of(cache.activated), ") does not come from this layer's forward(x, cache) (d_model ",
                 linear1_.in_features(), ", d_ff ", d_ff, ")");
  if (cache.dropout_scale.size() != 0) {
    detail::require_shape(fn, "the cache's dropout_scale", cache.dropout_scale, cache.x.rows(), d_ff);
    detail::require_finite(fn, "the cache's dropout_scale", cache.dropout_scale);
  }
  if (d_out.rows() != cache.x.rows() || d_out.cols() != cache.x.cols())
    detail::fail(fn, "d_out is ", shape_of(d_out), " but must be n×d_model = ", shape_of(cache.x), " (the cache's x)");
  detail::require_finite(fn, "d_out", d_out);
  detail::require_within_budget(fn, 3, static_cast<double>(cache.x.rows()), static_cast<double>(d_ff),
                                "the hidden gradients");
  // out = linear2(activated)  ⇒  ∂L/∂activated = d_out·W2, and linear2's weight and bias gradients
  Linear::Gradients g2 = linear2_.gradients(cache.activated, d_out, fn);
  Matrix& d_activated = g2.d_x;
  // activated = activate(hidden) ⊙ dropout_scale  ⇒  ∂L/∂activate(hidden) = ∂L/∂activated ⊙ dropout_scale
  if (cache.dropout_scale.size() != 0) {
    d_activated.array() *= cache.dropout_scale.array();
    detail::require_finite_result(fn, d_activated, "d_out·W2 scaled by 1/(1 − p) is too large");
  }
  // activated = activate(hidden)  ⇒  ∂L/∂hidden = ∂L/∂activated ⊙ activate′(hidden)
  const Matrix d_hidden = detail::activation_backward(fn, cache.hidden, d_activated, activation_);
  // hidden = linear1(x)  ⇒  ∂L/∂x = ∂L/∂hidden·W1, and linear1's weight and bias gradients
  Linear::Gradients g1 = linear1_.gradients(cache.x, d_hidden, fn);
  // Every check has passed: only now do the gradients change.
  linear2_.accumulate(g2);
  linear1_.accumulate(g1);
  return std::move(g1.d_x);
}

void FeedForward::zero_grad() {
  linear1_.zero_grad();
  linear2_.zero_grad();
}

std::vector<ParameterRef> FeedForward::parameters(std::string_view prefix) {
  std::vector<ParameterRef> refs = linear1_.parameters(parameter_name(prefix, "linear1"));
  append_parameters(refs, linear2_.parameters(parameter_name(prefix, "linear2")));
  return refs;
}

}  // namespace attnlab
