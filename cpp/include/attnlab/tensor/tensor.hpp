// attnlab::Tensor: the N-dimensional float32 tensor the tutorials write attention with, e.g.
//   x (batch, seq, d_model) = (2, 4, 8)  →  x.view({2, 4, 2, 4}).transpose(1, 2)  →  (batch, heads, seq, d_k).
// A shape (1 to 5 dims, each at least 1) and strides over shared, row-major float32 storage, as a
// torch.Tensor is: view, permute, transpose, unsqueeze and expand return a new Tensor over the same
// storage (writing through one is seen through the other); reshape and contiguous copy only when the
// strides leave no other way. The math itself stays on Matrix: a Tensor hands out its 2-D slices
// (`matrix`) and the batched functions loop over them (attention/batched_attention.hpp).
//
// Errors are attnlab::Error naming the function, the argument and the shapes written as PyTorch
// writes them, "(2, 8, 10, 10)" — e.g. "Tensor::view: cannot view (3, 4) (12 elements) as (5, 3) (15 elements)".
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "attnlab/tensor/matrix.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

inline constexpr int kMaxTensorRank = 5;  // batch, heads, seq, d_k, and one to spare

// A shape or a list of strides, outermost dim first: (batch, heads, seq, d_k).
using Shape = std::vector<std::int64_t>;

// "(2, 4, 8)", "(4,)" for one dim, "()" for none: Python's tuple notation, as torch.Size prints.
std::string shape_text(const Shape& shape);

// The shape two tensors broadcast to, by PyTorch's rules: align the trailing dims (a missing leading
// dim counts as 1); each pair must be equal or one of them 1, and the result takes the larger.
//   (2, 8, 10, 10) and (1, 1, 10, 10) → (2, 8, 10, 10);  (4, 1) and (3,) → (4, 3);  (2, 3) and (4,) → Error.
Shape broadcast_shapes(const Shape& a, const Shape& b);
// Whether `from` broadcasts to `to` itself (torch.expand's rule, and what a mask must do against the
// scores): `to` has at least as many dims, and each of from's trailing dims equals to's or is 1.
bool broadcasts_to(const Shape& from, const Shape& to);

class Tensor {
 public:
  // No tensor (rank 0, no storage): what an absent result holds. Every operation on it is an Error.
  Tensor() = default;
  // Zeros of `shape`.
  explicit Tensor(Shape shape);
  // `data` in row-major order; its length must be the shape's element count.
  Tensor(Shape shape, std::vector<float> data);
  // A strided view of `data` (as torch.as_strided): element (i₀, i₁, …) is data[Σ iₙ·strides[n]].
  // Strides are ≥ 0 (0 repeats an element, as expand does) and must stay inside data.
  Tensor(Shape shape, Shape strides, std::vector<float> data);
  // A [rows×cols] Matrix as a (rows, cols) tensor (copied).
  explicit Tensor(const Matrix& m);

  bool empty() const { return storage_ == nullptr; }
  int rank() const { return static_cast<int>(shape_.size()); }
  const Shape& shape() const { return shape_; }
  const Shape& strides() const { return strides_; }
  std::int64_t size(int dim) const;  // dim may count from the end: size(-1) is the last dim
  std::int64_t numel() const;
  // Row-major in memory: element number i (in row-major order) is storage[i]. Dims of size 1 may
  // have any stride, as in PyTorch.
  bool is_contiguous() const;

  // Element access, one index per dim; the reference writes into the shared storage.
  float& at(std::span<const std::int64_t> index);
  float at(std::span<const std::int64_t> index) const;
  float& at(std::initializer_list<std::int64_t> index) { return at(std::span(index.begin(), index.size())); }
  float at(std::initializer_list<std::int64_t> index) const { return at(std::span(index.begin(), index.size())); }

  // The same elements under another shape, without copying; one dim may be −1 (inferred), as in
  // x.view(batch, -1, heads, d_k). Needs strides that allow it (any contiguous tensor; a transposed
  // one only where the dims it merges are still adjacent in memory), else an Error as in PyTorch.
  Tensor view(const Shape& shape) const;
  // view when the strides allow, else a contiguous copy viewed.
  Tensor reshape(const Shape& shape) const;
  // Dims reordered: result dim n is this tensor's dim dims[n] (x.permute(0, 2, 1, 3)).
  Tensor permute(const Shape& dims) const;
  // Dims d0 and d1 swapped (negative counts from the end: transpose(-2, -1) is Kᵀ per slice).
  Tensor transpose(int d0, int d1) const;
  // A new dim of size 1 at position dim (0 … rank, or negative from the end): mask (4, 4) → (1, 4, 4).
  Tensor unsqueeze(int dim) const;
  // A view broadcast to `shape` (torch.expand): new leading dims and dims of size 1 repeat with stride 0.
  Tensor expand(const Shape& shape) const;
  // This tensor if it is contiguous, else a row-major copy.
  Tensor contiguous() const;
  // The elements in row-major order (a copy).
  std::vector<float> to_vector() const;

  // Rank ≥ 2: the 2-D slices over the last two dims, numbered in row-major order of the leading dims
  // (slice 5 of (2, 4, seq, d_k) is [1, 1]). matrix() of a 2-D tensor is the whole tensor.
  std::int64_t matrix_count() const;
  Matrix matrix(std::int64_t index = 0) const;                // a copy
  void set_matrix(std::int64_t index, const Matrix& values);  // writes into the shared storage

 private:
  std::int64_t offset_of(std::span<const std::int64_t> index, const char* function) const;
  std::int64_t matrix_offset(std::int64_t index, const char* function) const;

  std::shared_ptr<std::vector<float>> storage_;
  Shape shape_, strides_;
};

inline std::string shape_text(const Tensor& t) { return shape_text(t.shape()); }

}  // namespace attnlab
ATTNLAB_API_END
