// Output-only attention with an online softmax over key blocks (FlashAttention, Dao et al. 2022).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attnlab/attention/attention.hpp"
#include "attention/block_mask.hpp"
#include "tensor/checks.hpp"
#include "kernels/kernels.hpp"
#include "tensor/parallel.hpp"

namespace attnlab {

namespace {
// A 128×256 score block is 128 KB: it stays in L2 while it is exponentiated and multiplied by V.
// (Measured in wasm SIMD at seq 512, d 64: 64×128 blocks took 4.5 ms a call, 128×256 blocks 3.5 ms —
// each block pays for packing its K and V slices and for its own small matrix products.)
constexpr Eigen::Index kQueryBlock = 128;
constexpr Eigen::Index kKeyBlock = 256;

// K and V packed for the GEMM and the score block. Natively they are kept per thread from one call
// to the next: allocating them per call cost ~40% of a seq-256 call, because glibc hands large freed
// blocks back to the OS and every page faults in again on the next call (the buffers stay as large as
// the longest call: O(n·d), not O(n²)). In wasm, malloc keeps freed memory in the heap, so there is
// nothing to gain, and a single-threaded call leaves the heap in use exactly as it found it (the
// threaded build keeps each worker's score block, ≤ 128 KB, like the native build).
struct Workspace {
  kernels::PackedMatrix k_t, v;
  kernels::FloatBuffer scores;
};

// One call's shared state: the inputs, the options, K and V packed for the GEMM. step() is
// FlashAttention's inner loop body — one block of queries against one block of keys — and
// finish() its last line; attention_output and flash_attention_trace both run these.
class KeyBlockSteps {
 public:
  KeyBlockSteps(const char* function, const Matrix& q, const Matrix& k, const Matrix& v, const AttentionOptions& options,
                Workspace& workspace, bool pack_in_parallel)
      : q_(q), k_(k), v_cols_(v.cols()), options_(options), k_t_(workspace.k_t), v_packed_(workspace.v), function_(function) {
    const detail::LargestEntries largest = detail::check_attention_arguments(function, q, k, v, options);
    if (options.dropout > 0.0f)
      detail::fail(function, "dropout is not supported here (training uses scaled_dot_product_attention)");
    n_q_ = q.rows(), n_k_ = k.rows();
    scale_ = options.scale.value_or(1.0f / std::sqrt(static_cast<float>(q.cols())));
    scores_may_overflow_ =
        options.bias || options.alibi_slope || !detail::scaled_scores_fit_float(largest, q.cols(), scale_);
    // K and V are laid out for the GEMM once, not once per query block (with threads, both at once:
    // the packing is otherwise the serial part).
    const auto pack_operand = [&](int operand) {
      if (operand == 0) kernels::pack_into(k, true, workspace.k_t);
      else kernels::pack_into(v, false, workspace.v);
    };
    if (!pack_in_parallel) pack_operand(0), pack_operand(1);
    else detail::parallel_for(2, pack_operand);
  }

  Eigen::Index n_q() const { return n_q_; }
  Eigen::Index n_k() const { return n_k_; }
  Eigen::Index offset() const { return n_k_ - n_q_; }  // query i sits at position i + offset (causal, ALiBi)

  // Queries q0 … q0 + bq − 1 against keys k0 … k0 + bk − 1. `s` (bq×bk) ends holding exp(score − new
  // max); `scaled`, when given, gets the block's scaled (biased, masked) scores first. row_max, row_sum
  // [bq] advance; `out` (bq×d_v rows, row-major) is rescaled by exp(old max − new max) and gets this
  // block's exp·V added (written, on the first key block).
  void step(Eigen::Index q0, Eigen::Index bq, Eigen::Index k0, Eigen::Index bk, float* s_data, float* row_max,
            float* row_sum, float* rescale, float* out, Matrix* scaled = nullptr) const {
    // 1. Scaled (biased, masked) scores of this block; causal and ALiBi from positions, no n×n matrix.
    Eigen::Map<Matrix> s(s_data, bq, bk);
    if (k0 % k_t_.width == 0) {
      kernels::gemm(q_.middleRows(q0, bq), k_t_, 0, k0, bk, scale_, false, s.data(), bk);
    } else {
      // A block that starts inside a packed panel (the trace's own block sizes): the GEMM's micro-kernel reads whole
      // panel rows from its first column, past the end of the last panel when started inside it (ASan), so these
      // scores come from K's rows as they lie.
      s.noalias() = scale_ * (q_.middleRows(q0, bq) * k_.middleRows(k0, bk).transpose());
    }
    if (options_.bias) s += options_.bias->block(q0, k0, bq, bk);
    if (options_.alibi_slope) {
      for (Eigen::Index r = 0; r < bq; ++r)
        for (Eigen::Index c = 0; c < bk; ++c) {
          const Eigen::Index distance = std::abs(q0 + r + offset() - (k0 + c));
          if (distance) s(r, c) -= *options_.alibi_slope * static_cast<float>(distance);
        }
    }
    if (scores_may_overflow_) detail::require_finite_scores(function_, s, q0, k0);
    detail::mask_score_block(s, options_, q0, k0, n_q_, n_k_);
    if (scaled) *scaled = s;
    // 2. Online softmax: new running max, exp(s − max), earlier output rescaled.
    kernels::online_softmax_step(s, row_max, row_sum, rescale);
    const bool first_block = k0 == 0;  // nothing earlier to rescale: P·V is written, not added
    Eigen::Map<Matrix> out_rows(out, bq, v_cols_);
    if (!first_block)
      for (Eigen::Index r = 0; r < bq; ++r)
        if (rescale[r] != 1.0f) out_rows.row(r) *= rescale[r];
    // 3. This block's values, weighted by the unnormalised probabilities.
    kernels::gemm(s, v_packed_, k0, 0, v_cols_, 1.0f, !first_block, out, v_cols_);
  }

  // 4. Normalise by the total Σexp (0 for a row whose keys were all blocked: output 0, not NaN).
  void finish(Eigen::Index bq, const float* row_sum, float* out) const {
    Eigen::Map<Matrix> out_rows(out, bq, v_cols_);
    for (Eigen::Index r = 0; r < bq; ++r) {
      if (row_sum[r] > 0.0f) out_rows.row(r) /= row_sum[r];
      else out_rows.row(r).setZero();
    }
  }

 private:
  const Matrix& q_;
  const Matrix& k_;
  Eigen::Index v_cols_, n_q_ = 0, n_k_ = 0;
  const AttentionOptions& options_;
  const kernels::PackedMatrix &k_t_, &v_packed_;
  const char* function_;
  float scale_ = 1.0f;
  bool scores_may_overflow_ = false;
};

constexpr float kBlocked = -std::numeric_limits<float>::infinity();
}  // namespace

Matrix attention_output(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionOptions& options,
                        const Tracer& tracer) {
  // Q [n_q×d_k], K [n_k×d_k], V [n_k×d_v] → [n_q×d_v]
  detail::require_within_budget("attention_output", 1, static_cast<double>(q.rows()), static_cast<double>(v.cols()),
                                "the output");
  // Untraced, the blocks are reused (O(n·d) memory); a trace keeps every block's scores and exps.
  if (tracer.enabled())
    detail::require_within_budget("attention_output", 2, static_cast<double>(q.rows()), static_cast<double>(k.rows()),
                                  "the traced blocks' scores and exps");

  // The scores of one block live in one reused buffer per thread, and the block's P·V is written
  // (first key block) or added straight into the output rows.
#if defined(__EMSCRIPTEN__)
  Workspace call_workspace;
  Workspace& workspace = call_workspace;
#else
  thread_local Workspace thread_workspace;
  Workspace& workspace = thread_workspace;  // named by reference: the packing below may run on another thread
#endif
  // Query blocks are independent, so untraced they are split over threads, several blocks per thread
  // (task_count; causal rows also differ in how many keys they see), and each row's arithmetic is
  // the same whichever block holds it, so the result does not depend on the split.
  const double work = static_cast<double>(q.rows()) * static_cast<double>(k.rows()) * static_cast<double>(q.cols() + v.cols());
  const int tasks = tracer.enabled() ? 1 : detail::task_count(work, (q.rows() + 31) / 32);
  const KeyBlockSteps steps("attention_output", q, k, v, options, workspace, tasks > 1);
  const Eigen::Index n_q = steps.n_q(), n_k = steps.n_k();
  Matrix out(n_q, v.cols());  // every row is written by its first key block, or zeroed in finish()
  // Queries q0 … q0 + bq − 1 against every key block, scores in `score_buffer`.
  const auto attend_query_block = [&](Eigen::Index q0, Eigen::Index bq, kernels::FloatBuffer& score_buffer) {
    score_buffer.resize(static_cast<std::size_t>(bq * std::min(kKeyBlock, n_k)));
    std::vector<float> row_max(static_cast<std::size_t>(bq), kBlocked), row_sum(static_cast<std::size_t>(bq), 0.0f),
        rescale(static_cast<std::size_t>(bq));
    float* out_rows = out.row(q0).data();
    for (Eigen::Index k0 = 0; k0 < n_k; k0 += kKeyBlock) {
      // Causal: a key block wholly after this block's last query is never seen, nor are later ones.
      if (options.causal && k0 > q0 + bq - 1 + steps.offset()) break;
      const Eigen::Index bk = std::min(kKeyBlock, n_k - k0);
      Matrix scaled;
      steps.step(q0, bq, k0, bk, score_buffer.data(), row_max.data(), row_sum.data(), rescale.data(), out_rows,
                 tracer.enabled() ? &scaled : nullptr);
      if (tracer.enabled()) {
        const Matrix maxes = Eigen::Map<const Matrix>(row_max.data(), bq, 1);
        const Matrix sums = Eigen::Map<const Matrix>(row_sum.data(), bq, 1);
        tracer.record("block" + std::to_string(q0 / kQueryBlock) + "." + std::to_string(k0 / kKeyBlock),
                      "Block of queries " + std::to_string(q0) + "…" + std::to_string(q0 + bq - 1) + " × keys " +
                          std::to_string(k0) + "…" + std::to_string(k0 + bk - 1),
                      "Scores of this block only; the running max and sum per query row absorb it, and the partial "
                      "output is rescaled by exp(old max − new max).",
                      {{"scaled_scores", scaled},
                       {"exp", Eigen::Map<const Matrix>(score_buffer.data(), bq, bk)},
                       {"running_max", maxes},
                       {"running_sum", sums}});
      }
    }
    steps.finish(bq, row_sum.data(), out_rows);
  };

  if (tasks == 1) {
    for (Eigen::Index q0 = 0; q0 < n_q; q0 += kQueryBlock)
      attend_query_block(q0, std::min(kQueryBlock, n_q - q0), workspace.scores);
  } else {
    const Eigen::Index query_block =
        std::min(kQueryBlock, detail::task_rows(n_q, tasks, 0, 16).end);
    const auto blocks = static_cast<int>((n_q + query_block - 1) / query_block);
    detail::parallel_for(blocks, [&](int block) {
      thread_local kernels::FloatBuffer score_buffer;  // per thread, kept between calls (see Workspace)
      const Eigen::Index q0 = block * query_block;
      attend_query_block(q0, std::min(query_block, n_q - q0), score_buffer);
    });
  }
  tracer.record("output", "Normalise", "Each output row divided by its total Σexp: the same result as softmax then ·V.",
                {{"output", out}});
  return out;
}

FlashAttentionTrace flash_attention_trace(const Matrix& q, const Matrix& k, const Matrix& v, Eigen::Index block_size,
                                          const AttentionOptions& options) {
  constexpr const char* kFunction = "flash_attention_trace";
  if (block_size < 1) detail::fail(kFunction, "block_size must be at least 1, got " + std::to_string(block_size));
  // Every block keeps its scores (n_q×n_k in all) and its accumulator (n_q×d_v per block).
  detail::require_within_budget(kFunction, 1, static_cast<double>(q.rows()), static_cast<double>(k.rows()),
                                "the blocks' scores");
  const double blocks = std::ceil(static_cast<double>(k.rows()) / static_cast<double>(std::max<Eigen::Index>(block_size, 1)));
  detail::require_within_budget(kFunction, blocks, static_cast<double>(q.rows()), static_cast<double>(v.cols()),
                                "the accumulator after every block");
  Workspace workspace;
  const KeyBlockSteps steps(kFunction, q, k, v, options, workspace, false);
  const Eigen::Index n_q = steps.n_q(), n_k = steps.n_k(), bk_max = std::min(block_size, n_k);
  // One query block of every row, so each key block's step is recorded for all of them (a causal
  // key block past a row's position leaves that row's max, sum and accumulator as they were).
  kernels::FloatBuffer score_buffer;
  score_buffer.resize(static_cast<std::size_t>(n_q * bk_max));
  std::vector<float> row_max(static_cast<std::size_t>(n_q), kBlocked), row_sum(static_cast<std::size_t>(n_q), 0.0f),
      rescale(static_cast<std::size_t>(n_q));
  FlashAttentionTrace trace;
  trace.output = Matrix(n_q, v.cols());
  for (Eigen::Index k0 = 0; k0 < n_k; k0 += block_size) {
    FlashAttentionBlock block;
    block.key_start = k0;
    block.key_count = std::min(block_size, n_k - k0);
    steps.step(0, n_q, k0, block.key_count, score_buffer.data(), row_max.data(), row_sum.data(), rescale.data(),
               trace.output.data(), &block.scores);
    block.running_max = Eigen::Map<const Matrix>(row_max.data(), n_q, 1);
    block.running_sum = Eigen::Map<const Matrix>(row_sum.data(), n_q, 1);
    block.rescale = Eigen::Map<const Matrix>(rescale.data(), n_q, 1);
    block.accumulator = trace.output;
    trace.blocks.push_back(std::move(block));
  }
  steps.finish(n_q, row_sum.data(), trace.output.data());
  return trace;
}

}  // namespace attnlab
