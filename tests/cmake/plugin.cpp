// attnlab inside a consumer's shared library (a plugin): the link fails unless attnlab's code is
// position-independent. The plugin exports one C function, and the host program (plugin_host.cpp)
// calls it: one query over three keys, whose weights are checked against the hand computation.
#include <attnlab/attnlab.hpp>

extern "C" __attribute__((visibility("default"))) double plugin_first_weight() {
  // q = [1 0], keys [1 0], [0 1], [0 1] (d 2): scores 1/√2, 0, 0 → weight 0 = e^(1/√2) / (e^(1/√2) + 2)
  attnlab::Matrix q(1, 2), k(3, 2);
  q << 1, 0;
  k << 1, 0, 0, 1, 0, 1;
  const attnlab::Matrix v = k;
  return static_cast<double>(attnlab::scaled_dot_product_attention(q, k, v).weights(0, 0));
}
