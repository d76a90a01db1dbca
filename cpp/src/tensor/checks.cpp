#include "tensor/checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace attnlab {

std::string shape_of(const Matrix& m) {
  return std::to_string(m.rows()) + "×" + std::to_string(m.cols());
}

std::string shape_of(const Vector& v) { return std::to_string(v.size()); }

namespace detail {

void require_positive(std::string_view function, std::string_view argument, long long value) {
  if (value <= 0) fail(function, argument, " must be positive, got ", value);
}

void require_non_empty(std::string_view function, std::string_view argument, const Matrix& m) {
  if (m.rows() == 0 || m.cols() == 0)
    fail(function, argument, " is ", shape_of(m), " (it must have at least one row and one column)");
}

namespace {
// The first non-finite entry, reported as "NaN at (row, col)" so the learner can find it.
template <typename Dense>
void require_finite_entries(std::string_view function, std::string_view argument,
                            const Dense& values, const std::string& shape) {
  for (Eigen::Index r = 0; r < values.rows(); ++r)
    for (Eigen::Index c = 0; c < values.cols(); ++c) {
      const float x = values(r, c);
      if (!std::isfinite(x))
        fail(function, argument, " (", shape, ") contains ", std::isnan(x) ? "NaN" : (x > 0 ? "+Inf" : "-Inf"),
             " at (", r, ", ", c, ")");
    }
}
}  // namespace

// True when no entry is NaN or ±Inf: the exponent bits of every value are not all ones. A plain
// loop over the bits that ORs one flag per value, which compilers vectorise with any instruction set
// (Eigen's allFinite() is not vectorised in wasm; an unsigned max is not with x86-64's baseline SSE2).
bool all_finite(const float* values, Eigen::Index count) {
  std::uint32_t special = 0;
  for (Eigen::Index i = 0; i < count; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, values + i, sizeof bits);
    special |= static_cast<std::uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  return special == 0;
}

// For finite floats, |x| orders like the bits of x with the sign cleared, read as an integer (the
// exponent is the high field), and NaN and ±Inf sort above every finite value: one integer max over
// the bits, which compilers vectorise (Eigen's cwiseAbs().maxCoeff() is scalar in wasm).
float max_magnitude(const float* values, Eigen::Index count) {
  std::int32_t largest = 0;
  for (Eigen::Index i = 0; i < count; ++i) {
    std::int32_t bits;
    std::memcpy(&bits, values + i, sizeof bits);
    largest = std::max(largest, bits & 0x7fffffff);
  }
  if (largest >= 0x7f800000) return std::numeric_limits<float>::infinity();
  float magnitude;
  std::memcpy(&magnitude, &largest, sizeof magnitude);
  return magnitude;
}

void require_finite(std::string_view function, std::string_view argument, const Matrix& m) {
  if (!all_finite(m.data(), m.size())) require_finite_entries(function, argument, m, shape_of(m));
}

void require_finite(std::string_view function, std::string_view argument, const Vector& v) {
  if (!all_finite(v.data(), v.size())) require_finite_entries(function, argument, v, shape_of(v));
}

void require_finite(std::string_view function, std::string_view argument, double value) {
  if (!std::isfinite(value)) fail(function, argument, " must be finite, got ", value);
}

void require_shape(std::string_view function, std::string_view argument, const Matrix& m,
                   Eigen::Index rows, Eigen::Index cols) {
  if (m.rows() != rows || m.cols() != cols)
    fail(function, argument, " is ", shape_of(m), " but must be ", rows, "×", cols);
}

void require_size(std::string_view function, std::string_view argument, const Vector& v,
                  Eigen::Index size) {
  if (v.size() != size) fail(function, argument, " has ", v.size(), " entries but must have ", size);
}

void require_mask(std::string_view function, std::string_view argument, const Matrix& mask,
                  Eigen::Index n_q, Eigen::Index n_k) {
  if (mask.rows() != n_q || mask.cols() != n_k)
    fail(function, argument, " is ", shape_of(mask), " but must be n_q×n_k = ", n_q, "×", n_k);
  for (Eigen::Index r = 0; r < mask.rows(); ++r)
    for (Eigen::Index c = 0; c < mask.cols(); ++c) {
      const float x = mask(r, c);
      if (x != 0.0f && x != 1.0f)
        fail(function, argument, " (", shape_of(mask), ") must hold only 1 (may attend) and 0 (blocked), got ",
             x, " at (", r, ", ", c, ")");
    }
}

void require_finite_result(std::string_view function, const Matrix& result, std::string_view cause) {
  if (all_finite(result.data(), result.size())) return;
  for (Eigen::Index r = 0; r < result.rows(); ++r)
    for (Eigen::Index c = 0; c < result.cols(); ++c)
      if (!std::isfinite(result(r, c)))
        fail(function, "the result overflows float32 at (", r, ", ", c, "): ", cause);
}

void require_probability(std::string_view function, std::string_view argument, float p) {
  if (!(p >= 0.0f && p < 1.0f)) fail(function, argument, " must be in [0, 1), got ", p);
}

}  // namespace detail
}  // namespace attnlab
