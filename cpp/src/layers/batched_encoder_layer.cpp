#include "attnlab/layers/batched_encoder_layer.hpp"

#include <cstdint>

#include "tensor/checks.hpp"

namespace attnlab {

namespace {

constexpr const char* kEncoderLayerForward = "encoder_layer_forward";

// A mask's value must be 0 or 1: "mask (4, 4) must hold only 1 and 0, got 0.5 at (1, 0, 2) of (batch, seq, seq)".
bool binary(const char* name, const Tensor& given, float value, const Shape& where, const char* dims) {
  if (value != 0.0f && value != 1.0f)
    detail::fail(kEncoderLayerForward, name, " ", shape_text(given), " must hold only 1 and 0, got ", value, " at ", shape_text(where),
                 " of ", dims);
  return value == 1.0f;
}

}  // namespace

Tensor encoder_layer_forward(TransformerEncoderLayer& layer, const Tensor& x, const BatchedEncoderOptions& options) {
  const std::int64_t d_model = layer.config().d_model;
  if (x.empty()) detail::fail(kEncoderLayerForward, "x is empty (default-constructed)");
  if (x.rank() != 3 || x.size(-1) != d_model)
    detail::fail(kEncoderLayerForward, "x ", shape_text(x), " must be (batch, seq, d_model) = (batch, seq, ", d_model, ")");
  const std::int64_t batch = x.size(0), n = x.size(1);
  const Shape per_sequence{batch, n, n};
  Tensor mask;  // (batch, n, n): a view that repeats a (n, n) mask for every sequence
  if (options.mask) {
    if (options.mask->empty()) detail::fail(kEncoderLayerForward, "mask is empty (default-constructed)");
    if (!broadcasts_to(options.mask->shape(), per_sequence))
      detail::fail(kEncoderLayerForward, "mask ", shape_text(*options.mask), " does not broadcast to (batch, seq, seq) = ",
                   shape_text(per_sequence));
    mask = options.mask->expand(per_sequence);
  }
  const Tensor* padding = options.key_padding_mask;
  if (padding && (padding->empty() || padding->shape() != Shape{batch, n}))
    detail::fail(kEncoderLayerForward, "key_padding_mask ", padding->empty() ? std::string("(empty)") : shape_text(*padding),
                 " must be (batch, seq) = ", shape_text(Shape{batch, n}));

  Tensor out(x.shape());
  for (std::int64_t b = 0; b < batch; ++b) {
    // Sequence b's one mask: a key is attended where the mask allows it and it is not padding.
    Matrix keep;
    if (!mask.empty() || padding) {
      keep = Matrix::Ones(n, n);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          const bool allowed =
              mask.empty() || binary("mask", *options.mask, mask.at({b, i, j}), Shape{b, i, j}, "(batch, seq, seq)");
          const bool pad = padding && binary("key_padding_mask", *padding, padding->at({b, j}), Shape{b, j}, "(batch, seq)");
          if (!allowed || pad) keep(i, j) = 0.0f;
        }
    }
    const MaskOptions masking{.mask = keep.size() ? &keep : nullptr, .causal = options.causal};
    out.set_matrix(b, layer.forward(x.matrix(b), masking));
  }
  return out;
}

}  // namespace attnlab
