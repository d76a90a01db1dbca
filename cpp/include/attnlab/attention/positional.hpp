// Position information. Attention alone is permutation-equivariant ("the cat sat" and "sat cat the"
// get the same attention, just permuted), so positions are added (sinusoidal, learned) or built into
// the scores (RoPE rotates Q and K; ALiBi adds a distance penalty). Learned tables: embedding.hpp.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <vector>

#include "attnlab/tensor/matrix.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// [seq_len×d_model]: PE[p, 2i] = sin(p / base^(2i/d_model)), PE[p, 2i+1] = cos(p / base^(2i/d_model)),
// evaluated in double precision and rounded to float. An odd d_model ends on a sin column.
Matrix sinusoidal_encoding(int seq_len, int d_model, double base = 10000.0);

// Rotary position embedding (RoFormer; Meta's original Llama pairing): each pair of columns (2i, 2i+1) of row r is rotated by the
// angle (r + position_offset)·θ_i with θ_i = base^(−2i/d). x [n×d], d even → [n×d]. Applied to Q and K,
// it makes q·k depend on positions only through their difference. Hugging Face's checkpoints pair
// dimension i with i + d/2 instead: rotary.hpp's apply_rotary_half, which the Llama family uses.
Matrix apply_rotary(const Matrix& x, int position_offset = 0, double base = 10000.0);
// Its backward: a rotation's transpose is the rotation by the opposite angle, so ∂L/∂x is d_y [n×d]
// rotated back by −(r + position_offset)·θ_i.
Matrix apply_rotary_backward(const Matrix& d_y, int position_offset = 0, double base = 10000.0);

// ALiBi slopes for num_heads heads (Press et al.): the geometric sequence 2^(−8/n), 2^(−16/n), … for
// n a power of two, interleaved from the next power of two otherwise, as in the reference code.
std::vector<float> alibi_slopes(int num_heads);

// [n_q×n_k] ALiBi bias −slope·|i' − j|, where query i sits at position i' = i + (n_k − n_q) (aligned
// to the last key, like causal_mask(n_q, n_k)). With a causal mask this is the paper's bias.
Matrix alibi_bias(int n_q, int n_k, float slope);

}  // namespace attnlab
ATTNLAB_API_END
