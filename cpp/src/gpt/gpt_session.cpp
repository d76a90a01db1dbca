#include "attnlab/gpt/gpt_session.hpp"

#include <algorithm>
#include <cmath>

#include "tensor/checks.hpp"
#include "gpt/generation_loop.hpp"
#include "gpt/gpt_ops.hpp"
#include "kernels/kernels.hpp"

namespace attnlab {

using namespace gpt_ops;

GPTSession::GPTSession(const GPT& model) : model_(model) {
  const GPTConfig& c = model.config();
  detail::require_within_budget("GPTSession", 2.0 * c.num_layers, c.context_length, c.d_model, "the KV cache");
  keys_.assign(static_cast<std::size_t>(c.num_layers), Matrix(c.context_length, c.d_model));
  values_ = keys_;
}

Matrix GPTSession::keys(int layer) const {
  if (layer < 0 || layer >= model_.config().num_layers)
    detail::fail("GPTSession::keys", "layer ", layer, " is not in 0 … ", model_.config().num_layers - 1);
  return keys_[static_cast<std::size_t>(layer)].topRows(length_);
}

Matrix GPTSession::values(int layer) const {
  if (layer < 0 || layer >= model_.config().num_layers)
    detail::fail("GPTSession::values", "layer ", layer, " is not in 0 … ", model_.config().num_layers - 1);
  return values_[static_cast<std::size_t>(layer)].topRows(length_);
}

Matrix GPTSession::append(int id) {
  // one token at position t = length() → logits [1×V]; K and V gain row t in every layer
  const char* fn = "GPTSession::append";
  const GPTConfig& c = model_.config();
  if (length_ >= c.context_length)
    detail::fail(fn, "the context is full: ", length_, " tokens = context_length (reset() to start again)");
  if (id < 0 || id >= c.vocab_size) detail::fail(fn, "id ", id, " is outside the vocabulary 0 … ", c.vocab_size - 1);
  const int t = length_, d = c.d_model, H = c.num_heads, d_head = c.head_dim();
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_head));
  last_attention_.assign(static_cast<std::size_t>(c.num_layers), std::vector<Matrix>(static_cast<std::size_t>(H)));

  const std::shared_ptr<const PackedGPTWeights> packed = model_.packed_weights();
  // x = wte[id] + wpe[t]                                                      [1×d]
  Matrix x = model_.matrix(model_.wte_).row(id) + model_.matrix(model_.wpe_).row(t);
  Matrix ln;
  Eigen::VectorXf mean, rstd;
  for (int l = 0; l < c.num_layers; ++l) {
    const GPT::BlockSlots& p = model_.blocks_[static_cast<std::size_t>(l)];
    const PackedGPTWeights::Block* pw = packed ? &packed->blocks[static_cast<std::size_t>(l)] : nullptr;
    Matrix& K = keys_[static_cast<std::size_t>(l)];
    Matrix& V = values_[static_cast<std::size_t>(l)];
    // qkv = c_attn(ln_1(x)) [1×3d]; k and v become row t of the cache
    layer_norm(x, model_.row(p.ln_1_weight), model_.row(p.ln_1_bias), ln, mean, rstd);
    const Matrix qkv = conv1d(ln, pw ? &pw->c_attn : nullptr, model_.matrix(p.c_attn_weight), model_.row(p.c_attn_bias));
    K.row(t) = qkv.middleCols(d, d);
    V.row(t) = qkv.middleCols(2 * d, d);
    // each head: weights = softmax(q·K[0 … t]ᵀ/√d_head) [1×(t+1)], output = weights·V[0 … t]
    Matrix heads(1, d);
    for (int h = 0; h < H; ++h) {
      const auto keys = K.block(0, h * d_head, t + 1, d_head);
      const auto values = V.block(0, h * d_head, t + 1, d_head);
      Matrix& w = last_attention_[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
      w = kernels::matmul_transposed(qkv.middleCols(h * d_head, d_head), keys) * scale;
      kernels::softmax_rows(w);
      heads.middleCols(h * d_head, d_head) = kernels::matmul(w, values);
    }
    x += conv1d(heads, pw ? &pw->attn_proj : nullptr, model_.matrix(p.attn_proj_weight), model_.row(p.attn_proj_bias));
    // x += c_proj(gelu(c_fc(ln_2(x))))
    layer_norm(x, model_.row(p.ln_2_weight), model_.row(p.ln_2_bias), ln, mean, rstd);
    x += conv1d(gelu_tanh(conv1d(ln, pw ? &pw->c_fc : nullptr, model_.matrix(p.c_fc_weight), model_.row(p.c_fc_bias))),
                pw ? &pw->mlp_proj : nullptr, model_.matrix(p.mlp_proj_weight), model_.row(p.mlp_proj_bias));
  }
  // logits = ln_f(x)·wteᵀ                                                      [1×V]
  layer_norm(x, model_.row(model_.ln_f_weight_), model_.row(model_.ln_f_bias_), ln, mean, rstd);
  Matrix logits = model_.tied_logits(ln, packed.get());
  detail::require_finite_result(fn, logits, "the weights are too large");
  length_ = t + 1;
  return logits;
}

std::int64_t gpt_multiply_adds(const GPTConfig& c, std::int64_t n, bool with_cache) {
  const std::int64_t d = c.d_model, L = c.num_layers, V = c.vocab_size;
  // with the cache: one row, attending over n keys; without: n rows, row i over i + 1 keys (Σ = n(n+1)/2)
  const std::int64_t rows = with_cache ? 1 : n;
  const std::int64_t keys_seen = with_cache ? n : n * (n + 1) / 2;
  return L * (12 * d * d * rows + 2 * keys_seen * d) + V * d;
}

Generation generate(const GPT& model, std::span<const int> prompt, const GenerateOptions& options) {
  const char* fn = "generate";
  if (prompt.size() > static_cast<std::size_t>(model.config().context_length))
    detail::fail(fn, "the prompt has ", prompt.size(), " tokens but context_length is ", model.config().context_length);
  // The GPT's session read one token at a time; its context is full at context_length.
  struct Reader {
    GPTSession session;
    Matrix read_prompt(std::span<const int> ids) {
      Matrix logits;
      for (int id : ids) logits = session.append(id);
      return logits;
    }
    Matrix append(int id) { return session.append(id); }
    bool full() const { return session.length() == session_context; }
    int session_context;
  } reader{GPTSession(model), model.config().context_length};
  return detail::generation_loop(fn, reader, model.config().vocab_size, prompt, options);
}

}  // namespace attnlab
