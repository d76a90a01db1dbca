// How many threads the core's large operations use: the matrix products of every layer and model
// (split by rows of the result, or by column panels when it is wider than tall), attention (split by
// query blocks, by heads, by sequences of a batch). Each thread computes whole rows or panels with the
// same kernels in the same order as one thread would, so results are bit-identical whatever the thread
// count.
//
// Natively the default is every core the machine reports. In wasm it is what the build can do: the
// threaded build (pthreads, SharedArrayBuffer; a cross-origin-isolated page) starts with its worker
// pool's size; the single-threaded builds have max_threads() = 1.
#pragma once

#include "attnlab/tensor/api.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// The most threads this build and machine can use (≥ 1).
int max_threads();
// The number the core uses now (1 … max_threads()).
int num_threads();
// Sets it; 1 is the single-threaded code path exactly. Throws Error outside 1 … max_threads().
// Not synchronised with calls running on other threads: set it before calling from several threads.
void set_num_threads(int threads);

}  // namespace attnlab
ATTNLAB_API_END
