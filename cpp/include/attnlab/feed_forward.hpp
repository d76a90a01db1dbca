// Position-wise feed-forward network: Linear(d_model→d_ff) → activation → Linear(d_ff→d_model),
// applied to every row (token) on its own.
#pragma once

#include <cstdint>

#include "attnlab/linear.hpp"
#include "attnlab/matrix.hpp"
#include "attnlab/trace.hpp"

namespace attnlab {

class Rng;

enum class Activation {
  gelu,       // x·Φ(x) = ½x(1 + erf(x/√2)), exact (PyTorch's default GELU)
  gelu_tanh,  // ½x(1 + tanh(√(2/π)(x + 0.044715x³))), GELU(approximate='tanh')
  relu,
};

// Elementwise activation of any matrix.
Matrix activate(const Matrix& x, Activation activation);

class FeedForward {
 public:
  FeedForward(int d_model, int d_ff, Activation activation, bool bias, Rng& rng);

  // x [n×d_model] → [n×d_model]. `dropout`/`rng`: dropout after the activation (training only).
  // Traced steps: linear1, activation, (dropout), linear2.
  Matrix forward(const Matrix& x, const Tracer& tracer = {}, float dropout = 0.0f, Rng* rng = nullptr) const;

  Linear& linear1() { return linear1_; }
  Linear& linear2() { return linear2_; }
  const Linear& linear1() const { return linear1_; }
  const Linear& linear2() const { return linear2_; }
  Activation activation() const { return activation_; }
  std::int64_t parameter_count() const { return linear1_.parameter_count() + linear2_.parameter_count(); }

 private:
  Linear linear1_, linear2_;
  Activation activation_;
};

}  // namespace attnlab
