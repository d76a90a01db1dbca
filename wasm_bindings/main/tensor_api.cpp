#include "tensor_api.hpp"

#include <cmath>
#include <optional>
#include <string>

#include "attnlab/attention/batched_attention.hpp"
#include "attnlab/layers/batched_encoder_layer.hpp"
#include "attnlab/layers/batched_multi_head_attention.hpp"
#include "attnlab/tensor/error.hpp"
#include "attnlab/tensor/rng.hpp"
#include "shared/convert.hpp"

namespace attnlab::wasm {

namespace {

bool has(const val& options, const char* name) {
  if (options.isUndefined() || options.isNull()) return false;
  const val value = options[name];
  return !value.isUndefined() && !value.isNull();
}

Shape shape_from_js(const val& numbers) {
  Shape shape;
  for (double n : emscripten::vecFromJSArray<double>(numbers)) shape.push_back(static_cast<std::int64_t>(n));
  return shape;
}

// The masks of a tensor call, converted once and kept alive for the core's pointers.
struct TensorMasks {
  std::optional<Tensor> mask, key_padding_mask;
  MaskKind kind = MaskKind::binary;
  bool causal = false;

  explicit TensorMasks(const val& options) {
    if (has(options, "mask")) mask = tensor_from_js(options["mask"], "mask");
    if (has(options, "keyPaddingMask")) key_padding_mask = tensor_from_js(options["keyPaddingMask"], "keyPaddingMask");
    if (has(options, "maskKind")) {
      const std::string name = options["maskKind"].as<std::string>();
      if (name == "additive") kind = MaskKind::additive;
      else if (name != "binary") throw Error("maskKind must be 'binary' or 'additive', got '" + name + "'");
    }
    causal = has(options, "causal") && options["causal"].isTrue();
  }
  const Tensor* mask_pointer() const { return mask ? &*mask : nullptr; }
  const Tensor* padding_pointer() const { return key_padding_mask ? &*key_padding_mask : nullptr; }
};

std::uint64_t seed_option(const val& options) { return has(options, "seed") ? seed_from_js(options["seed"].as<double>()) : 0; }

}  // namespace

val tensor_attention(const val& q, const val& k, const val& v, const val& options) {
  return guarded([&] {
    const Tensor qt = tensor_from_js(q, "q"), kt = tensor_from_js(k, "k"), vt = tensor_from_js(v, "v");
    const TensorMasks masks(options);
    Rng rng(seed_option(options));
    BatchedAttentionOptions attention{.mask = masks.mask_pointer(),
                                      .mask_kind = masks.kind,
                                      .causal = masks.causal,
                                      .key_padding_mask = masks.padding_pointer(),
                                      .rng = &rng};
    if (has(options, "scale")) attention.scale = options["scale"].as<float>();
    if (has(options, "dropout")) attention.dropout = options["dropout"].as<float>();
    attention.need_weights = !(has(options, "weights") && options["weights"].isFalse());
    const BatchedAttentionResult r = scaled_dot_product_attention(qt, kt, vt, attention);
    val out = val::object();
    out.set("output", tensor_to_js(r.output));
    if (!r.weights.empty()) out.set("weights", tensor_to_js(r.weights));
    return out;
  });
}

val multi_head_forward_tensor(const MultiHeadAttentionHandle& mha, const val& query, const val& key, const val& value,
                              const val& options) {
  return guarded([&] {
    const TensorMasks masks(options);
    Rng rng(seed_option(options));
    const BatchedMultiHeadOptions batched{.mask = masks.mask_pointer(),
                                          .mask_kind = masks.kind,
                                          .causal = masks.causal,
                                          .key_padding_mask = masks.padding_pointer(),
                                          .average_weights = has(options, "averageWeights") && options["averageWeights"].isTrue(),
                                          .need_weights = !(has(options, "weights") && options["weights"].isFalse()),
                                          .rng = &rng};
    const Tensor x = tensor_from_js(query, "query");
    // options.trace (set by the package's MultiHeadAttention.trace): the steps with their shapes too.
    Trace trace;
    const bool tracing = has(options, "trace") && options["trace"].isTrue();
    const Tracer tracer = tracing ? Tracer(trace) : Tracer();
    const BatchedMultiHeadOutput r =
        key.isUndefined() ? multi_head_attention_forward(mha.layer(), x, batched, tracer)
                          : multi_head_attention_forward(mha.layer(), x, tensor_from_js(key, "key"),
                                                         tensor_from_js(value, "value"), batched, tracer);
    val out = val::object();
    if (tracing) out.set("trace", trace_to_js(trace));
    out.set("output", tensor_to_js(r.output));
    if (!r.weights.empty()) out.set("weights", tensor_to_js(r.weights));
    if (!r.average_weights.empty()) out.set("averageWeights", tensor_to_js(r.average_weights));
    return out;
  });
}

val encoder_forward_tensor(TransformerEncoderLayerHandle& layer, const val& x, const val& options) {
  return guarded([&] {
    const TensorMasks masks(options);
    // The layer's one mask per sequence is binary, as the Matrix call's.
    if (masks.kind != MaskKind::binary) throw Error("encoder_layer_forward: maskKind must be 'binary' here (1 = may attend)");
    const BatchedEncoderOptions batched{.mask = masks.mask_pointer(), .causal = masks.causal,
                                        .key_padding_mask = masks.padding_pointer()};
    return tensor_to_js(encoder_layer_forward(layer.layer(), tensor_from_js(x, "x"), batched));
  });
}

val reshape_tensor(const val& t, const val& shape) {
  return guarded([&] { return tensor_to_js(tensor_from_js(t, "t").reshape(shape_from_js(shape))); });
}

val permute_tensor(const val& t, const val& dims) {
  return guarded([&] { return tensor_to_js(tensor_from_js(t, "t").permute(shape_from_js(dims))); });
}

val transpose_tensor(const val& t, int dim0, int dim1) {
  return guarded([&] { return tensor_to_js(tensor_from_js(t, "t").transpose(dim0, dim1)); });
}

}  // namespace attnlab::wasm
