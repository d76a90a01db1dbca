#include "attnlab/tensor/trace.hpp"

#include <algorithm>

#include "attnlab/tensor/tensor.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

void Trace::add(TraceStep step) { steps_.push_back(std::move(step)); }

bool Trace::contains(std::string_view id) const {
  return std::any_of(steps_.begin(), steps_.end(), [&](const TraceStep& s) { return s.id == id; });
}

const TraceStep& Trace::step(std::string_view id) const {
  for (const TraceStep& s : steps_)
    if (s.id == id) return s;
  detail::fail("Trace::step", "no step with id \"", id, "\" (the trace has ", steps_.size(), " steps)");
}

const Matrix& Trace::tensor(std::string_view id, std::string_view name) const {
  const TraceStep& s = step(id);
  for (const TraceTensor& t : s.tensors)
    if (t.name == name) return t.value;
  detail::fail("Trace::tensor", "step \"", id, "\" has no tensor named \"", name, "\"");
}

Tracer Tracer::child(std::string_view scope) const {
  Tracer nested = *this;
  nested.prefix_ += std::string(scope) + ".";
  return nested;
}

void Tracer::record(std::string_view id, std::string_view title, std::string_view explanation,
                    std::initializer_list<TensorRef> tensors) const {
  if (!trace_) return;
  TraceStep step{prefix_ + std::string(id), std::string(title), std::string(explanation), {}};
  step.tensors.reserve(tensors.size());
  for (const TensorRef& t : tensors) step.tensors.push_back({std::string(t.name), t.value, {}});
  trace_->add(std::move(step));
}

void Tracer::record_tensors(std::string_view id, std::string_view title, std::string_view explanation,
                            std::initializer_list<NamedTensor> tensors) const {
  if (!trace_) return;
  TraceStep step{prefix_ + std::string(id), std::string(title), std::string(explanation), {}};
  for (const NamedTensor& t : tensors) {
    // [numel / last × last], row-major: the elements in the order the shape lists them.
    const std::int64_t last = t.value.size(-1);
    const std::vector<float> values = t.value.to_vector();
    Matrix rows = Eigen::Map<const Matrix>(values.data(), static_cast<Eigen::Index>(t.value.numel() / last),
                                           static_cast<Eigen::Index>(last));
    step.tensors.push_back({std::string(t.name), std::move(rows), t.value.shape()});
  }
  trace_->add(std::move(step));
}

}  // namespace attnlab
