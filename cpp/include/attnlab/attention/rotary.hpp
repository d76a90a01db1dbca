// Rotary position embedding (RoPE, Su et al. 2021) as Hugging Face's Llama, Qwen2 and Mistral apply it.
//
// A head's query and key vectors [hd] are turned, pair by pair, by an angle that grows with the
// token's position p: pair i (i = 0 … hd/2 − 1) turns by p·θ_i with θ_i = theta^(−2i/hd), so the first
// pairs turn fast and the last slowly. Because both q and k are turned, q_p·k_s depends on p − s only:
// the score between two tokens depends on how far apart they are, not on where they stand.
//
// Pairing. Hugging Face pairs dimension i with dimension i + hd/2 (`rotate_half`):
//   out[i]        = x[i]·cos(p·θ_i) − x[i + hd/2]·sin(p·θ_i)
//   out[i + hd/2] = x[i + hd/2]·cos(p·θ_i) + x[i]·sin(p·θ_i)
// Meta's original Llama code pairs adjacent dimensions (2i, 2i + 1) as one complex number, as RoFormer
// does and as positional.hpp's apply_rotary (the lesson's RoPE over a whole row) does. The two
// compute the same scores once q_proj's and k_proj's rows are permuted within each head (row 2i of
// Meta's becomes row i of HF's, row 2i + 1 becomes row i + hd/2): the permutation Hugging Face's
// conversion script applies. A checkpoint in HF's layout must be rotated in HF's pairing; attnlab
// rotates only that way.
//
// Llama 3's long-context rescaling (rope_scaling {"rope_type": "llama3", factor, low_freq_factor,
// high_freq_factor, original_max_position_embeddings}): pairs whose wavelength 2π/θ_i is longer than
// original/low_freq_factor turn `factor` times slower, those shorter than original/high_freq_factor
// are unchanged, and those between blend the two smoothly.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <span>
#include <vector>

#include "attnlab/tensor/matrix.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct RopeScaling {
  bool llama3 = false;  // false: no rescaling (the other fields unused)
  double factor = 8.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  double original_max_position_embeddings = 8192.0;
};

struct RopeConfig {
  int head_dim = 0;        // hd, even
  double theta = 10000.0;  // rope_theta
  RopeScaling scaling;
};

// θ_i for i = 0 … hd/2 − 1, in double, the scaling applied. Error for an odd or non-positive head_dim,
// a theta ≤ 1 or scaling factors that are not positive (low_freq_factor < high_freq_factor).
std::vector<double> rope_frequencies(const RopeConfig& config);

// cos and sin of every position's angles, [positions × hd/2] each, computed in double and rounded
// once: the table a forward computes once and applies to q and k in every layer.
struct RotaryTable {
  Matrix cos, sin;
};
RotaryTable rotary_table(std::span<const int> positions, std::span<const double> frequencies);

// x [T × heads·hd] (head h in columns h·hd …), row t at the table's row t: every head's pairs
// (i, i + hd/2) turned in place by row t's angles (HF's pairing, above).
void apply_rotary_half(Eigen::Ref<Matrix> x, int head_dim, const RotaryTable& table);

}  // namespace attnlab
ATTNLAB_API_END
