// Resource limits. A teaching library is fed whatever a learner types: seq 100,000 with the n×n
// weights requested would need tens of gigabytes. Every call that allocates in proportion to sizes it
// is given estimates its working memory first and, if that is over the budget, throws attnlab::Error
// naming the sizes — before allocating anything (and before rows·cols can overflow a 32-bit index,
// as it would in wasm). Inputs the caller already holds are not counted; what the call creates is.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstddef>

ATTNLAB_API_BEGIN
namespace attnlab {

inline constexpr std::size_t kDefaultMemoryBudget = std::size_t{512} << 20;  // 512 MiB

// The budget in bytes for one call's working memory. Global (per process, per wasm instance); not
// synchronised, like the rest of the library: set it before calling from several threads.
std::size_t memory_budget();
void set_memory_budget(std::size_t bytes);  // throws Error for 0

}  // namespace attnlab
ATTNLAB_API_END
