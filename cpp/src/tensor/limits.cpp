#include "attnlab/tensor/limits.hpp"

#include <cstdio>

#include "tensor/checks.hpp"

namespace attnlab {

namespace {
std::size_t budget_bytes = kDefaultMemoryBudget;

// "512 MiB", "37.3 GiB": how a learner reads a size.
std::string human_bytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 5) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[48];
  std::snprintf(text, sizeof text, "%.4g %s", bytes, units[unit]);  // 4 digits: 1.004 MiB is not 1 MiB
  return text;
}
}  // namespace

std::size_t memory_budget() { return budget_bytes; }

void set_memory_budget(std::size_t bytes) {
  if (bytes == 0) detail::fail("set_memory_budget", "bytes must be positive, got 0");
  budget_bytes = bytes;
}

namespace detail {

void require_within_budget(std::string_view function, double matrices, double rows, double cols,
                           std::string_view what) {
  // Doubles: rows·cols of two int sizes cannot overflow here, whatever the platform's index width.
  const double bytes = matrices * rows * cols * static_cast<double>(sizeof(float));
  if (bytes <= static_cast<double>(budget_bytes)) return;
  fail(function, "needs about ", human_bytes(bytes), " (", what, ": ", matrices, " × ", rows, "×", cols,
       " floats) but the memory budget is ", human_bytes(static_cast<double>(budget_bytes)), " (set_memory_budget raises it)");
}

}  // namespace detail
}  // namespace attnlab
