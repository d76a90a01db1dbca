// Prints, as JSON, native results for a fixed set of seeded cases. tests/js/agreement.test.js runs
// the same cases through the wasm package and compares: the seeded RNG makes the inputs identical
// on both targets, so any difference is the targets' arithmetic.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "attnlab/attnlab.hpp"

using namespace attnlab;
using nlohmann::json;

namespace {

json to_json(const Matrix& m) {
  return {{"rows", m.rows()}, {"cols", m.cols()}, {"data", std::vector<float>(m.data(), m.data() + m.size())}};
}

json heads_to_json(const std::vector<Matrix>& heads) {
  json out = json::array();
  for (const Matrix& h : heads) out.push_back(to_json(h));
  return out;
}

}  // namespace

int main() {
  json out;
  out["randn"] = to_json(randn(3, 4, 9));

  const Matrix causal = causal_mask(5, 7);
  const AttentionResult sdpa = scaled_dot_product_attention(randn(5, 8, 1), randn(7, 8, 2), randn(7, 6, 3),
                                                            {.mask = &causal});
  out["sdpa"] = {{"output", to_json(sdpa.output)}, {"weights", to_json(sdpa.weights)}};

  MultiHeadAttention mha({.d_model = 16, .num_heads = 4, .seed = 3});
  const MultiHeadAttentionOutput attention = mha.forward(randn(6, 16, 4), {.causal = true});
  out["mha"] = {{"output", to_json(attention.output)}, {"weights", heads_to_json(attention.head_weights)}};

  MultiHeadAttention cross({.d_model = 16, .num_heads = 2, .positions = PositionalScheme::rotary, .seed = 8});
  const Matrix memory = randn(5, 16, 11);
  out["cross_rotary"] = {{"output", to_json(cross.forward(randn(3, 16, 10), memory, memory).output)}};

  TransformerEncoderLayer layer({.d_model = 16, .num_heads = 2, .d_ff = 32, .norm_first = true,
                                 .norm = NormKind::rms_norm, .seed = 5});
  out["encoder"] = {{"output", to_json(layer.forward(randn(5, 16, 6)))}};

  out["sinusoidal"] = to_json(sinusoidal_encoding(10, 16));
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
