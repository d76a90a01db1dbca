#include "convert.hpp"

#include <emscripten/wire.h>

#include "attnlab/error.hpp"

namespace attnlab::wasm {

namespace {
std::string& last_error() {
  static std::string message;
  return message;
}
}  // namespace

void set_last_error(std::string message) { last_error() = std::move(message); }

std::string take_last_error() {
  std::string message = std::move(last_error());
  last_error().clear();
  return message;
}

Matrix matrix_from_js(const val& m, const char* argument) {
  const int rows = m["rows"].as<int>(), cols = m["cols"].as<int>();
  const std::vector<float> data = emscripten::convertJSArrayToNumberVector<float>(m["data"]);
  if (rows < 0 || cols < 0 || data.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    throw Error(std::string(argument) + ": data has " + std::to_string(data.size()) + " values but rows×cols = " +
                std::to_string(rows) + "×" + std::to_string(cols));
  return Eigen::Map<const Matrix>(data.data(), rows, cols);
}

Vector vector_from_js(const val& v, const char* argument) {
  (void)argument;
  if (v.isUndefined() || v.isNull()) return {};
  const std::vector<float> data = emscripten::convertJSArrayToNumberVector<float>(v);
  return Eigen::Map<const Vector>(data.data(), static_cast<Eigen::Index>(data.size()));
}

val matrix_to_js(const Matrix& m) {
  val out = val::object();
  out.set("rows", static_cast<int>(m.rows()));
  out.set("cols", static_cast<int>(m.cols()));
  // new Float32Array(view) copies out of the heap.
  out.set("data", val::global("Float32Array")
                      .new_(val(emscripten::typed_memory_view(static_cast<std::size_t>(m.size()), m.data()))));
  return out;
}

val trace_to_js(const Trace& trace) {
  val steps = val::array();
  for (const TraceStep& step : trace.steps()) {
    val tensors = val::object();
    for (const TraceTensor& t : step.tensors) tensors.set(t.name, matrix_to_js(t.value));
    val js = val::object();
    js.set("id", step.id);
    js.set("title", step.title);
    js.set("explanation", step.explanation);
    js.set("tensors", tensors);
    steps.call<void>("push", js);
  }
  return steps;
}

MaskOptions mask_options_from_js(const val& options, Matrix& storage) {
  MaskOptions masking;
  if (options.isUndefined() || options.isNull()) return masking;
  const val mask = options["mask"];
  if (!mask.isUndefined() && !mask.isNull()) {
    storage = matrix_from_js(mask, "mask");
    masking.mask = &storage;
  }
  masking.causal = options["causal"].isTrue();
  masking.need_weights = !options["weights"].isFalse();
  return masking;
}

}  // namespace attnlab::wasm
