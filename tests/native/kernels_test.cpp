// The dispatched kernels (AVX-512, AVX2 or Eigen natively; wasm_simd128 or Eigen in wasm) against the
// plain reference loops, over shapes that exercise every register-block tail. Every test below runs
// once per kernel set this build and CPU can run (kernels::for_testing::variants()).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "attnlab/attention/attention.hpp"
#include "attnlab/tensor/error.hpp"
#include "attnlab/attention/mask.hpp"
#include "attnlab/tensor/rng.hpp"
#include "expect_error.hpp"
#include "fixture.hpp"
#include "kernels/kernels.hpp"
#include "kernels/x86.hpp"

namespace attnlab {
namespace {

using testing::kInf;

TEST(Kernels, VariantMatchesTheTargetAndTheSetting) {
#if defined(__wasm_simd128__)
  EXPECT_STREQ(kernels::variant(), "wasm-simd128");
#elif defined(__EMSCRIPTEN__)
  EXPECT_STREQ(kernels::variant(), "wasm-scalar");
#else
  // ATTNLAB_KERNELS names a set; one this CPU lacks (or no setting) gives the best it has.
  const std::vector<std::string> variants = kernels::for_testing::variants();
  ASSERT_FALSE(variants.empty());
  EXPECT_EQ(variants.back(), "eigen");  // what every native build can fall back to
  const char* setting = std::getenv("ATTNLAB_KERNELS");
  std::string expected = variants.front();
  for (const std::string& name : variants)
    if (setting && (name == setting || name == "x86-" + std::string(setting))) expected = name;
  EXPECT_EQ(kernels::variant(), expected);
#endif
}

#if defined(ATTNLAB_X86_KERNELS)
TEST(Kernels, TheX86SetsFollowTheCpuAndTheSettingIsValidated) {
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
  const std::string best = avx512 ? "x86-avx512" : avx2 ? "x86-avx2" : "eigen";
  EXPECT_EQ(kernels::for_testing::variant_for_setting(nullptr), best);
  EXPECT_EQ(kernels::for_testing::variant_for_setting(""), best);
  EXPECT_EQ(kernels::for_testing::variant_for_setting("avx512"), best);
  EXPECT_EQ(kernels::for_testing::variant_for_setting("avx2"), std::string(avx2 ? "x86-avx2" : "eigen"));
  EXPECT_STREQ(kernels::for_testing::variant_for_setting("eigen"), "eigen");
  try {
    kernels::for_testing::variant_for_setting("AVX512");
    ADD_FAILURE() << "an unknown setting was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "ATTNLAB_KERNELS is 'AVX512': expected avx512, avx2 or eigen");
  }
  EXPECT_THROW(kernels::for_testing::set_variant("x86-sse"), Error);
}
#endif

// Runs a test on one kernel set, and puts back the one the process started with afterwards.
class KernelSets : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { kernels::for_testing::set_variant(GetParam()); }
  void TearDown() override { kernels::for_testing::set_variant(initial_); }

 private:
  std::string initial_ = kernels::variant();
};

std::string TestName(const ::testing::TestParamInfo<std::string>& param) {
  std::string name = param.param;  // "x86-avx2" → "x86_avx2": test names must be identifiers
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Each, KernelSets, ::testing::ValuesIn(kernels::for_testing::variants()), TestName);

TEST_P(KernelSets, ReportsItsName) { EXPECT_EQ(kernels::variant(), GetParam()); }

TEST_P(KernelSets, MatmulsAgreeWithTheReferenceOnEveryTailShape) {
  std::uint64_t seed = 1;
  // Row blocks of up to 4 (wasm), 6 (AVX2) and 14 (AVX-512) rows, panels of 8, 16 and 32 columns, with
  // tails; Kᵀ packed in 8×8 blocks (x86) with edges.
  for (int m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 14, 15, 33})
    for (int k : {1, 3, 4, 5, 8, 17, 64})
      for (int n : {1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40}) {
        SCOPED_TRACE(std::to_string(m) + "×" + std::to_string(k) + "×" + std::to_string(n));
        const Matrix a = randn(m, k, seed++), b = randn(k, n, seed++), bt = randn(n, k, seed++);
        // Entries are N(0,1), so a dot product of length k has spread √k: compare relative to that.
        const float tolerance = 2e-6f * static_cast<float>(k);
        ASSERT_TRUE(testing::MatricesNear(kernels::matmul(a, b), kernels::reference::matmul(a, b), tolerance, 1e-5f));
        ASSERT_TRUE(testing::MatricesNear(kernels::matmul_transposed(a, bt),
                                          kernels::reference::matmul_transposed(a, bt), tolerance, 1e-5f));
      }
}

// Row dots (a token or a prompt through [out×in] weights, unpacked; wasm SIMD tiles 2 rows of A by 4
// of B) and linear() against the reference product, with every lane tail (k mod 8), odd row counts
// (a last row outside the 2-row tiles), B's rows outside the 4-row tiles and runs of B's rows (64 a
// task) covered.
TEST_P(KernelSets, RowDotsAgreeWithTheReference) {
  std::uint64_t seed = 300;
  for (int m : {1, 2, 3, 4, 5, 32})
    for (int k : {1, 3, 4, 5, 7, 8, 9, 12, 17, 64, 576})
      for (int n : {1, 7, 63, 64, 65, 200}) {
        SCOPED_TRACE(std::to_string(m) + "×" + std::to_string(k) + "×" + std::to_string(n));
        const Matrix a = randn(m, k, seed++), bt = randn(n, k, seed++);
        const float tolerance = 2e-6f * static_cast<float>(k);
        const Matrix expected = kernels::reference::matmul_transposed(a, bt);
        ASSERT_TRUE(testing::MatricesNear(kernels::row_dots(a, bt), expected, tolerance, 1e-5f));
        ASSERT_TRUE(testing::MatricesNear(kernels::linear(a, bt), expected, tolerance, 1e-5f));
      }
  EXPECT_EQ(kernels::row_dots(Matrix(2, 0), Matrix(3, 0)), Matrix::Zero(2, 3));
  EXPECT_EQ(kernels::linear(Matrix(2, 0), Matrix(3, 0)), Matrix::Zero(2, 3));
}

// A weight kept as bfloat16: linear() over it is linear() over the same weights widened to float32, to
// the bit (the same sums in the same order) — every lane tail, row tail, 4-row tile tail, run of 64 rows
// and (natively) block of 256 widened rows covered. The widening itself is checked against values whose
// bfloat16 bits are written out by hand.
TEST_P(KernelSets, LinearOnBfloat16WeightsIsLinearOnThemWidened) {
  std::uint64_t seed = 900;
  for (int m : {1, 2, 3, 5, 32})
    for (int k : {1, 3, 4, 5, 7, 8, 9, 12, 17, 576})
      for (int n : {1, 7, 63, 65, 257, 300}) {
        SCOPED_TRACE(std::to_string(m) + "×" + std::to_string(k) + "×" + std::to_string(n));
        const Matrix x = randn(m, k, seed++), w = randn(n, k, seed++);
        std::vector<std::uint16_t> halves(static_cast<std::size_t>(n) * static_cast<std::size_t>(k));
        for (std::size_t i = 0; i < halves.size(); ++i) {  // each weight's top 16 bits
          std::uint32_t bits;
          std::memcpy(&bits, w.data() + i, sizeof bits);
          halves[i] = static_cast<std::uint16_t>(bits >> 16);
        }
        const kernels::Bf16Matrix bf16{halves.data(), n, k};
        Matrix widened(n, k);
        kernels::widen_rows(bf16, 0, widened);
        const Matrix y = kernels::linear(x, bf16), expected = kernels::linear(x, widened);
        ASSERT_TRUE((y.array() == expected.array()).all()) << "largest difference " << (y - expected).cwiseAbs().maxCoeff();
      }
  // 1.0, −2.5, the smallest normal, −0 and 3.140625 (π's nearest bfloat16 below) as bfloat16 bits.
  const std::uint16_t bits[] = {0x3F80, 0xC020, 0x0080, 0x8000, 0x4049};
  Matrix widened(1, 5);
  kernels::widen_rows({bits, 1, 5}, 0, widened);
  EXPECT_EQ(widened(0, 0), 1.0f);
  EXPECT_EQ(widened(0, 1), -2.5f);
  EXPECT_EQ(widened(0, 2), std::numeric_limits<float>::min());
  EXPECT_TRUE(widened(0, 3) == 0.0f && std::signbit(widened(0, 3)));
  EXPECT_EQ(widened(0, 4), 3.140625f);
  const Matrix one = Matrix::Ones(1, 5);
  EXPECT_EQ(kernels::linear(one, kernels::Bf16Matrix{bits, 1, 5})(0, 0), 1.640625f);  // 1 − 2.5 + 3.140625; the 2⁻¹²⁶ is lost
  expect_error([&] { (void)kernels::linear(Matrix(2, 4), kernels::Bf16Matrix{bits, 1, 5}); },
               "kernels::linear: x has 4 columns but W 5");
}

// Attention packs K and V once and multiplies blocks of them: a slice of rows (keys k0…) of a packed V,
// a slice of columns (keys n0…) of a packed Kᵀ, scaled, and added onto what C already holds.
TEST_P(KernelSets, GemmOnBlocksOfAPackedMatrixScalesAndAccumulates) {
  const Matrix keys = randn(73, 19, 11), a = randn(6, 19, 12), p = randn(6, 23, 13), start = randn(6, 33, 14);
  const kernels::PackedMatrix k_t = kernels::pack(keys, true);  // op(B) = Kᵀ [19×73]
  ASSERT_EQ(k_t.depth, 19);
  ASSERT_EQ(k_t.cols, 73);
  // Keys 32…64: from a multiple of every panel width used (8, 16, 32), over a panel boundary, to a tail.
  const Eigen::Index n0 = 32, nc = 33;
  Matrix c = start;
  kernels::gemm(a, k_t, 0, n0, nc, 0.5f, true, c.data(), c.cols());
  for (Eigen::Index i = 0; i < c.rows(); ++i)
    for (Eigen::Index j = 0; j < nc; ++j) {
      double dot = 0.0;
      for (Eigen::Index t = 0; t < a.cols(); ++t) dot += static_cast<double>(a(i, t)) * keys(n0 + j, t);
      ASSERT_NEAR(c(i, j), start(i, j) + 0.5 * dot, 1e-5) << i << "," << j;
    }
  const kernels::PackedMatrix v = kernels::pack(keys, false);  // op(B) = K itself [73×19]
  Matrix out(6, 19);
  kernels::gemm(p, v, 5, 0, 19, 1.0f, false, out.data(), out.cols());  // rows 5…27 of K
  for (Eigen::Index i = 0; i < out.rows(); ++i)
    for (Eigen::Index j = 0; j < out.cols(); ++j) {
      double dot = 0.0;
      for (Eigen::Index t = 0; t < p.cols(); ++t) dot += static_cast<double>(p(i, t)) * keys(5 + t, j);
      ASSERT_NEAR(out(i, j), dot, 1e-5) << i << "," << j;
    }
}

// Attention packs K and V into the same storage call after call: a smaller matrix packed where a larger
// one was must leave no stale values in its zero padding.
TEST_P(KernelSets, PackIntoReusedStorageIsTheSameAsAFreshPack) {
  const Matrix big = randn(70, 40, 21), small = randn(9, 5, 22), a = randn(3, 5, 23);
  for (bool transposed : {false, true}) {
    SCOPED_TRACE(transposed ? "transposed" : "as is");
    kernels::PackedMatrix reused = kernels::pack(big, transposed);
    const Matrix op_small = small.transpose();  // op(B) [5×9]: B = small [9×5] transposed, or op(B) itself
    const Matrix b = transposed ? small : op_small;
    kernels::pack_into(b, transposed, reused);
    const kernels::PackedMatrix fresh = kernels::pack(b, transposed);
    ASSERT_EQ(reused.depth, 5);
    ASSERT_EQ(reused.cols, 9);
    EXPECT_EQ(reused.width, fresh.width);
    EXPECT_EQ(reused.data, fresh.data);
    Matrix c(3, 9);
    kernels::gemm(a, reused, 0, 0, 9, 1.0f, false, c.data(), c.cols());
    EXPECT_TRUE(testing::MatricesNear(c, kernels::reference::matmul(a, op_small), 1e-5f, 1e-5f));
  }
}

TEST_P(KernelSets, MatmulHandExample) {
  Matrix a(2, 3), b(3, 2), expected(2, 2);
  a << 1, 2, 3, 4, 5, 6;
  b << 7, 8, 9, 10, 11, 12;
  expected << 58, 64, 139, 154;
  EXPECT_EQ(kernels::matmul(a, b), expected);
  EXPECT_EQ(kernels::matmul_transposed(a, Matrix(b.transpose())), expected);
}

TEST_P(KernelSets, SoftmaxAgreesWithTheReferenceIncludingBlockedEntries) {
  for (int cols : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65}) {
    SCOPED_TRACE(cols);
    Matrix x = randn(6, cols, 100 + static_cast<std::uint64_t>(cols)) * 8.0f;
    x(0, cols - 1) = -kInf;          // a blocked key (the only key when cols = 1)
    x.row(1).setConstant(-kInf);     // a fully blocked row
    x(2, 0) = 1e4f;                  // one huge logit
    x.row(3) *= 1e3f;                // very spread-out logits (many exp underflows)
    Matrix expected = x, actual = x;
    kernels::reference::softmax_rows(expected);
    kernels::softmax_rows(actual);
    ASSERT_TRUE(testing::MatricesNear(actual, expected, 1e-7f, 2e-6f));
    EXPECT_EQ(actual(0, cols - 1), 0.0f);
    for (int c = 0; c < cols; ++c) EXPECT_EQ(actual(1, c), 0.0f);
  }
}

TEST_P(KernelSets, OnlineSoftmaxStepAgreesWithTheReference) {
  for (int cols : {1, 3, 4, 9, 16, 17, 40, 64, 130}) {
    SCOPED_TRACE(cols);
    Matrix first = randn(5, cols, 7) * 4.0f, second = randn(5, cols, 8) * 4.0f;
    first.row(1).setConstant(-kInf);  // row 1: blocked in the first block, open in the second
    first.row(2).setConstant(-kInf);  // row 2: blocked in both
    second.row(2).setConstant(-kInf);
    std::vector<float> max_a(5, -kInf), sum_a(5, 0.0f), scale_a(5), max_b(5, -kInf), sum_b(5, 0.0f), scale_b(5);
    Matrix a1 = first, b1 = first, a2 = second, b2 = second;
    kernels::online_softmax_step(a1, max_a.data(), sum_a.data(), scale_a.data());
    kernels::reference::online_softmax_step(b1, max_b.data(), sum_b.data(), scale_b.data());
    kernels::online_softmax_step(a2, max_a.data(), sum_a.data(), scale_a.data());
    kernels::reference::online_softmax_step(b2, max_b.data(), sum_b.data(), scale_b.data());
    ASSERT_TRUE(testing::MatricesNear(a1, b1, 1e-7f, 2e-6f));
    ASSERT_TRUE(testing::MatricesNear(a2, b2, 1e-7f, 2e-6f));
    for (int r = 0; r < 5; ++r) {
      EXPECT_EQ(max_a[r], max_b[r]);
      EXPECT_NEAR(sum_a[r], sum_b[r], 1e-5f * sum_b[r]);
      EXPECT_NEAR(scale_a[r], scale_b[r], 1e-6f);
    }
    EXPECT_EQ(sum_a[2], 0.0f);  // never a key: sum 0, so the output row will be 0, not NaN
    EXPECT_EQ(scale_a[1], 0.0f);  // first keys for row 1 arrive in block 2: nothing earlier to rescale
    // After both blocks, Σ exp over all keys relative to the final max (double precision, by hand).
    const int r = 0;
    double expected = 0.0;
    for (int c = 0; c < cols; ++c) expected += std::exp(static_cast<double>(first(r, c)) - max_b[r]) +
                                                std::exp(static_cast<double>(second(r, c)) - max_b[r]);
    EXPECT_NEAR(sum_a[r], expected, 1e-5 * expected);
  }
}

// Output-only attention (the online softmax over key blocks, through pack, gemm and the softmax step)
// against softmax(Q·Kᵀ·scale)·V evaluated in double precision, on shapes across the 128-query and
// 256-key blocks, with causal rules and with a mask that blocks whole rows.
TEST_P(KernelSets, AttentionOutputMatchesTheFormulaInDoublePrecision) {
  std::uint64_t seed = 300;
  for (auto [n_q, n_k, d] : {std::tuple{1, 1, 8}, {5, 7, 16}, {129, 300, 64}, {256, 513, 64}, {40, 40, 33}}) {
    SCOPED_TRACE(std::to_string(n_q) + "×" + std::to_string(n_k) + ", d " + std::to_string(d));
    const Matrix q = randn(n_q, d, seed++), k = randn(n_k, d, seed++), v = randn(n_k, d, seed++);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    const testing::MatrixD qd = q.cast<double>(), kd = k.cast<double>(), vd = v.cast<double>();
    // Entries of V are N(0,1) and each output row is a weighted mean of them: compare to ~1e-5.
    EXPECT_TRUE(testing::MatricesNear(attention_output(q, k, v),
                                      testing::reference_attention(qd, kd, vd, scale).second.cast<float>(), 2e-5f,
                                      1e-4f));
    const Matrix causal = causal_mask(n_q, n_k);
    EXPECT_TRUE(testing::MatricesNear(attention_output(q, k, v, {.causal = true}),
                                      testing::reference_attention(qd, kd, vd, scale, &causal).second.cast<float>(),
                                      2e-5f, 1e-4f));
    Matrix mask = Matrix::Ones(n_q, n_k);
    mask.row(0).setZero();  // a query that may attend to no key: output 0, not NaN
    for (int j = 0; j < n_k; j += 3) mask(n_q - 1, j) = 0.0f;
    EXPECT_TRUE(testing::MatricesNear(attention_output(q, k, v, {.mask = &mask}),
                                      testing::reference_attention(qd, kd, vd, scale, &mask).second.cast<float>(),
                                      2e-5f, 1e-4f));
  }
}

}  // namespace
}  // namespace attnlab
