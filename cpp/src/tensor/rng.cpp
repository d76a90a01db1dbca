#include "attnlab/tensor/rng.hpp"

#include <cmath>

#include "tensor/checks.hpp"

namespace attnlab {

namespace {
constexpr std::uint64_t kPcgMultiplier = 6364136223846793005ULL;
}

Rng::Rng(std::uint64_t seed, std::uint64_t stream) : increment_((stream << 1u) | 1u) {
  // pcg32_srandom_r: step once from 0, add the seed, step again.
  next_u32();
  state_ += seed;
  next_u32();
}

Rng Rng::from_state(const State& state) {
  if (state.increment % 2 == 0) detail::fail("Rng::from_state", "increment must be odd (a PCG stream), got ", state.increment);
  Rng rng;
  rng.state_ = state.state;
  rng.increment_ = state.increment;
  return rng;
}

std::uint32_t Rng::next_u32() {
  const std::uint64_t old = state_;
  state_ = old * kPcgMultiplier + increment_;
  const auto xorshifted = static_cast<std::uint32_t>(((old >> 18u) ^ old) >> 27u);
  const auto rotation = static_cast<std::uint32_t>(old >> 59u);
  return (xorshifted >> rotation) | (xorshifted << ((32u - rotation) & 31u));
}

float Rng::uniform() { return static_cast<float>(next_u32() >> 8) * 0x1.0p-24f; }

float Rng::uniform(float low, float high) { return low + (high - low) * uniform(); }

double Rng::uniform_double() {
  const std::uint32_t high = next_u32() >> 5;  // 27 bits
  const std::uint32_t low = next_u32() >> 6;   // 26 bits
  return (static_cast<double>(high) * 67108864.0 + static_cast<double>(low)) * 0x1.0p-53;
}

double portable_log(double x) {
  if (!(x > 0.0) || !std::isfinite(x)) detail::fail("portable_log", "x must be positive and finite, got ", x);
  // x = m·2^e with m in [√½, √2), then ln m = 2·atanh(t) = 2(t + t³/3 + t⁵/5 + …), t = (m−1)/(m+1),
  // |t| ≤ 0.172, so 14 terms reach below double rounding. frexp and ldexp are exact.
  int exponent = 0;
  double mantissa = std::frexp(x, &exponent);
  if (mantissa < 0.70710678118654752440) {
    mantissa *= 2.0;
    exponent -= 1;
  }
  const double t = (mantissa - 1.0) / (mantissa + 1.0);
  const double t_squared = t * t;
  double power = t;
  double series = 0.0;
  for (int k = 0; k < 14; ++k) {
    series += power / static_cast<double>(2 * k + 1);
    power *= t_squared;
  }
  constexpr double kLn2 = 0.69314718055994530942;
  return 2.0 * series + static_cast<double>(exponent) * kLn2;
}

float Rng::normal(float mean, float stddev) {
  // Marsaglia polar: (u, v) uniform in the unit disc, z = u·√(−2 ln s / s) with s = u² + v².
  for (;;) {
    const double u = 2.0 * uniform_double() - 1.0;
    const double v = 2.0 * uniform_double() - 1.0;
    const double s = u * u + v * v;
    if (s > 0.0 && s < 1.0) {
      const double z = u * std::sqrt(-2.0 * portable_log(s) / s);
      return static_cast<float>(static_cast<double>(mean) + static_cast<double>(stddev) * z);
    }
  }
}

namespace {
// rows×cols filled in row-major order from `draw`, after checking the sizes and parameters.
template <typename Draw>
Matrix filled(std::string_view function, int rows, int cols, float a, float b, const char* a_name,
              const char* b_name, Draw&& draw) {
  detail::require_positive(function, "rows", rows);
  detail::require_positive(function, "cols", cols);
  detail::require_finite(function, a_name, a);
  detail::require_finite(function, b_name, b);
  detail::require_within_budget(function, 1, rows, cols, "the matrix");
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = draw();
  return m;
}
}  // namespace

Matrix Rng::uniform_matrix(int rows, int cols, float low, float high) {
  return filled("Rng::uniform_matrix", rows, cols, low, high, "low", "high", [&] { return uniform(low, high); });
}

Matrix Rng::normal_matrix(int rows, int cols, float mean, float stddev) {
  return filled("Rng::normal_matrix", rows, cols, mean, stddev, "mean", "stddev", [&] { return normal(mean, stddev); });
}

Matrix randn(int rows, int cols, std::uint64_t seed) {
  detail::require_within_budget("randn", 1, rows, cols, "the matrix");
  Rng rng(seed);
  return rng.normal_matrix(rows, cols);
}

}  // namespace attnlab
