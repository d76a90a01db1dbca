// Seeded random tensors, tensors read from the PyTorch fixtures, and how far a result is from PyTorch's: shared by the
// batched attention and batched multi-head tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attnlab/tensor/rng.hpp"
#include "attnlab/tensor/tensor.hpp"
#include "fixture.hpp"

namespace attnlab::testing {

// Standard normals from Rng(seed), in row-major order.
inline Tensor randn_tensor(const Shape& shape, std::uint64_t seed) {
  Rng rng(seed);
  std::int64_t count = 1;
  for (std::int64_t size : shape) count *= size;
  std::vector<float> values(static_cast<std::size_t>(count));
  for (float& x : values) x = rng.normal();
  return Tensor(shape, values);
}

// A fixture entry { "shape": [...], "data": [...] } as a Tensor.
inline Tensor fixture_tensor(const Fixture& f, const std::string& key) {
  const nlohmann::json& t = f.json().at(key);
  return Tensor(t.at("shape").get<Shape>(), t.at("data").get<std::vector<float>>());
}

// How far results are from the reference, over every entry added: the largest |actual − expected|,
// that over the largest |expected| (normwise), |actual − expected| / |expected| entry by entry where
// |expected| ≥ 1e-3 (an entry near 0 is a sum that cancelled, and its float32 rounding is relative to
// the terms, not the sum), and whether every entry is within 1e-6 + 1e-5·|expected|.
struct Agreement {
  double max_absolute = 0.0, largest = 0.0, max_relative = 0.0;
  bool within = true;

  void add(const float* actual, const float* expected, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      const double e = expected[i], diff = std::fabs(static_cast<double>(actual[i]) - e);
      max_absolute = std::max(max_absolute, diff);
      largest = std::max(largest, std::fabs(e));
      if (std::fabs(e) >= 1e-3) max_relative = std::max(max_relative, diff / std::fabs(e));
      within = within && diff <= 1e-6 + 1e-5 * std::fabs(e);
    }
  }
  void add(const Matrix& actual, const Matrix& expected) {
    EXPECT_EQ(actual.rows(), expected.rows());
    EXPECT_EQ(actual.cols(), expected.cols());
    if (actual.size() == expected.size()) add(actual.data(), expected.data(), static_cast<std::size_t>(actual.size()));
  }
  void add(const Tensor& actual, const Tensor& expected) {
    EXPECT_EQ(actual.shape(), expected.shape());
    const std::vector<float> a = actual.to_vector(), e = expected.to_vector();
    add(a.data(), e.data(), std::min(a.size(), e.size()));
  }
  double normwise() const { return largest > 0.0 ? max_absolute / largest : 0.0; }
  std::string describe() const {
    char text[128];
    std::snprintf(text, sizeof text, "max abs %.3g, normwise rel %.3g, entrywise rel %.3g", max_absolute, normwise(),
                  max_relative);
    return text;
  }
};

// The agreement of one result with its reference.
inline Agreement agreement_of(const Tensor& actual, const Tensor& expected) {
  Agreement a;
  a.add(actual, expected);
  return a;
}

}  // namespace attnlab::testing
