// HookedGPT::gradients: the GPT's backward pass (GPT::backward, which training runs too) read at the hook
// points instead of accumulated into the parameters — what attribution patching multiplies by the
// difference between two runs' activations.
#include "attnlab/interp/hooked_gpt.hpp"

#include <string>

#include "gpt/gpt_ops.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

ActivationCache HookedGPT::gradients(std::span<const int> ids, const Matrix& d_logits) const {
  // ids [T], d_logits [T×V] → ∂metric/∂point at each block's points, in their Matrix layouts
  const char* fn = "HookedGPT::gradients";
  const GPTConfig& c = config();
  model_.check_ids(fn, ids, 1);
  const auto T = static_cast<Eigen::Index>(ids.size());
  if (d_logits.rows() != T || d_logits.cols() != c.vocab_size)
    detail::fail(fn, "d_logits is [", d_logits.rows(), "×", d_logits.cols(), "] but the run's logits are [", T, "×", c.vocab_size, "]");
  if (!detail::all_finite(d_logits.data(), d_logits.size())) detail::fail(fn, "d_logits has a NaN or infinite value");
  GPT::Activations acts;
  model_.forward_pass(ids, 1, acts, {}, {}, packed_.get());
  ActivationCache out(c, std::vector<int>(ids.begin(), ids.end()));
  const Eigen::Index d = c.d_model, hd = c.d_model / c.num_heads;
  model_.backward(acts, d_logits, nullptr, [&](std::string_view name, int layer, const Matrix& gradient) {
    const HookPoint point = find_hook(fn, "blocks." + std::to_string(layer) + "." + std::string(name), c);
    out.set(point, gradient);
    if (point.hook != Hook::z) return;
    // z_h = pattern_h·v_h  →  ∂/∂pattern_h = dz_h·v_hᵀ [T×T], stacked as (heads, T, T) [H·T × T]
    const Matrix& qkv = acts.blocks[static_cast<std::size_t>(layer)].qkv;  // [T×3d]: q | k | v
    Matrix d_pattern(c.num_heads * T, T);
    for (int h = 0; h < c.num_heads; ++h) {
      auto rows = d_pattern.middleRows(h * T, T);
      rows = gradient.middleCols(h * hd, hd) * qkv.middleCols(2 * d + h * hd, hd).transpose();
      rows.triangularView<Eigen::StrictlyUpper>().setZero();  // masked keys: a patch leaves them 0
    }
    out.set({Hook::pattern, layer}, std::move(d_pattern));
  });
  return out;
}

}  // namespace attnlab
