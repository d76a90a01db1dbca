#include "attnlab/layers/batched_multi_head_attention.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "attnlab/attention/batched_attention.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

constexpr const char* kMultiHeadAttentionForward = "multi_head_attention_forward";

// t must be (batch, seq, d_model) with finite values: "x (2, 10, 500) does not match d_model 512".
void require_sequences(const char* name, const Tensor& t, int d_model) {
  if (t.empty()) detail::fail(kMultiHeadAttentionForward, name, " is empty (default-constructed)");
  if (t.rank() != 3)
    detail::fail(kMultiHeadAttentionForward, name, " ", shape_text(t), " must be (batch, seq, d_model) = (batch, seq, ", d_model, ")");
  if (t.size(-1) != d_model) detail::fail(kMultiHeadAttentionForward, name, " ", shape_text(t), " does not match d_model ", d_model);
  const std::vector<float> values = t.to_vector();
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i])) {
      const std::int64_t flat = static_cast<std::int64_t>(i), d = t.size(2), n = t.size(1);
      detail::fail(kMultiHeadAttentionForward, name, " ", shape_text(t), " holds ", values[i], " at ",
                   shape_text(Shape{flat / (d * n), flat / d % n, flat % d}), " (inputs must be finite)");
    }
}

// A Linear applied to every position: (batch, n, in) → [batch·n × out], one sequence at a time. The
// products then have the 2-D forward's shapes, so each sequence's result is that call's bit for bit on
// every build (one [batch·n × in] GEMM may split its sums differently: the scalar wasm build does).
Matrix project(const Linear& linear, const Tensor& t) {
  const std::int64_t batch = t.size(0), n = t.size(1);
  Matrix rows(batch * n, linear.out_features());
  for (std::int64_t b = 0; b < batch; ++b) rows.middleRows(b * n, n) = linear.forward(t.matrix(b));
  return rows;
}

// The checks that do not depend on whether the call is self- or cross-attention.
void check_layer_and_masks(const MultiHeadAttention& mha, std::int64_t batch, std::int64_t n_q, std::int64_t n_k,
                           const BatchedMultiHeadOptions& options) {
  if (mha.config().positions != PositionalScheme::none)
    detail::fail(kMultiHeadAttentionForward, "rotary and ALiBi positions are not supported yet (the layer's positions must be none)");
  if (mha.training() && mha.config().dropout > 0.0f && !options.rng)
    detail::fail(kMultiHeadAttentionForward, "the layer is training with dropout ", mha.config().dropout,
                 ": pass options.rng for the dropout draws (or call train(false))");
  const Shape weights{batch, mha.num_heads(), n_q, n_k};
  if (options.mask && !options.mask->empty() && !broadcasts_to(options.mask->shape(), weights))
    detail::fail(kMultiHeadAttentionForward, "mask ", shape_text(*options.mask), " does not broadcast to the weights (batch, heads, n_q, n_k) = ",
                 shape_text(weights));
  if (options.key_padding_mask && !options.key_padding_mask->empty() &&
      options.key_padding_mask->shape() != Shape{batch, n_k})
    detail::fail(kMultiHeadAttentionForward, "key_padding_mask ", shape_text(*options.key_padding_mask), " must be (batch, n_k) = ",
                 shape_text(Shape{batch, n_k}));
}

// The tutorials' first steps, for the trace: the fused projection qkv (batch, seq, 3·d_model) — the
// three projections' rows side by side, as PyTorch's in_proj computes them — its view (batch, seq, 3,
// heads, d_k) and its permute (3, batch, heads, seq, d_k), whose three parts are q, k and v.
void trace_fused_projection(const Tracer& tracer, const Tensor& x, const Matrix& q_rows, const Matrix& k_rows,
                            const Matrix& v_rows, int heads, int d_k) {
  const std::int64_t batch = x.size(0), seq = x.size(1), d_model = x.size(2);
  Matrix fused(q_rows.rows(), 3 * d_model);
  fused << q_rows, k_rows, v_rows;
  const Tensor qkv = Tensor(fused).view({batch, seq, 3 * d_model});
  const Tensor split = qkv.view({batch, seq, 3, heads, d_k});
  const Tensor permuted = split.permute({2, 0, 3, 1, 4});
  tracer.record_tensors("x", "Input", "x " + shape_text(x) + ": (batch, seq, d_model)", {{"x", x}});
  tracer.record_tensors("qkv", "Fused projection", "qkv = x·W_inᵀ + b_in " + shape_text(qkv) + ": q, k and v side by side",
                        {{"qkv", qkv}});
  tracer.record_tensors("qkv.reshape", "Split into heads", "qkv.reshape(batch, seq, 3, heads, d_k) " + shape_text(split) +
                        ": the same numbers, new strides", {{"qkv", split}});
  tracer.record_tensors("qkv.permute", "Bring q, k, v and the heads forward", "qkv.permute(2, 0, 3, 1, 4) " +
                        shape_text(permuted) + ": (3, batch, heads, seq, d_k)", {{"qkv", permuted}});
}

// scores = q·kᵀ·scale per (batch, head) slice, before any mask: q (batch, heads, n_q, d_k), k (batch,
// heads, n_k, d_k) → (batch, heads, n_q, n_k). Traced only: the softmax itself runs in the batched SDPA.
Tensor traced_scores(const Tensor& q, const Tensor& k, float scale) {
  const std::int64_t batch = q.size(0), heads = q.size(1);
  Tensor scores(Shape{batch, heads, q.size(2), k.size(2)});
  for (std::int64_t i = 0; i < batch * heads; ++i) scores.set_matrix(i, q.matrix(i) * k.matrix(i).transpose() * scale);
  return scores;
}

}  // namespace

BatchedMultiHeadOutput multi_head_attention_forward(const MultiHeadAttention& mha, const Tensor& x,
                                                    const BatchedMultiHeadOptions& options, const Tracer& tracer) {
  return multi_head_attention_forward(mha, x, x, x, options, tracer);
}

BatchedMultiHeadOutput multi_head_attention_forward(const MultiHeadAttention& mha, const Tensor& query,
                                                    const Tensor& key, const Tensor& value,
                                                    const BatchedMultiHeadOptions& options, const Tracer& tracer) {
  // query (batch, n_q, d_model), key and value (batch, n_k, d_model) → output (batch, n_q, d_model),
  // weights (batch, heads, n_q, n_k)
  const int d_model = mha.d_model(), heads = mha.num_heads(), d_k = mha.d_k();
  const bool self = &query == &key && &key == &value;
  require_sequences(self ? "x" : "query", query, d_model);
  if (!self) {
    require_sequences("key", key, d_model);
    require_sequences("value", value, d_model);
    if (key.size(0) != query.size(0) || value.size(0) != query.size(0))
      detail::fail(kMultiHeadAttentionForward, "query ", shape_text(query), ", key ", shape_text(key), " and value ", shape_text(value),
                   " must have the same batch size");
    if (value.size(1) != key.size(1))
      detail::fail(kMultiHeadAttentionForward, "value ", shape_text(value), " but key ", shape_text(key), " (n_k must match)");
  }
  const std::int64_t batch = query.size(0), n_q = query.size(1), n_k = key.size(1);
  check_layer_and_masks(mha, batch, n_q, n_k, options);

  // 1–3. Each input through its projection — W_q's, W_k's and W_v's d_model outputs: PyTorch's fused
  //      in_proj (batch, seq, 3·d_model) cut into its three parts, the numbers qkv.view(batch, seq, 3,
  //      heads, d_k).permute(2, 0, 3, 1, 4) gives — then split into heads: (batch, n, d_model) → view
  //      (batch, n, heads, d_k) → transpose(1, 2) → (batch, heads, n, d_k), a view (nothing copied).
  //      (Projecting the three parts apart spares the fused tensor's permute and unbind copies.)
  const Matrix q_rows = project(mha.q_proj(), query), k_rows = project(mha.k_proj(), key),
               v_rows = project(mha.v_proj(), value);
  const auto heads_of = [&](const Matrix& rows, std::int64_t n) {
    return Tensor(rows).view({batch, n, heads, d_k}).transpose(1, 2);
  };
  const Tensor q = heads_of(q_rows, n_q), k = heads_of(k_rows, n_k), v = heads_of(v_rows, n_k);
  if (tracer.enabled()) {
    if (self) trace_fused_projection(tracer, query, q_rows, k_rows, v_rows, heads, d_k);
    tracer.record_tensors("q_k_v", "q, k and v", "each (batch, heads, seq, d_k): q " + shape_text(q) + ", k " +
                          shape_text(k) + ", v " + shape_text(v), {{"q", q}, {"k", k}, {"v", v}});
  }

  // 4. Batched SDPA: weights (batch, heads, n_q, n_k), per-head outputs (batch, heads, n_q, d_k).
  const bool dropping = mha.training() && mha.config().dropout > 0.0f;
  const BatchedAttentionResult attended = scaled_dot_product_attention(
      q, k, v,
      {.mask = options.mask,
       .mask_kind = options.mask_kind,
       .causal = options.causal,
       .key_padding_mask = options.key_padding_mask,
       .scale = std::nullopt,
       .dropout = dropping ? mha.config().dropout : 0.0f,
       .rng = dropping ? options.rng : nullptr,
       .need_weights = options.need_weights});

  // 5. transpose(1, 2) → (batch, n_q, heads, d_k); reshape → (batch, n_q, d_model): the heads side by side.
  const Tensor transposed = attended.output.transpose(1, 2);
  const Tensor concat = transposed.reshape({batch, n_q, d_model});
  // 6. output = concat·W_oᵀ + b_o   (batch, n_q, d_model)
  BatchedMultiHeadOutput result;
  result.output = Tensor(project(mha.out_proj(), concat)).view({batch, n_q, d_model});
  result.weights = attended.weights;
  if (tracer.enabled()) {
    const Tensor scores = traced_scores(q, k, 1.0f / std::sqrt(static_cast<float>(d_k)));
    tracer.record_tensors("scores", "Scores", "q @ k.transpose(-2, -1) / √" + std::to_string(d_k) + " " + shape_text(scores) +
                          (options.mask || options.causal || options.key_padding_mask ? ", before the mask" : ""),
                          {{"scores", scores}});
    if (!attended.weights.empty())
      tracer.record_tensors("weights", "Attention weights", "softmax over the last dim " + shape_text(attended.weights) +
                            " (blocked keys get 0)", {{"weights", attended.weights}});
    tracer.record_tensors("heads", "Each head's output", "weights @ v " + shape_text(attended.output), {{"heads", attended.output}});
    tracer.record_tensors("transpose", "Heads back next to each other", "transpose(1, 2) " + shape_text(transposed),
                          {{"heads", transposed}});
    tracer.record_tensors("concat", "Concatenate the heads", "reshape(batch, seq, d_model) " + shape_text(concat), {{"concat", concat}});
    tracer.record_tensors("output", "Output projection", "concat·W_oᵀ + b_o " + shape_text(result.output), {{"output", result.output}});
  }

  // The mean over heads, summed head by head in order as the 2-D forward does (the same numbers).
  if (options.average_weights && !result.weights.empty()) {
    result.average_weights = Tensor(Shape{batch, n_q, n_k});
    for (std::int64_t b = 0; b < batch; ++b) {
      Matrix average = Matrix::Zero(n_q, n_k);
      for (std::int64_t h = 0; h < heads; ++h) average += result.weights.matrix(b * heads + h);
      average /= static_cast<float>(heads);
      result.average_weights.set_matrix(b, average);
    }
  }
  return result;
}

}  // namespace attnlab
