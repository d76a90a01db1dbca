// The Embind declarations every module of the package has (module.hpp), linked into each of them.
#include <emscripten/bind.h>

#include "module.hpp"

using namespace emscripten;
using namespace attnlab::wasm;

EMSCRIPTEN_BINDINGS(attnlab_module) {
  function("version", &version);
  function("kernelVariant", &kernel_variant);
  function("takeLastError", &take_last_error_message);
  function("memoryStats", &memory_stats);
  function("setMemoryBudget", &set_memory_budget);
  function("maxThreads", &max_threads);
  function("numThreads", &num_threads);
  function("setNumThreads", &set_num_threads);
}
