#include <gtest/gtest.h>

#include <cmath>

#include "attnlab/tensor/error.hpp"
#include "attnlab/tensor/rng.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

TEST(Rng, Pcg32MatchesThePublishedReferenceDemo) {
  // pcg32-demo from pcg-random.org: pcg32_srandom_r(&rng, 42u, 54u) then pcg32_random_r.
  Rng rng(42, 54);
  for (std::uint32_t expected : {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u, 0x83d2f293u, 0xbfa4784bu, 0xcbed606eu})
    EXPECT_EQ(rng.next_u32(), expected);
}

TEST(Rng, StreamsAreBitIdenticalToTheIndependentPythonImplementation) {
  const testing::Fixture f("rng");
  for (const auto& stream : f.json().at("streams")) {
    const auto seed = stream.at("seed").get<std::uint64_t>();
    const auto pcg_stream = stream.at("stream").get<std::uint64_t>();
    SCOPED_TRACE(std::to_string(seed) + " stream " + std::to_string(pcg_stream));
    Rng bits(seed, pcg_stream), uniforms(seed, pcg_stream), normals(seed, pcg_stream);
    for (auto expected : stream.at("u32")) EXPECT_EQ(bits.next_u32(), expected.get<std::uint32_t>());
    for (auto expected : stream.at("uniform")) EXPECT_EQ(uniforms.uniform(), expected.get<float>());
    for (auto expected : stream.at("normal")) EXPECT_EQ(normals.normal(), expected.get<float>());
  }
}

TEST(Rng, PortableLogIsBitIdenticalToReferenceAndAccurate) {
  const testing::Fixture f("rng");
  const auto& points = f.json().at("log");
  for (std::size_t i = 0; i < points.at("x").size(); ++i) {
    const double x = points.at("x")[i].get<double>();
    EXPECT_EQ(portable_log(x), points.at("ln")[i].get<double>()) << x;
    EXPECT_NEAR(portable_log(x), std::log(x), 1e-15 * std::max(1.0, std::abs(std::log(x))));
  }
}

TEST(Rng, UniformAndNormalHaveTheRightMoments) {
  Rng rng(7);
  const int n = 200000;
  double u_sum = 0, z_sum = 0, z_sq = 0;
  float u_min = 1, u_max = 0;
  for (int i = 0; i < n; ++i) {
    const float u = rng.uniform();
    u_min = std::min(u_min, u);
    u_max = std::max(u_max, u);
    u_sum += u;
    const double z = rng.normal();
    z_sum += z;
    z_sq += z * z;
  }
  EXPECT_GE(u_min, 0.0f);
  EXPECT_LT(u_max, 1.0f);
  EXPECT_NEAR(u_sum / n, 0.5, 0.005);  // σ/√n ≈ 0.0006
  EXPECT_NEAR(z_sum / n, 0.0, 0.01);   // ≈ 0.0022
  EXPECT_NEAR(z_sq / n, 1.0, 0.02);    // ≈ 0.0032
}

TEST(Rng, UniformRangeAndMatricesMatchThePythonImplementation) {
  const testing::Fixture f("rng");
  const auto& range = f.json().at("uniform_range");
  const auto low = range.at("low").get<float>(), high = range.at("high").get<float>();
  Rng rng(range.at("seed").get<std::uint64_t>());
  for (auto expected : range.at("values")) EXPECT_EQ(rng.uniform(low, high), expected.get<float>());
  // uniform_matrix fills row-major: (0,0), (0,1), (0,2), (1,0), …
  Rng matrix_rng(range.at("seed").get<std::uint64_t>());
  const Matrix m = matrix_rng.uniform_matrix(2, 3, low, high);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(m(i / 3, i % 3), range.at("values")[i].get<float>());
}

TEST(Rng, MatricesFillRowMajorFromOneStream) {
  Rng a(3), b(3);
  const Matrix m = a.normal_matrix(2, 3, 1.0f, 2.0f);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(m(r, c), b.normal(1.0f, 2.0f));
  EXPECT_EQ(randn(4, 5, 9), randn(4, 5, 9));
  EXPECT_NE(randn(4, 5, 9), randn(4, 5, 10));
}

TEST(Rng, SavedStateContinuesThePublishedStream) {
  // The reference demo's stream from its third draw on, continued by a generator made from the saved state.
  Rng rng(42, 54);
  rng.next_u32();
  rng.next_u32();
  Rng resumed = Rng::from_state(rng.state());
  for (std::uint32_t expected : {0xba1d3330u, 0x83d2f293u, 0xbfa4784bu, 0xcbed606eu}) EXPECT_EQ(resumed.next_u32(), expected);
  EXPECT_THROW(Rng::from_state({.state = 1, .increment = 2}), Error);
}

}  // namespace
}  // namespace attnlab
