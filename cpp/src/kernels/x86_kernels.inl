// The x86 GEMM and online-softmax step, written once over a vector-traits struct and compiled once per
// instruction set: x86.cpp includes this file inside namespace x86::avx512 (Vec = 16 floats in a zmm
// register) and inside x86::avx2 (Vec = 8 floats in a ymm register), with ATTNLAB_X86_TARGET set to
// that set's target attribute. A C++ template cannot carry a different target attribute per
// instantiation, hence the inclusion rather than a template over Vec. Every function here works on
// raw pointers (no Eigen: its templates must not be instantiated with a wider instruction set).
//
// Vec provides: V (the register type), kLanes, kMr (rows of the micro-kernel), zero, set1, broadcast,
// load, store, load_first / store_first (only the first n lanes; a masked load fills the others and
// never touches their memory), fmadd(a, b, c) = a·b + c, add, sub, mul, max, exponent_bits (the
// lanes' low bits shifted into the float exponent), zero_below(x, limit, y) (y where x ≥ limit, else
// 0), reduce_add and reduce_max.

namespace {

using Index = std::ptrdiff_t;
using V = Vec::V;

// GEMM in the XNNPACK / BLIS style: op(B) is packed into panels of kNr columns (two vectors), and an
// Mr×kNr micro-kernel keeps 2·Mr accumulators in registers for the whole of k, broadcasting one value
// of each A row per step. kMr is chosen so accumulators + two panel vectors + one broadcast fill the
// register file (AVX-512: 14 rows, 28 + 3 of 32 zmm; AVX2: 6 rows, 12 + 3 of 16 ymm).
constexpr int kNr = 2 * Vec::kLanes;
constexpr int kMr = Vec::kMr;

// C[Mr×width] = alpha · A[Mr×kc] · panel[kc×kNr] (+ C), width ≤ kNr. a: row stride lda; c: row stride ldc.
// Columns past `width` are computed on the panel's zero padding and never stored.
template <int Mr>
ATTNLAB_X86_TARGET void micro_kernel(const float* a, Index lda, const float* panel, Index kc, float alpha,
                                     bool accumulate, float* c, Index ldc, int width) {
  V acc[Mr][2];
#pragma GCC unroll 16
  for (int r = 0; r < Mr; ++r) acc[r][0] = acc[r][1] = Vec::zero();
  for (Index p = 0; p < kc; ++p) {
    const V b0 = Vec::load(panel + p * kNr), b1 = Vec::load(panel + p * kNr + Vec::kLanes);
#pragma GCC unroll 16
    for (int r = 0; r < Mr; ++r) {
      const V s = Vec::broadcast(a + r * lda + p);
      acc[r][0] = Vec::fmadd(s, b0, acc[r][0]);
      acc[r][1] = Vec::fmadd(s, b1, acc[r][1]);
    }
  }
  const V valpha = Vec::set1(alpha);
  const int first = std::min(width, Vec::kLanes), second = width - first;  // lanes stored from each vector
#pragma GCC unroll 16
  for (int r = 0; r < Mr; ++r) {
    float* out = c + r * ldc;
    V lo = Vec::mul(acc[r][0], valpha), hi = Vec::mul(acc[r][1], valpha);
    if (width == kNr) {
      if (accumulate) lo = Vec::add(lo, Vec::load(out)), hi = Vec::add(hi, Vec::load(out + Vec::kLanes));
      Vec::store(out, lo);
      Vec::store(out + Vec::kLanes, hi);
    } else {
      if (accumulate)
        lo = Vec::add(lo, Vec::load_first(out, first, 0.0f)),
        hi = Vec::add(hi, Vec::load_first(out + Vec::kLanes, second, 0.0f));
      Vec::store_first(out, lo, first);
      Vec::store_first(out + Vec::kLanes, hi, second);
    }
  }
}

// The micro-kernel for each row count 1 … kMr (index 0 unused).
using MicroKernel = void (*)(const float*, Index, const float*, Index, float, bool, float*, Index, int);
template <int... Rows>
constexpr std::array<MicroKernel, sizeof...(Rows) + 1> micro_kernels(std::integer_sequence<int, Rows...>) {
  return {nullptr, &micro_kernel<Rows + 1>...};
}
constexpr auto kMicroKernels = micro_kernels(std::make_integer_sequence<int, kMr>());

// C[m×nc] (+)= alpha · A[m×kc] · op(B)[kc×nc]: b points at op(B)'s first row and column in the first
// panel, and each next panel starts panel_stride floats later. Panels outermost, so one panel (kc×kNr)
// stays in L1 while every block of A's rows passes over it. The rows are split into ⌈m / kMr⌉ blocks
// of nearly equal height rather than full blocks and a short tail: 128 rows on AVX-512 run as 8 × 13 +
// 2 × 12, not 9 × 14 + 2 (a 2-row block keeps 4 accumulators, too few to hide the FMA latency).
ATTNLAB_X86_TARGET void gemm_panels(const float* a, Index m, Index kc, Index lda, const float* b, Index panel_stride,
                                    Index nc, float alpha, bool accumulate, float* c, Index ldc) {
  if (m == 0) return;
  const Index blocks = (m + kMr - 1) / kMr, height = m / blocks, taller = m % blocks;
  for (Index j0 = 0; j0 < nc; j0 += kNr) {
    const float* panel = b + j0 / kNr * panel_stride;
    const int width = static_cast<int>(std::min<Index>(kNr, nc - j0));
    Index i0 = 0;
    for (Index block = 0; block < blocks; ++block) {  // the first `taller` blocks take one row more
      const Index rows = height + (block < taller ? 1 : 0);
      kMicroKernels[static_cast<std::size_t>(rows)](a + i0 * lda, lda, panel, kc, alpha, accumulate, c + i0 * ldc + j0,
                                                    ldc, width);
      i0 += rows;
    }
  }
}

// exp(x) for x ≤ 0 (softmax subtracts the row max), in the same form as simd128.cpp's (XNNPACK's
// rr2-p5), with FMA: x = n·ln2 + t with |t| ≤ ln2/2 (ln2 split in two, so n·ln2 is exact), e^t by a
// degree-5 minimax polynomial, and 2^n built in the exponent bits: adding 1.5·2²³ + 127 rounds x·log2 e
// to the integer n and leaves n + 127 in the low mantissa bits. Lanes below ln(FLT_MIN) give exactly
// 0, −∞ (a blocked key) included, where the arithmetic gives NaN.
ATTNLAB_X86_TARGET inline V exp_nonpositive(V x) {
  const V magic = Vec::set1(0x1.8000FEp23f);
  V n = Vec::fmadd(x, Vec::set1(0x1.715476p+0f), magic);
  const V two_to_n = Vec::exponent_bits(n);
  n = Vec::sub(n, magic);
  V t = Vec::fmadd(n, Vec::set1(-0x1.62E400p-1f), x);
  t = Vec::fmadd(n, Vec::set1(-0x1.7F7D1Cp-20f), t);
  V p = Vec::fmadd(Vec::set1(0x1.0F9F9Cp-7f), t, Vec::set1(0x1.573A1Ap-5f));
  p = Vec::fmadd(p, t, Vec::set1(0x1.555A80p-3f));
  p = Vec::fmadd(p, t, Vec::set1(0x1.FFFDC6p-2f));
  p = Vec::fmadd(p, t, Vec::set1(0x1.FFFFF6p-1f));
  const V e = Vec::fmadd(Vec::mul(t, two_to_n), p, two_to_n);  // 2^n · (1 + t·p(t))
  return Vec::zero_below(x, Vec::set1(-0x1.5D589Ep6f), e);
}

// s [rows×cols], row stride lds; row_max, row_sum, rescale [rows]: as reference::online_softmax_step.
// Three passes: every row's new max, then every row's rescale factor exp(old max − new max) 16 (or 8)
// rows at a time, then exp(s − max) and its sum row by row. (A scalar expf per row, between the
// passes over that row, cost as much as a quarter of the whole step on 256-key rows.) The last
// partial vector of a row is a masked load (filled with −∞, so it adds nothing to the max and exps
// to 0) and a masked store: no scalar tail.
ATTNLAB_X86_TARGET void softmax_step(float* s, Index rows, Index cols, Index lds, float* row_max, float* row_sum,
                                     float* rescale) {
  constexpr int L = Vec::kLanes;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const Index body = cols / L * L;
  const int tail = static_cast<int>(cols - body);
  // 1. Each row's new running max, kept in rescale[] until step 2; two maxima so each waits on the one
  // two loads back, not the last.
  for (Index r = 0; r < rows; ++r) {
    const float* row = s + r * lds;
    V max0 = Vec::set1(row_max[r]), max1 = max0;
    Index c = 0;
    for (; c + 2 * L <= body; c += 2 * L) {
      max0 = Vec::max(max0, Vec::load(row + c));
      max1 = Vec::max(max1, Vec::load(row + c + L));
    }
    if (c < body) max0 = Vec::max(max0, Vec::load(row + c));
    if (tail) max1 = Vec::max(max1, Vec::load_first(row + body, tail, -kInf));
    rescale[r] = Vec::reduce_max(Vec::max(max0, max1));
  }
  // 2. rescale = exp(old max − new max): 0 on a row's first keys (old −∞) and on a row blocked so far
  // (−∞ − −∞ is NaN, which exp_nonpositive also sends to 0).
  for (Index r = 0; r < rows; r += L) {
    const int n = static_cast<int>(std::min<Index>(L, rows - r));
    const V new_max = Vec::load_first(rescale + r, n, 0.0f);
    Vec::store_first(rescale + r, exp_nonpositive(Vec::sub(Vec::load_first(row_max + r, n, 0.0f), new_max)), n);
    Vec::store_first(row_max + r, new_max, n);
  }
  // 3. exp(s − max) in place, and the running sums.
  for (Index r = 0; r < rows; ++r) {
    float* row = s + r * lds;
    if (row_max[r] == -kInf) {  // every key so far blocked: weights 0, sum stays 0
      std::fill(row, row + cols, 0.0f);
      continue;
    }
    const V vmax = Vec::set1(row_max[r]);
    V sum0 = Vec::zero(), sum1 = Vec::zero();
    Index c = 0;
    for (; c + 2 * L <= body; c += 2 * L) {
      const V e0 = exp_nonpositive(Vec::sub(Vec::load(row + c), vmax));
      const V e1 = exp_nonpositive(Vec::sub(Vec::load(row + c + L), vmax));
      Vec::store(row + c, e0);
      Vec::store(row + c + L, e1);
      sum0 = Vec::add(sum0, e0);
      sum1 = Vec::add(sum1, e1);
    }
    if (c < body) {
      const V e = exp_nonpositive(Vec::sub(Vec::load(row + c), vmax));
      Vec::store(row + c, e);
      sum0 = Vec::add(sum0, e);
    }
    if (tail) {
      const V e = exp_nonpositive(Vec::sub(Vec::load_first(row + body, tail, -kInf), vmax));
      Vec::store_first(row + body, e, tail);
      sum1 = Vec::add(sum1, e);
    }
    row_sum[r] = row_sum[r] * rescale[r] + Vec::reduce_add(Vec::add(sum0, sum1));
  }
}

}  // namespace

// The entry points kernels.hpp's interface calls (default target: they only unpack Eigen's views).
void pack(MatrixView b, bool transposed, PackedMatrix& packed) {
  pack_panels<8>(b, transposed, kNr, packed, &transpose_8x8);
}

void gemm(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
          bool accumulate, float* c, Eigen::Index ldc) {
  // C [m×nc] (+)= alpha · A [m×kc] · op(B)[k0…, n0…]
  if (b.width != kNr) throw std::logic_error("x86 gemm: op(B) was packed for another kernel set");
  gemm_panels(a.data(), a.rows(), a.cols(), a.outerStride(), b.at(k0, n0), b.depth * b.width, nc, alpha, accumulate,
              c, ldc);
}

void online_softmax_step(MatrixSpan s, float* row_max, float* row_sum, float* rescale) {
  softmax_step(s.data(), s.rows(), s.cols(), s.outerStride(), row_max, row_sum, rescale);
}
