// Training: the forward over a batch, the loss, and the backward, which walks GPT::forward_pass in
// reverse, each step quoting the forward line it undoes.
#include "attnlab/gpt/gpt.hpp"

#include "tensor/checks.hpp"
#include "gpt/gpt_ops.hpp"
#include "kernels/kernels.hpp"
#include "tensor/parallel.hpp"

namespace attnlab {

using namespace gpt_ops;

double GPT::training_forward(const char* fn, std::span<const int> ids, std::span<const int> targets, int batch,
                             Activations& acts, Matrix* d_logits, const PackedGPTWeights* packed,
                             const GPTDropout& dropout) const {
  // ids, targets [batch×T] → mean cross-entropy over the scored positions
  check_ids(fn, ids, batch);
  if (targets.size() != ids.size())
    detail::fail(fn, "targets has ", targets.size(), " entries but ids has ", ids.size());
  for (std::size_t i = 0; i < targets.size(); ++i)
    if (targets[i] != kGPTIgnoreTarget && (targets[i] < 0 || targets[i] >= config_.vocab_size))
      detail::fail(fn, "targets[", i, "] = ", targets[i], " is outside the vocabulary 0 … ", config_.vocab_size - 1,
                   " (use ", kGPTIgnoreTarget, " for no target)");
  detail::require_probability(fn, "dropout.p", dropout.p);
  forward_pass(ids, batch, acts, {}, {}, packed, dropout);
  return cross_entropy(acts.logits, targets, d_logits);
}

float GPT::loss(std::span<const int> ids, std::span<const int> targets, int batch) const {
  Activations acts;
  return static_cast<float>(training_forward("GPT::loss", ids, targets, batch, acts, nullptr, packed_weights().get()));
}

float GPT::forward_backward(std::span<const int> ids, std::span<const int> targets, int batch,
                            const GPTDropout& dropout) {
  // ids, targets [batch×T] → the loss; gradients [parameter_count] += ∂loss/∂θ
  const char* fn = "GPT::forward_backward";
  Activations a;
  Matrix d_logits;
  // The weights change after every step: packing them once for this pass is all a pack could save.
  const double loss = training_forward(fn, ids, targets, batch, a, &d_logits, nullptr, dropout);
  if (grads_.empty()) grads_.assign(values_.size(), 0.0f);
  const Matrix d_x = backward(a, d_logits, grads_.data(), {});
  // x = dropout(wte[ids] + wpe[position])  →  each row's gradient added to the rows it was read from
  for (Eigen::Index i = 0; i < d_x.rows(); ++i) {
    grad_matrix(wte_).row(ids[static_cast<std::size_t>(i)]) += d_x.row(i);
    grad_matrix(wpe_).row(i % a.T) += d_x.row(i);
  }
  if (!detail::all_finite(grads_.data(), static_cast<Eigen::Index>(grads_.size())))
    detail::fail(fn, "a gradient overflowed float32 (loss ", loss, "); lower the learning rate");
  return static_cast<float>(loss);
}

Matrix GPT::backward(const Activations& a, const Matrix& d_logits, float* grads, const PointGradient& point) const {
  // d_logits [n×V] → ∂/∂(the embeddings' sum) [n×d]; each step quotes the forward line it undoes
  const int T = a.T, H = config_.num_heads;
  const Eigen::Index d = config_.d_model;
  const auto grad = [&](int slot) { return grads ? grads + slots_[static_cast<std::size_t>(slot)].offset : nullptr; };
  const auto seen = [&](std::string_view name, int layer, const Matrix& gradient) {
    if (point) point(name, layer, gradient);
  };

  // logits = ln_f(x) · wteᵀ  →  d_ln_f = d_logits·wte,  d_wte += d_logitsᵀ·ln_f
  if (grads) GradMap(grad(wte_), config_.vocab_size, d) += kernels::matmul(d_logits.transpose(), a.ln_f);
  Matrix d_ln_f = kernels::matmul(d_logits, matrix(wte_));
  // ln_f(x)
  Matrix d_x = layer_norm_backward(a.x_final, a.ln_f_mean, a.ln_f_rstd, row(ln_f_weight_), d_ln_f, grad(ln_f_weight_),
                                   grad(ln_f_bias_));

  for (int l = config_.num_layers - 1; l >= 0; --l) {
    const BlockSlots& p = blocks_[static_cast<std::size_t>(l)];
    const Activations::Block& b = a.blocks[static_cast<std::size_t>(l)];
    seen("hook_resid_post", l, d_x);
    // x = x_mid + dropout(c_proj(gelu(c_fc(ln_2(x_mid)))))  →  d_x_mid = d_x + (the MLP's path)
    Matrix d_mlp_out = d_x;
    apply_dropout(d_mlp_out, b.mlp_dropout);
    seen("hook_mlp_out", l, d_mlp_out);
    Matrix d_gelu = conv1d_backward(b.gelu, matrix(p.mlp_proj_weight), d_mlp_out, grad(p.mlp_proj_weight), grad(p.mlp_proj_bias));
    Matrix d_fc = gelu_tanh_backward(b.fc, d_gelu);
    Matrix d_ln_2 = conv1d_backward(b.ln_2, matrix(p.c_fc_weight), d_fc, grad(p.c_fc_weight), grad(p.c_fc_bias));
    Matrix d_x_mid = d_x + layer_norm_backward(b.x_mid, b.ln_2_mean, b.ln_2_rstd, row(p.ln_2_weight), d_ln_2,
                                               grad(p.ln_2_weight), grad(p.ln_2_bias));
    seen("hook_resid_mid", l, d_x_mid);
    // x_mid = x + dropout(c_proj(heads))  →  d_x = d_x_mid + (the attention's path)
    Matrix d_attn_out = d_x_mid;
    apply_dropout(d_attn_out, b.attn_dropout);
    seen("hook_attn_out", l, d_attn_out);
    Matrix d_heads = conv1d_backward(b.heads, matrix(p.attn_proj_weight), d_attn_out, grad(p.attn_proj_weight),
                                     grad(p.attn_proj_bias));
    seen("attn.hook_z", l, d_heads);
    Matrix d_qkv(b.qkv.rows(), b.qkv.cols());
    detail::parallel_for(a.batch, 4.0 * static_cast<double>(d_qkv.rows()) * T * static_cast<double>(d), [&](int s) {
      const auto seq = static_cast<std::size_t>(s);
      causal_attention_backward(b.qkv.middleRows(s * T, T), b.weights[seq], H, d_heads.middleRows(s * T, T),
                                d_qkv.middleRows(s * T, T), b.weights_dropout.empty() ? nullptr : &b.weights_dropout[seq]);
    });
    if (point) {
      seen("attn.hook_q", l, d_qkv.leftCols(d));
      seen("attn.hook_k", l, d_qkv.middleCols(d, d));
      seen("attn.hook_v", l, d_qkv.rightCols(d));
    }
    Matrix d_ln_1 = conv1d_backward(b.ln_1, matrix(p.c_attn_weight), d_qkv, grad(p.c_attn_weight), grad(p.c_attn_bias));
    d_x = d_x_mid + layer_norm_backward(b.x, b.ln_1_mean, b.ln_1_rstd, row(p.ln_1_weight), d_ln_1, grad(p.ln_1_weight),
                                        grad(p.ln_1_bias));
    seen("hook_resid_pre", l, d_x);
  }
  // x = dropout(wte[ids] + wpe[position])
  apply_dropout(d_x, a.embed_dropout);
  return d_x;
}

}  // namespace attnlab
