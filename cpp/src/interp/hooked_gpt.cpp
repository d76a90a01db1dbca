// HookedGPT::run: GPT::forward_pass for one sequence, written out with its hook points. Each point is
// patched (if a patch names it), then kept (if asked), then used: what the cache holds is what the
// rest of the run computed from.
#include "attnlab/interp/hooked_gpt.hpp"

#include <algorithm>
#include <limits>

#include "attnlab/interp/cache_algebra.hpp"
#include "gpt/gpt_ops.hpp"
#include "interp/patch_entries.hpp"
#include "kernels/kernels.hpp"
#include "tensor/checks.hpp"
#include "tensor/parallel.hpp"

namespace attnlab {

using namespace gpt_ops;

namespace {

// Where a run given a base starts: the block of the earliest patched point, at the last stage before it
// (the whole block; at the pattern, reusing q, k and v; at resid_mid, reusing the attention), or from
// the embeddings (no base, or a patch there), or after the blocks (only ln_final is patched).
enum class Stage { resid_pre, pattern, resid_mid };
struct Resume {
  int layer = -1;  // −1: from the embeddings; num_layers: only ln_final
  Stage stage = Stage::resid_pre;
};

Resume resume_point(const HookedRunOptions& options, const GPTConfig& config) {
  if (!options.base || options.hook) return {};
  int earliest = hook_count(config.num_layers);
  for (const Patch& patch : options.patches) earliest = std::min(earliest, hook_index(patch.point, config.num_layers));
  const HookPoint point = hook_at(std::min(earliest, hook_count(config.num_layers) - 1), config.num_layers);
  if (!point.in_block()) return point.hook == Hook::embed || point.hook == Hook::pos_embed ? Resume{} : Resume{config.num_layers};
  if (point.hook >= Hook::resid_mid) return {point.layer, Stage::resid_mid};
  if (point.hook >= Hook::pattern) return {point.layer, Stage::pattern};
  return {point.layer, Stage::resid_pre};
}

// √(var + eps) per row [n×1], TransformerLens's hook_scale, from LayerNorm's 1/√(var + eps).
Matrix scale_of(const Eigen::VectorXf& rstd) {
  return (1.0 / rstd.cast<double>().array()).cast<float>().matrix();
}

}  // namespace

HookedGPT::HookedGPT(const GPT& model) : model_(model), packed_(model.packed_weights()) {}

std::vector<bool> HookedGPT::keep_list(const char* function, std::span<const std::string> names) const {
  std::vector<bool> keep(static_cast<std::size_t>(hook_count(config().num_layers)), names.empty());
  // Full names, or TransformerLens's short forms ("pattern0"; "resid_pre": that point in every block).
  for (const HookPoint point : expand_hook_names(function, names, config()))
    keep[static_cast<std::size_t>(hook_index(point, config().num_layers))] = true;
  return keep;
}

HookedRun HookedGPT::run_with_cache(std::span<const int> ids, std::span<const std::string> names) const {
  HookedRunOptions options;
  options.keep = keep_list("HookedGPT::run_with_cache", names);
  return run(ids, options);
}

HookedRun HookedGPT::run(std::span<const int> ids, const HookedRunOptions& options) const {
  // ids [T] → logits [T×V] (or [1×V]), the kept points in the cache
  const char* fn = "HookedGPT::run";
  model_.check_ids(fn, ids, 1);
  const GPTConfig& c = config();
  const int T = static_cast<int>(ids.size()), H = c.num_heads, d_head = c.head_dim(), d = c.d_model;
  check_patches(fn, options.patches, T);
  if (options.logits_position < -1 || options.logits_position >= T)
    detail::fail(fn, "logits_position ", options.logits_position, " is outside the sequence 0 … ", T - 1);
  const ActivationCache* base = options.base;
  if (base && (base->seq_len() != T || !std::equal(ids.begin(), ids.end(), base->ids().begin())))
    detail::fail(fn, "the base cache is of other ids (", base->seq_len(), " tokens) than this run (", T, " tokens)");
  const Resume resume = resume_point(options, c);

  HookedRun out{{}, ActivationCache(c, std::vector<int>(ids.begin(), ids.end()))};
  const auto keeps = [&](HookPoint point) {
    const auto index = static_cast<std::size_t>(hook_index(point, c.num_layers));
    return index < options.keep.size() && options.keep[index];
  };
  // Every computed point passes through here: patched, then the hook function, then kept.
  const auto at = [&](HookPoint point, Matrix& value) {
    for (const Patch& patch : options.patches)
      if (patch.point == point) apply_patch(patch, value, c.num_heads, c.head_dim(), T);
    if (options.hook) {
      const Eigen::Index rows = value.rows(), cols = value.cols();
      options.hook(point, value);
      if (value.rows() != rows || value.cols() != cols)
        detail::fail(fn, "the hook function made ", hook_name(point), " [", value.rows(), "×", value.cols(), "] but it is [", rows,
                     "×", cols, "]");
      // −∞ is a value scores hold (the causal mask); NaN and +∞ are not
      if ((value.array().isNaN() || value.array() == std::numeric_limits<float>::infinity()).any())
        detail::fail(fn, "the hook function left a NaN or +∞ in ", hook_name(point));
    }
    if (keeps(point)) out.cache.set(point, value);
  };
  // A point read from the base instead of computed: kept as it is there.
  const auto reuse = [&](HookPoint point) -> const Matrix& {
    const Matrix& value = base->at(point);
    if (keeps(point)) out.cache.set(point, value);
    return value;
  };
  // LayerNorm with its two points: the scale, then the normalized rows (recomputed from the scale
  // when a patch replaced it).
  const auto layer_norm_at = [&](const Matrix& x, ConstRow weight, ConstRow bias, Hook scale_hook, Hook normalized_hook,
                                 int layer) {
    Matrix y;
    Eigen::VectorXf mean, rstd;
    layer_norm(x, weight, bias, y, mean, rstd);
    Matrix scale = scale_of(rstd);
    const Matrix computed = scale;
    at({scale_hook, layer}, scale);
    if ((scale.array() != computed.array()).any())
      y = ((((x.colwise() - mean).array().colwise() / scale.col(0).array()).rowwise() * weight.array()).rowwise() +
           bias.array()).matrix();
    at({normalized_hook, layer}, y);
    return y;
  };
  const auto packed_block = [&](int l) { return packed_ ? &packed_->blocks[static_cast<std::size_t>(l)] : nullptr; };

  // x = wte[ids] + wpe[0 … T−1]                                              [T×d]
  Matrix x(T, d);
  if (resume.layer < 0) {
    Matrix embed(T, d), pos_embed(T, d);
    for (int i = 0; i < T; ++i) embed.row(i) = model_.matrix(model_.wte_).row(ids[static_cast<std::size_t>(i)]);
    pos_embed = model_.matrix(model_.wpe_).topRows(T);
    at({Hook::embed}, embed);
    at({Hook::pos_embed}, pos_embed);
    x = embed + pos_embed;
  } else {
    reuse({Hook::embed});
    reuse({Hook::pos_embed});
  }

  for (int l = 0; l < c.num_layers; ++l) {
    const GPT::BlockSlots& p = model_.blocks_[static_cast<std::size_t>(l)];
    const PackedGPTWeights::Block* pw = packed_block(l);
    if (l < resume.layer) {  // upstream of every patch: the base's values
      for (int k = static_cast<int>(Hook::resid_pre); k <= static_cast<int>(Hook::resid_post); ++k) reuse({static_cast<Hook>(k), l});
      continue;
    }
    const Stage stage = l == resume.layer ? resume.stage : Stage::resid_pre;
    Matrix x_mid;
    if (stage != Stage::resid_mid) {
      Matrix v, pattern(static_cast<Eigen::Index>(H) * T, T);
      if (stage == Stage::resid_pre) {
        if (l == resume.layer) x = base->at({Hook::resid_pre, l});
        at({Hook::resid_pre, l}, x);
        // q, k, v = split(c_attn(ln_1(x)))                                   each [T×d], head h in columns h·d_head …
        const Matrix ln1 = layer_norm_at(x, model_.row(p.ln_1_weight), model_.row(p.ln_1_bias), Hook::ln1_scale,
                                         Hook::ln1_normalized, l);
        const Matrix qkv = conv1d(ln1, pw ? &pw->c_attn : nullptr, model_.matrix(p.c_attn_weight), model_.row(p.c_attn_bias));
        Matrix q = qkv.leftCols(d), k = qkv.middleCols(d, d);
        v = qkv.rightCols(d);
        at({Hook::q, l}, q);
        at({Hook::k, l}, k);
        at({Hook::v, l}, v);
        // scores = q·kᵀ/√d_head, later keys −∞; pattern = softmax of each row   [H·T × T]
        Matrix scores(static_cast<Eigen::Index>(H) * T, T);
        detail::parallel_for(H, 2.0 * T * T * d, [&](int h) {
          scores.middleRows(h * T, T) = causal_scores(q.middleCols(h * d_head, d_head), k.middleCols(h * d_head, d_head));
        });
        at({Hook::attn_scores, l}, scores);
        detail::parallel_for(H, 4.0 * T * T, [&](int h) {
          Matrix head = scores.middleRows(h * T, T);
          kernels::softmax_rows(head);
          pattern.middleRows(h * T, T) = head;
        });
      } else {  // from the pattern: the base's q, k, v and scores
        x = reuse({Hook::resid_pre, l});
        for (const Hook hook : {Hook::ln1_scale, Hook::ln1_normalized, Hook::q, Hook::k, Hook::attn_scores}) reuse({hook, l});
        v = reuse({Hook::v, l});
        pattern = base->at({Hook::pattern, l});
      }
      at({Hook::pattern, l}, pattern);
      // z = pattern·v per head                                               [T×d]
      Matrix z(T, d);
      detail::parallel_for(H, 2.0 * T * T * d_head, [&](int h) {
        z.middleCols(h * d_head, d_head) = kernels::matmul(pattern.middleRows(h * T, T), v.middleCols(h * d_head, d_head));
      });
      at({Hook::z, l}, z);
      // attn_out = z·W_O + b_O; resid_mid = x + attn_out                     [T×d]
      Matrix attn_out = conv1d(z, pw ? &pw->attn_proj : nullptr, model_.matrix(p.attn_proj_weight), model_.row(p.attn_proj_bias));
      at({Hook::attn_out, l}, attn_out);
      x_mid = x + attn_out;
    } else {  // from resid_mid: the base's attention
      for (int k = static_cast<int>(Hook::resid_pre); k < static_cast<int>(Hook::resid_mid); ++k) reuse({static_cast<Hook>(k), l});
      x_mid = base->at({Hook::resid_mid, l});
    }
    at({Hook::resid_mid, l}, x_mid);

    // mlp_out = c_proj(gelu(c_fc(ln_2(x_mid)))); resid_post = x_mid + mlp_out   [T×4d] inside
    const Matrix ln2 = layer_norm_at(x_mid, model_.row(p.ln_2_weight), model_.row(p.ln_2_bias), Hook::ln2_scale,
                                     Hook::ln2_normalized, l);
    Matrix pre = conv1d(ln2, pw ? &pw->c_fc : nullptr, model_.matrix(p.c_fc_weight), model_.row(p.c_fc_bias));
    at({Hook::mlp_pre, l}, pre);
    Matrix post = gelu_tanh(pre);
    at({Hook::mlp_post, l}, post);
    Matrix mlp_out = conv1d(post, pw ? &pw->mlp_proj : nullptr, model_.matrix(p.mlp_proj_weight), model_.row(p.mlp_proj_bias));
    at({Hook::mlp_out, l}, mlp_out);
    x = x_mid + mlp_out;
    at({Hook::resid_post, l}, x);
  }

  // logits = ln_f(x)·wteᵀ                                                     [T×V] or [1×V]
  if (resume.layer == c.num_layers) x = base->at({Hook::resid_post, c.num_layers - 1});
  const Matrix normalized = layer_norm_at(x, model_.row(model_.ln_f_weight_), model_.row(model_.ln_f_bias_),
                                          Hook::ln_final_scale, Hook::ln_final_normalized, -1);
  out.logits = options.logits_position < 0 ? model_.tied_logits(normalized, packed_.get())
                                           : model_.tied_logits(normalized.row(options.logits_position), packed_.get());
  detail::require_finite_result(fn, out.logits, "the weights or a patched value are too large");
  return out;
}

Matrix HookedGPT::unembed(const Matrix& resid) const {
  // resid [n×d] → ln_f(resid)·wteᵀ [n×V], each row normalised with its own mean and variance
  Matrix normalized;
  Eigen::VectorXf mean, rstd;
  layer_norm(resid, model_.row(model_.ln_f_weight_), model_.row(model_.ln_f_bias_), normalized, mean, rstd);
  return model_.tied_logits(normalized, packed_.get());
}

void HookedGPT::check_patches(const char* function, const std::vector<Patch>& patches, int T) const {
  const GPTConfig& c = config();
  for (std::size_t i = 0; i < patches.size(); ++i) {
    const Patch& patch = patches[i];
    const std::string where = "patch[" + std::to_string(i) + "] (" + hook_name(patch.point) + ")";
    if (patch.point.in_block() && patch.point.layer >= c.num_layers)
      detail::fail(function, where, " names layer ", patch.point.layer, " but the model has layers 0 … ", c.num_layers - 1);
    if (patch.source == PatchSource::value && patch.value.shape() != hook_shape(patch.point, T, c))
      detail::fail(function, where, " value has shape ", shape_text(patch.value.shape()), " but this run's ",
                   hook_name(patch.point), " has shape ", shape_text(hook_shape(patch.point, T, c)));
    if (patch.source == PatchSource::value &&
        !detail::all_finite(patch.value.contiguous().to_vector().data(), static_cast<Eigen::Index>(patch.value.numel())))
      detail::fail(function, where, " value holds NaN or ±∞");
    for (const int position : patch.positions)
      if (position < 0 || position >= T)
        detail::fail(function, where, " positions holds ", position, ", outside the sequence 0 … ", T - 1);
    if (!patch.heads.empty() && !patch.point.per_head())
      detail::fail(function, where, " chooses heads, but ", hook_name(patch.point),
                   " is not a per-head point (hook_q, hook_k, hook_v, hook_attn_scores, hook_pattern, hook_z)");
    for (const int head : patch.heads)
      if (head < 0 || head >= c.num_heads)
        detail::fail(function, where, " heads holds ", head, ", outside the model's heads 0 … ", c.num_heads - 1);
  }
}

}  // namespace attnlab
