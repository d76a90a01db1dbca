#include "convert.hpp"

#include <emscripten/wire.h>

#include <cmath>
#include <cstdint>
#include <utility>

#include "attnlab/tensor/error.hpp"
#include "tensor/checks.hpp"

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

namespace {
// Copies a JS array of numbers (typed or plain) straight into `out` (one call to heap_io.js's
// copyToHeap); false, with nothing copied, when it does not hold exactly `size` values.
bool copy_into(const val& data, float* out, std::size_t size) {
  static const val copy_to_heap = val::module_property("copyToHeap");
  return copy_to_heap(data, reinterpret_cast<std::uintptr_t>(out), size).as<bool>();
}
}  // namespace

Matrix matrix_from_js(const val& m, const char* argument) {
  const int rows = m["rows"].as<int>(), cols = m["cols"].as<int>();
  const val data = m["data"];
  const auto wrong_length = [&] {
    return Error(std::string(argument) + ": data has " + std::to_string(data["length"].as<std::size_t>()) +
                 " values but rows×cols = " + std::to_string(rows) + "×" + std::to_string(cols));
  };
  if (rows < 0 || cols < 0) throw wrong_length();
  // The copy into the heap counts against the budget too (a JS array can be larger than the heap allows).
  detail::require_within_budget(argument, 1, rows, cols, "a copy of the input");
  Matrix out(rows, cols);
  if (!copy_into(data, out.data(), static_cast<std::size_t>(out.size()))) throw wrong_length();
  return out;
}

Tensor tensor_from_js(const val& t, const char* argument) {
  const auto shape_numbers = emscripten::vecFromJSArray<double>(t["shape"]);
  Shape shape;
  double count = 1.0;
  for (double size : shape_numbers) {
    shape.push_back(static_cast<std::int64_t>(size));
    count *= size;
  }
  // The Tensor constructor checks the shape itself (1 to 5 dims, each at least 1) and names it.
  detail::require_within_budget(argument, 1, count, 1, "a copy of the input");
  const val data = t["data"];
  const std::size_t length = data["length"].as<std::size_t>();
  if (static_cast<double>(length) != count)
    throw Error(std::string(argument) + ": data has " + std::to_string(length) + " values but " + argument + " is " +
                shape_text(shape) + " (" + std::to_string(static_cast<std::int64_t>(count)) + " values)");
  std::vector<float> values(length);
  if (!copy_into(data, values.data(), length)) throw Error(std::string(argument) + ": changed length while being read");
  return Tensor(std::move(shape), std::move(values));
}

val tensor_to_js(const Tensor& t) {
  const std::vector<float> values = t.to_vector();
  val shape = val::array();
  for (std::int64_t size : t.shape()) shape.call<void>("push", static_cast<double>(size));
  val out = val::object();
  out.set("shape", shape);
  out.set("data", floats_to_js(values.data(), values.size()));
  return out;
}

std::uint64_t seed_from_js(double seed) {
  if (!(seed >= 0.0 && seed <= 9007199254740991.0) || std::floor(seed) != seed)
    throw Error("seed must be an integer in 0 … 2^53 − 1, got " + std::to_string(seed));
  return static_cast<std::uint64_t>(seed);
}

Vector vector_from_js(const val& v, const char* argument) {
  if (v.isUndefined() || v.isNull()) return {};
  Vector out(static_cast<Eigen::Index>(v["length"].as<std::size_t>()));
  if (!copy_into(v, out.data(), static_cast<std::size_t>(out.size()))) throw Error(std::string(argument) + ": changed length while being read");
  return out;
}

val matrix_to_js(const Matrix& m) {
  // One call to heap_io.js's matrixFromHeap, which copies the values out (a Float32Array of its own).
  static const val from_heap = val::module_property("matrixFromHeap");
  return from_heap(static_cast<int>(m.rows()), static_cast<int>(m.cols()), reinterpret_cast<std::uintptr_t>(m.data()));
}

val matrix_to_js(const Matrix& m, const val& into) {
  if (into.isUndefined()) return matrix_to_js(m);
  static const val into_array = val::module_property("matrixIntoArray");
  return into_array(static_cast<int>(m.rows()), static_cast<int>(m.cols()), reinterpret_cast<std::uintptr_t>(m.data()), into);
}

val trace_to_js(const Trace& trace) {
  val steps = val::array();
  for (const TraceStep& step : trace.steps()) {
    val tensors = val::object();
    for (const TraceTensor& t : step.tensors) {
      if (t.shape.empty()) {
        tensors.set(t.name, matrix_to_js(t.value));
        continue;
      }
      // An N-dimensional step: the package's tensor, { shape, data }.
      val shape = val::array();
      for (std::int64_t extent : t.shape) shape.call<void>("push", static_cast<double>(extent));
      val tensor = val::object();
      tensor.set("shape", shape);
      tensor.set("data", matrix_to_js(t.value)["data"]);
      tensors.set(t.name, tensor);
    }
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

// ---- Typed arrays (heap_io.js copies each with one call) ----

std::vector<int> ints_from_js(const val& ids, const char* argument) {
  const auto count = ids["length"].as<std::size_t>();
  detail::require_within_budget(argument, 1, static_cast<double>(count), 1, "a copy of the ids");
  std::vector<int> out(count);
  static const val to_heap = val::module_property("intsToHeap");
  if (!to_heap(ids, reinterpret_cast<std::uintptr_t>(out.data()), count).as<bool>())
    throw Error(std::string(argument) + ": changed length while being read");
  return out;
}

std::vector<std::uint8_t> bytes_from_js(const val& bytes, const char* argument) {
  const auto count = bytes["length"].as<std::size_t>();
  detail::require_within_budget(argument, 1, static_cast<double>(count) / 4, 1, "a copy of the file");
  std::vector<std::uint8_t> out(count);
  static const val to_heap = val::module_property("bytesToHeap");
  to_heap(bytes, reinterpret_cast<std::uintptr_t>(out.data()));
  return out;
}

void bytes_into(const val& bytes, std::vector<std::uint8_t>& out) {
  out.resize(bytes["length"].as<std::size_t>());
  static const val to_heap = val::module_property("bytesToHeap");
  to_heap(bytes, reinterpret_cast<std::uintptr_t>(out.data()));
}

val ints_to_js(const std::vector<int>& ids) {
  static const val from_heap = val::module_property("intsFromHeap");
  return from_heap(reinterpret_cast<std::uintptr_t>(ids.data()), ids.size());
}

val bytes_to_js(const void* data, std::size_t count) {
  static const val from_heap = val::module_property("bytesFromHeap");
  return from_heap(reinterpret_cast<std::uintptr_t>(data), count);
}

val floats_to_js(const float* data, std::size_t count) {
  static const val from_heap = val::module_property("floatsFromHeap");
  return from_heap(reinterpret_cast<std::uintptr_t>(data), count);
}

val matrix_grid_to_js(const std::vector<std::vector<Matrix>>& grid) {
  val layers = val::array();
  for (const auto& heads : grid) {
    val row = val::array();
    for (const Matrix& m : heads) row.call<void>("push", matrix_to_js(m));
    layers.call<void>("push", row);
  }
  return layers;
}

val strings_to_js(const std::vector<std::string>& words) {
  val out = val::array();
  for (const std::string& w : words) out.call<void>("push", val(w));
  return out;
}

}  // namespace attnlab::wasm
