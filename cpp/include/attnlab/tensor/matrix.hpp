// The one numeric type of attnlab: a float32, row-major matrix (the layout JS and PyTorch use).
#pragma once

#include "attnlab/tensor/api.hpp"

#include <Eigen/Core>
#include <string>

ATTNLAB_API_BEGIN
namespace attnlab {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXf;  // biases and norm parameters; empty means "none"

// "5×8": how shapes appear in every error message and trace explanation.
std::string shape_of(const Matrix& m);
std::string shape_of(const Vector& v);  // "8"

}  // namespace attnlab
ATTNLAB_API_END
