// WebAssembly SIMD kernels (baseline simd128: no FMA, so multiply then add).
//
// GEMM in the XNNPACK f32-gemm style: the right-hand operand is packed into contiguous panels of
// 8 columns (k rows × 8 floats, zero-padded), then a 4×8 register-blocked micro-kernel keeps 8
// accumulators of 4 lanes while it walks k, splatting 4 values of A per step. Both C = A·B and
// C = A·Bᵀ use the same micro-kernel; only the packing differs. Row tails reuse the last valid row
// pointer (their results are not stored) and column tails are zero-padded, so the inner loop has no
// branches.
//
// Softmax: the online-softmax step (vectorised max, exp by a Cephes-style polynomial of ~1 ulp, and
// the row sums); a plain softmax is that step from an empty state, then a division (dispatch.cpp).
#if defined(__wasm_simd128__)

#include <wasm_simd128.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels.hpp"

namespace attnlab::kernels::simd128 {

namespace {

constexpr int kMr = 4;  // rows of C per micro-kernel call
constexpr int kNr = 8;  // columns of C per packed panel

// op(B) has n columns of length k. Panel q (columns 8q … 8q+7) occupies packed[8q·k … 8q·k + 8k).
// transposed = false: B is [k×n] and column c of op(B) is column c of B.
// transposed = true:  B is [n×k] and column c of op(B) is row c of B.
// ldb: B's row stride (its column count when B is a whole matrix).
void pack_panels(const float* b, int k, int n, int ldb, bool transposed, float* packed) {
  for (int j0 = 0; j0 < n; j0 += kNr) {
    const int width = std::min(kNr, n - j0);
    float* panel = packed + static_cast<std::size_t>(j0) * k;
    for (int p = 0; p < k; ++p) {
      float* dst = panel + static_cast<std::size_t>(p) * kNr;
      for (int jj = 0; jj < width; ++jj)
        dst[jj] = transposed ? b[static_cast<std::size_t>(j0 + jj) * ldb + p] : b[static_cast<std::size_t>(p) * ldb + j0 + jj];
      for (int jj = width; jj < kNr; ++jj) dst[jj] = 0.0f;
    }
  }
}

inline v128_t madd(v128_t acc, v128_t a, v128_t b) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }

// C[rows×width] = A[rows×k] · panel[k×8], rows ≤ 4, width ≤ 8. a: row stride lda; c: row stride ldc.
void micro_kernel_4x8(const float* a, int lda, int rows, const float* panel, int k, float* c, int ldc,
                      int width) {
  const float* a0 = a;
  const float* a1 = rows > 1 ? a0 + lda : a0;
  const float* a2 = rows > 2 ? a1 + lda : a1;
  const float* a3 = rows > 3 ? a2 + lda : a2;
  v128_t c00 = wasm_f32x4_splat(0.0f), c01 = c00, c10 = c00, c11 = c00;
  v128_t c20 = c00, c21 = c00, c30 = c00, c31 = c00;
  int p = 0;
  // Four steps of k at a time: load 4 consecutive values of each A row and splat each lane.
  for (; p + 4 <= k; p += 4) {
    const v128_t va0 = wasm_v128_load(a0 + p), va1 = wasm_v128_load(a1 + p);
    const v128_t va2 = wasm_v128_load(a2 + p), va3 = wasm_v128_load(a3 + p);
#define ATTNLAB_STEP(lane)                                                                  \
  {                                                                                         \
    const v128_t b0 = wasm_v128_load(panel + (p + lane) * kNr);                             \
    const v128_t b1 = wasm_v128_load(panel + (p + lane) * kNr + 4);                         \
    const v128_t s0 = wasm_i32x4_shuffle(va0, va0, lane, lane, lane, lane);                 \
    const v128_t s1 = wasm_i32x4_shuffle(va1, va1, lane, lane, lane, lane);                 \
    const v128_t s2 = wasm_i32x4_shuffle(va2, va2, lane, lane, lane, lane);                 \
    const v128_t s3 = wasm_i32x4_shuffle(va3, va3, lane, lane, lane, lane);                 \
    c00 = madd(c00, s0, b0), c01 = madd(c01, s0, b1), c10 = madd(c10, s1, b0);             \
    c11 = madd(c11, s1, b1), c20 = madd(c20, s2, b0), c21 = madd(c21, s2, b1);             \
    c30 = madd(c30, s3, b0), c31 = madd(c31, s3, b1);                                       \
  }
    ATTNLAB_STEP(0)
    ATTNLAB_STEP(1)
    ATTNLAB_STEP(2)
    ATTNLAB_STEP(3)
#undef ATTNLAB_STEP
  }
  for (; p < k; ++p) {
    const v128_t b0 = wasm_v128_load(panel + p * kNr), b1 = wasm_v128_load(panel + p * kNr + 4);
    const v128_t s0 = wasm_f32x4_splat(a0[p]), s1 = wasm_f32x4_splat(a1[p]);
    const v128_t s2 = wasm_f32x4_splat(a2[p]), s3 = wasm_f32x4_splat(a3[p]);
    c00 = madd(c00, s0, b0), c01 = madd(c01, s0, b1), c10 = madd(c10, s1, b0), c11 = madd(c11, s1, b1);
    c20 = madd(c20, s2, b0), c21 = madd(c21, s2, b1), c30 = madd(c30, s3, b0), c31 = madd(c31, s3, b1);
  }
  const v128_t results[kMr][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}};
  for (int r = 0; r < rows; ++r) {
    float* out = c + static_cast<std::size_t>(r) * ldc;
    if (width == kNr) {
      wasm_v128_store(out, results[r][0]);
      wasm_v128_store(out + 4, results[r][1]);
    } else {
      alignas(16) float lanes[kNr];
      wasm_v128_store(lanes, results[r][0]);
      wasm_v128_store(lanes + 4, results[r][1]);
      std::copy(lanes, lanes + width, out);
    }
  }
}

// C [m×n] = A [m×k] · op(B), op(B) given as packed panels.
Matrix gemm_packed(MatrixView a, const std::vector<float>& packed, int n) {
  const int m = static_cast<int>(a.rows()), k = static_cast<int>(a.cols());
  const int lda = static_cast<int>(a.outerStride());
  Matrix c(m, n);
  for (int i0 = 0; i0 < m; i0 += kMr) {
    const int rows = std::min(kMr, m - i0);
    for (int j0 = 0; j0 < n; j0 += kNr)
      micro_kernel_4x8(a.data() + static_cast<std::size_t>(i0) * lda, lda, rows,
                       packed.data() + static_cast<std::size_t>(j0) * k, k,
                       c.data() + static_cast<std::size_t>(i0) * n + j0, n, std::min(kNr, n - j0));
  }
  return c;
}

std::vector<float> packed_buffer(int k, int n) {
  return std::vector<float>(static_cast<std::size_t>(k) * static_cast<std::size_t>((n + kNr - 1) / kNr * kNr));
}

// exp(x) for 4 lanes, x ≤ 0 (softmax subtracts the row max). Cephes expf: x = n·ln2 + r with
// |r| ≤ ln2/2, a degree-6 polynomial for e^r, and 2^n built in the exponent bits. Lanes below
// ln(FLT_MIN) (including −∞, a blocked key) give exactly 0.
v128_t exp_f32x4(v128_t x) {
  const v128_t min_x = wasm_f32x4_splat(-87.33654475f);
  const v128_t underflow = wasm_f32x4_lt(x, min_x);
  x = wasm_f32x4_max(x, min_x);
  const v128_t n = wasm_f32x4_floor(wasm_f32x4_add(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)),
                                                   wasm_f32x4_splat(0.5f)));
  // r = x − n·ln2, with ln2 split in two so the product is exact.
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(0.693359375f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(-2.12194440e-4f)));
  v128_t y = wasm_f32x4_splat(1.9875691500e-4f);
  y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(1.3981999507e-3f));
  y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(8.3334519073e-3f));
  y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(4.1665795894e-2f));
  y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(1.6666665459e-1f));
  y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(5.0000001201e-1f));
  y = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(y, wasm_f32x4_mul(r, r)), r), wasm_f32x4_splat(1.0f));
  const v128_t two_to_n = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
  return wasm_v128_andnot(wasm_f32x4_mul(y, two_to_n), underflow);
}

float horizontal_max(v128_t v) {
  v = wasm_f32x4_max(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_max(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

float horizontal_sum(v128_t v) {
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

}  // namespace

Matrix matmul(MatrixView a, MatrixView b) {
  // A [m×k] · B [k×n] → [m×n]
  const int k = static_cast<int>(b.rows()), n = static_cast<int>(b.cols());
  std::vector<float> packed = packed_buffer(k, n);
  pack_panels(b.data(), k, n, static_cast<int>(b.outerStride()), false, packed.data());
  return gemm_packed(a, packed, n);
}

Matrix matmul_transposed(MatrixView a, MatrixView b) {
  // A [m×k] · B [n×k]ᵀ → [m×n]
  const int n = static_cast<int>(b.rows()), k = static_cast<int>(b.cols());
  std::vector<float> packed = packed_buffer(k, n);
  pack_panels(b.data(), k, n, static_cast<int>(b.outerStride()), true, packed.data());
  return gemm_packed(a, packed, n);
}

void online_softmax_step(Matrix& s, float* row_max, float* row_sum, float* rescale) {
  // s [rows×cols]; row_max, row_sum, rescale [rows] — as reference::online_softmax_step, 4 lanes at a time.
  const int cols = static_cast<int>(s.cols());
  const int body = cols / 4 * 4;
  for (Eigen::Index r = 0; r < s.rows(); ++r) {
    float* row = s.data() + r * cols;
    v128_t vmax = wasm_f32x4_splat(row_max[r]);
    for (int c = 0; c < body; c += 4) vmax = wasm_f32x4_max(vmax, wasm_v128_load(row + c));
    float new_max = horizontal_max(vmax);
    for (int c = body; c < cols; ++c) new_max = std::max(new_max, row[c]);
    if (new_max == -std::numeric_limits<float>::infinity()) {
      std::fill(row, row + cols, 0.0f);
      rescale[r] = 0.0f;
      continue;
    }
    rescale[r] = std::exp(row_max[r] - new_max);
    const v128_t vm = wasm_f32x4_splat(new_max);
    v128_t vsum = wasm_f32x4_splat(0.0f);
    for (int c = 0; c < body; c += 4) {
      const v128_t e = exp_f32x4(wasm_f32x4_sub(wasm_v128_load(row + c), vm));
      wasm_v128_store(row + c, e);
      vsum = wasm_f32x4_add(vsum, e);
    }
    float sum = horizontal_sum(vsum);
    for (int c = body; c < cols; ++c) {
      row[c] = std::exp(row[c] - new_max);
      sum += row[c];
    }
    row_sum[r] = row_sum[r] * rescale[r] + sum;
    row_max[r] = new_max;
  }
}

}  // namespace attnlab::kernels::simd128

#endif  // __wasm_simd128__
