// The one place that decides which kernels this build runs (see kernels.hpp).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "attnlab/tensor/error.hpp"
#include "kernels.hpp"
#include "tensor/parallel.hpp"
#include "x86.hpp"

namespace attnlab::kernels {

// This build's GEMM on one thread (below); gemm() splits C's rows or op(B)'s panels over threads and calls it.
void gemm_serial(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
                 bool accumulate, float* c, Eigen::Index ldc);

namespace {
// A product with op(B) used once: pack it, multiply, drop the packing.
Matrix product(MatrixView a, MatrixView b, bool transposed) {
  // A [m×k] · op(B) [k×n] → [m×n]
  const PackedMatrix packed = pack(b, transposed);
  Matrix c(a.rows(), packed.cols);
  gemm(a, packed, 0, 0, packed.cols, 1.0f, false, c.data(), c.cols());
  return c;
}
}  // namespace

PackedMatrix pack(MatrixView b, bool transposed) {
  PackedMatrix packed;
  pack_into(b, transposed, packed);
  return packed;
}

Matrix matmul(MatrixView a, MatrixView b) { return product(a, b, false); }
Matrix matmul_transposed(MatrixView a, MatrixView b) { return product(a, b, true); }

#if !defined(__wasm_simd128__)
namespace {
// The packed AVX GEMM (and Eigen's) outrun dot products from a few rows of x on: there packing pays.
constexpr Eigen::Index kRowDotsBelow = 5;
}  // namespace
#endif

Matrix linear(MatrixView x, MatrixView w) {
#if defined(__wasm_simd128__)
  return row_dots(x, w);
#else
  return x.rows() < kRowDotsBelow ? row_dots(x, w) : matmul_transposed(x, w);
#endif
}

namespace {

#if defined(__wasm_simd128__)
// c's columns first … first+count−1 = A · (B's rows 0 … count−1)ᵀ, B [count×k] row-major with row stride
// ldb (a run of a larger B's rows), float32 or bfloat16: pairs of A's rows by 4 of B's in 2×4 tiles (B's
// last rows of the run one by one), then a last odd row of A alone.
template <typename W>
void simd128_row_dots(MatrixView a, const W* b, Eigen::Index ldb, Eigen::Index first, Eigen::Index count, Matrix& c) {
  const Eigen::Index m = a.rows(), k = a.cols();
  const auto b_row = [&](Eigen::Index j) { return b + j * ldb; };
  Eigen::Index i = 0;
  for (; i + 2 <= m; i += 2) {
    const float* pair[2] = {a.data() + i * a.outerStride(), a.data() + (i + 1) * a.outerStride()};
    Eigen::Index j = 0;
    for (; j + 4 <= count; j += 4) {
      const W* rows[4] = {b_row(j), b_row(j + 1), b_row(j + 2), b_row(j + 3)};
      simd128::dots_2x4(pair, rows, k, &c(i, first + j), c.outerStride());
    }
    for (; j < count; ++j) {
      c(i, first + j) = simd128::dot(pair[0], b_row(j), k);
      c(i + 1, first + j) = simd128::dot(pair[1], b_row(j), k);
    }
  }
  // A last row alone (a decoded token): B's rows one after the other, one sequential stream through
  // memory. Four rows at a time measured half as fast (four short streams defeat the prefetcher).
  if (i < m)
    for (Eigen::Index j = 0; j < count; ++j) c(i, first + j) = simd128::dot(a.data() + i * a.outerStride(), b_row(j), k);
}
#endif

constexpr Eigen::Index kRowRun = 64;  // B's rows per task of row_dots

// A [m×k] · B [n×k]ᵀ → [m×n] with B's runs of rows computed by run(first, count, c), on separate threads.
template <typename Run>
Matrix row_runs(MatrixView a, Eigen::Index n, Run run) {
  const Eigen::Index m = a.rows(), k = a.cols();
  Matrix c(m, n);
  if (m == 0 || n == 0 || k == 0) return c.setZero(), c;
  const int tasks = static_cast<int>((n + kRowRun - 1) / kRowRun);
  detail::parallel_for(tasks, static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k), [&](int task) {
    const Eigen::Index first = task * kRowRun;
    run(first, std::min(kRowRun, n - first), c);
  });
  return c;
}

}  // namespace

Matrix row_dots(MatrixView a, MatrixView b) {
  // A [m×k] · B [n×k]ᵀ → [m×n], B's rows read where they lie; runs of B's rows on separate threads
  if (b.cols() != a.cols())
    throw Error("kernels::row_dots: A has " + std::to_string(a.cols()) + " columns but B " + std::to_string(b.cols()));
  return row_runs(a, b.rows(), [&](Eigen::Index first, Eigen::Index count, Matrix& c) {
#if defined(__wasm_simd128__)
    simd128_row_dots(a, b.data() + first * b.outerStride(), b.outerStride(), first, count, c);
#else
    c.middleCols(first, count).noalias() = a * b.middleRows(first, count).transpose();  // Eigen's vectorised GEMV
#endif
  });
}

void widen_rows(Bf16Matrix w, Eigen::Index first, MatrixSpan out) {
  // w [rows×cols] bfloat16 → out [count×cols] float32
  for (Eigen::Index r = 0; r < out.rows(); ++r) {
    const std::uint16_t* in = w.data + (first + r) * w.cols;
    float* row = out.data() + r * out.outerStride();
    for (Eigen::Index c = 0; c < w.cols; ++c) row[c] = widen_bf16(in[c]);
  }
}

Matrix linear(MatrixView x, Bf16Matrix w) {
  // x [n×in] · W [out×in]ᵀ → [n×out]
  if (w.cols != x.cols())
    throw Error("kernels::linear: x has " + std::to_string(x.cols()) + " columns but W " + std::to_string(w.cols));
#if defined(__wasm_simd128__)
  // A token or two: each weight widened as the dot products read it, every weight read once. More rows:
  // each run of W's rows widened once into a buffer the run's products then read from cache, as linear()
  // reads float32 weights (widening in the 2×4 tiles would redo it for every pair of rows).
  constexpr Eigen::Index kWidenFrom = 4;
  return row_runs(x, w.rows, [&](Eigen::Index first, Eigen::Index count, Matrix& c) {
    const std::uint16_t* run = w.data + first * w.cols;
    if (x.rows() < kWidenFrom) return simd128_row_dots(x, run, w.cols, first, count, c);
    thread_local Matrix widened;
    widened.resize(count, w.cols);
    widen_rows(w, first, widened);
    simd128_row_dots(x, widened.data(), w.cols, first, count, c);
  });
#else
  // A block of W's rows widened at a time, multiplied as linear() multiplies float32: a multiple of every
  // packed panel's width, so the AVX GEMM's panels and each entry's sum are those of the whole product.
  // Eigen's GEMM picks its blocking from the whole product's size, so a block of rows would sum in another
  // order: with Eigen's kernels (and for a few rows, a GEMV per 64 rows either way) the block is all of W.
  const bool blocked = std::string_view(variant()).starts_with("x86-") || x.rows() < kRowDotsBelow;
  const Eigen::Index kBlock = blocked ? 256 : std::max<Eigen::Index>(w.rows, 1);
  Matrix y(x.rows(), w.rows), block;
  for (Eigen::Index first = 0; first < w.rows; first += kBlock) {
    block.resize(std::min(kBlock, w.rows - first), w.cols);
    widen_rows(w, first, block);
    y.middleCols(first, block.rows()) = linear(x, block);
  }
  return y;
#endif
}

#if defined(__wasm_simd128__)

void pack_into(MatrixView b, bool transposed, PackedMatrix& packed) { simd128::pack(b, transposed, packed); }
void gemm_serial(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
                 bool accumulate, float* c, Eigen::Index ldc) {
  simd128::gemm(a, b, k0, n0, nc, alpha, accumulate, c, ldc);
}
void softmax_rows(Matrix& x) { softmax_rows_with(&simd128::online_softmax_step, x); }
void online_softmax_step(MatrixSpan s, float* row_max, float* row_sum, float* rescale) {
  simd128::online_softmax_step(s, row_max, row_sum, rescale);
}
const char* variant() { return "wasm-simd128"; }

#else

namespace {
// Eigen's GEMM packs internally; "packing" here is just op(B) as one row-major panel.
void eigen_pack(MatrixView b, bool transposed, PackedMatrix& packed) {
  // op(B) [depth×cols]
  packed.depth = transposed ? b.cols() : b.rows();
  packed.cols = transposed ? b.rows() : b.cols();
  packed.width = packed.cols;
  packed.data.resize(static_cast<std::size_t>(packed.depth * packed.cols));
  Eigen::Map<Matrix> op_b(packed.data.data(), packed.depth, packed.cols);
  if (transposed) op_b = b.transpose();
  else op_b = b;
}

void eigen_gemm(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
                bool accumulate, float* c, Eigen::Index ldc) {
  // C [m×nc] (+)= alpha · A [m×kc] · op(B)[k0…, n0…]
  using Strided = Eigen::OuterStride<>;
  const Eigen::Map<const Matrix, 0, Strided> op_b(b.at(k0, n0), a.cols(), nc, Strided(b.width));
  Eigen::Map<Matrix, 0, Strided> out(c, a.rows(), nc, Strided(ldc));
  if (accumulate) out.noalias() += alpha * (a * op_b);
  else if (alpha == 1.0f) out.noalias() = a * op_b;
  else out.noalias() = alpha * (a * op_b);
}
}  // namespace

#if defined(ATTNLAB_X86_KERNELS)

// x86-64: the widest kernel set this CPU runs, picked once at the first call (x86.hpp).
namespace {
struct KernelSet {
  const char* name;     // what variant() reports
  const char* setting;  // its ATTNLAB_KERNELS value
  bool (*supported)();
  void (*pack)(MatrixView, bool, PackedMatrix&);
  void (*gemm)(MatrixView, const PackedMatrix&, Eigen::Index, Eigen::Index, Eigen::Index, float, bool, float*,
               Eigen::Index);
  OnlineSoftmaxStep online_softmax_step;
};

bool always() { return true; }

// Best first: a set the CPU lacks falls through to the next one it has.
constexpr KernelSet kSets[] = {
    {"x86-avx512", "avx512", &x86::cpu_has_avx512, &x86::avx512::pack, &x86::avx512::gemm,
     &x86::avx512::online_softmax_step},
    {"x86-avx2", "avx2", &x86::cpu_has_avx2, &x86::avx2::pack, &x86::avx2::gemm, &x86::avx2::online_softmax_step},
    {"eigen", "eigen", &always, &eigen_pack, &eigen_gemm, &reference::online_softmax_step},
};

// ATTNLAB_KERNELS=avx512|avx2|eigen asks for a set (tests and benchmarks compare them); unset or
// empty, the best. A set this CPU cannot run gives the best one it can; an unknown name is an error
// (at every call) rather than a silent choice.
const KernelSet& set_for(const char* setting) {
  std::size_t first = 0;
  if (setting && *setting) {
    const std::string_view wanted(setting);
    while (first < std::size(kSets) && kSets[first].setting != wanted) ++first;
    if (first == std::size(kSets))
      throw Error("ATTNLAB_KERNELS is '" + std::string(wanted) + "': expected avx512, avx2 or eigen");
  }
  while (!kSets[first].supported()) ++first;  // eigen, the last, always is
  return kSets[first];
}

const KernelSet*& active() {
  static const KernelSet* set = &set_for(std::getenv("ATTNLAB_KERNELS"));
  return set;
}
}  // namespace

void pack_into(MatrixView b, bool transposed, PackedMatrix& packed) { active()->pack(b, transposed, packed); }
void gemm_serial(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
                 bool accumulate, float* c, Eigen::Index ldc) {
  active()->gemm(a, b, k0, n0, nc, alpha, accumulate, c, ldc);
}
void softmax_rows(Matrix& x) { softmax_rows_with(active()->online_softmax_step, x); }
void online_softmax_step(MatrixSpan s, float* row_max, float* row_sum, float* rescale) {
  active()->online_softmax_step(s, row_max, row_sum, rescale);
}
const char* variant() { return active()->name; }

namespace for_testing {
const char* variant_for_setting(const char* setting) { return set_for(setting).name; }

std::vector<std::string> variants() {
  std::vector<std::string> names;
  for (const KernelSet& set : kSets)
    if (set.supported()) names.emplace_back(set.name);
  return names;
}

void set_variant(std::string_view name) {
  for (const KernelSet& set : kSets)
    if (set.name == name && set.supported()) {
      active() = &set;
      return;
    }
  throw Error("kernels::for_testing::set_variant: '" + std::string(name) + "' is not a kernel set this CPU runs");
}
}  // namespace for_testing

#else

void pack_into(MatrixView b, bool transposed, PackedMatrix& packed) { eigen_pack(b, transposed, packed); }
void gemm_serial(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
                 bool accumulate, float* c, Eigen::Index ldc) {
  eigen_gemm(a, b, k0, n0, nc, alpha, accumulate, c, ldc);
}
void softmax_rows(Matrix& x) { reference::softmax_rows(x); }
void online_softmax_step(MatrixSpan s, float* row_max, float* row_sum, float* rescale) {
  reference::online_softmax_step(s, row_max, row_sum, rescale);
}
#if defined(__EMSCRIPTEN__)
const char* variant() { return "wasm-scalar"; }
#else
const char* variant() { return "eigen"; }
#endif

#endif  // ATTNLAB_X86_KERNELS

#endif

void gemm(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
          bool accumulate, float* c, Eigen::Index ldc) {
  // C [m×nc] (+)= alpha · A [m×kc] · op(B)[k0…, n0…], C's rows or op(B)'s panels split over threads:
  // each element is the same sum in the same order as on one thread, so the result does not depend on
  // the split.
  const Eigen::Index m = a.rows();
  // Row runs of whole register tiles. Our kernels (wasm 2 rows, x86 4, 6, 14) give the same sums for
  // any split, so in wasm runs are 8 rows (a 128-row product still makes 16 tasks); Eigen's GEMM, which
  // natively backs machines without AVX2, treats a row differently in its 12/24/48-row tiles than in
  // its 1-packet tail, so there a run must not end inside one of them.
#if defined(__wasm_simd128__)
  constexpr Eigen::Index kRowMultiple = 8;
#else
  constexpr Eigen::Index kRowMultiple = 48;
#endif
  // A split by rows has each task stream all of op(B) past its rows of A; a split by op(B)'s panels
  // has each stream all of A past its panels, which is the one-thread order. Stream the smaller one
  // (a wide product's A stays in a core's L2): in wasm, x[128×512]·W[512×1536]ᵀ ran 1.99× faster on
  // 2 threads split by panels, 1.96× by rows (192 rows: 1.98× and 1.92×). Eigen's packing is one panel.
  const Eigen::Index panels = (nc + b.width - 1) / b.width;
  const bool by_panels = nc > m && panels > 1;
  const double multiply_adds = static_cast<double>(m) * static_cast<double>(nc) * static_cast<double>(a.cols());
  const int tasks = detail::task_count(multiply_adds, by_panels ? panels : m / kRowMultiple);
  if (tasks == 1) return gemm_serial(a, b, k0, n0, nc, alpha, accumulate, c, ldc);
  detail::parallel_for(tasks, [&](int task) {
    if (by_panels) {
      const detail::RowRange range = detail::task_rows(panels, tasks, task, 1);
      const Eigen::Index first = range.begin * b.width, end = std::min(nc, range.end * b.width);
      if (end > first) gemm_serial(a, b, k0, n0 + first, end - first, alpha, accumulate, c + first, ldc);
    } else {
      const detail::RowRange rows = detail::task_rows(m, tasks, task, kRowMultiple);
      if (rows.end > rows.begin)
        gemm_serial(a.middleRows(rows.begin, rows.end - rows.begin), b, k0, n0, nc, alpha, accumulate,
                    c + rows.begin * ldc, ldc);
    }
  });
}

#if !defined(ATTNLAB_X86_KERNELS)
// Builds with a single kernel set: there is nothing for the tests to switch.
namespace for_testing {
std::vector<std::string> variants() { return {variant()}; }
void set_variant(std::string_view name) {
  if (name != variant())
    throw Error("kernels::for_testing::set_variant: '" + std::string(name) + "' is not this build's kernel set");
}
}  // namespace for_testing
#endif

}  // namespace attnlab::kernels
