#include "attention/block_mask.hpp"

#include <algorithm>
#include <limits>

namespace attnlab::detail {

void mask_score_block(Eigen::Ref<Matrix> s, const AttentionOptions& options, Eigen::Index row0, Eigen::Index col0,
                      Eigen::Index n_q, Eigen::Index n_k) {
  // s [rows×cols], the block at (row0, col0) of [n_q×n_k]
  constexpr float kBlocked = -std::numeric_limits<float>::infinity();
  if (options.mask) s = (options.mask->block(row0, col0, s.rows(), s.cols()).array() == 0.0f).select(kBlocked, s);
  if (!options.causal) return;
  const Eigen::Index offset = n_k - n_q;
  for (Eigen::Index r = 0; r < s.rows(); ++r)
    for (Eigen::Index c = std::max<Eigen::Index>(0, row0 + r + offset + 1 - col0); c < s.cols(); ++c) s(r, c) = kBlocked;
}

}  // namespace attnlab::detail
