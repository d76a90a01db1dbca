// WebAssembly SIMD kernels (baseline simd128: no FMA, so multiply then add).
//
// GEMM in the XNNPACK f32-gemm style: the right-hand operand is packed into contiguous panels of
// 16 columns (k rows × 16 floats, zero-padded), then a 2×16 register-blocked micro-kernel keeps 8
// accumulators of 4 lanes while it walks k, splatting 2 values of A per step (a 4×8 one over the
// left half of a panel with at most 8 columns left). Both C = A·B and C = A·Bᵀ use the same
// micro-kernel; only the packing differs. Row tails reuse the last valid row pointer (their results
// are not stored) and column tails are zero-padded, so the inner loop has no branches.
//
// Softmax: the online-softmax step (vectorised max, exp by a Cephes-style polynomial of ~1 ulp, and
// the row sums); a plain softmax is that step from an empty state, then a division (dispatch.cpp).
#if defined(__wasm_simd128__)

#include <wasm_simd128.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels.hpp"
#include "pack_panels.hpp"

namespace attnlab::kernels::simd128 {

namespace {

constexpr int kNr = 16;  // columns of a packed panel: four v128 vectors per row

inline v128_t madd(v128_t acc, v128_t a, v128_t b) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }

// C[rows×width] = alpha · A[rows×kc] · panel[kc×4·Nv] (+ C), rows ≤ Mr, width ≤ 4·Nv; the panel's
// rows are kNr floats apart (Nv = 2 reads the left half of a panel). a: row stride lda; c: row
// stride ldc. Each step of k broadcasts one value of each A row straight from memory
// (v128.load32_splat: a load, not a shuffle, so the multiply and add units are left to the
// products) against Nv vectors of the panel; the Mr·Nv accumulators stay in registers for the
// whole of k. Every element is the same sum in the same order whichever tile computes it.
// Rows left at the bottom (FullHeight false) go through one more instance that reuses the last row's
// pointer and stores only its rows.
template <int Mr, int Nv, bool FullHeight>
void micro_kernel(const float* a, Eigen::Index lda, int rows, const float* panel, Eigen::Index kc, float alpha,
                  bool accumulate, float* c, Eigen::Index ldc, int width) {
  const float* row[Mr];
  for (int r = 0; r < Mr; ++r) row[r] = a + (FullHeight ? r : std::min(r, rows - 1)) * lda;
  v128_t acc[Mr][Nv];
  for (int r = 0; r < Mr; ++r)
    for (int v = 0; v < Nv; ++v) acc[r][v] = wasm_f32x4_splat(0.0f);
  // Pointers that step with k, not an index: each load's address is then a pointer plus a constant
  // offset, which a wasm load carries in the instruction, instead of an index scaled and added per
  // load (LLVM keeps the index form otherwise); 7% faster at seq 256–1024 in Node.
  const float* b = panel;
  for (const float* const b_end = panel + kc * kNr; b != b_end; b += kNr) {
    v128_t bv[Nv];
    for (int v = 0; v < Nv; ++v) bv[v] = wasm_v128_load(b + 4 * v);
    for (int r = 0; r < Mr; ++r) {
      const v128_t s = wasm_v128_load32_splat(row[r]);
      for (int v = 0; v < Nv; ++v) acc[r][v] = madd(acc[r][v], s, bv[v]);
      ++row[r];
    }
  }
  const v128_t valpha = wasm_f32x4_splat(alpha);
  for (int r = 0; r < (FullHeight ? Mr : rows); ++r) {
    float* out = c + r * ldc;
    if (width == 4 * Nv) {
      for (int v = 0; v < Nv; ++v) {
        v128_t x = wasm_f32x4_mul(acc[r][v], valpha);
        if (accumulate) x = wasm_f32x4_add(x, wasm_v128_load(out + 4 * v));
        wasm_v128_store(out + 4 * v, x);
      }
    } else {
      alignas(16) float lanes[4 * Nv];
      for (int v = 0; v < Nv; ++v) wasm_v128_store(lanes + 4 * v, wasm_f32x4_mul(acc[r][v], valpha));
      for (int j = 0; j < width; ++j) out[j] = accumulate ? out[j] + lanes[j] : lanes[j];
    }
  }
}

// The tiles. 2×16 (8 accumulators, 4 panel vectors, 1 splat: 13 of the 15 registers V8 allocates on
// x86-64) against a 4×8 tile over 8-column panels: every step of k also costs integer work per A row
// (its address), which 2 rows halve; measured in Node at d 64, seq 256/512/1024, 13% / 8% / 5% faster.
// 3×16 measured slower than both (its 12 + 4 + 1 registers are more than V8 has). A panel with at
// most 8 columns left (a head of 8 dimensions in the site's lessons: P·V is 8 wide) goes through the
// 4×8 tile over its left half instead of multiplying the zero padding.
template <int Mr, int Nv>
void tiles(const float* a, Eigen::Index m, Eigen::Index lda, const float* panel, Eigen::Index kc, float alpha,
           bool accumulate, float* c, Eigen::Index ldc, int width) {
  const Eigen::Index full_rows = m / Mr * Mr;
  for (Eigen::Index i0 = 0; i0 < full_rows; i0 += Mr)
    micro_kernel<Mr, Nv, true>(a + i0 * lda, lda, Mr, panel, kc, alpha, accumulate, c + i0 * ldc, ldc, width);
  if (full_rows < m)
    micro_kernel<Mr, Nv, false>(a + full_rows * lda, lda, static_cast<int>(m - full_rows), panel, kc, alpha,
                                accumulate, c + full_rows * ldc, ldc, width);
}

// exp(x) for 4 lanes, x ≤ 0 (softmax subtracts the row max), as XNNPACK's softmax does it
// (rr2-p5): x = n·ln2 + t with |t| ≤ ln2/2 (ln2 split in two, so n·ln2 is exact), e^t by a
// degree-5 minimax polynomial, and 2^n built in the exponent bits. Lanes below ln(FLT_MIN)
// (including −∞, a blocked key) give exactly 0. The dependency chain is short: V8 schedules each
// lane group's chain as written, so its length, not the operation count, sets the speed.
// n = round(x·log2 e) without a float→int conversion (costly in wasm): adding 1.5·2²³ + 127 leaves
// n + 127 in the low mantissa bits, so shifting them into the exponent field gives 2^n directly.
v128_t exp_f32x4(v128_t x) {
  const v128_t magic = wasm_f32x4_splat(0x1.8000FEp23f);  // 1.5·2²³ + 127
  v128_t n = wasm_f32x4_add(wasm_f32x4_mul(x, wasm_f32x4_splat(0x1.715476p+0f)), magic);
  const v128_t two_to_n = wasm_i32x4_shl(n, 23);
  n = wasm_f32x4_sub(n, magic);
  v128_t t = madd(x, n, wasm_f32x4_splat(-0x1.62E400p-1f));
  t = madd(t, n, wasm_f32x4_splat(-0x1.7F7D1Cp-20f));
  v128_t p = madd(wasm_f32x4_splat(0x1.573A1Ap-5f), wasm_f32x4_splat(0x1.0F9F9Cp-7f), t);
  p = madd(wasm_f32x4_splat(0x1.555A80p-3f), p, t);
  p = madd(wasm_f32x4_splat(0x1.FFFDC6p-2f), p, t);
  p = madd(wasm_f32x4_splat(0x1.FFFFF6p-1f), p, t);
  t = wasm_f32x4_mul(t, two_to_n);
  const v128_t e = madd(two_to_n, t, p);  // 2^n · (1 + t·p(t))
  // Below the cutoff (and for −∞, where the arithmetic above gives NaN) the result is 0.
  return wasm_v128_andnot(e, wasm_f32x4_lt(x, wasm_f32x4_splat(-0x1.5D589Ep6f)));
}

// dst[i][j] = src[j][i] for a 4×4 block (row strides lds, ldd): interleave row pairs, then their halves.
void transpose_4x4(const float* src, Eigen::Index lds, float* dst, Eigen::Index ldd) {
  const v128_t r0 = wasm_v128_load(src), r1 = wasm_v128_load(src + lds), r2 = wasm_v128_load(src + 2 * lds),
               r3 = wasm_v128_load(src + 3 * lds);
  const v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
  const v128_t t2 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
  wasm_v128_store(dst, wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5));
  wasm_v128_store(dst + ldd, wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7));
  wasm_v128_store(dst + 2 * ldd, wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5));
  wasm_v128_store(dst + 3 * ldd, wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7));
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

void pack(MatrixView b, bool transposed, PackedMatrix& packed) {
  pack_panels<4>(b, transposed, kNr, packed, &transpose_4x4);
}

void gemm(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
          bool accumulate, float* c, Eigen::Index ldc) {
  // C [m×nc] (+)= alpha · A [m×kc] · op(B)[k0…, n0…]
  const Eigen::Index m = a.rows(), kc = a.cols(), lda = a.outerStride();
  for (Eigen::Index j0 = 0; j0 < nc; j0 += kNr) {
    const float* panel = b.at(k0, n0 + j0);
    const int width = static_cast<int>(std::min<Eigen::Index>(kNr, nc - j0));
    if (width > kNr / 2) tiles<2, 4>(a.data(), m, lda, panel, kc, alpha, accumulate, c + j0, ldc, width);
    else tiles<4, 2>(a.data(), m, lda, panel, kc, alpha, accumulate, c + j0, ldc, width);
  }
}

namespace {

// Four weights as four float lanes: float32 as they lie, bfloat16 zero-extended and shifted into a
// float32's top 16 bits (exact), so a product over bfloat16 weights is the same sum, in the same order,
// as over the same weights widened first.
inline v128_t load4(const float* p) { return wasm_v128_load(p); }
inline v128_t load4(const std::uint16_t* p) { return wasm_i32x4_shl(wasm_u32x4_load16x4(p), 16); }
inline float widen(float v) { return v; }
inline float widen(std::uint16_t h) { return widen_bf16(h); }

template <typename W>
float dot_of(const float* x, const W* y, Eigen::Index k) {
  // two 4-lane partial sums over 8 values a step, then the tail one by one
  v128_t even = wasm_f32x4_splat(0.0f), odd = wasm_f32x4_splat(0.0f);
  Eigen::Index i = 0;
  for (; i + 8 <= k; i += 8) {
    even = madd(even, wasm_v128_load(x + i), load4(y + i));
    odd = madd(odd, wasm_v128_load(x + i + 4), load4(y + i + 4));
  }
  if (i + 4 <= k) {
    even = madd(even, wasm_v128_load(x + i), load4(y + i));
    i += 4;
  }
  float sum = horizontal_sum(wasm_f32x4_add(even, odd));
  for (; i < k; ++i) sum += x[i] * widen(y[i]);
  return sum;
}

template <typename W>
void dots_2x4_of(const float* const x[2], const W* const y[4], Eigen::Index k, float* out, Eigen::Index ldo) {
  // out[r·ldo + j] = Σ x[r][i]·y[j][i]: 8 four-lane sums along k (one per entry: 8 independent chains),
  // each step loading 2 vectors of x and 4 of y for 8 products — the packed GEMM's ratio of loads to
  // products, with y's rows read where they lie (nothing packed). Measured in Node against the packed
  // GEMM on 32 rows: 56 against 70 ms through a 49,152 × 576 output layer, 1.6 against 1.8 ms through
  // a 576 × 1,536 down projection; 4×2 and 4×1 tiles were slower than 2×4 on both.
  v128_t acc[2][4];
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 4; ++j) acc[r][j] = wasm_f32x4_splat(0.0f);
  Eigen::Index i = 0;
  for (; i + 4 <= k; i += 4) {
    const v128_t x0 = wasm_v128_load(x[0] + i), x1 = wasm_v128_load(x[1] + i);
    for (int j = 0; j < 4; ++j) {
      const v128_t yj = load4(y[j] + i);
      acc[0][j] = madd(acc[0][j], x0, yj);
      acc[1][j] = madd(acc[1][j], x1, yj);
    }
  }
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 4; ++j) {
      float sum = horizontal_sum(acc[r][j]);
      for (Eigen::Index t = i; t < k; ++t) sum += x[r][t] * widen(y[j][t]);
      out[r * ldo + j] = sum;
    }
}

}  // namespace

float dot(const float* x, const float* y, Eigen::Index k) { return dot_of(x, y, k); }
float dot(const float* x, const std::uint16_t* y, Eigen::Index k) { return dot_of(x, y, k); }
void dots_2x4(const float* const x[2], const float* const y[4], Eigen::Index k, float* out, Eigen::Index ldo) {
  dots_2x4_of(x, y, k, out, ldo);
}
void dots_2x4(const float* const x[2], const std::uint16_t* const y[4], Eigen::Index k, float* out, Eigen::Index ldo) {
  dots_2x4_of(x, y, k, out, ldo);
}

void online_softmax_step(MatrixSpan s, float* row_max, float* row_sum, float* rescale) {
  // s [rows×cols]; row_max, row_sum, rescale [rows] — as reference::online_softmax_step, 4 lanes at a time.
  const int cols = static_cast<int>(s.cols());
  const int body = cols / 4 * 4;
  for (Eigen::Index r = 0; r < s.rows(); ++r) {
    float* row = s.data() + r * s.outerStride();
    // Two running maxima, so each max waits on the one two loads back rather than the last one.
    v128_t vmax = wasm_f32x4_splat(row_max[r]), vmax2 = vmax;
    const int pair_end = body / 8 * 8;
    for (int c = 0; c < pair_end; c += 8) {
      vmax = wasm_f32x4_pmax(vmax, wasm_v128_load(row + c));
      vmax2 = wasm_f32x4_pmax(vmax2, wasm_v128_load(row + c + 4));
    }
    if (pair_end < body) vmax = wasm_f32x4_pmax(vmax, wasm_v128_load(row + pair_end));
    float new_max = horizontal_max(wasm_f32x4_pmax(vmax, vmax2));
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
