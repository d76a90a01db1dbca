// Argument checks shared by every public function. Each throws attnlab::Error with a message that
// starts with the calling function's name, so the learner sees where the bad input went in.
#pragma once

#include <sstream>
#include <string_view>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab::detail {

// Throws Error("<function>: <parts...>"); parts are streamed, so shapes and numbers mix freely.
template <typename... Parts>
[[noreturn]] void fail(std::string_view function, const Parts&... parts) {
  std::ostringstream message;
  message << function << ": ";
  (message << ... << parts);
  throw Error(message.str());
}

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

}  // namespace attnlab::detail
