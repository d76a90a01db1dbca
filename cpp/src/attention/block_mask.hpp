// Masking a block of scores in place, for the attention paths that never build the n_q×n_k mask
// (attention_output's blocks, lean_attention's whole matrix).
#pragma once

#include "attnlab/attention/attention.hpp"

namespace attnlab::detail {

// s [rows×cols] is the block of scores at (row0, col0) of the full n_q×n_k matrix: entries the mask
// blocks (0) or a causal rule hides (key after the query's position, query i sitting at position
// i + n_k − n_q, as causal_mask) become −∞.
void mask_score_block(Eigen::Ref<Matrix> s, const AttentionOptions& options, Eigen::Index row0, Eigen::Index col0,
                      Eigen::Index n_q, Eigen::Index n_k);

}  // namespace attnlab::detail
