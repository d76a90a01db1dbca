// Conversions between JS values and the core's types, for the Embind layer. JS matrices are
// { rows, cols, data: Float32Array } (row-major); every result is a fresh JS-owned copy, never a view
// into the wasm heap (which moves when memory grows).
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/tensor/matrix.hpp"
#include "attnlab/layers/multi_head_attention.hpp"
#include "attnlab/tensor/tensor.hpp"
#include "attnlab/tensor/trace.hpp"

namespace attnlab::wasm {

using emscripten::val;

// The JS layer has already checked types and sizes; these re-check what memory safety depends on.
Matrix matrix_from_js(const val& m, const char* argument);
Vector vector_from_js(const val& v, const char* argument);  // undefined/null → empty (no bias)
// JS tensors are { shape: number[], data: Float32Array } (row-major; web/lib/tensor.js made them).
Tensor tensor_from_js(const val& t, const char* argument);
val tensor_to_js(const Tensor& t);  // a contiguous copy: { shape, data }
// A JS number as a seed: an integer in 0 … 2^53 − 1 (the integers a double holds exactly), else Error.
std::uint64_t seed_from_js(double seed);

// Typed arrays in and out of the wasm heap, one call each way (heap_io.js); the JS layer has checked
// the types. `argument` names the caller in errors (the memory budget, a length that changed).
std::vector<int> ints_from_js(const val& ids, const char* argument);          // Int32Array → ids
std::vector<std::uint8_t> bytes_from_js(const val& bytes, const char* argument);  // Uint8Array → bytes
// Uint8Array → `out`, resized to its length and reused call after call (a file streamed in pieces).
void bytes_into(const val& bytes, std::vector<std::uint8_t>& out);
val ints_to_js(const std::vector<int>& ids);                                   // → Int32Array
val bytes_to_js(const void* data, std::size_t count);                          // → Uint8Array
val floats_to_js(const float* data, std::size_t count);                        // → Float32Array
val matrix_to_js(const Matrix& m);
val strings_to_js(const std::vector<std::string>& words);  // → an array of strings
val matrix_grid_to_js(const std::vector<std::vector<Matrix>>& grid);  // [layer][head] → nested arrays of Matrix
// The same, written into `into` (a Float32Array of exactly m.size() values, checked in web/lib) when it
// is defined: scaledDotProductAttention's `out`.
val matrix_to_js(const Matrix& m, const val& into);
val trace_to_js(const Trace& trace);
// { mask?: Matrix, causal?: boolean } → MaskOptions; `storage` keeps the mask alive.
MaskOptions mask_options_from_js(const val& options, Matrix& storage);

// Errors cross into JS as a return value, never as an exception unwinding through wasm frames:
// a binding catches everything, records the message here and returns undefined (or null), and the
// JS layer throws AttnLabError with that message.
void set_last_error(std::string message);
std::string take_last_error();

inline constexpr const char* kOutOfMemory = "out of memory: the inputs are too large for the wasm heap";

// Runs body(); on any C++ exception records its message and returns `on_error` instead.
template <typename Result, typename Body>
Result catching(Body&& body, Result on_error) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    set_last_error(kOutOfMemory);
  } catch (const std::exception& e) {
    set_last_error(e.what());
  }
  return on_error;
}

// For functions returning a JS value: undefined on error.
template <typename Body>
val guarded(Body&& body) {
  return catching<val>(std::forward<Body>(body), val::undefined());
}

}  // namespace attnlab::wasm
