// The logit lens on a Llama: each block's resid_pre and resid_mid read through model.norm and lm_head.
#include "attnlab/interp/llama_interp.hpp"

#include <set>

#include "interp/lens_reading.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

LogitLens logit_lens(const Llama& model, std::span<const int> ids, std::span<const int> positions, int k, int target) {
  // ids [T] → cells [2L + 1][positions]
  const char* fn = "logit_lens";
  const LlamaConfig& c = model.config();
  const int T = static_cast<int>(ids.size()), L = c.num_layers;
  std::vector<int> chosen = lens_reading::checked_positions(fn, positions, T, k, target, c.vocab_size);
  std::vector<std::string> names;
  for (int l = 0; l < L; ++l)
    for (const char* point : {"hook_resid_pre", "hook_resid_mid"}) names.push_back("blocks." + std::to_string(l) + "." + point);

  // The chosen rows of every early point, copied as the forward passes them: [2L·P × d].
  const auto P = static_cast<Eigen::Index>(chosen.size());
  detail::require_within_budget(fn, 1, static_cast<double>(names.size()) * static_cast<double>(P) * c.vocab_size, 1,
                                "the lens's logits (fewer positions take less)");
  Matrix rows(static_cast<Eigen::Index>(names.size()) * P, c.hidden_size);
  const std::set<std::string> wanted(names.begin(), names.end());
  Eigen::Index next = 0;
  LlamaForwardOptions options;
  options.hook_fn = [&](const std::string& name, Matrix& value) {
    if (!wanted.contains(name)) return;
    for (const int p : chosen) rows.row(next++) = value.row(p);
  };
  const Matrix logits = model.forward(ids, options).logits;  // throws for bad ids
  return lens_reading::read(std::move(names), "blocks." + std::to_string(L - 1) + ".hook_resid_post", std::move(chosen),
                            model.unembed(rows), logits, k, target);
}

}  // namespace attnlab
