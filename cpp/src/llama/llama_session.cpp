#include "attnlab/llama/llama_session.hpp"

#include "attnlab/attention/grouped_attention.hpp"
#include "gpt/generation_loop.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

LlamaSession::LlamaSession(const Llama& model, LlamaCachePolicy policy) : model_(model), policy_(policy) {
  const char* fn = "LlamaSession";
  if (policy.sinks < 0 || policy.window < 0)
    detail::fail(fn, "sinks = ", policy.sinks, " and window = ", policy.window, " must be ≥ 0");
  if (policy.sinks > 0 && policy.window == 0)
    detail::fail(fn, "sinks = ", policy.sinks, " needs a window > 0 (with window 0 every token is kept anyway)");
  reset();
}

void LlamaSession::reset() {
  const LlamaConfig& c = model_.config();
  const Eigen::Index width = static_cast<Eigen::Index>(c.num_kv_heads) * c.head_dim;
  keys_.assign(static_cast<std::size_t>(c.num_layers), Matrix(0, width));
  values_ = keys_;
  index_.clear();
  last_attention_.clear();
  length_ = 0;
}

std::int64_t LlamaSession::cache_bytes() const { return cached() * model_.config().kv_cache_bytes_per_token(); }

const Matrix& LlamaSession::keys(int layer) const {
  if (layer < 0 || layer >= model_.config().num_layers)
    detail::fail("LlamaSession::keys", "layer ", layer, " is not in 0 … ", model_.config().num_layers - 1);
  return keys_[static_cast<std::size_t>(layer)];
}

const Matrix& LlamaSession::values(int layer) const {
  if (layer < 0 || layer >= model_.config().num_layers)
    detail::fail("LlamaSession::values", "layer ", layer, " is not in 0 … ", model_.config().num_layers - 1);
  return values_[static_cast<std::size_t>(layer)];
}

namespace {

void append_rows(Matrix& cache, const Matrix& rows) {
  cache.conservativeResize(cache.rows() + rows.rows(), Eigen::NoChange);
  cache.bottomRows(rows.rows()) = rows;
}

void remove_row(Matrix& cache, Eigen::Index row) {
  const Eigen::Index below = cache.rows() - row - 1;
  if (below > 0) cache.middleRows(row, below) = cache.bottomRows(below).eval();
  cache.conservativeResize(cache.rows() - 1, Eigen::NoChange);
}

}  // namespace

Matrix LlamaSession::append(int id) { return append(std::span<const int>(&id, 1)); }

Matrix LlamaSession::append(std::span<const int> ids) {
  const char* fn = "LlamaSession::append";
  const LlamaConfig& c = model_.config();
  if (ids.empty()) detail::fail(fn, "ids is empty (give at least one token)");
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= c.vocab_size)
      detail::fail(fn, "ids[", i, "] = ", ids[i], " is outside the vocabulary 0 … ", c.vocab_size - 1);
  if (policy_.window == 0) return read(ids);
  Matrix logits(static_cast<Eigen::Index>(ids.size()), c.vocab_size);
  for (std::size_t i = 0; i < ids.size(); ++i) logits.row(static_cast<Eigen::Index>(i)) = read_streaming(ids[i]);
  return logits;
}

Matrix LlamaSession::read(std::span<const int> ids) {
  // n new tokens at positions length … length + n − 1 → logits [n×V]; every layer's cache gains n rows
  const LlamaConfig& c = model_.config();
  const auto n = static_cast<Eigen::Index>(ids.size());
  detail::require_within_budget("LlamaSession::append", 2.0 * c.num_layers, static_cast<double>(length_ + n),
                                static_cast<double>(c.num_kv_heads) * c.head_dim, "the KV cache");
  std::vector<int> positions(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) positions[i] = length_ + static_cast<int>(i);
  const RotaryTable rotation = rotary_table(positions, model_.frequencies_);
  Matrix x = model_.embed_rows(ids);
  last_attention_.assign(static_cast<std::size_t>(c.num_layers), {});
  for (int l = 0; l < c.num_layers; ++l) {
    const auto L = static_cast<std::size_t>(l);
    Matrix q, k, v;
    model_.qkv(l, model_.rms_norm(x, model_.layers_[L].input_norm, nullptr, {}), q, k, v);
    apply_rotary_half(q, c.head_dim, rotation);
    apply_rotary_half(k, c.head_dim, rotation);  // stored turned: a full cache's keys keep their positions
    append_rows(keys_[L], k);
    append_rows(values_[L], v);
    std::vector<Matrix> weights;
    Matrix z = grouped_attention(q, keys_[L], values_[L],
                                 {.num_heads = c.num_heads, .num_kv_heads = c.num_kv_heads, .head_dim = c.head_dim,
                                  .window = c.window(l)},
                                 &weights);
    for (Matrix& w : weights) last_attention_[L].push_back(w.bottomRows(1));
    model_.finish_block(x, z, {.layer = l});
  }
  for (int i = 0; i < n; ++i) index_.push_back(length_ + i);
  length_ += static_cast<int>(n);
  return model_.logits(model_.rms_norm(x, model_.norm_, nullptr, {}));
}

Matrix LlamaSession::read_streaming(int id) {
  // one token → logits [1×V]; the cache keeps the sinks and the last `window` tokens, positions within it
  const LlamaConfig& c = model_.config();
  index_.push_back(length_);
  // The token evicted now, if any: the oldest that is neither a sink nor in the window.
  const bool evict = static_cast<int>(index_.size()) > policy_.sinks + policy_.window;
  if (evict) index_.erase(index_.begin() + policy_.sinks);
  const auto n = static_cast<Eigen::Index>(index_.size());
  std::vector<int> positions(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) positions[static_cast<std::size_t>(i)] = static_cast<int>(i);
  const RotaryTable keys_rotation = rotary_table(positions, model_.frequencies_);
  const RotaryTable query_rotation{keys_rotation.cos.bottomRows(1), keys_rotation.sin.bottomRows(1)};

  Matrix x = model_.embed_rows(std::span<const int>(&id, 1));
  last_attention_.assign(static_cast<std::size_t>(c.num_layers), {});
  for (int l = 0; l < c.num_layers; ++l) {
    const auto L = static_cast<std::size_t>(l);
    Matrix q, k, v;
    model_.qkv(l, model_.rms_norm(x, model_.layers_[L].input_norm, nullptr, {}), q, k, v);
    append_rows(keys_[L], k);  // stored unturned: turned below at cache positions, which shift on eviction
    append_rows(values_[L], v);
    if (evict) {
      remove_row(keys_[L], policy_.sinks);
      remove_row(values_[L], policy_.sinks);
    }
    Matrix turned = keys_[L];
    apply_rotary_half(turned, c.head_dim, keys_rotation);
    apply_rotary_half(q, c.head_dim, query_rotation);
    std::vector<Matrix> weights;
    Matrix z = grouped_attention(q, turned, values_[L],
                                 {.num_heads = c.num_heads, .num_kv_heads = c.num_kv_heads, .head_dim = c.head_dim}, &weights);
    last_attention_[L] = std::move(weights);
    model_.finish_block(x, z, {.layer = l});
  }
  ++length_;
  return model_.logits(model_.rms_norm(x, model_.norm_, nullptr, {}));
}

Generation generate(const Llama& model, std::span<const int> prompt, const GenerateOptions& options,
                    LlamaCachePolicy policy) {
  struct Reader {
    LlamaSession session;
    Matrix read_prompt(std::span<const int> ids) { return session.append(ids).bottomRows(1); }
    Matrix append(int id) { return session.append(id); }
    bool full() const { return false; }  // RoPE has no last position; the cache policy bounds memory
  } reader{LlamaSession(model, policy)};
  return detail::generation_loop("generate", reader, model.config().vocab_size, prompt, options);
}

}  // namespace attnlab
