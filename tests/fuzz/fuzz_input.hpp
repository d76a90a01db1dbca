// What the fuzz targets share: turning libFuzzer's bytes into the arguments a learner might pass
// (sizes that are 0, negative or huge; values that are NaN, ±Inf, denormal or enormous; masks that are
// not 0/1), and the properties every accepted call must keep.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "attnlab/attnlab.hpp"

namespace attnlab::fuzz {

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) : bytes_(data, size) {}

  // A size argument: mostly 1…typical_max, sometimes 0, negative, huge or INT_MAX.
  int size(int typical_max);
  // A dimension for an input matrix the fuzzer itself allocates: 0…max (mostly ≥ 1).
  int dim(int max);
  // A value: mostly in [−8, 8], sometimes NaN, ±Inf, a denormal, ±FLT_MAX, −0 or 1e30.
  float value();
  Matrix matrix(int rows, int cols);
  Vector vector(int size);
  // Mostly 0/1 entries (all ones, random bits, or all zeros), sometimes another value somewhere.
  Matrix mask(int rows, int cols);
  bool flag() { return bytes_.ConsumeBool(); }
  int choice(int count) { return bytes_.ConsumeIntegralInRange(0, count - 1); }
  std::uint64_t seed() { return bytes_.ConsumeIntegral<std::uint64_t>(); }
  std::string text(std::size_t max_length) { return bytes_.ConsumeRandomLengthString(max_length); }

 private:
  FuzzedDataProvider bytes_;
};

// A property every accepted call must keep. On failure: print and abort, so libFuzzer saves the input.
inline void require(bool ok, const char* property) {
  if (ok) return;
  std::fprintf(stderr, "fuzz property violated: %s\n", property);
  std::abort();
}

inline bool finite(const Matrix& m) { return m.allFinite(); }
inline bool finite(const Vector& v) { return v.allFinite(); }

// Runs body(). attnlab::Error is an accepted answer to bad input (returns false); any other exception
// escapes and libFuzzer reports it, as it does a crash or a sanitizer finding.
template <typename Body>
bool accepted(Body&& body) {
  try {
    body();
    return true;
  } catch (const Error&) {
    return false;
  }
}

// Every target runs with a small budget, so the calls it accepts stay fast under the sanitizers
// and "too large" is reached with modest sizes.
inline void use_small_budget() {
  static const bool once = (set_memory_budget(std::size_t{4} << 20), true);
  (void)once;
}

// The body of every LLVMFuzzerTestOneInput: the first byte picks one of `cases`, which reads the rest.
using FuzzCase = void (*)(FuzzInput&);
template <std::size_t N>
int run_one_case(const std::uint8_t* data, std::size_t size, const FuzzCase (&cases)[N]) {
  use_small_budget();
  FuzzInput in(data, size);
  cases[in.choice(static_cast<int>(N))](in);
  return 0;
}

}  // namespace attnlab::fuzz
