#include "attnlab/tensor/parameter.hpp"

#include <algorithm>

namespace attnlab {

std::string parameter_name(std::string_view prefix, std::string_view name) {
  std::string full(prefix);
  if (!full.empty()) full += '.';
  full += name;
  return full;
}

ParameterRef make_parameter(std::string name, Matrix& value, Matrix& grad) {
  if (grad.size() == 0) grad = Matrix::Zero(value.rows(), value.cols());
  return {std::move(name), value.data(), grad.data(), value.size(), {value.rows(), value.cols()}};
}

ParameterRef make_parameter(std::string name, Vector& value, Vector& grad) {
  if (grad.size() == 0) grad = Vector::Zero(value.size());
  return {std::move(name), value.data(), grad.data(), value.size(), {value.size()}};
}

void append_parameters(std::vector<ParameterRef>& all, std::vector<ParameterRef> more) {
  for (ParameterRef& ref : more) all.push_back(std::move(ref));
}

std::uint64_t layer_seed(std::uint64_t model_seed, int index) {
  constexpr std::uint64_t kLayerSeedStride = 1000003;
  return model_seed + kLayerSeedStride * static_cast<std::uint64_t>(index + 1);
}

void zero_grad(const std::vector<ParameterRef>& parameters) {
  for (const ParameterRef& p : parameters)
    if (p.grad) std::fill(p.grad, p.grad + p.size, 0.0f);
}

std::int64_t parameter_count(const std::vector<ParameterRef>& parameters) {
  std::int64_t count = 0;
  for (const ParameterRef& p : parameters) count += p.size;
  return count;
}

}  // namespace attnlab
