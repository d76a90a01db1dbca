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
}  // namespace

Matrix attention_output(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionOptions& options,
                        const Tracer& tracer) {
  // Q [n_q×d_k], K [n_k×d_k], V [n_k×d_v] → [n_q×d_v]
  const detail::LargestEntries largest = detail::check_attention_arguments("attention_output", q, k, v, options);
  if (options.dropout > 0.0f) detail::fail("attention_output", "dropout is not supported here (training uses scaled_dot_product_attention)");
  detail::require_within_budget("attention_output", 1, static_cast<double>(q.rows()), static_cast<double>(v.cols()),
                                "the output");
  // Untraced, the blocks are reused (O(n·d) memory); a trace keeps every block's scores and exps.
  if (tracer.enabled())
    detail::require_within_budget("attention_output", 2, static_cast<double>(q.rows()), static_cast<double>(k.rows()),
                                  "the traced blocks' scores and exps");
  const Eigen::Index n_q = q.rows(), n_k = k.rows();
  const float scale = options.scale.value_or(1.0f / std::sqrt(static_cast<float>(q.cols())));
  constexpr float kBlocked = -std::numeric_limits<float>::infinity();

  const Eigen::Index offset = n_k - n_q;  // query i sits at sequence position i + offset (causal, ALiBi)

  // K and V are laid out for the GEMM once, not once per query block. The scores of one block live in
  // one reused buffer per thread, and the block's P·V is written (first key block) or added straight
  // into the output rows.
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
  const double work = static_cast<double>(n_q) * static_cast<double>(n_k) * static_cast<double>(q.cols() + v.cols());
  const int tasks = tracer.enabled() ? 1 : detail::task_count(work, (n_q + 31) / 32);
  // With threads, K and V are packed at the same time (the packing is otherwise the serial part).
  const auto pack_operand = [&](int operand) {
    if (operand == 0) kernels::pack_into(k, true, workspace.k_t);
    else kernels::pack_into(v, false, workspace.v);
  };
  if (tasks == 1) pack_operand(0), pack_operand(1);
  else detail::parallel_for(2, pack_operand);
  const kernels::PackedMatrix &k_t = workspace.k_t, &v_packed = workspace.v;
  const bool scores_may_overflow = options.bias || options.alibi_slope || !detail::scaled_scores_fit_float(largest, q.cols(), scale);
  Matrix out(n_q, v.cols());  // every row is written by its first key block, or zeroed in step 4
  // Queries q0 … q0 + bq − 1 against every key block, scores in `score_buffer`.
  const auto attend_query_block = [&](Eigen::Index q0, Eigen::Index bq, kernels::FloatBuffer& score_buffer) {
    score_buffer.resize(static_cast<std::size_t>(bq * std::min(kKeyBlock, n_k)));
    std::vector<float> row_max(static_cast<std::size_t>(bq), kBlocked), row_sum(static_cast<std::size_t>(bq), 0.0f),
        rescale(static_cast<std::size_t>(bq));
    auto out_block = out.middleRows(q0, bq);
    for (Eigen::Index k0 = 0; k0 < n_k; k0 += kKeyBlock) {
      // Causal: a key block wholly after this block's last query is never seen, nor are later ones.
      if (options.causal && k0 > q0 + bq - 1 + offset) break;
      const Eigen::Index bk = std::min(kKeyBlock, n_k - k0);
      // 1. Scaled (biased, masked) scores of this block; causal and ALiBi from positions, no n×n matrix.
      Eigen::Map<Matrix> s(score_buffer.data(), bq, bk);
      kernels::gemm(q.middleRows(q0, bq), k_t, 0, k0, bk, scale, false, s.data(), bk);
      if (options.bias) s += options.bias->block(q0, k0, bq, bk);
      if (options.alibi_slope) {
        for (Eigen::Index r = 0; r < bq; ++r)
          for (Eigen::Index c = 0; c < bk; ++c) {
            const Eigen::Index distance = std::abs(q0 + r + offset - (k0 + c));
            if (distance) s(r, c) -= *options.alibi_slope * static_cast<float>(distance);
          }
      }
      if (scores_may_overflow) detail::require_finite_scores("attention_output", s, q0, k0);
      detail::mask_score_block(s, options, q0, k0, n_q, n_k);
      const Matrix scaled = tracer.enabled() ? Matrix(s) : Matrix();
      // 2. Online softmax: new running max, exp(s − max), earlier output rescaled.
      kernels::online_softmax_step(s, row_max.data(), row_sum.data(), rescale.data());
      const bool first_block = k0 == 0;  // nothing earlier to rescale: P·V is written, not added
      if (!first_block)
        for (Eigen::Index r = 0; r < bq; ++r)
          if (rescale[static_cast<std::size_t>(r)] != 1.0f) out_block.row(r) *= rescale[static_cast<std::size_t>(r)];
      // 3. This block's values, weighted by the unnormalised probabilities.
      kernels::gemm(s, v_packed, k0, 0, v.cols(), 1.0f, !first_block, out_block.data(), v.cols());
      if (tracer.enabled()) {
        const Matrix maxes = Eigen::Map<const Matrix>(row_max.data(), bq, 1);
        const Matrix sums = Eigen::Map<const Matrix>(row_sum.data(), bq, 1);
        tracer.record("block" + std::to_string(q0 / kQueryBlock) + "." + std::to_string(k0 / kKeyBlock),
                      "Block of queries " + std::to_string(q0) + "…" + std::to_string(q0 + bq - 1) + " × keys " +
                          std::to_string(k0) + "…" + std::to_string(k0 + bk - 1),
                      "Scores of this block only; the running max and sum per query row absorb it, and the partial "
                      "output is rescaled by exp(old max − new max).",
                      {{"scaled_scores", scaled}, {"exp", Matrix(s)}, {"running_max", maxes}, {"running_sum", sums}});
      }
    }
    // 4. Normalise by the total Σexp (0 for a row whose keys were all blocked: output 0, not NaN).
    for (Eigen::Index r = 0; r < bq; ++r) {
      const float sum = row_sum[static_cast<std::size_t>(r)];
      if (sum > 0.0f) out_block.row(r) /= sum;
      else out_block.row(r).setZero();
    }
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

}  // namespace attnlab
