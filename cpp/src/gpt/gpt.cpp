#include "attnlab/gpt/gpt.hpp"

#include <atomic>
#include <cmath>
#include <limits>

#include "attnlab/attention/dropout.hpp"
#include "attnlab/tensor/rng.hpp"
#include "tensor/checks.hpp"
#include "gpt/gpt_ops.hpp"
#include "kernels/kernels.hpp"
#include "tensor/parallel.hpp"

namespace attnlab {

using namespace gpt_ops;

std::int64_t GPTConfig::parameter_count() const {
  const std::int64_t V = vocab_size, C = context_length, d = d_model, L = num_layers;
  // per block: ln_1, ln_2 (2·2d), c_attn (3d² + 3d), attn c_proj (d² + d), c_fc (4d² + 4d), mlp c_proj (4d² + d)
  return V * d + C * d + L * (12 * d * d + 13 * d) + 2 * d;
}

void check_gpt_config(const char* function, const GPTConfig& c) {
  detail::require_positive(function, "vocab_size", c.vocab_size);
  detail::require_positive(function, "context_length", c.context_length);
  detail::require_positive(function, "d_model", c.d_model);
  detail::require_positive(function, "num_heads", c.num_heads);
  detail::require_positive(function, "num_layers", c.num_layers);
  if (c.d_model % c.num_heads != 0)
    detail::fail(function, "d_model = ", c.d_model, " is not divisible by num_heads = ", c.num_heads);
  // 12d² in double: a d_model near 2^31 must be refused here, not overflow first.
  const double d = c.d_model, count = static_cast<double>(c.vocab_size) * d + static_cast<double>(c.context_length) * d +
                                      static_cast<double>(c.num_layers) * (12 * d * d + 13 * d) + 2 * d;
  detail::require_within_budget(function, 1, count, 1, "the parameters");
}

// ---- Parameters: one flat buffer, tensors in Hugging Face's order ----

namespace {
// Every parameter change gets a number no other has, so packed weights are never reused across one.
std::uint64_t next_generation() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}
}  // namespace

GPT::GPT(const GPTConfig& config, LayoutOnly)
    : config_(config), generation_(next_generation()), packed_cache_(std::make_shared<PackedWeightsCache>()) {
  check_gpt_config("GPT", config);
  lay_out();
}

GPT::GPT(const GPTConfig& config) : GPT(config, LayoutOnly{}) {
  values_.assign(slots_.back().offset + slots_.back().size, 0.0f);
}

void GPT::lay_out() {
  const GPTConfig& config = config_;
  const std::int64_t V = config.vocab_size, C = config.context_length, d = config.d_model;
  auto add = [this](std::string name, std::vector<std::int64_t> shape) {
    GPTTensorSlot slot{std::move(name), std::move(shape), 0, 1};
    for (std::int64_t extent : slot.shape) slot.size *= static_cast<std::size_t>(extent);
    slot.offset = slots_.empty() ? 0 : slots_.back().offset + slots_.back().size;
    slots_.push_back(std::move(slot));
    return static_cast<int>(slots_.size()) - 1;
  };
  wte_ = add("wte.weight", {V, d});
  wpe_ = add("wpe.weight", {C, d});
  for (int l = 0; l < config.num_layers; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    BlockSlots b{};
    b.ln_1_weight = add(h + "ln_1.weight", {d});
    b.ln_1_bias = add(h + "ln_1.bias", {d});
    b.c_attn_weight = add(h + "attn.c_attn.weight", {d, 3 * d});
    b.c_attn_bias = add(h + "attn.c_attn.bias", {3 * d});
    b.attn_proj_weight = add(h + "attn.c_proj.weight", {d, d});
    b.attn_proj_bias = add(h + "attn.c_proj.bias", {d});
    b.ln_2_weight = add(h + "ln_2.weight", {d});
    b.ln_2_bias = add(h + "ln_2.bias", {d});
    b.c_fc_weight = add(h + "mlp.c_fc.weight", {d, 4 * d});
    b.c_fc_bias = add(h + "mlp.c_fc.bias", {4 * d});
    b.mlp_proj_weight = add(h + "mlp.c_proj.weight", {4 * d, d});
    b.mlp_proj_bias = add(h + "mlp.c_proj.bias", {d});
    blocks_.push_back(b);
  }
  ln_f_weight_ = add("ln_f.weight", {d});
  ln_f_bias_ = add("ln_f.bias", {d});
}

GPT::GPT(const GPTConfig& config, std::uint64_t seed) : GPT(config) {
  // GPT-2's initialisation, drawn tensor by tensor in buffer order from one seeded stream.
  Rng rng(seed);
  const float residual_std = 0.02f / std::sqrt(2.0f * static_cast<float>(config.num_layers));
  for (const GPTTensorSlot& slot : slots_) {
    float* v = values_.data() + slot.offset;
    const bool is_proj = slot.name.ends_with("c_proj.weight");
    if (slot.is_matrix()) {
      for (std::size_t i = 0; i < slot.size; ++i) v[i] = rng.normal(0.0f, is_proj ? residual_std : 0.02f);
    } else if (slot.name.ends_with("ln_1.weight") || slot.name.ends_with("ln_2.weight") || slot.name == "ln_f.weight") {
      std::fill(v, v + slot.size, 1.0f);
    }
  }
}

const GPTTensorSlot& GPT::tensor(std::string_view name) const {
  for (const GPTTensorSlot& slot : slots_)
    if (slot.name == name) return slot;
  detail::fail("GPT::tensor", "the model has no tensor named '", name, "'");
}

void GPT::load_tensor(std::string_view name, std::span<const float> values) {
  const GPTTensorSlot& slot = tensor(name);
  if (values.size() != slot.size)
    detail::fail("GPT::load_tensor", "'", name, "' holds ", slot.size, " values but ", values.size(), " were given");
  if (!detail::all_finite(values.data(), static_cast<Eigen::Index>(values.size())))
    detail::fail("GPT::load_tensor", "'", name, "' has a NaN or infinite value");
  std::copy(values.begin(), values.end(), values_.begin() + static_cast<std::ptrdiff_t>(slot.offset));
  weights_changed();
}

void GPT::weights_changed() { generation_ = next_generation(); }

std::shared_ptr<const PackedGPTWeights> GPT::packed_weights() const {
  if (parameter_count() > kPackedWeightsLimit) return nullptr;
  std::lock_guard<std::mutex> lock(packed_cache_->mutex);
  if (!packed_cache_->weights || packed_cache_->generation != generation_) {
    auto packed = std::make_shared<PackedGPTWeights>();
    for (const BlockSlots& p : blocks_) {
      packed->blocks.push_back({kernels::pack(matrix(p.c_attn_weight), false), kernels::pack(matrix(p.attn_proj_weight), false),
                                kernels::pack(matrix(p.c_fc_weight), false), kernels::pack(matrix(p.mlp_proj_weight), false)});
    }
    packed->wte_t = kernels::pack(matrix(wte_), true);
    packed_cache_->weights = std::move(packed);
    packed_cache_->generation = generation_;
  }
  return packed_cache_->weights;
}

Eigen::Map<const Matrix> GPT::matrix(int slot) const {
  const GPTTensorSlot& s = slots_[static_cast<std::size_t>(slot)];
  return {values_.data() + s.offset, static_cast<Eigen::Index>(s.shape[0]), static_cast<Eigen::Index>(s.shape[1])};
}
Eigen::Map<const Eigen::RowVectorXf> GPT::row(int slot) const {
  const GPTTensorSlot& s = slots_[static_cast<std::size_t>(slot)];
  return {values_.data() + s.offset, static_cast<Eigen::Index>(s.size)};
}
Eigen::Map<Matrix> GPT::grad_matrix(int slot) {
  const GPTTensorSlot& s = slots_[static_cast<std::size_t>(slot)];
  return {grads_.data() + s.offset, static_cast<Eigen::Index>(s.shape[0]), static_cast<Eigen::Index>(s.shape[1])};
}
Eigen::Map<Eigen::RowVectorXf> GPT::grad_row(int slot) {
  const GPTTensorSlot& s = slots_[static_cast<std::size_t>(slot)];
  return {grads_.data() + s.offset, static_cast<Eigen::Index>(s.size)};
}

std::vector<ParameterRef> GPT::parameters() {
  if (grads_.empty()) grads_.assign(values_.size(), 0.0f);
  weights_changed();  // the caller may write through the views
  std::vector<ParameterRef> refs;
  for (const GPTTensorSlot& s : slots_) {
    std::vector<Eigen::Index> shape(s.shape.begin(), s.shape.end());
    refs.push_back({s.name, values_.data() + s.offset, grads_.data() + s.offset, static_cast<Eigen::Index>(s.size),
                    std::move(shape)});
  }
  return refs;
}

void GPT::zero_grad() { std::fill(grads_.begin(), grads_.end(), 0.0f); }

// ---- Forward ----

void GPT::check_ids(const char* function, std::span<const int> ids, int batch) const {
  if (batch < 1) detail::fail(function, "batch must be ≥ 1, got ", batch);
  if (ids.empty()) detail::fail(function, "ids is empty (give at least one token)");
  if (ids.size() % static_cast<std::size_t>(batch) != 0)
    detail::fail(function, "ids has ", ids.size(), " tokens, which is not ", batch, " sequences of equal length");
  const std::size_t T = ids.size() / static_cast<std::size_t>(batch);
  if (T > static_cast<std::size_t>(config_.context_length))
    detail::fail(function, "a sequence of ", T, " tokens is longer than the model's context_length = ",
                 config_.context_length);
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= config_.vocab_size)
      detail::fail(function, "ids[", i, "] = ", ids[i], " is outside the vocabulary 0 … ", config_.vocab_size - 1);
  // What forward_pass keeps, in floats: per block 16·n·d plus the n·T attention weights per head; the
  // final norm and logits (twice: the backward's d_logits).
  const double n = static_cast<double>(ids.size()), d = config_.d_model;
  const double floats = config_.num_layers * (16 * n * d + n * static_cast<double>(T) * config_.num_heads) +
                        3 * n * d + 2 * n * config_.vocab_size;
  detail::require_within_budget(function, 1, floats, 1, "the activations");
}

void GPT::forward_pass(std::span<const int> ids, int batch, Activations& acts, const GPTForwardOptions& options,
                       const Tracer& tracer, const PackedGPTWeights* packed, const GPTDropout& dropout) const {
  // ids [batch·T] → every intermediate in acts, logits [batch·T × V]
  const int T = static_cast<int>(ids.size()) / batch, H = config_.num_heads, d_head = config_.head_dim();
  const Eigen::Index n = static_cast<Eigen::Index>(ids.size());
  acts.batch = batch;
  acts.T = T;
  acts.blocks.resize(static_cast<std::size_t>(config_.num_layers));
  // Training's dropout masks, drawn here in the forward's order (GPTDropout); empty (and nothing drawn)
  // when p = 0.
  Rng dropout_rng(dropout.seed, dropout.stream);
  const auto mask = [&](Eigen::Index rows, Eigen::Index cols) { return dropout_mask(rows, cols, dropout.p, dropout_rng); };

  // x = dropout(wte[ids] + wpe[position])                                    [n×d]
  Matrix x(n, config_.d_model);
  for (Eigen::Index i = 0; i < n; ++i) x.row(i) = matrix(wte_).row(ids[i]) + matrix(wpe_).row(i % T);
  acts.embed_dropout = mask(n, config_.d_model);
  apply_dropout(x, acts.embed_dropout);
  if (tracer.enabled())
    tracer.record("embed", "Token + position embeddings",
                  "x = wte[ids] + wpe[0 … " + std::to_string(T - 1) + "] " + detail::bracketed_shape(x), {{"x", x}});

  for (int l = 0; l < config_.num_layers; ++l) {
    const BlockSlots& p = blocks_[static_cast<std::size_t>(l)];
    const PackedGPTWeights::Block* pw = packed ? &packed->blocks[static_cast<std::size_t>(l)] : nullptr;
    Activations::Block& a = acts.blocks[static_cast<std::size_t>(l)];
    const Tracer t = tracer.enabled() ? tracer.child("h" + std::to_string(l)) : Tracer();
    a.x = std::move(x);

    // Attention: qkv = c_attn(ln_1(x)) [n×3d]; each sequence's heads attend causally → heads [n×d]
    layer_norm(a.x, row(p.ln_1_weight), row(p.ln_1_bias), a.ln_1, a.ln_1_mean, a.ln_1_rstd);
    a.qkv = conv1d(a.ln_1, pw ? &pw->c_attn : nullptr, matrix(p.c_attn_weight), row(p.c_attn_bias));
    a.heads.resize(n, config_.d_model);
    a.weights.resize(static_cast<std::size_t>(batch));
    const bool drop = dropout.p > 0.0f;
    if (drop) {
      a.weights_dropout.assign(static_cast<std::size_t>(batch), {});
      for (auto& sequence : a.weights_dropout)
        for (int h = 0; h < H; ++h) sequence.push_back(mask(T, T));
    }
    detail::parallel_for(batch, 2.0 * static_cast<double>(n) * T * config_.d_model, [&](int b) {  // sequences on separate threads
      const auto s = static_cast<std::size_t>(b);
      causal_attention(a.qkv.middleRows(b * T, T), H, a.heads.middleRows(b * T, T), a.weights[s],
                       drop ? &a.weights_dropout[s] : nullptr);
    });
    // Ablation: a knocked-out head's output columns become 0, or their mean over each sequence.
    for (const HeadAblation& off : options.ablate) {
      if (off.layer != l) continue;
      for (int b = 0; b < batch; ++b) {
        auto cols = a.heads.block(b * T, off.head * d_head, T, d_head);
        if (options.ablation == AblationMode::zero) cols.setZero();
        else cols.rowwise() = Eigen::RowVectorXf(cols.colwise().mean());
      }
    }
    // x_mid = x + dropout(c_proj(heads))                                       [n×d]
    Matrix attn_out = conv1d(a.heads, pw ? &pw->attn_proj : nullptr, matrix(p.attn_proj_weight), row(p.attn_proj_bias));
    a.attn_dropout = mask(n, config_.d_model);
    apply_dropout(attn_out, a.attn_dropout);
    a.x_mid = a.x + attn_out;

    // MLP: x = x_mid + dropout(c_proj(gelu(c_fc(ln_2(x_mid)))))                [n×4d] inside
    layer_norm(a.x_mid, row(p.ln_2_weight), row(p.ln_2_bias), a.ln_2, a.ln_2_mean, a.ln_2_rstd);
    a.fc = conv1d(a.ln_2, pw ? &pw->c_fc : nullptr, matrix(p.c_fc_weight), row(p.c_fc_bias));
    a.gelu = gelu_tanh(a.fc);
    Matrix mlp_out = conv1d(a.gelu, pw ? &pw->mlp_proj : nullptr, matrix(p.mlp_proj_weight), row(p.mlp_proj_bias));
    a.mlp_dropout = mask(n, config_.d_model);
    apply_dropout(mlp_out, a.mlp_dropout);
    x = a.x_mid + mlp_out;

    if (t.enabled()) {
      const std::string shape = detail::bracketed_shape(a.x);
      t.record("ln_1", "LayerNorm before attention", "ln_1(x) " + shape, {{"ln_1", a.ln_1}});
      t.record("attn.qkv", "Fused q, k, v projection", "qkv = ln_1(x)·W_attn + b " + detail::bracketed_shape(a.qkv),
               {{"qkv", a.qkv}});
      const std::string square = "[" + std::to_string(T) + "×" + std::to_string(T) + "]";
      for (int h = 0; h < H; ++h) {
        // This head's slices of qkv (the first sequence), and its scores again: traced only.
        const Matrix q = a.qkv.block(0, h * d_head, T, d_head);
        const Matrix k = a.qkv.block(0, config_.d_model + h * d_head, T, d_head);
        const Matrix v = a.qkv.block(0, 2 * config_.d_model + h * d_head, T, d_head);
        Matrix scores = q * k.transpose() / std::sqrt(static_cast<float>(d_head));
        for (int i = 0; i < T; ++i) scores.row(i).tail(T - i - 1).setConstant(-std::numeric_limits<float>::infinity());
        const std::string head = "attn.head" + std::to_string(h);
        t.record(head + ".scores", "Head " + std::to_string(h) + " scores",
                 "q·kᵀ/√" + std::to_string(d_head) + ", later keys blocked (−∞) " + square, {{"q", q}, {"k", k}, {"scores", scores}});
        t.record(head + ".weights", "Head " + std::to_string(h) + " attention weights",
                 "softmax of each row of the scores " + square, {{"weights", a.weights[0][static_cast<std::size_t>(h)]}});
        t.record(head + ".output", "Head " + std::to_string(h) + " output",
                 "weights·v [" + std::to_string(T) + "×" + std::to_string(d_head) + "]",
                 {{"v", v}, {"output", Matrix(a.heads.block(0, h * d_head, T, d_head))}});
      }
      t.record("attn.heads", "Heads side by side", "the heads' outputs concatenated " + shape, {{"heads", a.heads}});
      t.record("residual_1", "Add attention to the residual stream", "x + c_proj(heads) " + shape, {{"x", a.x_mid}});
      t.record("mlp.c_fc", "MLP up-projection", "ln_2(x)·W_fc + b " + detail::bracketed_shape(a.fc), {{"fc", a.fc}});
      t.record("mlp.gelu", "GELU (tanh)", "½x(1 + tanh(√(2/π)(x + 0.044715x³)))", {{"gelu", a.gelu}});
      t.record("residual_2", "Add the MLP to the residual stream", "x + c_proj(gelu) " + shape, {{"x", x}});
    }
  }

  // logits = ln_f(x) · wteᵀ                                                  [n×V]
  // (options.logits: only each sequence's last row [batch×V], or none [0×V])
  acts.x_final = std::move(x);
  layer_norm(acts.x_final, row(ln_f_weight_), row(ln_f_bias_), acts.ln_f, acts.ln_f_mean, acts.ln_f_rstd);
  if (options.logits == LogitRows::all) {
    acts.logits = tied_logits(acts.ln_f, packed);
  } else if (options.logits == LogitRows::last) {
    Matrix last(batch, config_.d_model);
    for (int b = 0; b < batch; ++b) last.row(b) = acts.ln_f.row(static_cast<Eigen::Index>(b) * T + T - 1);
    acts.logits = tied_logits(last, packed);
  } else {
    acts.logits.resize(0, config_.vocab_size);
  }
  if (tracer.enabled()) {
    tracer.record("ln_f", "Final LayerNorm", "ln_f(x) " + detail::bracketed_shape(acts.ln_f), {{"ln_f", acts.ln_f}});
    tracer.record("logits", "Logits (tied to wte)", "ln_f(x)·wteᵀ " + detail::bracketed_shape(acts.logits),
                  {{"logits", acts.logits}});
  }
  // An overflow anywhere upstream reaches ln_f's row of that position; without every row of logits,
  // ln_f itself is checked, so no non-finite attention weight is handed back either.
  if (options.logits != LogitRows::all)
    detail::require_finite_result("GPT::forward", acts.ln_f, "the weights are too large (the final LayerNorm)");
  detail::require_finite_result("GPT::forward", acts.logits, "the weights are too large");
}

Matrix GPT::tied_logits(const Matrix& ln_f, const PackedGPTWeights* packed) const {
  if (!packed) return kernels::matmul_transposed(ln_f, matrix(wte_));
  Matrix logits(ln_f.rows(), config_.vocab_size);
  kernels::gemm(ln_f, packed->wte_t, 0, 0, config_.vocab_size, 1.0f, false, logits.data(), logits.cols());
  return logits;
}

GPTOutput GPT::forward(std::span<const int> ids, const GPTForwardOptions& options, const Tracer& tracer) const {
  // ids [n] → logits [n×V], attention [L][H] → [n×n]
  const char* fn = "GPT::forward";
  check_ids(fn, ids, 1);
  for (const HeadAblation& off : options.ablate)
    if (off.layer < 0 || off.layer >= config_.num_layers || off.head < 0 || off.head >= config_.num_heads)
      detail::fail(fn, "ablate names layer ", off.layer, ", head ", off.head, " but the model has layers 0 … ",
                   config_.num_layers - 1, " and heads 0 … ", config_.num_heads - 1);
  Activations acts;
  forward_pass(ids, 1, acts, options, tracer, packed_weights().get());
  GPTOutput out;
  out.logits = std::move(acts.logits);
  if (options.attention)
    for (Activations::Block& block : acts.blocks) out.attention.push_back(std::move(block.weights[0]));
  return out;
}

}  // namespace attnlab
