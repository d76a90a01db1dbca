#include "attnlab/interp/attribution.hpp"

#include "tensor/checks.hpp"

namespace attnlab {

Attribution direct_logit_attribution(const HookedGPT& hooked, std::span<const int> ids, int position, int target,
                                     int baseline) {
  // ids [T] → one term per part; each in double
  const char* fn = "direct_logit_attribution";
  const GPT& model = hooked.model();
  const GPTConfig& c = model.config();
  const int T = static_cast<int>(ids.size()), d = c.d_model, d_head = c.head_dim();
  if (target < 0 || target >= c.vocab_size) detail::fail(fn, "target ", target, " is outside the vocabulary 0 … ", c.vocab_size - 1);
  if (baseline < -1 || baseline >= c.vocab_size)
    detail::fail(fn, "baseline ", baseline, " is outside the vocabulary 0 … ", c.vocab_size - 1);
  if (position < 0 || position >= T) detail::fail(fn, "position ", position, " is outside the prompt's positions 0 … ", T - 1);
  // Only the points the parts are read from (a full cache would copy every activation for nothing).
  std::vector<std::string> parts = {hook_name({Hook::embed}), hook_name({Hook::pos_embed}), hook_name({Hook::ln_final_scale})};
  for (int l = 0; l < c.num_layers; ++l) parts.push_back(hook_name({Hook::z, l})), parts.push_back(hook_name({Hook::mlp_out, l}));
  const HookedRun run = hooked.run_with_cache(ids, parts);
  const ActivationCache& cache = run.cache;

  // The direction read: wte[target] − wte[baseline] (the unembedding is wteᵀ), times ln_final's weight,
  // over its frozen scale.                                                     [d]
  const auto wte = model.values().subspan(model.tensor("wte.weight").offset);
  const auto row_of = [&](std::string_view name) {
    const GPTTensorSlot& slot = model.tensor(name);
    return Eigen::Map<const Eigen::RowVectorXf>(model.values().data() + slot.offset, static_cast<Eigen::Index>(slot.size));
  };
  Eigen::RowVectorXd direction = Eigen::Map<const Eigen::RowVectorXf>(wte.data() + static_cast<std::size_t>(target) * d, d).cast<double>();
  if (baseline >= 0) direction -= Eigen::Map<const Eigen::RowVectorXf>(wte.data() + static_cast<std::size_t>(baseline) * d, d).cast<double>();
  const double scale = cache.at({Hook::ln_final_scale}).coeff(position, 0);
  const Eigen::RowVectorXd read = direction.cwiseProduct(row_of("ln_f.weight").cast<double>()) / scale;

  Attribution out;
  // A part's contribution: its row, centred (ln_final subtracts the mean of the sum, which is the sum
  // of the parts' means), read along the direction.
  const auto add = [&](AttributionPart part, int layer, int head, std::string label, const Eigen::RowVectorXd& written) {
    const double value = (written.array() - written.mean()).matrix().dot(read);
    out.terms.push_back({part, layer, head, std::move(label), value});
    out.sum += value;
  };
  add(AttributionPart::embed, -1, -1, "embed", cache.at({Hook::embed}).row(position).cast<double>());
  add(AttributionPart::pos_embed, -1, -1, "pos_embed", cache.at({Hook::pos_embed}).row(position).cast<double>());
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string block = "h." + std::to_string(l) + ".";
    const GPTTensorSlot& w_o = model.tensor(block + "attn.c_proj.weight");  // [d×d], rows h·d_head … are head h's
    const Eigen::Map<const Matrix> W_O(model.values().data() + w_o.offset, d, d);
    const Matrix& z = cache.at({Hook::z, l});
    for (int h = 0; h < c.num_heads; ++h)
      add(AttributionPart::head, l, h, "L" + std::to_string(l) + "H" + std::to_string(h),
          z.row(position).segment(h * d_head, d_head).cast<double>() * W_O.middleRows(h * d_head, d_head).cast<double>());
    add(AttributionPart::attn_bias, l, -1, "L" + std::to_string(l) + " b_O", row_of(block + "attn.c_proj.bias").cast<double>());
    add(AttributionPart::mlp, l, -1, "L" + std::to_string(l) + " mlp_out", cache.at({Hook::mlp_out, l}).row(position).cast<double>());
  }
  // ln_final's bias, read along the unfrozen direction (it is added after the scale).
  const double bias = row_of("ln_f.bias").cast<double>().dot(direction);
  out.terms.push_back({AttributionPart::ln_final_bias, -1, -1, "ln_final.b", bias});
  out.sum += bias;

  const Matrix& logits = run.logits;
  out.logit = static_cast<double>(logits(position, target)) - (baseline >= 0 ? static_cast<double>(logits(position, baseline)) : 0.0);
  return out;
}

}  // namespace attnlab
