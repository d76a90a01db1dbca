// Argument checks shared by every public function. Each throws attnlab::Error with a message that
// starts with the calling function's name, so the learner sees where the bad input went in.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

#include "attnlab/tensor/error.hpp"
#include "attnlab/tensor/matrix.hpp"

namespace attnlab::detail {

// Message pieces: text, integers, and floating-point values printed like %g ("0.5", "inf", "1e-05").
// (Not iostreams: <sstream> alone would add ~100 KB to every .wasm.)
inline void append(std::string& out, std::string_view text) { out += text; }
inline void append(std::string& out, const char* text) { out += text; }
template <typename Number, typename = std::enable_if_t<std::is_arithmetic_v<Number>>>
void append(std::string& out, Number value) {
  if constexpr (std::is_floating_point_v<Number>) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", static_cast<double>(value));
    out += buffer;
  } else {
    out += std::to_string(value);
  }
}

// Throws Error("<function>: <parts...>"); shapes, names and numbers mix freely.
template <typename... Parts>
[[noreturn]] void fail(std::string_view function, const Parts&... parts) {
  std::string message(function);
  message += ": ";
  (append(message, parts), ...);
  throw Error(message);
}

// "[5×8]": how trace explanations write a shape.
inline std::string bracketed_shape(const Matrix& m) { return "[" + shape_of(m) + "]"; }

bool all_finite(const float* values, Eigen::Index count);  // no NaN, no ±Inf
float max_magnitude(const float* values, Eigen::Index count);  // max |x|; +∞ if any is NaN or ±Inf
void require_positive(std::string_view function, std::string_view argument, long long value);
void require_non_empty(std::string_view function, std::string_view argument, const Matrix& m);
void require_finite(std::string_view function, std::string_view argument, const Matrix& m);
void require_finite(std::string_view function, std::string_view argument, const Vector& v);
void require_finite(std::string_view function, std::string_view argument, double value);
void require_shape(std::string_view function, std::string_view argument, const Matrix& m,
                   Eigen::Index rows, Eigen::Index cols);
void require_size(std::string_view function, std::string_view argument, const Vector& v,
                  Eigen::Index size);
// A mask holds only 1 (may attend) and 0 (blocked) and is n_q×n_k.
void require_mask(std::string_view function, std::string_view argument, const Matrix& mask,
                  Eigen::Index n_q, Eigen::Index n_k);
void require_probability(std::string_view function, std::string_view argument, float p);
// A result computed from finite inputs can still overflow float32 (huge weights, sums near 3.4e38);
// it is then an Error naming where and `cause`, never a NaN or Inf handed back.
void require_finite_result(std::string_view function, const Matrix& result, std::string_view cause);
// Refuses (Error) a call whose working memory — `matrices` float matrices of rows×cols, described by
// `what` ("scores and weights") — would exceed memory_budget(); call it before allocating (limits.hpp).
void require_within_budget(std::string_view function, double matrices, double rows, double cols,
                           std::string_view what);
}  // namespace attnlab::detail

namespace attnlab {
struct AttentionOptions;
class Tracer;
}

namespace attnlab::detail {
// The largest |entry| of Q, K and V, found while checking that they are finite.
struct LargestEntries {
  float q, k, v;
};
// Q [n_q×d_k], K [n_k×d_k], V [n_k×d_v] and the options (mask n_q×n_k of 0/1, finite bias and scale,
// dropout with an rng), for `function` (attention.cpp, flash_attention.cpp). One pass over each input
// gives its finiteness and its largest entry, which scaled_scores_fit_float takes: Q and K are read
// once per call, not twice.
LargestEntries check_attention_arguments(const char* function, const Matrix& q, const Matrix& k, const Matrix& v,
                                         const AttentionOptions& options);
// Refuses (Error) an attention call whose n_q×n_k matrices (or output) would exceed the memory
// budget, before computing anything (limits.hpp).
void require_attention_budget(const char* function, const Matrix& q, const Matrix& k, const Matrix& v,
                              const AttentionOptions& options, const Tracer& tracer);
// Scaled scores must be finite before masking: ±Inf there means Q·Kᵀ overflowed, and would become
// NaN in the softmax. (row0, col0): where this block sits in the full score matrix, for the message.
void require_finite_scores(const char* function, const Eigen::Ref<const Matrix>& scores, Eigen::Index row0,
                           Eigen::Index col0);
// True when no score q·k, nor scale·q·k, can overflow float32, so the per-block check can be skipped:
// by Cauchy–Schwarz every partial sum of q·k is at most ‖q‖·‖k‖.
bool scaled_scores_fit_float(const LargestEntries& largest, Eigen::Index d_k, float scale);

}  // namespace attnlab::detail
