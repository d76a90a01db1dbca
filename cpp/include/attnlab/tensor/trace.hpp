// The step trace: a forward pass can record every named intermediate, in the order it was computed,
// each with a stable id, a title, a one-line explanation and its tensors. The site's step-through
// is driven by this trace, so what the learner sees is exactly what was computed.
//
// Modules take a `const Tracer&`; a default Tracer records nothing and costs nothing. Nested modules
// get a child tracer whose ids are prefixed ("head0.scores", "attn.head1.weights").
#pragma once

#include "attnlab/tensor/api.hpp"

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/tensor/matrix.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct TraceTensor {
  std::string name;  // "Q", "scores", "W_q"
  Matrix value;
  // Recorded from an N-dimensional Tensor (record_tensors): its shape, (2, 4, 3, 2, 4), with value
  // holding its elements in row-major order as [numel / last dim × last dim]. Empty: value's own shape.
  std::vector<std::int64_t> shape;
};

struct TraceStep {
  std::string id;           // stable, dotted: "head0.scaled_scores"
  std::string title;        // short heading: "Scale by 1/√d_k"
  std::string explanation;  // one line, with this pass's shapes and numbers
  std::vector<TraceTensor> tensors;
};

class Trace {
 public:
  void add(TraceStep step);
  const std::vector<TraceStep>& steps() const { return steps_; }
  bool contains(std::string_view id) const;
  // The step with this id; throws attnlab::Error naming the id when absent.
  const TraceStep& step(std::string_view id) const;
  // The tensor `name` of step `id`; throws when either is absent.
  const Matrix& tensor(std::string_view id, std::string_view name) const;

 private:
  std::vector<TraceStep> steps_;
};

// A borrowed view of a tensor to record; copied only when tracing is on.
struct TensorRef {
  std::string_view name;
  const Matrix& value;
};

class Tensor;
// A borrowed N-dimensional tensor to record (record_tensors); copied contiguous when tracing is on.
struct NamedTensor {
  std::string_view name;
  const Tensor& value;
};

class Tracer {
 public:
  Tracer() = default;  // records nothing
  explicit Tracer(Trace& trace) : trace_(&trace) {}

  bool enabled() const { return trace_ != nullptr; }
  // A tracer whose ids are prefixed with "<scope>.".
  Tracer child(std::string_view scope) const;
  // Explanations built from shapes cost string work: call sites build them under `if (enabled())`.
  void record(std::string_view id, std::string_view title, std::string_view explanation,
              std::initializer_list<TensorRef> tensors) const;
  // The same with N-dimensional tensors, each keeping its shape (TraceTensor::shape).
  void record_tensors(std::string_view id, std::string_view title, std::string_view explanation,
                      std::initializer_list<NamedTensor> tensors) const;

 private:
  Trace* trace_ = nullptr;
  std::string prefix_;
};

}  // namespace attnlab
ATTNLAB_API_END
