// The hot kernels behind one interface: every matrix product and softmax in the core goes through
// here. One dispatch point (dispatch.cpp) picks the implementation for the target:
//   native x86-64 register-blocked AVX-512 or AVX2 + FMA GEMM and softmax (x86.cpp), whichever the
//                 CPU runs, picked at the first call; ATTNLAB_KERNELS=avx512|avx2|eigen asks for one
//   native other  Eigen's GEMM (SSE/AVX-vectorised) + the reference softmax ("eigen")
//   wasm scalar   Eigen's GEMM (Eigen 3.4 does not vectorise on wasm32) + the reference softmax
//   wasm SIMD     register-blocked wasm_simd128 GEMM and softmax (simd128.cpp)
// A product is pack (op(B) laid out for the GEMM) then gemm; attention packs K and V once per call
// and multiplies blocks of them. The plain loops in reference.cpp are what every fast variant is
// tested against.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/tensor/matrix.hpp"

namespace attnlab::kernels {

// A read-only view of a matrix or of a block of rows of one (no copy).
using MatrixView = Eigen::Ref<const Matrix>;
// A writable matrix or block of one (a reused buffer mapped to the current block's size).
using MatrixSpan = Eigen::Ref<Matrix>;

// C[m×n] = A[m×k] · B[k×n]
Matrix matmul(MatrixView a, MatrixView b);

// A vector of floats whose resize leaves new elements unset (std::vector<float> zeroes them): for
// buffers whose every element is written before it is read (packed panels, score blocks), where the
// zero fill was 1% of a seq-256 attention call in wasm. Only the no-argument construct is replaced;
// std::allocator_traits builds from a value (assign, resize with a value) by placement new as usual.
template <typename T>
struct UninitialisedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  UninitialisedAllocator() = default;
  template <typename U>
  UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialised: no value written
  }
};
using FloatBuffer = std::vector<float, UninitialisedAllocator<float>>;

// op(B) [depth×cols] laid out once for this build's GEMM, so a product that reuses B (every query
// block of attention reuses K and V) does not rearrange it again. Panel j holds columns j·width …
// j·width + width − 1 as `depth` rows of `width` floats, zero-padded past `cols`. A single panel
// (width ≥ cols) is plain row-major op(B): what the Eigen builds use.
struct PackedMatrix {
  FloatBuffer data;
  Eigen::Index depth = 0, cols = 0, width = 1;

  // Where row `row`, column `col` of op(B) lives; the panels after it follow every depth·width floats.
  const float* at(Eigen::Index row, Eigen::Index col) const {
    return data.data() + (col / width) * depth * width + row * width + col % width;
  }
};

// op(B) = B [k×n] (transposed = false) or Bᵀ for B [n×k] (transposed = true), packed.
PackedMatrix pack(MatrixView b, bool transposed);
// The same, into `packed`, reusing its storage. Attention keeps its packed K and V per thread: natively,
// large blocks freed back to the OS are faulted in again page by page on the next call, which cost
// ~40% of a seq-256 call.
void pack_into(MatrixView b, bool transposed, PackedMatrix& packed);

// C[m×nc] = alpha · A[m×kc] · op(B)[k0 … k0+kc−1, n0 … n0+nc−1], plus C's old value if accumulate.
// kc = A's column count; c has row stride ldc. n0 is a multiple of b.width unless b is one panel.
// Large products split C's rows (or op(B)'s panels) over threads (threads.hpp): the same result as on one thread.
void gemm(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
          bool accumulate, float* c, Eigen::Index ldc);

// C[m×n] = A[m×k] · B[n×k]ᵀ  (Q·Kᵀ, and x·Wᵀ for PyTorch-layout weights)
Matrix matmul_transposed(MatrixView a, MatrixView b);
// The same as m·n dot products over B's rows as they lie, without packing B: for a few rows of A
// (decoding one token through [out×in] weights), where packing B costs as much as the product itself.
// Large products split B's rows over threads; each entry is summed in the same order on any thread count.
Matrix row_dots(MatrixView a, MatrixView b);
// x·Wᵀ for a weight W [out×in] as nn.Linear keeps it (x [n×in] → [n×out]), W never copied: a model's
// projections and its output layer. With wasm SIMD, row_dots for any n (2 rows of x by 4 of W per
// tile, a last odd row one W row after the other): packing W for one product reads and writes every
// weight once more and holds a copy of it (113 MB for SmolLM2's output layer). Elsewhere row_dots for
// a few rows of x, the packed GEMM for more.
Matrix linear(MatrixView x, MatrixView w);

// A weight [rows×cols], row-major, kept as bfloat16: each value the top 16 bits of a float32, so widening
// it is exact. A checkpoint saved in BF16 (most are) keeps half the bytes in memory this way.
struct Bf16Matrix {
  const std::uint16_t* data = nullptr;
  Eigen::Index rows = 0, cols = 0;
};
// One bfloat16 value as the float32 whose top 16 bits it is (exact). memcpy: Emscripten 3.1.6's libc++
// has no std::bit_cast.
inline float widen_bf16(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
// x·Wᵀ for such a weight: the same sums in the same order as linear(x, W widened to float32), so the same
// result to the bit, reading half the bytes — a decoded token reads every weight once, and the time that
// takes is the time a step takes. With wasm SIMD each weight is widened in the dot products; elsewhere a
// block of W's rows at a time is widened and multiplied as linear() multiplies it.
Matrix linear(MatrixView x, Bf16Matrix w);
// W's rows first … first+out.rows()−1 widened into out [count×cols].
void widen_rows(Bf16Matrix w, Eigen::Index first, MatrixSpan out);

// In place, row by row: x ← exp(x − max) / Σ exp(x − max). Entries of −∞ (blocked) become exactly
// 0; a row that is entirely −∞ becomes all 0 (not NaN). Expects no NaN and no +∞.
void softmax_rows(Matrix& x);

// One step of the online softmax (FlashAttention): s [rows×cols] is a block of scaled scores for
// new keys; row_max and row_sum [rows] hold each row's running max and Σexp so far (start: −∞, 0).
// Afterwards s holds exp(s − new max), row_max and row_sum are updated, and rescale[r] =
// exp(old max − new max) is what the row's earlier output must be multiplied by (0 if there was
// none). −∞ entries (blocked keys) give exactly 0; a row blocked so far keeps max −∞ and sum 0.
void online_softmax_step(MatrixSpan s, float* row_max, float* row_sum, float* rescale);

// A whole-row softmax built from an online-softmax step: the step from an empty state (max −∞, sum 0)
// leaves exp(x − max) and the row sums, then each row is divided by its sum (a fully blocked row,
// sum 0, stays 0). Large matrices are split into runs of rows over threads.
using OnlineSoftmaxStep = void (*)(MatrixSpan s, float* row_max, float* row_sum, float* rescale);
void softmax_rows_with(OnlineSoftmaxStep step, Matrix& x);
// x [rows×cols]: each row with a positive sum divided by it.
void divide_rows(MatrixSpan x, const float* row_sum);

// Which implementation this build dispatches to: "x86-avx512", "x86-avx2", "eigen", "wasm-scalar" or
// "wasm-simd128".
const char* variant();

// For tests, which run every kernel test on each kernel set the CPU supports.
namespace for_testing {
// The variant() names this build and CPU can run, best first.
std::vector<std::string> variants();
// Makes `name` (one of variants()) the set every later call uses; throws Error otherwise. Matrices
// packed before the switch (a Linear's packed weight) must not be multiplied after it.
void set_variant(std::string_view name);
}  // namespace for_testing

namespace reference {
Matrix matmul(MatrixView a, MatrixView b);
Matrix matmul_transposed(MatrixView a, MatrixView b);
void softmax_rows(Matrix& x);
void online_softmax_step(MatrixSpan s, float* row_max, float* row_sum, float* rescale);
}  // namespace reference

#if defined(__wasm_simd128__)
namespace simd128 {
void pack(MatrixView b, bool transposed, PackedMatrix& packed);  // as pack_into
void gemm(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
          bool accumulate, float* c, Eigen::Index ldc);
void online_softmax_step(MatrixSpan s, float* row_max, float* row_sum, float* rescale);
float dot(const float* x, const float* y, Eigen::Index k);  // Σ x[i]·y[i] in 4 lanes × 2
float dot(const float* x, const std::uint16_t* y, Eigen::Index k);  // the same, y bfloat16 widened as it is read
// out[r·ldo + j] = Σ_i x[r][i]·y[j][i] for 2 rows x and 4 rows y of k values (a tile of linear()).
void dots_2x4(const float* const x[2], const float* const y[4], Eigen::Index k, float* out, Eigen::Index ldo);
void dots_2x4(const float* const x[2], const std::uint16_t* const y[4], Eigen::Index k, float* out, Eigen::Index ldo);
}  // namespace simd128
#endif

}  // namespace attnlab::kernels
