#include "attnlab/attention/batched_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attnlab/attention/attention.hpp"
#include "attnlab/attention/mask.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

constexpr const char* kScaledDotProductAttention = "scaled_dot_product_attention";
constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

// The dims before the last two: (batch, heads) of (batch, heads, seq, d_k).
Shape leading_dims(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end() - 2); }

// batch + (rows, cols): the full shape of a batched matrix.
Shape batched(Shape batch, std::int64_t rows, std::int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

// The index (i, j, …) of element number `flat` of `shape` in row-major order, for messages.
Shape unravel(std::int64_t flat, const Shape& shape) {
  Shape index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

void require_matrices(const char* argument, const Tensor& t, const char* dims) {
  if (t.empty()) detail::fail(kScaledDotProductAttention, argument, " is empty (default-constructed)");
  if (t.rank() < 2) detail::fail(kScaledDotProductAttention, argument, " ", shape_text(t), " needs at least 2 dims ", dims);
}

// Every element of t satisfies `allowed`, else an Error naming the first that does not by its index.
template <typename Allowed>
void require_values(const char* argument, const Tensor& t, Allowed allowed, const char* rule) {
  const std::vector<float> values = t.to_vector();
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!allowed(values[i]))
      detail::fail(kScaledDotProductAttention, argument, " ", shape_text(t), " must hold only ", rule, ", got ", values[i], " at ",
                   shape_text(unravel(static_cast<std::int64_t>(i), t.shape())));
}

// The batch shape of Q, K and V: each leading dim takes its largest size (aligned from the right),
// and every operand must broadcast to it — PyTorch's rule for q @ k.transpose(-2, -1) @ v.
Shape broadcast_batch(const Tensor& q, const Tensor& k, const Tensor& v) {
  Shape batch;
  for (const Tensor* t : {&q, &k, &v}) {
    const Shape lead = leading_dims(*t);
    if (lead.size() > batch.size()) batch.insert(batch.begin(), lead.size() - batch.size(), 1);
    for (std::size_t d = 0; d < lead.size(); ++d) {
      std::int64_t& size = batch[batch.size() - lead.size() + d];
      size = std::max(size, lead[d]);
    }
  }
  for (const Tensor* t : {&q, &k, &v})
    if (!broadcasts_to(leading_dims(*t), batch))
      detail::fail(kScaledDotProductAttention, "the leading dims of Q ", shape_text(q), ", K ", shape_text(k), " and V ", shape_text(v),
                   " do not broadcast (aligned from the right, each must be equal or 1)");
  return batch;
}

// The key padding mask (batch, n_k) seen as the scores (batch, …, n_q, n_k): slice b holds sequence
// b's row for every query (and every head).
Tensor padding_as_scores(const Tensor& key_padding_mask, const Shape& scores) {
  if (key_padding_mask.empty()) detail::fail(kScaledDotProductAttention, "key_padding_mask is empty (default-constructed)");
  if (scores.size() < 3)
    detail::fail(kScaledDotProductAttention, "key_padding_mask ", shape_text(key_padding_mask),
                 " needs scores with a batch dim, but the scores are ", shape_text(scores));
  Shape viewed(scores.size(), 1);  // (batch, 1, …, 1, n_k)
  viewed.front() = key_padding_mask.size(0);
  viewed.back() = key_padding_mask.size(-1);
  if (key_padding_mask.rank() != 2 || !broadcasts_to(viewed, scores))
    detail::fail(kScaledDotProductAttention, "key_padding_mask ", shape_text(key_padding_mask), " must be (batch, n_k) = ",
                 shape_text(Shape{scores.front(), scores.back()}), " for scores ", shape_text(scores));
  return key_padding_mask.reshape(viewed).expand(scores);
}

// The checks of the whole call, before any slice is computed: each slice's 2-D call then checks only
// what depends on its values (finite Q, K, V; scores inside float32).
Shape check_arguments(const Tensor& q, const Tensor& k, const Tensor& v, const BatchedAttentionOptions& options) {
  require_matrices("Q", q, "(…, n_q, d_k)");
  require_matrices("K", k, "(…, n_k, d_k)");
  require_matrices("V", v, "(…, n_k, d_v)");
  if (k.size(-1) != q.size(-1))
    detail::fail(kScaledDotProductAttention, "K is ", shape_text(k), " but Q is ", shape_text(q), " (d_k must match)");
  if (v.size(-2) != k.size(-2))
    detail::fail(kScaledDotProductAttention, "V is ", shape_text(v), " but K is ", shape_text(k), " (n_k must match)");
  const Shape batch = broadcast_batch(q, k, v);
  const Shape scores = batched(batch, q.size(-2), k.size(-2));
  if (options.mask) {
    if (options.mask->empty()) detail::fail(kScaledDotProductAttention, "mask is empty (default-constructed)");
    if (!broadcasts_to(options.mask->shape(), scores))
      detail::fail(kScaledDotProductAttention, "mask ", shape_text(*options.mask), " does not broadcast to scores ", shape_text(scores));
    if (options.mask_kind == MaskKind::binary)
      require_values("mask", *options.mask, [](float x) { return x == 0.0f || x == 1.0f; },
                     "1 (may attend) and 0 (blocked)");
    else
      require_values("additive mask", *options.mask, [](float x) { return std::isfinite(x) || x == kMinusInfinity; },
                     "finite values and -inf (blocked)");
  }
  if (options.key_padding_mask)
    require_values("key_padding_mask", *options.key_padding_mask, [](float x) { return x == 0.0f || x == 1.0f; },
                   "1 (pad) and 0 (real token)");
  if (options.scale) detail::require_finite(kScaledDotProductAttention, "scale", *options.scale);
  detail::require_probability(kScaledDotProductAttention, "dropout", options.dropout);
  if (options.dropout > 0.0f && !options.rng) detail::fail(kScaledDotProductAttention, "dropout > 0 needs an rng");
  double slices = 1.0;
  for (std::int64_t size : batch) slices *= static_cast<double>(size);
  detail::require_within_budget(kScaledDotProductAttention, slices, static_cast<double>(q.size(-2)),
                                static_cast<double>(k.size(-2) + v.size(-1)), "the weights and output of every slice");
  return batch;
}

// One slice's masking in the 2-D call's terms: `keep` [n_q×n_k] (1 = attend; empty = none) and
// `bias` [n_q×n_k] (an additive mask's finite part; empty = none). Causal is left to the 2-D call.
struct SliceMasks {
  Matrix keep, bias;
};

SliceMasks slice_masks(const Tensor& mask, MaskKind kind, const Tensor& padding, std::int64_t slice) {
  SliceMasks masks;
  if (!mask.empty()) {
    Matrix values = mask.matrix(slice);
    if (kind == MaskKind::binary) {
      masks.keep = std::move(values);
    } else {
      // −∞ is "blocked" (the 2-D mask: exactly 0 weight); finite values shift the scaled scores.
      masks.keep = (values.array() != kMinusInfinity).cast<float>().matrix();
      masks.bias = (values.array() == kMinusInfinity).select(0.0f, values);
    }
  }
  if (!padding.empty()) {
    const Matrix real = (1.0f - padding.matrix(slice).array()).matrix();  // PyTorch's 1 = pad → 1 = attend
    masks.keep = masks.keep.size() ? combine_masks(masks.keep, real) : real;
  }
  return masks;
}

}  // namespace

BatchedAttentionResult scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                                    const BatchedAttentionOptions& options) {
  // q (…, n_q, d_k), k (…, n_k, d_k), v (…, n_k, d_v) → output (…, n_q, d_v), weights (…, n_q, n_k)
  const Shape batch = check_arguments(q, k, v, options);
  const std::int64_t n_q = q.size(-2), n_k = k.size(-2), d_k = q.size(-1), d_v = v.size(-1);
  const Shape scores = batched(batch, n_q, n_k);

  // 1. Every operand seen at the full batch shape (stride 0 where it broadcasts): slice b of each is
  //    what slice b of the scores needs, with nothing copied.
  const Tensor q_all = q.expand(batched(batch, n_q, d_k)), k_all = k.expand(batched(batch, n_k, d_k)),
               v_all = v.expand(batched(batch, n_k, d_v));
  const Tensor mask = options.mask ? options.mask->expand(scores) : Tensor();
  const Tensor padding = options.key_padding_mask ? padding_as_scores(*options.key_padding_mask, scores) : Tensor();

  // 2. Slice by slice, in row-major order of the batch dims: the 2-D attention with that slice's masks.
  const bool need_weights = options.need_weights || options.dropout > 0.0f;
  BatchedAttentionResult result{Tensor(batched(batch, n_q, d_v)), need_weights ? Tensor(scores) : Tensor()};
  for (std::int64_t b = 0; b < result.output.matrix_count(); ++b) {
    const SliceMasks masks = slice_masks(mask, options.mask_kind, padding, b);
    const AttentionOptions slice_options{.mask = masks.keep.size() ? &masks.keep : nullptr,
                                         .causal = options.causal,
                                         .scale = options.scale,
                                         .bias = masks.bias.size() ? &masks.bias : nullptr,
                                         .dropout = options.dropout,
                                         .rng = options.rng};
    AttentionResult r;
    try {
      if (need_weights) r = scaled_dot_product_attention(q_all.matrix(b), k_all.matrix(b), v_all.matrix(b), slice_options);
      else r.output = attention_output(q_all.matrix(b), k_all.matrix(b), v_all.matrix(b), slice_options);
    } catch (const Error& e) {
      // The 2-D message names a position inside the slice; say which slice.
      if (batch.empty()) throw;
      throw Error(std::string(e.what()) + " (in slice " + shape_text(unravel(b, batch)) + " of the batch " +
                  shape_text(batch) + ")");
    }
    result.output.set_matrix(b, r.output);
    if (need_weights) result.weights.set_matrix(b, r.weights);
  }
  return result;
}

}  // namespace attnlab
