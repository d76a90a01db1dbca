#include "attnlab/attention/positional.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "tensor/checks.hpp"

namespace attnlab {

Matrix sinusoidal_encoding(int seq_len, int d_model, double base) {
  detail::require_positive("sinusoidal_encoding", "seq_len", seq_len);
  detail::require_positive("sinusoidal_encoding", "d_model", d_model);
  if (!(base > 1.0) || !std::isfinite(base))
    detail::fail("sinusoidal_encoding", "base must be finite and > 1, got ", base);
  detail::require_within_budget("sinusoidal_encoding", 1, seq_len, d_model, "the encoding");
  Matrix pe(seq_len, d_model);
  for (int p = 0; p < seq_len; ++p)
    for (int i = 0; 2 * i < d_model; ++i) {
      const double angle = p / std::pow(base, 2.0 * i / d_model);
      pe(p, 2 * i) = static_cast<float>(std::sin(angle));
      if (2 * i + 1 < d_model) pe(p, 2 * i + 1) = static_cast<float>(std::cos(angle));
    }
  return pe;
}

namespace {
// Rotates each column pair of row r by direction·(r + offset)·θ_i (direction +1 forward, −1 backward).
Matrix rotate_pairs(const char* function, const Matrix& x, int position_offset, double base, double direction) {
  // x [n×d] → [n×d]; pair (2i, 2i+1) of row r rotated by (r + offset)·base^(−2i/d).
  detail::require_non_empty(function, "x", x);
  if (x.cols() % 2 != 0)
    detail::fail(function, "x is ", shape_of(x), " but RoPE rotates column pairs, so d must be even");
  if (position_offset < 0) detail::fail(function, "position_offset must be ≥ 0, got ", position_offset);
  if (!(base > 1.0) || !std::isfinite(base)) detail::fail(function, "base must be finite and > 1, got ", base);
  detail::require_finite(function, "x", x);
  const auto d = x.cols();
  Matrix out(x.rows(), d);
  for (Eigen::Index r = 0; r < x.rows(); ++r)
    for (Eigen::Index i = 0; 2 * i < d; ++i) {
      const double angle = direction * (static_cast<double>(r) + position_offset) * std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d));
      const double c = std::cos(angle), s = std::sin(angle);
      const double a = x(r, 2 * i), b = x(r, 2 * i + 1);
      const double first = a * c - b * s, second = a * s + b * c;
      // A pair's length is kept, but one coordinate can grow by up to √2: near FLT_MAX that overflows.
      if (std::max(std::abs(first), std::abs(second)) > std::numeric_limits<float>::max())
        detail::fail(function, "rotating x's row ", r, ", columns ", 2 * i, "–", 2 * i + 1,
                     " overflows float32 (entries near 3.4e38 are too large)");
      out(r, 2 * i) = static_cast<float>(first);
      out(r, 2 * i + 1) = static_cast<float>(second);
    }
  return out;
}
}  // namespace

Matrix apply_rotary(const Matrix& x, int position_offset, double base) {
  return rotate_pairs("apply_rotary", x, position_offset, base, 1.0);
}

Matrix apply_rotary_backward(const Matrix& d_y, int position_offset, double base) {
  // y = R(θ)·x per pair ⇒ ∂L/∂x = R(θ)ᵀ·∂L/∂y = R(−θ)·∂L/∂y
  return rotate_pairs("apply_rotary_backward", d_y, position_offset, base, -1.0);
}

namespace {
// Slopes for a power-of-two head count n: start = 2^(−8/n), slope_h = start^(h+1).
std::vector<double> power_of_two_slopes(int n) {
  const double start = std::pow(2.0, -8.0 / n);
  std::vector<double> slopes(static_cast<std::size_t>(n));
  for (int h = 0; h < n; ++h) slopes[static_cast<std::size_t>(h)] = std::pow(start, h + 1);
  return slopes;
}
}  // namespace

std::vector<float> alibi_slopes(int num_heads) {
  detail::require_positive("alibi_slopes", "num_heads", num_heads);
  // Working doubles for up to 3·num_heads slopes: 6 floats' worth per head.
  detail::require_within_budget("alibi_slopes", 6, 1, num_heads, "the slopes");
  int closest = 1;
  while (closest <= num_heads / 2) closest *= 2;  // (closest * 2 <= num_heads could overflow)
  std::vector<double> slopes = power_of_two_slopes(closest);
  // Not a power of two: take every other slope of the next power of two for the remaining heads.
  const std::vector<double> extra = power_of_two_slopes(2 * closest);
  for (int h = 0; static_cast<int>(slopes.size()) < num_heads; ++h)
    slopes.push_back(extra[static_cast<std::size_t>(2 * h)]);
  return {slopes.begin(), slopes.end()};
}

Matrix alibi_bias(int n_q, int n_k, float slope) {
  detail::require_positive("alibi_bias", "n_q", n_q);
  detail::require_positive("alibi_bias", "n_k", n_k);
  detail::require_finite("alibi_bias", "slope", slope);
  detail::require_within_budget("alibi_bias", 1, n_q, n_k, "the bias");
  const int offset = n_k - n_q;
  // Query positions run offset … n_q − 1 + offset, keys 0 … n_k − 1: the farthest pair is at a corner.
  const double farthest = std::max(n_q - 1 + offset, n_k - 1 - offset);
  if (std::abs(static_cast<double>(slope)) * farthest > std::numeric_limits<float>::max())
    detail::fail("alibi_bias", "slope ", slope, " × distance ", farthest, " overflows float32");
  Matrix bias(n_q, n_k);
  for (int i = 0; i < n_q; ++i)
    for (int j = 0; j < n_k; ++j) {
      const int distance = std::abs(i + offset - j);
      bias(i, j) = distance == 0 ? 0.0f : -slope * static_cast<float>(distance);  // +0, not −0, on the diagonal
    }
  return bias;
}

}  // namespace attnlab
