#include "attnlab/interp/hook_points.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "interp/hook_names.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

// Each kind's name: a block's after "blocks.{l}.", the others whole. In Hook's order.
constexpr std::array<std::string_view, 21> kHookNames = {
    "hook_embed", "hook_pos_embed",
    "hook_resid_pre", "ln1.hook_scale", "ln1.hook_normalized", "attn.hook_q", "attn.hook_k", "attn.hook_v",
    "attn.hook_attn_scores", "attn.hook_pattern", "attn.hook_z", "hook_attn_out", "hook_resid_mid",
    "ln2.hook_scale", "ln2.hook_normalized", "mlp.hook_pre", "mlp.hook_post", "hook_mlp_out", "hook_resid_post",
    "ln_final.hook_scale", "ln_final.hook_normalized",
};
constexpr int kBefore = 2;  // hook_embed, hook_pos_embed

bool is_block_hook(Hook hook) { return hook >= Hook::resid_pre && hook <= Hook::resid_post; }

}  // namespace

bool HookPoint::per_head() const {
  return hook == Hook::q || hook == Hook::k || hook == Hook::v || hook == Hook::z || hook == Hook::attn_scores ||
         hook == Hook::pattern;
}

int hook_count(int num_layers) { return kBefore + kHooksPerBlock * num_layers + 2; }

int hook_index(HookPoint point, int num_layers) {
  const int kind = static_cast<int>(point.hook);
  if (kind < kBefore) return kind;
  if (is_block_hook(point.hook)) return kBefore + kHooksPerBlock * point.layer + (kind - kBefore);
  return kBefore + kHooksPerBlock * num_layers + (kind - static_cast<int>(Hook::ln_final_scale));
}

HookPoint hook_at(int index, int num_layers) {
  if (index < kBefore) return {static_cast<Hook>(index), -1};
  const int in_blocks = index - kBefore;
  if (in_blocks < kHooksPerBlock * num_layers)
    return {static_cast<Hook>(kBefore + in_blocks % kHooksPerBlock), in_blocks / kHooksPerBlock};
  return {static_cast<Hook>(static_cast<int>(Hook::ln_final_scale) + in_blocks - kHooksPerBlock * num_layers), -1};
}

std::string hook_name(HookPoint point) {
  const std::string_view name = kHookNames[static_cast<std::size_t>(point.hook)];
  if (!is_block_hook(point.hook)) return std::string(name);
  return "blocks." + std::to_string(point.layer) + "." + std::string(name);
}

HookPoint find_hook(const char* function, std::string_view name, const GPTConfig& config) {
  // "blocks.{l}.<kind>" with 0 ≤ l < L, or one of the four outside the blocks
  if (name.starts_with("blocks.")) {
    const std::string_view rest = name.substr(7);
    int layer = -1;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), layer);
    if (error == std::errc() && end != rest.data() && *end == '.' && layer >= 0 && layer < config.num_layers) {
      const std::string_view kind = rest.substr(static_cast<std::size_t>(end - rest.data()) + 1);
      for (int k = static_cast<int>(Hook::resid_pre); k <= static_cast<int>(Hook::resid_post); ++k)
        if (kHookNames[static_cast<std::size_t>(k)] == kind) return {static_cast<Hook>(k), layer};
    }
  } else {
    for (const Hook hook : {Hook::embed, Hook::pos_embed, Hook::ln_final_scale, Hook::ln_final_normalized})
      if (kHookNames[static_cast<std::size_t>(hook)] == name) return {hook, -1};
  }
  // Not a hook point of this model: the nearest that is, and the list.
  std::vector<std::string> names;
  const int count = hook_count(config.num_layers);
  for (int i = 0; i < count; ++i) names.push_back(hook_name(hook_at(i, config.num_layers)));
  std::string kinds;
  for (int k = static_cast<int>(Hook::resid_pre); k <= static_cast<int>(Hook::resid_post); ++k)
    kinds += std::string(k == static_cast<int>(Hook::resid_pre) ? "" : ", ") +
             std::string(kHookNames[static_cast<std::size_t>(k)]);
  const std::string suggestion = did_you_mean(name, names);
  detail::fail(function, "unknown hook name \"", name, "\"", suggestion, " The model's hook points are hook_embed, ",
               "hook_pos_embed, ln_final.hook_scale, ln_final.hook_normalized and blocks.{l}.<name> for l = 0 … ",
               config.num_layers - 1, " and <name> one of ", kinds);
}

Eigen::Index hook_rows(HookPoint point, int T, const GPTConfig& config) {
  return point.hook == Hook::attn_scores || point.hook == Hook::pattern
             ? static_cast<Eigen::Index>(config.num_heads) * T : T;
}

Eigen::Index hook_cols(HookPoint point, int T, const GPTConfig& config) {
  switch (point.hook) {
    case Hook::ln1_scale: case Hook::ln2_scale: case Hook::ln_final_scale: return 1;
    case Hook::attn_scores: case Hook::pattern: return T;
    case Hook::mlp_pre: case Hook::mlp_post: return config.d_mlp();
    default: return config.d_model;
  }
}

Shape hook_shape(HookPoint point, int T, const GPTConfig& config) {
  const std::int64_t H = config.num_heads, d_head = config.head_dim();
  if (point.hook == Hook::attn_scores || point.hook == Hook::pattern) return {H, T, T};
  if (point.hook == Hook::q || point.hook == Hook::k || point.hook == Hook::v || point.hook == Hook::z)
    return {T, H, d_head};
  return {T, hook_cols(point, T, config)};
}

}  // namespace attnlab
