#include "attnlab/llama/llama.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "attnlab/attention/grouped_attention.hpp"
#include "attnlab/tensor/rng.hpp"
#include "kernels/kernels.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

// ---- Parameters: one flat buffer, tensors in Hugging Face's order ----

Llama::Llama(const LlamaConfig& config, Unallocated) : config_(config) {
  check_llama_config("Llama", config);
  lay_out();
  frequencies_ = rope_frequencies(config.rope);
  storage_.resize(slots_.size());
}

Llama::Llama(const LlamaConfig& config) : Llama(config, Unallocated{}) {
  for (std::size_t s = 0; s < slots_.size(); ++s) allocate(static_cast<int>(s), DType::F32);
}

Llama::Llama(const LlamaConfig& config, std::uint64_t seed) : Llama(config) {
  Rng rng(seed);
  const float residual_std = 0.02f / std::sqrt(2.0f * static_cast<float>(config.num_layers));
  for (std::size_t s = 0; s < slots_.size(); ++s) {
    const LlamaTensorSlot& slot = slots_[s];
    float* v = storage_[s].f32.data();
    if (slot.name.ends_with("norm.weight")) {
      std::fill(v, v + slot.size, 1.0f);
    } else if (slot.shape.size() == 2) {
      const bool residual = slot.name.ends_with("o_proj.weight") || slot.name.ends_with("down_proj.weight");
      for (std::size_t i = 0; i < slot.size; ++i) v[i] = rng.normal(0.0f, residual ? residual_std : 0.02f);
    }
  }
}

void Llama::lay_out() {
  const LlamaConfig& c = config_;
  const std::int64_t d = c.hidden_size, m = c.intermediate_size, q_rows = std::int64_t{c.num_heads} * c.head_dim,
                     kv_rows = std::int64_t{c.num_kv_heads} * c.head_dim;
  auto add = [this](std::string name, std::vector<std::int64_t> shape) {
    LlamaTensorSlot slot{std::move(name), std::move(shape), 1};
    for (std::int64_t extent : slot.shape) slot.size *= static_cast<std::size_t>(extent);
    slots_.push_back(std::move(slot));
    return static_cast<int>(slots_.size()) - 1;
  };
  auto maybe = [&](bool present, std::string name, std::int64_t size) { return present ? add(std::move(name), {size}) : -1; };
  embed_ = add("model.embed_tokens.weight", {c.vocab_size, d});
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    LayerSlots s{};
    s.input_norm = add(p + "input_layernorm.weight", {d});
    s.q = add(p + "self_attn.q_proj.weight", {q_rows, d});
    s.q_bias = maybe(c.qkv_bias, p + "self_attn.q_proj.bias", q_rows);
    s.k = add(p + "self_attn.k_proj.weight", {kv_rows, d});
    s.k_bias = maybe(c.qkv_bias, p + "self_attn.k_proj.bias", kv_rows);
    s.v = add(p + "self_attn.v_proj.weight", {kv_rows, d});
    s.v_bias = maybe(c.qkv_bias, p + "self_attn.v_proj.bias", kv_rows);
    s.o = add(p + "self_attn.o_proj.weight", {d, q_rows});
    s.o_bias = maybe(c.o_bias, p + "self_attn.o_proj.bias", d);
    s.post_norm = add(p + "post_attention_layernorm.weight", {d});
    s.gate = add(p + "mlp.gate_proj.weight", {m, d});
    s.gate_bias = maybe(c.mlp_bias, p + "mlp.gate_proj.bias", m);
    s.up = add(p + "mlp.up_proj.weight", {m, d});
    s.up_bias = maybe(c.mlp_bias, p + "mlp.up_proj.bias", m);
    s.down = add(p + "mlp.down_proj.weight", {d, m});
    s.down_bias = maybe(c.mlp_bias, p + "mlp.down_proj.bias", d);
    layers_.push_back(s);
  }
  norm_ = add("model.norm.weight", {d});
  lm_head_ = c.tie_word_embeddings ? -1 : add("lm_head.weight", {c.vocab_size, d});
}

const LlamaTensorSlot& Llama::tensor(std::string_view name) const {
  for (const LlamaTensorSlot& slot : slots_)
    if (slot.name == name) return slot;
  detail::fail("Llama::tensor", "the model has no tensor named '", name, "'");
}

std::int64_t Llama::parameter_count() const {
  std::int64_t count = 0;
  for (const LlamaTensorSlot& slot : slots_) count += static_cast<std::int64_t>(slot.size);
  return count;
}

std::int64_t Llama::weight_bytes() const {
  std::int64_t bytes = 0;
  for (const LlamaTensorSlot& slot : slots_) bytes += static_cast<std::int64_t>(slot.size * dtype_size(slot.stored));
  return bytes;
}

std::uint8_t* Llama::allocate(int slot, DType stored) {
  LlamaTensorSlot& s = slots_[static_cast<std::size_t>(slot)];
  Storage& storage = storage_[static_cast<std::size_t>(slot)];
  s.stored = stored;
  storage = {};  // the other representation's memory back first
  if (stored == DType::BF16) {
    storage.bf16.assign(s.size, 0);
    return reinterpret_cast<std::uint8_t*>(storage.bf16.data());
  }
  storage.f32.assign(s.size, 0.0f);
  return reinterpret_cast<std::uint8_t*>(storage.f32.data());
}

namespace {

kernels::Bf16Matrix bf16_matrix(const std::vector<std::uint16_t>& values, const LlamaTensorSlot& slot) {
  return {values.data(), static_cast<Eigen::Index>(slot.shape[0]), static_cast<Eigen::Index>(slot.shape.size() == 2 ? slot.shape[1] : 1)};
}

}  // namespace

Matrix Llama::tensor_matrix(std::string_view name) const {
  const LlamaTensorSlot& slot = tensor(name);
  const Storage& storage = storage_[static_cast<std::size_t>(&slot - slots_.data())];
  const Eigen::Index rows = slot.shape.size() == 2 ? slot.shape[0] : 1, cols = slot.shape.size() == 2 ? slot.shape[1] : slot.shape[0];
  Matrix m(rows, cols);
  if (slot.stored == DType::BF16) kernels::widen_rows({storage.bf16.data(), rows, cols}, 0, m);
  else m = Eigen::Map<const Matrix>(storage.f32.data(), rows, cols);
  return m;
}

std::vector<float> Llama::tensor_values(std::string_view name) const {
  const Matrix m = tensor_matrix(name);
  return {m.data(), m.data() + m.size()};
}

void Llama::load_tensor(std::string_view name, std::span<const float> values) {
  const LlamaTensorSlot& slot = tensor(name);
  if (values.size() != slot.size)
    detail::fail("Llama::load_tensor", "'", name, "' holds ", slot.size, " values but ", values.size(), " were given");
  if (!detail::all_finite(values.data(), static_cast<Eigen::Index>(values.size())))
    detail::fail("Llama::load_tensor", "'", name, "' has a NaN or infinite value");
  const int index = static_cast<int>(&slot - slots_.data());
  std::memcpy(allocate(index, DType::F32), values.data(), values.size() * sizeof(float));
}

Eigen::Map<const Eigen::RowVectorXf> Llama::vector(int slot) const {
  const LlamaTensorSlot& s = slots_[static_cast<std::size_t>(slot)];
  return {storage_[static_cast<std::size_t>(slot)].f32.data(), static_cast<Eigen::Index>(s.size)};
}

Matrix Llama::times_transposed(const Matrix& x, int slot) const {
  // x [n×in] · W[out×in]ᵀ → [n×out]
  const LlamaTensorSlot& s = slots_[static_cast<std::size_t>(slot)];
  const Storage& storage = storage_[static_cast<std::size_t>(slot)];
  if (s.stored == DType::BF16) return kernels::linear(x, bf16_matrix(storage.bf16, s));
  return kernels::linear(x, Eigen::Map<const Matrix>(storage.f32.data(), static_cast<Eigen::Index>(s.shape[0]),
                                                     static_cast<Eigen::Index>(s.shape[1])));
}

Matrix Llama::embed_rows(std::span<const int> ids) const {
  // ids [n] → embed_tokens[ids] [n×d]
  const LlamaTensorSlot& s = slots_[static_cast<std::size_t>(embed_)];
  const Storage& storage = storage_[static_cast<std::size_t>(embed_)];
  const Eigen::Index d = config_.hidden_size;
  Matrix x(static_cast<Eigen::Index>(ids.size()), d);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const Eigen::Index id = ids[static_cast<std::size_t>(i)];
    if (s.stored == DType::BF16) kernels::widen_rows(bf16_matrix(storage.bf16, s), id, x.row(i));
    else x.row(i) = Eigen::Map<const Eigen::RowVectorXf>(storage.f32.data() + id * d, d);
  }
  return x;
}

// ---- The pieces of a block ----

Matrix Llama::project(const Matrix& x, int slot, int bias_slot) const {
  // x [n×in] · W[out×in]ᵀ (+ b [out]) → [n×out]
  Matrix y = times_transposed(x, slot);
  if (bias_slot >= 0) y.rowwise() += vector(bias_slot);
  return y;
}

namespace {

float silu(float x) { return x / (1.0f + std::exp(-x)); }

}  // namespace

void Llama::HookSite::operator()(const std::string& name, Matrix& value, Shape shape) const {
  if (fn && *fn) (*fn)(name, value);
  if (keep) keep->emplace_back(name, Tensor(std::move(shape), std::vector<float>(value.data(), value.data() + value.size())));
}

Matrix Llama::rms_norm(const Matrix& x, int weight_slot, const HookSite* hooks, const std::string& prefix) const {
  // x [n×d] → x / √(mean(x²) + eps) ⊙ w [n×d]; the mean in double
  const Eigen::Index n = x.rows(), d = x.cols();
  Eigen::VectorXd scale(n);
  for (Eigen::Index i = 0; i < n; ++i)
    scale(i) = std::sqrt(x.row(i).cast<double>().squaredNorm() / static_cast<double>(d) + static_cast<double>(config_.rms_norm_eps));
  if (hooks && hooks->active()) {
    Matrix scale_point = scale.cast<float>();  // [n×1]
    (*hooks)(prefix + ".hook_scale", scale_point, {n, 1});
    for (Eigen::Index i = 0; i < n; ++i)  // a hook function that replaced a row's scale: its value from here on
      if (scale_point(i, 0) != static_cast<float>(scale(i))) scale(i) = scale_point(i, 0);
  }
  Matrix normalized = (x.cast<double>().array().colwise() / scale.array()).cast<float>().matrix();
  if (hooks && hooks->active()) (*hooks)(prefix + ".hook_normalized", normalized, {n, d});
  normalized.array().rowwise() *= vector(weight_slot).array();
  return normalized;
}

void Llama::qkv(int layer, const Matrix& h, Matrix& q, Matrix& k, Matrix& v) const {
  // h [n×d] → q [n×H·hd], k, v [n×Hkv·hd]
  const LayerSlots& s = layers_[static_cast<std::size_t>(layer)];
  q = project(h, s.q, s.q_bias);
  k = project(h, s.k, s.k_bias);
  v = project(h, s.v, s.v_bias);
}

void Llama::finish_block(Matrix& x, Matrix& z, const BlockStep& step) const {
  // z [n×H·hd] → x [n×d] += o_proj(z); x += down(silu(gate(h)) ⊙ up(h)), h = post_attention_layernorm(x)
  const LayerSlots& s = layers_[static_cast<std::size_t>(step.layer)];
  const Eigen::Index n = x.rows(), hd = config_.head_dim;
  // Hook names only when a forward asks for hooks: a decoding step runs this per layer per token.
  const bool hooked = step.hooks && step.hooks->active();
  const std::string b = hooked ? "blocks." + std::to_string(step.layer) + "." : std::string();
  const auto hook = [&](const char* name, Matrix& m, Eigen::Index cols) {
    if (hooked) (*step.hooks)(b + name, m, cols == 0 ? Shape{n, config_.num_heads, hd} : Shape{n, cols});
  };
  if (step.ablate) {
    for (const HeadAblation& off : *step.ablate) {
      if (off.layer != step.layer) continue;
      auto cols = z.middleCols(off.head * hd, hd);
      if (step.ablation == AblationMode::zero) cols.setZero();
      else cols.rowwise() = Eigen::RowVectorXf(cols.colwise().mean());
    }
  }
  hook("attn.hook_z", z, 0);
  Matrix attn_out = project(z, s.o, s.o_bias);
  hook("hook_attn_out", attn_out, config_.hidden_size);
  x += attn_out;
  hook("hook_resid_mid", x, config_.hidden_size);

  const Matrix h = rms_norm(x, s.post_norm, step.hooks, hooked ? b + "ln2" : b);
  Matrix gate = project(h, s.gate, s.gate_bias);         // [n×m]
  Matrix act = project(h, s.up, s.up_bias);              // [n×m]: up, then silu(gate) ⊙ up
  hook("mlp.hook_pre", gate, config_.intermediate_size);
  hook("mlp.hook_pre_linear", act, config_.intermediate_size);
  act.array() *= gate.unaryExpr(&silu).array();
  hook("mlp.hook_post", act, config_.intermediate_size);
  Matrix mlp_out = project(act, s.down, s.down_bias);
  hook("hook_mlp_out", mlp_out, config_.hidden_size);
  x += mlp_out;
  hook("hook_resid_post", x, config_.hidden_size);
}

Matrix Llama::logits(const Matrix& normalized) const {
  // [n×d] → [n×V] = normalized · (lm_head or embed_tokens)ᵀ
  return times_transposed(normalized, lm_head_ >= 0 ? lm_head_ : embed_);
}

void Llama::pass_attention_hooks(const std::string& block, const Matrix& v, const GroupedAttentionShape& shape,
                                 std::vector<Matrix>& scores, std::vector<Matrix>& weights, Matrix& z,
                                 const HookSite& hooks) const {
  // scores, weights [H] → [T×T] stacked as (H, T, T) [H·T × T]; v [T×Hkv·hd]; z [T×H·hd]
  const Eigen::Index T = z.rows(), H = shape.num_heads, hd = shape.head_dim;
  Matrix stacked_scores(H * T, T), pattern(H * T, T);
  for (Eigen::Index h = 0; h < H; ++h) {
    stacked_scores.middleRows(h * T, T) = scores[static_cast<std::size_t>(h)];
    pattern.middleRows(h * T, T) = weights[static_cast<std::size_t>(h)];
  }
  const Matrix computed_scores = stacked_scores, computed_pattern = pattern;
  hooks(block + "attn.hook_attn_scores", stacked_scores, {H, T, T});
  const bool scores_changed = (stacked_scores.array() != computed_scores.array()).any();
  if (scores_changed) {  // a hook function replaced scores: the pattern is their softmax again
    pattern = stacked_scores;
    kernels::softmax_rows(pattern);
  }
  hooks(block + "attn.hook_pattern", pattern, {H, T, T});
  if (!scores_changed && (pattern.array() == computed_pattern.array()).all()) return;
  // A changed pattern: every head's z again from it, z_h = pattern_h·v_kv (kv = h / (H/Hkv))     [T×hd]
  const Eigen::Index group = H / shape.num_kv_heads;
  for (Eigen::Index h = 0; h < H; ++h) {
    weights[static_cast<std::size_t>(h)] = pattern.middleRows(h * T, T);
    z.middleCols(h * hd, hd) = kernels::matmul(pattern.middleRows(h * T, T), v.middleCols((h / group) * hd, hd));
  }
}

namespace {

// A block's hook points after "blocks.{l}.", in forward order; the others whole.
constexpr std::array<std::string_view, 20> kBlockHooks = {
    "hook_resid_pre", "ln1.hook_scale", "ln1.hook_normalized", "attn.hook_q", "attn.hook_k", "attn.hook_v",
    "attn.hook_rot_q", "attn.hook_rot_k", "attn.hook_attn_scores", "attn.hook_pattern", "attn.hook_z", "hook_attn_out",
    "hook_resid_mid", "ln2.hook_scale", "ln2.hook_normalized", "mlp.hook_pre", "mlp.hook_pre_linear", "mlp.hook_post",
    "hook_mlp_out", "hook_resid_post"};
constexpr std::array<std::string_view, 3> kOtherHooks = {"hook_embed", "ln_final.hook_scale", "ln_final.hook_normalized"};

}  // namespace

std::vector<std::string> Llama::hook_names() const {
  std::vector<std::string> names = {std::string(kOtherHooks[0])};
  for (int l = 0; l < config_.num_layers; ++l)
    for (const std::string_view point : kBlockHooks) names.push_back("blocks." + std::to_string(l) + "." + std::string(point));
  names.emplace_back(kOtherHooks[1]);
  names.emplace_back(kOtherHooks[2]);
  return names;
}

bool Llama::has_hook(std::string_view name) const {
  if (std::find(kOtherHooks.begin(), kOtherHooks.end(), name) != kOtherHooks.end()) return true;
  if (!name.starts_with("blocks.")) return false;
  const std::string_view rest = name.substr(7);
  int layer = -1;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), layer);
  if (error != std::errc() || end == rest.data() || *end != '.' || layer < 0 || layer >= config_.num_layers) return false;
  const std::string_view point = rest.substr(static_cast<std::size_t>(end - rest.data()) + 1);
  return std::find(kBlockHooks.begin(), kBlockHooks.end(), point) != kBlockHooks.end();
}

Matrix Llama::unembed(const Matrix& resid) const {
  // resid [n×d] → norm(resid)·unembedᵀ [n×V]
  return logits(rms_norm(resid, norm_, nullptr, {}));
}

// ---- Forward ----

LlamaOutput Llama::forward(std::span<const int> ids, const LlamaForwardOptions& options) const {
  // ids [T] → logits [T×V]
  const char* fn = "Llama::forward";
  const LlamaConfig& c = config_;
  if (ids.empty()) detail::fail(fn, "ids is empty (give at least one token)");
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= c.vocab_size)
      detail::fail(fn, "ids[", i, "] = ", ids[i], " is outside the vocabulary 0 … ", c.vocab_size - 1);
  if (options.first_position < 0) detail::fail(fn, "first_position = ", options.first_position, " is negative");
  for (const HeadAblation& off : options.ablate)
    if (off.layer < 0 || off.layer >= c.num_layers || off.head < 0 || off.head >= c.num_heads)
      detail::fail(fn, "ablate names layer ", off.layer, ", head ", off.head, " but the model has layers 0 … ",
                   c.num_layers - 1, " and heads 0 … ", c.num_heads - 1);
  const auto T = static_cast<Eigen::Index>(ids.size());
  const Eigen::Index d = c.hidden_size, hd = c.head_dim;
  // Working memory: per layer q, k, v, z and the MLP's three [T×m], the weights H·T², the logits.
  const double floats = 8.0 * static_cast<double>(T) * static_cast<double>(d) + 3.0 * static_cast<double>(T) * c.intermediate_size +
                        static_cast<double>(c.num_heads) * static_cast<double>(T) * static_cast<double>(T) *
                            (options.attention || options.hooks || options.hook_fn ? c.num_layers : 1) +
                        static_cast<double>(T) * c.vocab_size;
  detail::require_within_budget(fn, 1, floats, 1, "the activations");
  const HookSite site{options.hooks, options.hook_fn ? &options.hook_fn : nullptr};
  const HookSite* hooks = site.active() ? &site : nullptr;
  const auto hook = [&](const std::string& name, Matrix& value, Shape shape) {
    if (hooks) (*hooks)(name, value, std::move(shape));
  };

  // x = embed_tokens[ids]                                                     [T×d]
  Matrix x = embed_rows(ids);
  hook("hook_embed", x, {T, d});
  std::vector<int> positions(static_cast<std::size_t>(T));
  for (Eigen::Index i = 0; i < T; ++i) positions[static_cast<std::size_t>(i)] = options.first_position + static_cast<int>(i);
  const RotaryTable rotation = rotary_table(positions, frequencies_);

  LlamaOutput out;
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string b = hooks ? "blocks." + std::to_string(l) + "." : std::string();
    hook(b + "hook_resid_pre", x, {T, d});
    // q, k, v of ln1(x), then q and k turned by RoPE                          [T×H·hd], [T×Hkv·hd]
    Matrix q, k, v;
    qkv(l, rms_norm(x, layers_[static_cast<std::size_t>(l)].input_norm, hooks, b + "ln1"), q, k, v);
    hook(b + "attn.hook_q", q, {T, c.num_heads, hd});
    hook(b + "attn.hook_k", k, {T, c.num_kv_heads, hd});
    hook(b + "attn.hook_v", v, {T, c.num_kv_heads, hd});
    apply_rotary_half(q, c.head_dim, rotation);
    apply_rotary_half(k, c.head_dim, rotation);
    hook(b + "attn.hook_rot_q", q, {T, c.num_heads, hd});
    hook(b + "attn.hook_rot_k", k, {T, c.num_kv_heads, hd});
    // z = grouped-query attention, causal (and windowed where the config says)  [T×H·hd]
    std::vector<Matrix> weights, scores;
    const GroupedAttentionShape shape{.num_heads = c.num_heads, .num_kv_heads = c.num_kv_heads, .head_dim = c.head_dim,
                                      .window = c.window(l)};
    Matrix z = grouped_attention(q, k, v, shape, options.attention || hooks ? &weights : nullptr, hooks ? &scores : nullptr);
    if (hooks) pass_attention_hooks(b, v, shape, scores, weights, z, *hooks);
    if (options.attention) out.attention.push_back(std::move(weights));
    finish_block(x, z, {.layer = l, .ablate = &options.ablate, .ablation = options.ablation, .hooks = hooks});
  }

  // logits = norm(x) · unembedᵀ                                               [T×V]
  const Matrix normalized = rms_norm(x, norm_, hooks, "ln_final");
  if (options.logits == LogitRows::all) out.logits = logits(normalized);
  else if (options.logits == LogitRows::last) out.logits = logits(normalized.bottomRows(1));
  else out.logits.resize(0, c.vocab_size);
  detail::require_finite_result(fn, normalized, "the weights are too large (the final RMSNorm)");
  detail::require_finite_result(fn, out.logits, "the weights are too large");
  return out;
}

}  // namespace attnlab
