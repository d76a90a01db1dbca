// attnlab::Error: the single exception type for bad user input. Its message names the function, the
// argument and the shapes involved, e.g.
//   "scaled_dot_product_attention: K is 7×16 but Q is 5×8 (d_k must match)".
// The wasm binding rethrows it as the JS AttnLabError with the same text.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <stdexcept>

ATTNLAB_API_BEGIN
namespace attnlab {

class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace attnlab
ATTNLAB_API_END
