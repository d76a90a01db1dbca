// ActivationCache: a run's activations by hook point, handed out in TransformerLens's shapes.
#include "attnlab/interp/hooked_gpt.hpp"

#include "tensor/checks.hpp"

namespace attnlab {

ActivationCache::ActivationCache(const GPTConfig& config, std::vector<int> ids)
    : config_(config),
      ids_(std::move(ids)),
      values_(static_cast<std::size_t>(hook_count(config.num_layers))),
      kept_(values_.size(), false) {}

bool ActivationCache::has(HookPoint point) const {
  const int index = hook_index(point, config_.num_layers);
  return index >= 0 && index < static_cast<int>(kept_.size()) && kept_[static_cast<std::size_t>(index)];
}

const Matrix& ActivationCache::at(HookPoint point) const {
  if (!has(point))
    detail::fail("ActivationCache::get", "this run did not keep \"", hook_name(point),
                 "\" (ask for it in the names to cache, or leave the names out to keep every point)");
  return values_[static_cast<std::size_t>(hook_index(point, config_.num_layers))];
}

Tensor ActivationCache::get(std::string_view name) const {
  const HookPoint point = find_hook("ActivationCache::get", name, config_);
  const Matrix& m = at(point);
  return Tensor(hook_shape(point, seq_len(), config_), std::vector<float>(m.data(), m.data() + m.size()));
}

std::vector<std::string> ActivationCache::names() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < kept_.size(); ++i)
    if (kept_[i]) out.push_back(hook_name(hook_at(static_cast<int>(i), config_.num_layers)));
  return out;
}

void ActivationCache::set(HookPoint point, Matrix value) {
  const auto index = static_cast<std::size_t>(hook_index(point, config_.num_layers));
  values_[index] = std::move(value);
  kept_[index] = true;
}

}  // namespace attnlab
