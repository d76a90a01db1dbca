// Trainable parameters, seen from outside the layer that owns them. An optimizer walks a model's
// parameters as a flat list of ParameterRef, whatever the model is built from, the way
// torch.optim walks model.parameters().
//
// Gradients follow PyTorch: each layer's backward() ADDS into its gradients, so two backward calls
// accumulate, until zero_grad() sets them to 0. A layer allocates its gradients on the first
// backward() or parameters() call (before either, a layer's grads are empty, like PyTorch's
// `.grad is None`): a model only ever used for inference costs no extra memory.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/tensor/matrix.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// A view of one trainable tensor and its gradient, both owned by a layer. Valid while that layer
// lives and is not moved or reassigned as a whole (its load() keeps the buffers, so a loaded layer's
// refs stay valid). For tensors of your own: copy into them (m = other, m = expression, m.setZero());
// moving a temporary in (m = Matrix(...)) swaps Eigen's buffers and leaves the ref dangling.
struct ParameterRef {
  std::string name;                 // as in PyTorch's state_dict: "weight", "linear1.bias"
  float* value = nullptr;           // `size` floats, row-major
  float* grad = nullptr;            // `size` floats, the same layout
  Eigen::Index size = 0;
  std::vector<Eigen::Index> shape;  // PyTorch's shape: {out, in} for a weight, {d} for a bias
};

// "linear1" + "weight" → "linear1.weight"; an empty prefix gives "weight" (nn.Module's naming).
std::string parameter_name(std::string_view prefix, std::string_view name);

// A view of `value` [rows×cols] (shape {rows, cols}) or `value` [d] (shape {d}); `grad` is
// allocated as zeros of value's shape first if it is empty.
ParameterRef make_parameter(std::string name, Matrix& value, Matrix& grad);
ParameterRef make_parameter(std::string name, Vector& value, Vector& grad);

// `more` moved onto the end of `all`: a model's list built from its layers' lists.
void append_parameters(std::vector<ParameterRef>& all, std::vector<ParameterRef> more);

// The seed of layer `index` (0-based) of a model seeded `model_seed`: model_seed + 1000003 · (index + 1),
// so each layer draws its own weights and layer 0's differ from the embeddings' (seeded model_seed).
std::uint64_t layer_seed(std::uint64_t model_seed, int index);

// Every gradient set to 0 (PyTorch 1.13's zero_grad(set_to_none=False)).
void zero_grad(const std::vector<ParameterRef>& parameters);

// Σ size: the number of trainable values.
std::int64_t parameter_count(const std::vector<ParameterRef>& parameters);

}  // namespace attnlab
ATTNLAB_API_END
