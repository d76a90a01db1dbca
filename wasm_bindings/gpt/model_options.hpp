// What the GPT's and the Llama family's bindings read the same way: an option with its default, the
// forward's ablations and logit rows, the sampling options, generate()'s options, and a Generation for
// JS (gpt.cpp defines them).
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/gpt/gpt_session.hpp"
#include "attnlab/io/safetensors.hpp"

namespace attnlab::wasm {

using emscripten::val;

template <typename T>
T option(const val& options, const char* name, T fallback) {
  if (options.isUndefined() || options.isNull()) return fallback;
  const val value = options[name];
  return value.isUndefined() ? fallback : value.as<T>();
}

std::vector<HeadAblation> ablate_from_js(const val& o);  // o.ablate: [{ layer, head }] (checked in web/lib/)
AblationMode ablation_from_js(const val& o);             // o.ablation: 'zero' | 'mean'
LogitRows logit_rows_from_js(const val& o);              // o.logits: 'all' | 'last' | 'none'
SamplingOptions sampling_from_js(const val& o);          // { temperature, topK, topP, repetitionPenalty, … }
GenerateOptions generate_options_from_js(const val& o);  // the sampling, { maxTokens, seed, stopToken, stopTokens }
val generation_to_js(const Generation& g);               // { tokens, probabilities, stopped }
DType dtype_from_js(const std::string& dtype);           // 'F32' | 'F16' | 'BF16' (checked in web/lib/)
// One weight tensor for JS: { shape, data: Float32Array } (a copy).
val weight_to_js(const std::vector<std::int64_t>& shape, const float* data, std::size_t size);

}  // namespace attnlab::wasm
