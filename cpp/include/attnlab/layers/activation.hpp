// Elementwise activations of the feed-forward network, and their derivatives for the backward pass.
#pragma once

#include "attnlab/tensor/api.hpp"

#include "attnlab/tensor/matrix.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

enum class Activation {
  gelu,       // x·Φ(x) = ½x(1 + erf(x/√2)), exact (PyTorch's default GELU)
  gelu_tanh,  // ½x(1 + tanh(√(2/π)(x + 0.044715x³))), GELU(approximate='tanh')
  relu,
};

// Elementwise activation of any matrix.
Matrix activate(const Matrix& x, Activation activation);

// x [rows×cols] (activate's input), d_y [rows×cols] = ∂L/∂activate(x) → ∂L/∂x = d_y ⊙ activation′(x),
// the derivative evaluated in double precision. ReLU′(0) = 0, as PyTorch's autograd has it.
Matrix activation_backward(const Matrix& x, const Matrix& d_y, Activation activation);

}  // namespace attnlab
ATTNLAB_API_END
