// Direct logit attribution: which parts of the model wrote the logit of `target` (or the difference
// target − baseline) at one position, straight into the residual stream. The final residual stream is
// the sum of its parts — the token and position embeddings, every head (its hook_z slice through its
// rows of W_O), each layer's attention bias b_O, every MLP's output — and ln_final is linear once its
// scale is frozen at the run's value (as TransformerLens's apply_ln_to_stack freezes it): each part
// is centred, divided by that scale, multiplied by ln_final's weight and read along the unembedding's
// direction. ln_final's bias is one more part, so the parts sum to the model's own logit (difference).
#pragma once

#include "attnlab/tensor/api.hpp"

#include <span>
#include <string>
#include <vector>

#include "attnlab/interp/hooked_gpt.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

enum class AttributionPart { embed, pos_embed, head, attn_bias, mlp, ln_final_bias };

struct AttributionTerm {
  AttributionPart part;
  int layer = -1, head = -1;  // where the part has them
  std::string label;          // "embed", "pos_embed", "L1H3", "L1 b_O", "L1 mlp_out", "ln_final.b"
  double value = 0.0;         // its contribution to the logit (difference)
};

struct Attribution {
  std::vector<AttributionTerm> terms;  // in the order above, heads by layer then head
  double sum = 0.0;                    // Σ terms
  double logit = 0.0;                  // the model's own logit (difference) at the position, from its logits
};

// ids [T]; position in 0 … T−1; target a token id; baseline −1 (none: the logit itself) or a token id.
Attribution direct_logit_attribution(const HookedGPT& model, std::span<const int> ids, int position, int target,
                                     int baseline = -1);

}  // namespace attnlab
ATTNLAB_API_END
