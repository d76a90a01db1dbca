#include "attnlab/tensor/tensor.hpp"

#include <algorithm>
#include <utility>

#include "tensor/checks.hpp"

namespace attnlab {

namespace {

// Past 2^62 elements an int64 offset could overflow; no tensor that large is ever allocated (the
// memory budget refuses long before), but an expand() view could claim it.
constexpr double kMostElements = 4.611686018427388e18;

// A shape a Tensor may have: 1 to 5 dims, each at least 1. Returns its element count.
std::int64_t checked_numel(const char* function, const char* argument, const Shape& shape) {
  if (shape.empty() || shape.size() > static_cast<std::size_t>(kMaxTensorRank))
    detail::fail(function, argument, " ", shape_text(shape), " has ", shape.size(), " dims; a Tensor has 1 to ",
                 kMaxTensorRank);
  double count = 1.0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 1)
      detail::fail(function, argument, " ", shape_text(shape), " has size ", shape[d], " at dim ", d,
                   " (every dim must be at least 1)");
    count *= static_cast<double>(shape[d]);
  }
  if (count > kMostElements) detail::fail(function, argument, " ", shape_text(shape), " has more than 2^62 elements");
  std::int64_t numel = 1;
  for (std::int64_t size : shape) numel *= size;
  return numel;
}

// The row-major strides of `shape`: (2, 4, 8) → (32, 8, 1).
Shape contiguous_strides(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

// dim counted from the front (0 … count−1) or from the end (−count … −1), as PyTorch takes it.
int normalise_dim(const char* function, std::int64_t dim, int count, const Shape& shape) {
  if (dim < -count || dim >= count)
    detail::fail(function, "dim ", dim, " is out of range for ", shape_text(shape), " (expected ", -count, " … ",
                 count - 1, ")");
  return static_cast<int>(dim < 0 ? dim + count : dim);
}

// Calls visit(offset) for every element in row-major order, offset = Σ indexₙ·strides[n]: an
// odometer over the index, so a permuted or expanded tensor is read without any division.
template <typename Visit>
void for_each_offset(const Shape& shape, const Shape& strides, Visit&& visit) {
  const int rank = static_cast<int>(shape.size());
  std::int64_t index[kMaxTensorRank] = {};
  std::int64_t offset = 0, count = 1;
  for (std::int64_t size : shape) count *= size;
  for (std::int64_t n = 0; n < count; ++n) {
    visit(offset);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) {
        offset += strides[d];
        break;
      }
      offset -= (shape[d] - 1) * strides[d];
      index[d] = 0;
    }
  }
}

// The strides that show the elements of (shape, strides) as `target` without moving them, or none.
// PyTorch's computeStride: the old dims fall into chunks that are contiguous among themselves; each
// chunk may be split or merged freely, but the target must not merge across two chunks.
bool view_strides(const Shape& shape, const Shape& strides, const Shape& target, Shape& result) {
  result.assign(target.size(), 0);
  int view_d = static_cast<int>(target.size()) - 1;
  std::int64_t chunk_base_stride = strides.back(), tensor_numel = 1, view_numel = 1;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= shape[d];
    const bool chunk_ends = d == 0 || (shape[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || target[view_d] == 1)) {
      result[view_d] = view_numel * chunk_base_stride;
      view_numel *= target[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return false;
    if (d > 0) {
      chunk_base_stride = strides[d - 1];
      tensor_numel = view_numel = 1;
    }
  }
  return view_d == -1;
}

// `requested` with its one −1 filled in so that it holds `numel` elements; an Error if it cannot.
Shape infer_shape(const char* function, const Shape& requested, const Shape& from, std::int64_t numel) {
  if (std::count(requested.begin(), requested.end(), -1) > 1)
    detail::fail(function, "shape ", shape_text(requested), " has more than one -1");
  for (std::size_t d = 0; d < requested.size(); ++d)
    if (requested[d] < 1 && requested[d] != -1)
      detail::fail(function, "shape ", shape_text(requested), " has size ", requested[d], " at dim ", d,
                   " (every dim must be at least 1, or -1 for one to infer)");
  Shape shape = requested;
  const auto inferred = std::find(shape.begin(), shape.end(), -1);
  if (inferred != shape.end()) *inferred = 1;
  const std::int64_t known = checked_numel(function, "shape", shape);
  if (inferred != shape.end() && numel % known == 0) *inferred = numel / known;
  const std::int64_t count = inferred != shape.end() ? known * *inferred : known;
  if (count == numel) return shape;
  if (inferred != shape.end())
    detail::fail(function, "cannot view ", shape_text(from), " (", numel, " elements) as ", shape_text(requested),
                 " (", numel, " is not a multiple of ", known, ")");
  detail::fail(function, "cannot view ", shape_text(from), " (", numel, " elements) as ", shape_text(requested), " (",
               count, " elements)");
}

}  // namespace

std::string shape_text(const Shape& shape) {
  std::string text = "(";
  for (std::size_t d = 0; d < shape.size(); ++d) text += (d ? ", " : "") + std::to_string(shape[d]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  // Aligned from the right: dim −1 of each, then −2, …; a missing dim is 1.
  const std::size_t rank = std::max(a.size(), b.size());
  if (rank > static_cast<std::size_t>(kMaxTensorRank))
    detail::fail("broadcast_shapes", shape_text(a.size() > b.size() ? a : b), " has ", rank,
                 " dims; a Tensor has at most ", kMaxTensorRank);
  Shape result(rank);
  for (std::size_t i = 1; i <= rank; ++i) {
    const std::int64_t x = i <= a.size() ? a[a.size() - i] : 1, y = i <= b.size() ? b[b.size() - i] : 1;
    if (x < 1 || y < 1)
      detail::fail("broadcast_shapes", shape_text(x < 1 ? a : b), " has size ", std::min(x, y),
                   " (every dim must be at least 1)");
    if (x != y && x != 1 && y != 1)
      detail::fail("broadcast_shapes", shape_text(a), " and ", shape_text(b), " do not broadcast (", x, " vs ", y,
                   " at dim -", i, ": aligned from the right, each pair must be equal or 1)");
    result[rank - i] = std::max(x, y);
  }
  return result;
}

bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const std::size_t lead = to.size() - from.size();
  for (std::size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1 && from[d] != to[lead + d]) return false;
  return true;
}

Tensor::Tensor(Shape shape) {
  const std::int64_t numel = checked_numel("Tensor", "shape", shape);
  detail::require_within_budget("Tensor", 1, static_cast<double>(numel), 1, "the elements");
  storage_ = std::make_shared<std::vector<float>>(static_cast<std::size_t>(numel), 0.0f);
  strides_ = contiguous_strides(shape);
  shape_ = std::move(shape);
}

Tensor::Tensor(Shape shape, std::vector<float> data) {
  const std::int64_t numel = checked_numel("Tensor", "shape", shape);
  if (static_cast<std::int64_t>(data.size()) != numel)
    detail::fail("Tensor", "shape ", shape_text(shape), " holds ", numel, " elements but data has ", data.size());
  storage_ = std::make_shared<std::vector<float>>(std::move(data));
  strides_ = contiguous_strides(shape);
  shape_ = std::move(shape);
}

Tensor::Tensor(Shape shape, Shape strides, std::vector<float> data) {
  checked_numel("Tensor", "shape", shape);
  if (strides.size() != shape.size())
    detail::fail("Tensor", "strides ", shape_text(strides), " do not match shape ", shape_text(shape),
                 " (one stride per dim)");
  // The last element sits at Σ (sizeₙ − 1)·strideₙ: every other one is nearer the start.
  std::int64_t last = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (strides[d] < 0)
      detail::fail("Tensor", "strides ", shape_text(strides), " have a negative stride at dim ", d);
    last += (shape[d] - 1) * strides[d];
  }
  if (last >= static_cast<std::int64_t>(data.size()))
    detail::fail("Tensor", "strides ", shape_text(strides), " over shape ", shape_text(shape), " reach data[", last,
                 "] but data has ", data.size(), " elements");
  storage_ = std::make_shared<std::vector<float>>(std::move(data));
  shape_ = std::move(shape);
  strides_ = std::move(strides);
}

Tensor::Tensor(const Matrix& m) : Tensor(Shape{m.rows(), m.cols()}) {
  std::copy(m.data(), m.data() + m.size(), storage_->begin());
}

std::int64_t Tensor::size(int dim) const { return shape_[normalise_dim("Tensor::size", dim, rank(), shape_)]; }

std::int64_t Tensor::numel() const {
  std::int64_t count = empty() ? 0 : 1;
  for (std::int64_t size : shape_) count *= size;
  return count;
}

bool Tensor::is_contiguous() const {
  std::int64_t expected = 1;
  for (int d = rank() - 1; d >= 0; --d) {
    if (shape_[d] != 1 && strides_[d] != expected) return false;
    expected *= shape_[d];
  }
  return true;
}

std::int64_t Tensor::offset_of(std::span<const std::int64_t> index, const char* function) const {
  if (empty()) detail::fail(function, "the tensor is empty (default-constructed)");
  if (index.size() != shape_.size())
    detail::fail(function, index.size(), " indices for ", shape_text(shape_), " (one per dim)");
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < index.size(); ++d) {
    if (index[d] < 0 || index[d] >= shape_[d])
      detail::fail(function, "index ", shape_text(Shape(index.begin(), index.end())), " is out of range for ",
                   shape_text(shape_));
    offset += index[d] * strides_[d];
  }
  return offset;
}

// The offset first: it refuses an empty tensor (no storage) before anything dereferences it (in
// (*storage_)[offset_of(…)] the object is evaluated before the index, which UBSan reports).
float& Tensor::at(std::span<const std::int64_t> index) {
  const auto offset = static_cast<std::size_t>(offset_of(index, "Tensor::at"));
  return (*storage_)[offset];
}

float Tensor::at(std::span<const std::int64_t> index) const {
  const auto offset = static_cast<std::size_t>(offset_of(index, "Tensor::at"));
  return (*storage_)[offset];
}

Tensor Tensor::view(const Shape& shape) const {
  if (empty()) detail::fail("Tensor::view", "the tensor is empty (default-constructed)");
  Tensor result = *this;
  result.shape_ = infer_shape("Tensor::view", shape, shape_, numel());
  if (!view_strides(shape_, strides_, result.shape_, result.strides_))
    detail::fail("Tensor::view", shape_text(shape_), " with strides ", shape_text(strides_), " cannot be viewed as ",
                 shape_text(result.shape_), " without copying (use reshape, or contiguous() first)");
  return result;
}

Tensor Tensor::reshape(const Shape& shape) const {
  if (empty()) detail::fail("Tensor::reshape", "the tensor is empty (default-constructed)");
  Tensor result = *this;
  result.shape_ = infer_shape("Tensor::reshape", shape, shape_, numel());
  if (view_strides(shape_, strides_, result.shape_, result.strides_)) return result;
  return contiguous().view(result.shape_);
}

Tensor Tensor::permute(const Shape& dims) const {
  if (empty()) detail::fail("Tensor::permute", "the tensor is empty (default-constructed)");
  if (dims.size() != shape_.size())
    detail::fail("Tensor::permute", "dims ", shape_text(dims), " are not a permutation of the ", rank(), " dims of ",
                 shape_text(shape_));
  Tensor result = *this;
  std::vector<bool> used(shape_.size(), false);
  for (std::size_t n = 0; n < dims.size(); ++n) {
    const int d = normalise_dim("Tensor::permute", dims[n], rank(), shape_);
    if (used[d])
      detail::fail("Tensor::permute", "dims ", shape_text(dims), " are not a permutation of the ", rank(),
                   " dims of ", shape_text(shape_));
    used[d] = true;
    result.shape_[n] = shape_[d];
    result.strides_[n] = strides_[d];
  }
  return result;
}

Tensor Tensor::transpose(int d0, int d1) const {
  if (empty()) detail::fail("Tensor::transpose", "the tensor is empty (default-constructed)");
  const int a = normalise_dim("Tensor::transpose", d0, rank(), shape_);
  const int b = normalise_dim("Tensor::transpose", d1, rank(), shape_);
  Tensor result = *this;
  std::swap(result.shape_[a], result.shape_[b]);
  std::swap(result.strides_[a], result.strides_[b]);
  return result;
}

Tensor Tensor::unsqueeze(int dim) const {
  if (empty()) detail::fail("Tensor::unsqueeze", "the tensor is empty (default-constructed)");
  if (rank() == kMaxTensorRank)
    detail::fail("Tensor::unsqueeze", shape_text(shape_), " already has ", kMaxTensorRank,
                 " dims (the most a Tensor has)");
  const int d = normalise_dim("Tensor::unsqueeze", dim, rank() + 1, shape_);
  Tensor result = *this;
  // Any stride serves a dim of size 1; PyTorch's choice keeps a contiguous tensor's strides row-major.
  const std::int64_t stride = d < rank() ? shape_[d] * strides_[d] : 1;
  result.shape_.insert(result.shape_.begin() + d, 1);
  result.strides_.insert(result.strides_.begin() + d, stride);
  return result;
}

Tensor Tensor::expand(const Shape& shape) const {
  if (empty()) detail::fail("Tensor::expand", "the tensor is empty (default-constructed)");
  checked_numel("Tensor::expand", "shape", shape);
  if (shape.size() < shape_.size())
    detail::fail("Tensor::expand", shape_text(shape_), " cannot expand to ", shape_text(shape), " (fewer dims)");
  Tensor result = *this;
  result.shape_ = shape;
  result.strides_.assign(shape.size(), 0);  // new leading dims repeat: stride 0
  const std::size_t lead = shape.size() - shape_.size();
  for (std::size_t d = 0; d < shape_.size(); ++d) {
    if (shape_[d] == shape[lead + d])
      result.strides_[lead + d] = strides_[d];
    else if (shape_[d] != 1)
      detail::fail("Tensor::expand", shape_text(shape_), " cannot expand to ", shape_text(shape), " (dim ", d,
                   " is ", shape_[d], ", not 1 or ", shape[lead + d], ")");
  }
  return result;
}

Tensor Tensor::contiguous() const {
  if (empty()) detail::fail("Tensor::contiguous", "the tensor is empty (default-constructed)");
  if (is_contiguous()) return *this;
  return Tensor(shape_, to_vector());
}

std::vector<float> Tensor::to_vector() const {
  if (empty()) return {};
  detail::require_within_budget("Tensor::to_vector", 1, static_cast<double>(numel()), 1, "the elements");
  std::vector<float> values(static_cast<std::size_t>(numel()));
  // Row by row over the last dim: the odometer visits each row's start, and a row is one tight loop
  // (a plain copy when its elements are adjacent, as after permutes that keep the last dim).
  const float* storage = storage_->data();
  float* out = values.data();
  const std::int64_t length = shape_.back(), step = strides_.back();
  const Shape outer_shape(shape_.begin(), shape_.end() - 1), outer_strides(strides_.begin(), strides_.end() - 1);
  for_each_offset(outer_shape, outer_strides, [&](std::int64_t offset) {
    const float* row = storage + offset;
    if (step == 1) {
      out = std::copy(row, row + length, out);
    } else {
      for (std::int64_t j = 0; j < length; ++j) *out++ = row[j * step];
    }
  });
  return values;
}

std::int64_t Tensor::matrix_count() const { return rank() < 2 ? 0 : numel() / (shape_[rank() - 2] * shape_[rank() - 1]); }

std::int64_t Tensor::matrix_offset(std::int64_t index, const char* function) const {
  if (empty()) detail::fail(function, "the tensor is empty (default-constructed)");
  if (rank() < 2) detail::fail(function, shape_text(shape_), " has fewer than 2 dims");
  if (index < 0 || index >= matrix_count())
    detail::fail(function, "slice ", index, " is out of range for ", shape_text(shape_), " (", matrix_count(),
                 " slices)");
  // The slice number in row-major order of the leading dims, last leading dim fastest.
  std::int64_t offset = 0;
  for (int d = rank() - 3; d >= 0; --d) {
    offset += (index % shape_[d]) * strides_[d];
    index /= shape_[d];
  }
  return offset;
}

Matrix Tensor::matrix(std::int64_t index) const {
  // (…, rows, cols) → slice `index` as a [rows×cols] Matrix
  const std::int64_t offset = matrix_offset(index, "Tensor::matrix");  // (an Error first when empty)
  const float* base = storage_->data() + offset;
  const std::int64_t rows = shape_[rank() - 2], cols = shape_[rank() - 1];
  const std::int64_t row_stride = strides_[rank() - 2], col_stride = strides_[rank() - 1];
  Matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  float* out = m.data();  // row-major
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = base + r * row_stride;
    if (col_stride == 1) {
      out = std::copy(row, row + cols, out);  // a row's elements adjacent: one copy
    } else {
      for (std::int64_t c = 0; c < cols; ++c) *out++ = row[c * col_stride];
    }
  }
  return m;
}

void Tensor::set_matrix(std::int64_t index, const Matrix& values) {
  // [rows×cols] → slice `index` of (…, rows, cols)
  const std::int64_t offset = matrix_offset(index, "Tensor::set_matrix");
  const std::int64_t rows = shape_[rank() - 2], cols = shape_[rank() - 1];
  if (values.rows() != rows || values.cols() != cols)
    detail::fail("Tensor::set_matrix", "values ", shape_text(Shape{values.rows(), values.cols()}),
                 " do not match the slices ", shape_text(Shape{rows, cols}), " of ", shape_text(shape_));
  float* base = storage_->data() + offset;
  const std::int64_t row_stride = strides_[rank() - 2], col_stride = strides_[rank() - 1];
  const float* in = values.data();  // row-major
  for (std::int64_t r = 0; r < rows; ++r, in += cols) {
    float* row = base + r * row_stride;
    if (col_stride == 1) {
      std::copy(in, in + cols, row);
    } else {
      for (std::int64_t c = 0; c < cols; ++c) row[c * col_stride] = in[c];
    }
  }
}

}  // namespace attnlab
