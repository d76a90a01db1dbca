#include "attnlab/layers/multi_head_attention.hpp"

#include <algorithm>
#include <array>

#include "attnlab/attention/attention.hpp"
#include "attnlab/attention/backward.hpp"
#include "attnlab/attention/positional.hpp"
#include "tensor/checks.hpp"
#include "attention/lean_attention.hpp"
#include "tensor/parallel.hpp"

namespace attnlab {

namespace {

constexpr std::uint64_t kAttentionDropoutStream = 55;  // a different PCG stream from the initial weights

const MultiHeadAttentionConfig& checked(const MultiHeadAttentionConfig& c) {
  detail::require_positive("MultiHeadAttention", "d_model", c.d_model);
  detail::require_positive("MultiHeadAttention", "num_heads", c.num_heads);
  if (c.d_model % c.num_heads != 0)
    detail::fail("MultiHeadAttention", "d_model = ", c.d_model, " is not divisible by num_heads = ", c.num_heads,
                 " (each head gets d_k = d_model / num_heads columns)");
  if (c.positions == PositionalScheme::rotary && (c.d_model / c.num_heads) % 2 != 0)
    detail::fail("MultiHeadAttention", "rotary positions need an even d_k, but d_k = ", c.d_model / c.num_heads);
  detail::require_probability("MultiHeadAttention", "dropout", c.dropout);
  // The four projections, and a copy of them while new weights load.
  detail::require_within_budget("MultiHeadAttention", 8, c.d_model, c.d_model, "W_q, W_k, W_v, W_o");
  return c;
}


}  // namespace

std::vector<Matrix> split_heads(const Matrix& x, int num_heads) {
  detail::require_positive("split_heads", "num_heads", num_heads);
  if (x.cols() % num_heads != 0)
    detail::fail("split_heads", "x is ", shape_of(x), " but its ", x.cols(), " columns do not divide into ",
                 num_heads, " heads");
  const auto d_k = x.cols() / num_heads;
  std::vector<Matrix> heads;
  heads.reserve(static_cast<std::size_t>(num_heads));
  for (int h = 0; h < num_heads; ++h) heads.emplace_back(x.middleCols(h * d_k, d_k));
  return heads;
}

Matrix combine_heads(const std::vector<Matrix>& heads) {
  if (heads.empty()) detail::fail("combine_heads", "heads is empty");
  const Matrix& first = heads.front();
  Matrix out(first.rows(), first.cols() * static_cast<Eigen::Index>(heads.size()));
  for (std::size_t h = 0; h < heads.size(); ++h) {
    if (heads[h].rows() != first.rows() || heads[h].cols() != first.cols())
      detail::fail("combine_heads", "head ", h, " is ", shape_of(heads[h]), " but head 0 is ", shape_of(first));
    out.middleCols(static_cast<Eigen::Index>(h) * first.cols(), first.cols()) = heads[h];
  }
  return out;
}

MultiHeadAttention::MultiHeadAttention(const MultiHeadAttentionConfig& config)
    : config_(checked(config)),
      init_rng_(config.seed),
      q_proj_(config.d_model, config.d_model, config.bias, init_rng_),
      k_proj_(config.d_model, config.d_model, config.bias, init_rng_),
      v_proj_(config.d_model, config.d_model, config.bias, init_rng_),
      out_proj_(config.d_model, config.d_model, config.bias, init_rng_),
      dropout_rng_(config.seed, kAttentionDropoutStream) {}

MultiHeadAttentionOutput MultiHeadAttention::forward(const Matrix& x, const MaskOptions& masking,
                                                     const Tracer& tracer, MultiHeadAttentionCache* cache) {
  return forward(x, x, x, masking, tracer, cache);
}

MultiHeadAttentionOutput MultiHeadAttention::forward(const Matrix& query, const Matrix& key, const Matrix& value,
                                                     const MaskOptions& masking, const Tracer& tracer,
                                                     MultiHeadAttentionCache* cache) {
  // query [n_q×d_model], key/value [n_k×d_model] → output [n_q×d_model], weights h × [n_q×n_k]
  constexpr const char* fn = "MultiHeadAttention::forward";
  const int d = config_.d_model;
  const std::array<std::pair<const char*, const Matrix*>, 3> inputs{{{"query", &query}, {"key", &key}, {"value", &value}}};
  for (auto input = inputs.begin(); input != inputs.end(); ++input) {
    const char* name = input->first;
    const Matrix* m = input->second;
    if (m->rows() == 0 || m->cols() != d)
      detail::fail(fn, name, " is ", shape_of(*m), " but the layer takes n×d_model = n×", d, " (n ≥ 1)");
    // Self-attention passes one matrix three times: each distinct one is scanned once.
    if (std::none_of(inputs.begin(), input, [&](const auto& earlier) { return earlier.second == m; }))
      detail::require_finite(fn, name, *m);
  }
  if (value.rows() != key.rows())
    detail::fail(fn, "value is ", shape_of(value), " but key is ", shape_of(key), " (n_k must match)");
  const auto n_q = query.rows(), n_k = key.rows();
  if (masking.mask) detail::require_mask(fn, "mask", *masking.mask, n_q, n_k);


  const bool self = &query == &key && &key == &value;
  if (tracer.enabled() && self)
    tracer.record("input", "Input X", "The sequence: " + std::to_string(n_q) + " tokens × d_model " +
                                          std::to_string(d) + ". Queries, keys and values all come from X.",
                  {{"X", query}});
  else if (tracer.enabled())
    tracer.record("input", "Inputs", "Queries come from one sequence (" + std::to_string(n_q) +
                                         " tokens), keys and values from another (" + std::to_string(n_k) + ").",
                  {{"query", query}, {"key", key}, {"value", value}});
  // The formulas name a bias only when the layer has one (bias: false is the lessons' default).
  const auto plus_bias = [&](const char* b) { return config_.bias ? std::string(" + ") + b : std::string(); };
  tracer.record("projection_weights", "Projection weights W_q, W_k, W_v",
                "Learned [d_model×d_model] matrices in PyTorch layout: Q = X·W_qᵀ" + plus_bias("b_q") + ", and so on.",
                {{"W_q", q_proj_.weight()}, {"W_k", k_proj_.weight()}, {"W_v", v_proj_.weight()}});

  // 1. Projections.
  const Matrix q = q_proj_.forward(query), k = k_proj_.forward(key), v = v_proj_.forward(value);
  if (tracer.enabled()) tracer.record("q", "Queries Q", "Q = X·W_qᵀ" + plus_bias("b_q") + ": " + detail::bracketed_shape(query) + " → " + detail::bracketed_shape(q) + ".", {{"Q", q}});
  if (tracer.enabled()) tracer.record("k", "Keys K", "K = X·W_kᵀ" + plus_bias("b_k") + ": " + detail::bracketed_shape(key) + " → " + detail::bracketed_shape(k) + ".", {{"K", k}});
  if (tracer.enabled()) tracer.record("v", "Values V", "V = X·W_vᵀ" + plus_bias("b_v") + ": " + detail::bracketed_shape(value) + " → " + detail::bracketed_shape(v) + ".", {{"V", v}});

  // 2. Per head: slice, optionally rotate (RoPE) or bias (ALiBi), attend.
  const std::vector<float> slopes =
      config_.positions == PositionalScheme::alibi ? alibi_slopes(config_.num_heads) : std::vector<float>{};
  const bool dropping = training_ && config_.dropout > 0.0f;
  if (masking.need_weights || dropping || tracer.enabled() || cache) {
    // Every head's weights and their average are kept; one head's working set (6) is live at a time;
    // a trace keeps about ten more per head.
    const double kept = (tracer.enabled() ? 11.0 : 1.0) * config_.num_heads + 1.0 + 6.0;
    detail::require_within_budget(fn, kept, static_cast<double>(n_q), static_cast<double>(n_k),
                                  "each head's n_q×n_k weights, their average and one head's scores");
  }

  const int rotary_offset = static_cast<int>(n_k - n_q < 0 ? 0 : n_k - n_q);
  if (cache) {
    *cache = MultiHeadAttentionCache{};
    cache->self = self;
    cache->query = query;
    if (!self) {
      cache->key = key;
      cache->value = value;
    }
    if (masking.mask) cache->mask = *masking.mask;
    cache->causal = masking.causal;
    cache->rotary_offset = rotary_offset;
  }

  // Head h's options: the mask, causality and its ALiBi slope; dropout only while training.
  const auto head_attention = [&](int h) {
    return AttentionOptions{.mask = masking.mask,
                            .causal = masking.causal,
                            .scale = std::nullopt,
                            .bias = nullptr,
                            .alibi_slope = slopes.empty() ? std::nullopt : std::optional<float>(slopes[h]),
                            .dropout = dropping ? config_.dropout : 0.0f,
                            .rng = dropping ? &dropout_rng_ : nullptr};
  };
  // Queries or keys of one head, rotated by position under RoPE (taken by value: a slice is copied once).
  const auto rotated = [&](Matrix head, int offset) {
    return config_.positions == PositionalScheme::rotary ? apply_rotary(head, offset) : head;
  };

  MultiHeadAttentionOutput result;
  Matrix concat;
  const bool outputs_only = !masking.need_weights && !dropping && !cache;
  if (!dropping && !cache && !tracer.enabled()) {
    // The heads are independent tasks, shared over threads (each head's attention then runs on its
    // task's thread, so the result is the one-thread result). A task slices its head out of Q, K, V
    // and writes its output into its columns of the concatenation itself: done before and after the
    // loop, those copies were ~6% of a threaded d_model-512 call spent on one thread.
    if (masking.need_weights) result.head_weights.resize(static_cast<std::size_t>(config_.num_heads));
    concat.resize(n_q, d);
    const double work = 2.0 * static_cast<double>(n_q) * static_cast<double>(n_k) * static_cast<double>(d);
    detail::parallel_for(config_.num_heads, work, [&](int h) {
      const auto columns = [&](auto& m) { return m.middleCols(h * d_k(), d_k()); };  // head h's columns of m
      const Matrix q_h = rotated(columns(q), rotary_offset), k_h = rotated(columns(k), 0), v_h = columns(v);
      if (outputs_only) {
        columns(concat) = attention_output(q_h, k_h, v_h, head_attention(h));
      } else {
        AttentionResult head = detail::lean_attention(q_h, k_h, v_h, head_attention(h));
        columns(concat) = head.output;
        result.head_weights[static_cast<std::size_t>(h)] = std::move(head.weights);
      }
    });
  } else {
    const std::vector<Matrix> q_heads = split_heads(q, config_.num_heads);
    const std::vector<Matrix> k_heads = split_heads(k, config_.num_heads);
    const std::vector<Matrix> v_heads = split_heads(v, config_.num_heads);
    std::vector<Matrix> head_outputs(static_cast<std::size_t>(config_.num_heads));
    for (int h = 0; h < config_.num_heads; ++h) {
      const Tracer head_tracer = tracer.enabled() ? tracer.child("head" + std::to_string(h)) : Tracer();
      if (tracer.enabled())
        head_tracer.record("split", "Head " + std::to_string(h) + ": slices of Q, K, V",
                           "Columns " + std::to_string(h * d_k()) + "…" + std::to_string((h + 1) * d_k() - 1) +
                               " of Q, K and V: d_k = d_model / num_heads = " + std::to_string(d_k()) + ".",
                           {{"Q_h", q_heads[h]}, {"K_h", k_heads[h]}, {"V_h", v_heads[h]}});
      Matrix q_h = rotated(q_heads[h], rotary_offset), k_h = rotated(k_heads[h], 0);
      if (config_.positions == PositionalScheme::rotary)
        head_tracer.record("rotary", "Rotate by position (RoPE)",
                           "Each column pair of Q_h and K_h is rotated by an angle proportional to its position.",
                           {{"Q_h", q_h}, {"K_h", k_h}});
      if (outputs_only) {  // traced
        head_outputs[static_cast<std::size_t>(h)] = attention_output(q_h, k_h, v_heads[h], head_attention(h), head_tracer);
        continue;
      }
      // A trace or backward keeps the steps between; dropout keeps only weights and output.
      AttentionResult head = tracer.enabled() || cache
                                 ? scaled_dot_product_attention(q_h, k_h, v_heads[h], head_attention(h), head_tracer)
                                 : detail::lean_attention(q_h, k_h, v_heads[h], head_attention(h));
      head_outputs[static_cast<std::size_t>(h)] = head.output;
      if (masking.need_weights || dropping) result.head_weights.push_back(head.weights);
      if (cache) {
        cache->q_heads.push_back(std::move(q_h));
        cache->k_heads.push_back(std::move(k_h));
        cache->v_heads.push_back(v_heads[h]);
        cache->heads.push_back(std::move(head));
      }
    }
    concat = combine_heads(head_outputs);
  }

  // 3. The heads' outputs side by side (concat), projected.
  if (tracer.enabled())
    tracer.record("concat", "Concatenate heads",
                "The heads' outputs side by side: " + std::to_string(config_.num_heads) + " × [" +
                    std::to_string(n_q) + "×" + std::to_string(d_k()) + "] → " + detail::bracketed_shape(concat) + ".",
                {{"concat", concat}});
  result.output = out_proj_.forward(concat);
  if (tracer.enabled())
    tracer.record("output", "Output projection W_o",
                "output = concat·W_oᵀ" + plus_bias("b_o") + " mixes information across heads: " + detail::bracketed_shape(result.output) + ".",
                {{"W_o", out_proj_.weight()}, {"output", result.output}});

  if (cache) cache->concat = std::move(concat);
  if (result.head_weights.empty()) return result;
  result.average_weights = Matrix::Zero(n_q, n_k);
  for (const Matrix& w : result.head_weights) result.average_weights += w;
  result.average_weights /= static_cast<float>(config_.num_heads);
  return result;
}

MultiHeadAttentionInputGradients MultiHeadAttention::backward(const MultiHeadAttentionCache& c, const Matrix& d_output) {
  // d_output [n_q×d_model] → d_query [n_q×d_model] (and d_key, d_value [n_k×d_model] for cross-attention)
  constexpr const char* fn = "MultiHeadAttention::backward";
  if (c.heads.size() != static_cast<std::size_t>(config_.num_heads) || c.concat.rows() == 0)
    detail::fail(fn, "the cache was not filled by this layer's forward(…, cache)");
  detail::require_shape(fn, "d_output", d_output, c.concat.rows(), config_.d_model);
  const std::vector<float> slopes =
      config_.positions == PositionalScheme::alibi ? alibi_slopes(config_.num_heads) : std::vector<float>{};

  // 3. output = concat·W_oᵀ + b_o
  const std::vector<Matrix> d_heads = split_heads(out_proj_.backward(c.concat, d_output), config_.num_heads);
  // 2. Per head: head_h = softmax(Q_h·K_hᵀ/√d_k, masked)·V_h, with Q_h, K_h rotated first under RoPE.
  std::vector<Matrix> d_q(d_heads.size()), d_k(d_heads.size()), d_v(d_heads.size());
  for (std::size_t h = 0; h < d_heads.size(); ++h) {
    const AttentionResult& head = c.heads[h];
    const AttentionOptions attention{.mask = c.mask.size() > 0 ? &c.mask : nullptr,
                                     .causal = c.causal,
                                     .scale = std::nullopt,
                                     .bias = nullptr,
                                     .alibi_slope = slopes.empty() ? std::nullopt : std::optional<float>(slopes[h]),
                                     .dropout = head.weights_before_dropout.size() > 0 ? config_.dropout : 0.0f,
                                     .rng = nullptr};
    AttentionGradients g =
        scaled_dot_product_attention_backward(c.q_heads[h], c.k_heads[h], c.v_heads[h], head, d_heads[h], attention);
    if (config_.positions == PositionalScheme::rotary) {
      g.d_q = apply_rotary_backward(g.d_q, c.rotary_offset);
      g.d_k = apply_rotary_backward(g.d_k);
    }
    d_q[h] = std::move(g.d_q);
    d_k[h] = std::move(g.d_k);
    d_v[h] = std::move(g.d_v);
  }
  // 1. Q = query·W_qᵀ + b_q, K = key·W_kᵀ + b_k, V = value·W_vᵀ + b_v
  const Matrix& key = c.self ? c.query : c.key;
  const Matrix& value = c.self ? c.query : c.value;
  MultiHeadAttentionInputGradients out{q_proj_.backward(c.query, combine_heads(d_q)),
                                       k_proj_.backward(key, combine_heads(d_k)),
                                       v_proj_.backward(value, combine_heads(d_v))};
  if (c.self) {
    out.d_query += out.d_key + out.d_value;  // X feeds all three projections
    out.d_key = Matrix();
    out.d_value = Matrix();
  }
  return out;
}

void MultiHeadAttention::zero_grad() {
  for (Linear* projection : {&q_proj_, &k_proj_, &v_proj_, &out_proj_}) projection->zero_grad();
}

std::vector<ParameterRef> MultiHeadAttention::parameters(std::string_view prefix) {
  std::vector<ParameterRef> all;
  const std::pair<const char*, Linear*> projections[] = {
      {"q_proj", &q_proj_}, {"k_proj", &k_proj_}, {"v_proj", &v_proj_}, {"out_proj", &out_proj_}};
  for (const auto& [name, projection] : projections) append_parameters(all, projection->parameters(parameter_name(prefix, name)));
  return all;
}

void MultiHeadAttention::load(const MultiHeadAttentionWeights& w) {
  constexpr const char* fn = "MultiHeadAttention::load";
  const int d = config_.d_model;
  detail::require_shape(fn, "in_proj_weight", w.in_proj_weight, 3 * d, d);
  detail::require_shape(fn, "out_proj_weight", w.out_proj_weight, d, d);
  // Checked whole, so a bad entry is reported where the caller put it (not as a row of W_k or W_v).
  detail::require_finite(fn, "in_proj_weight", w.in_proj_weight);
  detail::require_finite(fn, "in_proj_bias", w.in_proj_bias);
  const Eigen::Index bias_size = config_.bias ? 3 * d : 0;
  if (w.in_proj_bias.size() != bias_size)
    detail::fail(fn, "in_proj_bias has ", w.in_proj_bias.size(), " entries but must have ", bias_size,
                 config_.bias ? " (3·d_model)" : " (the layer has no bias)");
  const auto slice_bias = [&](int part) {
    return config_.bias ? Vector(w.in_proj_bias.segment(part * d, d)) : Vector();
  };
  load_separate({w.in_proj_weight.middleRows(0, d), slice_bias(0)},
                {w.in_proj_weight.middleRows(d, d), slice_bias(1)},
                {w.in_proj_weight.middleRows(2 * d, d), slice_bias(2)},
                {w.out_proj_weight, w.out_proj_bias});
}

void MultiHeadAttention::load_separate(const LinearWeights& q, const LinearWeights& k, const LinearWeights& v,
                                       const LinearWeights& out) {
  // Load copies first so a bad argument leaves the layer unchanged.
  Linear q_new = q_proj_, k_new = k_proj_, v_new = v_proj_, out_new = out_proj_;
  q_new.load(q, "MultiHeadAttention::load (W_q)");
  k_new.load(k, "MultiHeadAttention::load (W_k)");
  v_new.load(v, "MultiHeadAttention::load (W_v)");
  out_new.load(out, "MultiHeadAttention::load (out_proj)");
  // Copied in, not moved: the same-sized buffers are kept, so ParameterRefs (an optimizer's view of
  // the layer) stay valid across a load.
  q_proj_ = q_new;
  k_proj_ = k_new;
  v_proj_ = v_new;
  out_proj_ = out_new;
}

MultiHeadAttentionWeights MultiHeadAttention::weights() const {
  const int d = config_.d_model;
  MultiHeadAttentionWeights w;
  w.in_proj_weight.resize(3 * d, d);
  w.in_proj_weight << q_proj_.weight(), k_proj_.weight(), v_proj_.weight();
  if (config_.bias) {
    w.in_proj_bias.resize(3 * d);
    w.in_proj_bias << q_proj_.bias(), k_proj_.bias(), v_proj_.bias();
  }
  w.out_proj_weight = out_proj_.weight();
  w.out_proj_bias = out_proj_.bias();
  return w;
}

std::int64_t MultiHeadAttention::parameter_count() const {
  return q_proj_.parameter_count() + k_proj_.parameter_count() + v_proj_.parameter_count() +
         out_proj_.parameter_count();
}

}  // namespace attnlab
