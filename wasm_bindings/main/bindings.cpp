// The main module's Embind declarations: names as the JS layer (web/index.js) calls them. Nothing
// else here. Training (TaskModelHandle) is a separate module, training_bindings.cpp, that the package
// loads only when asked: leaving it out here lets the linker drop the training code from this .wasm.
#include <emscripten/bind.h>

#include "api.hpp"
#include "tensor_api.hpp"

using namespace emscripten;
using namespace attnlab::wasm;

EMSCRIPTEN_BINDINGS(attnlab) {
  function("softmax", &softmax);
  function("scaledDotProductAttention", &scaled_dot_product_attention);
  function("traceAttention", &trace_attention);
  function("flashAttentionTrace", &flash_attention_trace);
  function("embedTokens", &embed_tokens);
  function("causalMask", &causal_mask);
  function("keyPaddingMask", &key_padding_mask);
  function("combineMasks", &combine_masks);
  function("positionalEncoding", &positional_encoding);
  function("randn", &randn);
  function("applyRotary", &apply_rotary);
  function("alibiSlopes", &alibi_slopes);
  function("alibiBias", &alibi_bias);
  function("tokenize", &tokenize);
  function("tensorAttention", &tensor_attention);
  function("reshapeTensor", &reshape_tensor);
  function("permuteTensor", &permute_tensor);
  function("transposeTensor", &transpose_tensor);

  class_<MultiHeadAttentionHandle>("MultiHeadAttentionHandle")
      .class_function("create", &MultiHeadAttentionHandle::create, allow_raw_pointers())
      .function("parameterCount", &MultiHeadAttentionHandle::parameter_count)
      .function("loadWeights", &MultiHeadAttentionHandle::load_weights)
      .function("weights", &MultiHeadAttentionHandle::weights)
      .function("forward", &MultiHeadAttentionHandle::forward)
      .function("trace", &MultiHeadAttentionHandle::trace)
      .function("forwardTensor", &multi_head_forward_tensor)
      .function("setTraining", &MultiHeadAttentionHandle::set_training);

  class_<TransformerEncoderLayerHandle>("TransformerEncoderLayerHandle")
      .class_function("create", &TransformerEncoderLayerHandle::create, allow_raw_pointers())
      .function("parameterCount", &TransformerEncoderLayerHandle::parameter_count)
      .function("parameterCounts", &TransformerEncoderLayerHandle::parameter_counts)
      .function("loadWeights", &TransformerEncoderLayerHandle::load_weights)
      .function("forward", &TransformerEncoderLayerHandle::forward)
      .function("trace", &TransformerEncoderLayerHandle::trace)
      .function("forwardTensor", &encoder_forward_tensor)
      .function("setTraining", &TransformerEncoderLayerHandle::set_training);
}
