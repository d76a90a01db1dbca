// What every Embind module of the package exposes (the main one, bindings.cpp, and the training one,
// training_bindings.cpp): which build it is, the last error's message, and its own heap's memory
// budget. Each module is a separate wasm instance with its own heap, so each needs its own copy.
#pragma once

#include <emscripten/val.h>

#include <string>

namespace attnlab::wasm {

using emscripten::val;

std::string version();
std::string kernel_variant();
std::string take_last_error_message();
val memory_stats();  // { heapSize, inUse, budget }: the wasm heap, the bytes malloc has handed out, the budget
val set_memory_budget(double bytes);  // true; undefined unless bytes is a whole number in 1 … 2 GiB
int max_threads();                    // 1 in the single-threaded builds
int num_threads();
val set_num_threads(double threads);  // true; undefined unless threads is a whole number in 1 … max_threads()

}  // namespace attnlab::wasm
