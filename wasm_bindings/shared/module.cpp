#include "module.hpp"

#include <emscripten/heap.h>
#include <malloc.h>

#include <cmath>

#include "attnlab/tensor/error.hpp"
#include "attnlab/tensor/limits.hpp"
#include "attnlab/tensor/threads.hpp"
#include "convert.hpp"
#include "kernels/kernels.hpp"

namespace attnlab::wasm {

std::string version() { return "0.1.0"; }
std::string kernel_variant() { return kernels::variant(); }
std::string take_last_error_message() { return take_last_error(); }

val memory_stats() {
  val stats = val::object();
  stats.set("heapSize", static_cast<double>(emscripten_get_heap_size()));
  stats.set("inUse", static_cast<double>(mallinfo().uordblks));
  stats.set("budget", static_cast<double>(memory_budget()));
  return stats;
}

val set_memory_budget(double bytes) {
  return guarded([&] {
    // 2 GiB: the most a wasm32 heap can grow to here, so a larger budget could never be honoured.
    if (!(bytes >= 1.0 && bytes <= 2147483648.0) || std::floor(bytes) != bytes)
      throw Error("memoryBudget must be a whole number of bytes in 1 … 2147483648 (2 GiB), got " + std::to_string(bytes));
    attnlab::set_memory_budget(static_cast<std::size_t>(bytes));
    return val(true);
  });
}

int max_threads() { return attnlab::max_threads(); }
int num_threads() { return attnlab::num_threads(); }

val set_num_threads(double threads) {
  return guarded([&] {
    if (!(threads >= 1.0 && threads <= attnlab::max_threads()) || std::floor(threads) != threads)
      throw Error("threads must be a whole number in 1 … " + std::to_string(attnlab::max_threads()) + ", got " +
                  std::to_string(threads));
    attnlab::set_num_threads(static_cast<int>(threads));
    return val(true);
  });
}

}  // namespace attnlab::wasm
