// Position-wise feed-forward network: Linear(d_model→d_ff) → activation → Linear(d_ff→d_model),
// applied to every row (token) on its own.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

#include "attnlab/layers/activation.hpp"
#include "attnlab/layers/linear.hpp"
#include "attnlab/tensor/matrix.hpp"
#include "attnlab/tensor/parameter.hpp"
#include "attnlab/tensor/trace.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

class Rng;

// What FeedForward::backward needs from its forward pass (filled by forward(x, cache, ...)).
struct FeedForwardCache {
  Matrix x;              // [n×d_model] the input
  Matrix hidden;         // [n×d_ff] linear1's output, before the activation
  Matrix activated;      // [n×d_ff] after the activation and dropout: linear2's input
  Matrix dropout_scale;  // [n×d_ff] 0 (dropped) or 1/(1−p) (kept) per entry; empty without dropout
};

class FeedForward {
 public:
  FeedForward(int d_model, int d_ff, Activation activation, bool bias, Rng& rng);

  // x [n×d_model] → [n×d_model]. `dropout`/`rng`: dropout after the activation (training only).
  // Traced steps: linear1, activation, (dropout), linear2.
  Matrix forward(const Matrix& x, const Tracer& tracer = {}, float dropout = 0.0f, Rng* rng = nullptr) const;
  // The same pass (same result, same draws from rng, same trace), keeping in `cache` what backward
  // needs, the dropout pattern included. `cache` is overwritten only when the pass succeeds.
  Matrix forward(const Matrix& x, FeedForwardCache& cache, const Tracer& tracer = {}, float dropout = 0.0f,
                 Rng* rng = nullptr) const;
  // d_out [n×d_model] = ∂L/∂output of the forward pass that filled `cache` → ∂L/∂x [n×d_model];
  // adds to linear1's and linear2's gradients (both or, if the call throws, neither).
  Matrix backward(const FeedForwardCache& cache, const Matrix& d_out);
  void zero_grad();
  // "<prefix>.linear1.weight", ".linear1.bias", ".linear2.weight", ".linear2.bias" (as in
  // nn.TransformerEncoderLayer's state_dict when the prefix is empty).
  std::vector<ParameterRef> parameters(std::string_view prefix = "");

  Linear& linear1() { return linear1_; }
  Linear& linear2() { return linear2_; }
  const Linear& linear1() const { return linear1_; }
  const Linear& linear2() const { return linear2_; }
  Activation activation() const { return activation_; }
  std::int64_t parameter_count() const { return linear1_.parameter_count() + linear2_.parameter_count(); }

 private:
  Matrix run(const Matrix& x, const Tracer& tracer, float dropout, Rng* rng, FeedForwardCache* cache) const;

  Linear linear1_, linear2_;
  Activation activation_;
};

}  // namespace attnlab
ATTNLAB_API_END
