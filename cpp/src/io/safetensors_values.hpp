// Shared by the whole-file reader (safetensors.cpp) and the streaming one (safetensors_stream.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnlab/io/safetensors.hpp"

namespace attnlab::detail {

// The format's own limit on a header's length, in bytes (both readers refuse a longer one).
inline constexpr std::uint64_t kMaxSafetensorsHeader = 100'000'000;

// `count` little-endian values of `dtype` at `bytes` (any alignment) → float32 at `out`, widened exactly.
void read_values(const std::uint8_t* bytes, DType dtype, std::size_t count, float* out);

}  // namespace attnlab::detail
