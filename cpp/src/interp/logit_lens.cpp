#include "attnlab/interp/logit_lens.hpp"

#include "interp/lens_reading.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

LogitLens logit_lens(const HookedGPT& model, std::span<const int> ids, std::span<const int> positions, int k, int target) {
  // ids [T] → cells [2L + 1][positions]
  const char* fn = "logit_lens";
  const GPTConfig& c = model.config();
  const int T = static_cast<int>(ids.size()), L = c.num_layers;
  std::vector<int> chosen = lens_reading::checked_positions(fn, positions, T, k, target, c.vocab_size);

  std::vector<HookPoint> points;
  for (int l = 0; l < L; ++l) points.push_back({Hook::resid_pre, l}), points.push_back({Hook::resid_mid, l});
  std::vector<std::string> names;
  for (const HookPoint& point : points) names.push_back(hook_name(point));
  const HookedRun run = model.run_with_cache(ids, names);  // throws for bad ids

  // Every early point's rows at the chosen positions, unembedded in one product: [2L·P × d] → [2L·P × V].
  const auto P = static_cast<Eigen::Index>(chosen.size());
  detail::require_within_budget(fn, 1, static_cast<double>(points.size()) * static_cast<double>(P) * c.vocab_size, 1,
                                "the lens's logits (fewer positions take less)");
  Matrix rows(static_cast<Eigen::Index>(points.size()) * P, c.d_model);
  for (std::size_t i = 0; i < points.size(); ++i)
    for (Eigen::Index j = 0; j < P; ++j)
      rows.row(static_cast<Eigen::Index>(i) * P + j) = run.cache.at(points[i]).row(chosen[static_cast<std::size_t>(j)]);
  return lens_reading::read(std::move(names), hook_name({Hook::resid_post, L - 1}), std::move(chosen), model.unembed(rows),
                            run.logits, k, target);
}

}  // namespace attnlab
