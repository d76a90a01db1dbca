// Internal helpers for the layers' backward passes: gradients are accumulated (PyTorch semantics)
// only after every check of the call has passed, so a backward call that throws changes nothing.
#pragma once

#include <cmath>
#include <string_view>

#include "attnlab/layers/activation.hpp"
#include "attnlab/tensor/matrix.hpp"
#include "tensor/checks.hpp"

namespace attnlab::detail {

// `increment`, and `grad` (empty until the first backward) + `increment`, must be finite: an
// overflow is an Error naming where, raised before anything is added. `what` names the gradient.
template <typename Dense>
void require_finite_sum(std::string_view function, std::string_view what, const Dense& grad,
                        const Dense& increment) {
  for (Eigen::Index r = 0; r < increment.rows(); ++r)
    for (Eigen::Index c = 0; c < increment.cols(); ++c) {
      if (!std::isfinite(increment(r, c))) fail(function, what, " overflows float32 at (", r, ", ", c, ")");
      if (grad.size() != 0 && !std::isfinite(grad(r, c) + increment(r, c)))
        fail(function, what, " overflows float32 at (", r, ", ", c,
             ") once added to the gradient accumulated so far");
    }
}

// grad += increment, allocating grad as zeros first (its first backward). Cannot fail.
template <typename Dense>
void accumulate(Dense& grad, const Dense& increment) {
  if (grad.size() == 0) grad = Dense::Zero(increment.rows(), increment.cols());
  grad += increment;
}

// activation_backward (activation.hpp) with errors named after `function`, for the layers that call it.
Matrix activation_backward(std::string_view function, const Matrix& x, const Matrix& d_y, Activation activation);

}  // namespace attnlab::detail
