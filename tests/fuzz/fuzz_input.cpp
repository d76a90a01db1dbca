#include "fuzz_input.hpp"

#include <cfloat>
#include <climits>
#include <limits>

namespace attnlab::fuzz {

int FuzzInput::size(int typical_max) {
  switch (bytes_.ConsumeIntegralInRange(0, 15)) {
    case 0: return 0;
    case 1: return -bytes_.ConsumeIntegralInRange(1, 1 << 20);
    case 2: return bytes_.ConsumeIntegralInRange(1 << 15, INT_MAX);
    case 3: return INT_MAX;
    default: return bytes_.ConsumeIntegralInRange(1, typical_max);
  }
}

int FuzzInput::dim(int max) {
  return bytes_.ConsumeIntegralInRange(0, 15) == 0 ? 0 : bytes_.ConsumeIntegralInRange(1, max);
}

float FuzzInput::value() {
  switch (bytes_.ConsumeIntegralInRange(0, 63)) {
    case 0: return std::numeric_limits<float>::quiet_NaN();
    case 1: return std::numeric_limits<float>::infinity();
    case 2: return -std::numeric_limits<float>::infinity();
    case 3: return std::numeric_limits<float>::denorm_min();
    case 4: return FLT_MAX;
    case 5: return -FLT_MAX;
    case 6: return -0.0f;
    case 7: return 1e30f;
    default: return static_cast<float>(bytes_.ConsumeIntegral<std::int16_t>()) / 4096.0f;  // [−8, 8)
  }
}

Matrix FuzzInput::matrix(int rows, int cols) {
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = value();
  return m;
}

Vector FuzzInput::vector(int size) {
  Vector v(size);
  for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = value();
  return v;
}

Matrix FuzzInput::mask(int rows, int cols) {
  Matrix m = Matrix::Ones(rows, cols);
  switch (choice(4)) {
    case 0: break;  // everything visible
    case 1: m.setZero(); break;  // everything blocked: weights and output must be 0, not NaN
    case 2:
      for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = flag() ? 1.0f : 0.0f;
      break;
    default:
      if (m.size() > 0) m.data()[bytes_.ConsumeIntegralInRange<Eigen::Index>(0, m.size() - 1)] = value();
  }
  return m;
}

}  // namespace attnlab::fuzz
