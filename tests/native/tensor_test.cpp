// Tensor: shapes, strides and views against hand-written index arithmetic, PyTorch's broadcasting
// rules, and every error with its exact message.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "attnlab/tensor/tensor.hpp"
#include "expect_error.hpp"

namespace attnlab {
namespace {

// 0, 1, 2, … in row-major order: each element holds its own flat index, so after any view or
// permutation the value read says which element of the original it is.
Tensor arange(const Shape& shape) {
  std::int64_t count = 1;
  for (std::int64_t size : shape) count *= size;
  std::vector<float> values(static_cast<std::size_t>(count));
  std::iota(values.begin(), values.end(), 0.0f);
  return Tensor(shape, values);
}

float flat(std::int64_t index) { return static_cast<float>(index); }

TEST(TensorShapeText, WritesPythonTuples) {
  EXPECT_EQ(shape_text(Shape{2, 4, 8}), "(2, 4, 8)");
  EXPECT_EQ(shape_text(Shape{4}), "(4,)");
  EXPECT_EQ(shape_text(Shape{}), "()");
  EXPECT_EQ(shape_text(Tensor(Shape{2, 8, 10, 10})), "(2, 8, 10, 10)");
}

TEST(TensorBroadcast, EqualShapes) {
  EXPECT_EQ(broadcast_shapes({2, 8, 10, 10}, {2, 8, 10, 10}), (Shape{2, 8, 10, 10}));
}

TEST(TensorBroadcast, OneAgainstNEitherSide) {
  EXPECT_EQ(broadcast_shapes({1, 1, 4, 4}, {2, 2, 4, 4}), (Shape{2, 2, 4, 4}));
  EXPECT_EQ(broadcast_shapes({2, 2, 4, 4}, {2, 1, 1, 4}), (Shape{2, 2, 4, 4}));
  EXPECT_EQ(broadcast_shapes({4, 1}, {1, 3}), (Shape{4, 3}));
}

TEST(TensorBroadcast, MissingLeadingDimsCountAsOne) {
  EXPECT_EQ(broadcast_shapes({4, 4}, {2, 8, 4, 4}), (Shape{2, 8, 4, 4}));
  EXPECT_EQ(broadcast_shapes({4, 1}, {3}), (Shape{4, 3}));
  EXPECT_EQ(broadcast_shapes({}, {2, 3}), (Shape{2, 3}));
  EXPECT_EQ(broadcast_shapes({}, {}), Shape{});
}

TEST(TensorBroadcast, MismatchIsAnError) {
  expect_error([] { broadcast_shapes({2, 3}, {4}); },
               "broadcast_shapes: (2, 3) and (4,) do not broadcast (3 vs 4 at dim -1: aligned from the right, each "
               "pair must be equal or 1)");
  expect_error([] { broadcast_shapes({1, 1, 10, 9}, {2, 8, 10, 10}); },
               "broadcast_shapes: (1, 1, 10, 9) and (2, 8, 10, 10) do not broadcast (9 vs 10 at dim -1: aligned from "
               "the right, each pair must be equal or 1)");
  expect_error([] { broadcast_shapes({3, 4, 4}, {2, 1, 4}); },
               "broadcast_shapes: (3, 4, 4) and (2, 1, 4) do not broadcast (3 vs 2 at dim -3: aligned from the "
               "right, each pair must be equal or 1)");
  expect_error([] { broadcast_shapes({2, 0}, {2, 1}); },
               "broadcast_shapes: (2, 0) has size 0 (every dim must be at least 1)");
  expect_error([] { broadcast_shapes({1, 1, 1, 1, 1, 1}, {2}); },
               "broadcast_shapes: (1, 1, 1, 1, 1, 1) has 6 dims; a Tensor has at most 5");
}

TEST(TensorBroadcast, BroadcastsToOneWay) {
  // A mask must broadcast to the scores themselves: only its own dims may be 1 or missing.
  EXPECT_TRUE(broadcasts_to({1, 1, 4, 4}, {2, 8, 4, 4}));
  EXPECT_TRUE(broadcasts_to({4, 4}, {2, 8, 4, 4}));
  EXPECT_TRUE(broadcasts_to({2, 1, 1, 4}, {2, 8, 4, 4}));
  EXPECT_TRUE(broadcasts_to({2, 8, 4, 4}, {2, 8, 4, 4}));
  EXPECT_FALSE(broadcasts_to({1, 1, 10, 9}, {2, 8, 10, 10}));
  EXPECT_FALSE(broadcasts_to({2, 8, 4, 4}, {1, 8, 4, 4}));  // broadcast_shapes would give (2, 8, 4, 4)
  EXPECT_FALSE(broadcasts_to({1, 2, 8, 4, 4}, {2, 8, 4, 4}));  // more dims
}

TEST(TensorConstruction, ZerosDataAndStrides) {
  const Tensor zeros(Shape{2, 3});
  EXPECT_EQ(zeros.shape(), (Shape{2, 3}));
  EXPECT_EQ(zeros.strides(), (Shape{3, 1}));
  EXPECT_EQ(zeros.to_vector(), std::vector<float>(6, 0.0f));
  const Tensor x = arange({2, 4, 8});
  EXPECT_EQ(x.rank(), 3);
  EXPECT_EQ(x.numel(), 64);
  EXPECT_EQ(x.strides(), (Shape{32, 8, 1}));
  EXPECT_EQ(x.size(-1), 8);
  EXPECT_EQ(x.size(0), 2);
  EXPECT_TRUE(x.is_contiguous());
  // Element (b, s, c) of a row-major (2, 4, 8) tensor is element b·32 + s·8 + c.
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t s = 0; s < 4; ++s)
      for (std::int64_t c = 0; c < 8; ++c) EXPECT_EQ(x.at({b, s, c}), flat(b * 32 + s * 8 + c));
}

TEST(TensorConstruction, StridedViewOfData) {
  // A (2, 3) view with strides (1, 2) over 6 values is the transpose of the (3, 2) matrix they fill.
  const Tensor t(Shape{2, 3}, Shape{1, 2}, std::vector<float>{0, 1, 2, 3, 4, 5});
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j) EXPECT_EQ(t.at({i, j}), flat(i + 2 * j));
  EXPECT_FALSE(t.is_contiguous());
  // Stride 0 repeats: one row seen three times.
  const Tensor repeated(Shape{3, 2}, Shape{0, 1}, std::vector<float>{7, 8});
  EXPECT_EQ(repeated.to_vector(), (std::vector<float>{7, 8, 7, 8, 7, 8}));
}

TEST(TensorConstruction, FromMatrixAndBack) {
  Matrix m(2, 3);
  m << 1, 2, 3, 4, 5, 6;
  const Tensor t(m);
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.at({1, 0}), 4.0f);
  EXPECT_EQ(t.matrix(), m);
  EXPECT_EQ(t.transpose(0, 1).matrix(), Matrix(m.transpose()));
}

TEST(TensorConstruction, BadShapesAndDataAreErrors) {
  expect_error([] { Tensor(Shape{1, 2, 3, 4, 5, 6}); }, "Tensor: shape (1, 2, 3, 4, 5, 6) has 6 dims; a Tensor has 1 to 5");
  expect_error([] { Tensor(Shape{}); }, "Tensor: shape () has 0 dims; a Tensor has 1 to 5");
  expect_error([] { Tensor(Shape{2, 0, 3}); }, "Tensor: shape (2, 0, 3) has size 0 at dim 1 (every dim must be at least 1)");
  expect_error([] { Tensor(Shape{-2, 3}); }, "Tensor: shape (-2, 3) has size -2 at dim 0 (every dim must be at least 1)");
  expect_error([] { Tensor(Shape{2, 3}, std::vector<float>(5)); }, "Tensor: shape (2, 3) holds 6 elements but data has 5");
  expect_error([] { Tensor(Shape{2, 3}, Shape{3, 1, 1}, std::vector<float>(6)); },
               "Tensor: strides (3, 1, 1) do not match shape (2, 3) (one stride per dim)");
  expect_error([] { Tensor(Shape{2, 3}, Shape{-3, 1}, std::vector<float>(6)); },
               "Tensor: strides (-3, 1) have a negative stride at dim 0");
  expect_error([] { Tensor(Shape{2, 3}, Shape{4, 1}, std::vector<float>(6)); },
               "Tensor: strides (4, 1) over shape (2, 3) reach data[6] but data has 6 elements");
  expect_error([] { Tensor(Matrix(0, 3)); }, "Tensor: shape (0, 3) has size 0 at dim 0 (every dim must be at least 1)");
}

TEST(TensorAccess, OutOfRangeAndEmptyAreErrors) {
  Tensor x = arange({2, 3});
  expect_error([&] { x.at({2, 0}); }, "Tensor::at: index (2, 0) is out of range for (2, 3)");
  expect_error([&] { x.at({0, -1}); }, "Tensor::at: index (0, -1) is out of range for (2, 3)");
  expect_error([&] { x.at({1}); }, "Tensor::at: 1 indices for (2, 3) (one per dim)");
  expect_error([&] { x.size(2); }, "Tensor::size: dim 2 is out of range for (2, 3) (expected -2 … 1)");
  const Tensor none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.numel(), 0);
  expect_error([&] { none.at({0}); }, "Tensor::at: the tensor is empty (default-constructed)");
  expect_error([&] { none.view({1}); }, "Tensor::view: the tensor is empty (default-constructed)");
  expect_error([&] { none.matrix(); }, "Tensor::matrix: the tensor is empty (default-constructed)");
}

TEST(TensorView, SplitHeadsSharesStorage) {
  // The tutorials' split: (batch, seq, d_model) = (2, 4, 8) → (batch, seq, heads, d_k) = (2, 4, 2, 4).
  Tensor x = arange({2, 4, 8});
  const Tensor heads = x.view({2, 4, 2, 4});
  EXPECT_EQ(heads.strides(), (Shape{32, 8, 4, 1}));
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t s = 0; s < 4; ++s)
      for (std::int64_t h = 0; h < 2; ++h)
        for (std::int64_t d = 0; d < 4; ++d) EXPECT_EQ(heads.at({b, s, h, d}), flat(b * 32 + s * 8 + h * 4 + d));
  x.at({1, 2, 5}) = -1.0f;  // a view: writing through one is seen through the other
  EXPECT_EQ(heads.at({1, 2, 1, 1}), -1.0f);
  EXPECT_EQ(x.view({2, -1, 2, 4}).shape(), (Shape{2, 4, 2, 4}));  // x.view(batch, -1, heads, d_k)
  EXPECT_EQ(x.view({-1}).shape(), (Shape{64}));
}

TEST(TensorView, NonContiguousSplitsButCannotMerge) {
  // (2, 3, 4).transpose(0, 1) is (3, 2, 4) with strides (4, 12, 1). Splitting its last dim keeps
  // every element where it is; merging dims 1 and 2 (strides 12 and 1) would need a copy.
  const Tensor t = arange({2, 3, 4}).transpose(0, 1);
  EXPECT_EQ(t.strides(), (Shape{4, 12, 1}));
  const Tensor split = t.view({3, 2, 2, 2});
  EXPECT_EQ(split.strides(), (Shape{4, 12, 2, 1}));
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 2; ++j)
      for (std::int64_t k = 0; k < 4; ++k) EXPECT_EQ(split.at({i, j, k / 2, k % 2}), flat(j * 12 + i * 4 + k));
  expect_error([&] { t.view({3, 8}); },
               "Tensor::view: (3, 2, 4) with strides (4, 12, 1) cannot be viewed as (3, 8) without copying (use "
               "reshape, or contiguous() first)");
}

TEST(TensorView, BadShapesAreErrors) {
  const Tensor x = arange({3, 4});
  expect_error([&] { x.view({5, 3}); }, "Tensor::view: cannot view (3, 4) (12 elements) as (5, 3) (15 elements)");
  expect_error([&] { x.reshape({5, 3}); },
               "Tensor::reshape: cannot view (3, 4) (12 elements) as (5, 3) (15 elements)");
  expect_error([&] { x.view({-1, 5}); },
               "Tensor::view: cannot view (3, 4) (12 elements) as (-1, 5) (12 is not a multiple of 5)");
  expect_error([&] { x.view({-1, -1}); }, "Tensor::view: shape (-1, -1) has more than one -1");
  expect_error([&] { x.view({-2, -6}); },
               "Tensor::view: shape (-2, -6) has size -2 at dim 0 (every dim must be at least 1, or -1 for one to "
               "infer)");
  expect_error([&] { x.view({12, 0}); },
               "Tensor::view: shape (12, 0) has size 0 at dim 1 (every dim must be at least 1, or -1 for one to "
               "infer)");
  expect_error([&] { x.view({1, 1, 1, 1, 3, 4}); },
               "Tensor::view: shape (1, 1, 1, 1, 3, 4) has 6 dims; a Tensor has 1 to 5");
}

TEST(TensorReshape, ViewsWhenItCanCopiesWhenItMust) {
  Tensor x = arange({2, 3, 4});
  const Tensor same = x.reshape({6, 4});
  x.at({0, 0, 0}) = 99.0f;
  EXPECT_EQ(same.at({0, 0}), 99.0f);  // a view
  const Tensor t = arange({2, 3, 4}).transpose(0, 1);  // (3, 2, 4)
  Tensor merged = t.reshape({3, 8});
  EXPECT_TRUE(merged.is_contiguous());
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t c = 0; c < 8; ++c) EXPECT_EQ(merged.at({i, c}), flat((c / 4) * 12 + i * 4 + c % 4));
  merged.at({0, 0}) = -5.0f;
  EXPECT_EQ(t.at({0, 0, 0}), 0.0f);  // a copy
}

TEST(TensorPermute, MovesDimsAndStrides) {
  const Tensor x = arange({2, 3, 4});
  const Tensor y = x.permute({2, 0, 1});  // y[k][i][j] = x[i][j][k]
  EXPECT_EQ(y.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(y.strides(), (Shape{1, 12, 4}));
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t k = 0; k < 4; ++k) EXPECT_EQ(y.at({k, i, j}), flat(i * 12 + j * 4 + k));
  EXPECT_EQ(x.permute({-1, 0, 1}).shape(), (Shape{4, 2, 3}));
  expect_error([&] { x.permute({0, 0, 1}); },
               "Tensor::permute: dims (0, 0, 1) are not a permutation of the 3 dims of (2, 3, 4)");
  expect_error([&] { x.permute({1, 0}); },
               "Tensor::permute: dims (1, 0) are not a permutation of the 3 dims of (2, 3, 4)");
  expect_error([&] { x.permute({0, 1, 3}); },
               "Tensor::permute: dim 3 is out of range for (2, 3, 4) (expected -3 … 2)");
}

TEST(TensorTranspose, TutorialHeadsAndKeysTransposed) {
  // (batch, seq, heads, d_k) = (2, 4, 2, 4) → transpose(1, 2) → (batch, heads, seq, d_k).
  const Tensor q = arange({2, 4, 8}).view({2, 4, 2, 4}).transpose(1, 2);
  EXPECT_EQ(q.shape(), (Shape{2, 2, 4, 4}));
  EXPECT_FALSE(q.is_contiguous());
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t s = 0; s < 4; ++s)
        for (std::int64_t d = 0; d < 4; ++d) EXPECT_EQ(q.at({b, h, s, d}), flat(b * 32 + s * 8 + h * 4 + d));
  // k.transpose(-2, -1): (…, seq, d_k) → (…, d_k, seq).
  const Tensor kt = q.transpose(-2, -1);
  EXPECT_EQ(kt.shape(), (Shape{2, 2, 4, 4}));
  EXPECT_EQ(kt.at({1, 0, 3, 2}), q.at({1, 0, 2, 3}));
  expect_error([&] { q.transpose(0, 4); }, "Tensor::transpose: dim 4 is out of range for (2, 2, 4, 4) (expected -4 … 3)");
  expect_error([&] { q.transpose(-5, 0); },
               "Tensor::transpose: dim -5 is out of range for (2, 2, 4, 4) (expected -4 … 3)");
}

TEST(TensorContiguous, CopiesInRowMajorOrder) {
  const Tensor x = arange({2, 3});
  EXPECT_TRUE(x.contiguous().is_contiguous());
  const Tensor t = x.transpose(0, 1);  // (3, 2): t[i][j] = x[j][i] = j·3 + i
  const Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.strides(), (Shape{2, 1}));
  EXPECT_EQ(c.to_vector(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(t.to_vector(), c.to_vector());
  // Then combine the heads back: (2, 2, 4, 4).transpose(1, 2).contiguous().view(2, 4, 8) is x again.
  const Tensor y = arange({2, 4, 8});
  const Tensor heads = y.view({2, 4, 2, 4}).transpose(1, 2);
  EXPECT_EQ(heads.transpose(1, 2).contiguous().view({2, 4, 8}).to_vector(), y.to_vector());
}

TEST(TensorUnsqueeze, MaskToBroadcastShape) {
  // The tutorials' mask (seq, seq) → (1, 1, seq, seq).
  const Tensor mask = arange({4, 4});
  const Tensor m = mask.unsqueeze(0).unsqueeze(0);
  EXPECT_EQ(m.shape(), (Shape{1, 1, 4, 4}));
  EXPECT_TRUE(m.is_contiguous());
  EXPECT_EQ(m.at({0, 0, 2, 3}), flat(11));
  EXPECT_EQ(mask.unsqueeze(-1).shape(), (Shape{4, 4, 1}));
  EXPECT_EQ(mask.unsqueeze(1).shape(), (Shape{4, 1, 4}));
  expect_error([&] { mask.unsqueeze(3); }, "Tensor::unsqueeze: dim 3 is out of range for (4, 4) (expected -3 … 2)");
  expect_error([] { arange({1, 1, 1, 2, 2}).unsqueeze(0); },
               "Tensor::unsqueeze: (1, 1, 1, 2, 2) already has 5 dims (the most a Tensor has)");
}

TEST(TensorExpand, RepeatsWithStrideZero) {
  const Tensor mask = arange({1, 1, 4, 4});
  const Tensor e = mask.expand({2, 3, 4, 4});
  EXPECT_EQ(e.strides(), (Shape{0, 0, 4, 1}));
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t h = 0; h < 3; ++h) EXPECT_EQ(e.at({b, h, 1, 2}), flat(6));
  EXPECT_EQ(arange({4}).expand({3, 4}).at({2, 1}), flat(1));  // a new leading dim
  expect_error([&] { arange({3, 1}).expand({2, 4}); }, "Tensor::expand: (3, 1) cannot expand to (2, 4) (dim 0 is 3, not 1 or 2)");
  expect_error([&] { mask.expand({4, 4}); }, "Tensor::expand: (1, 1, 4, 4) cannot expand to (4, 4) (fewer dims)");
}

TEST(TensorMatrix, SlicesInRowMajorOrderOfLeadingDims) {
  Tensor x = arange({2, 3, 2, 4});
  EXPECT_EQ(x.matrix_count(), 6);
  // Slice 5 is [1, 2]: its (r, c) is element 1·24 + 2·8 + r·4 + c.
  const Matrix m = x.matrix(5);
  ASSERT_EQ(m.rows(), 2);
  ASSERT_EQ(m.cols(), 4);
  for (Eigen::Index r = 0; r < 2; ++r)
    for (Eigen::Index c = 0; c < 4; ++c) EXPECT_EQ(m(r, c), flat(24 + 16 + r * 4 + c));
  // Through a permuted view: slice [h, b] of (heads, batch, 2, 4) reads x[b, h].
  const Tensor p = x.permute({1, 0, 2, 3});
  EXPECT_EQ(p.matrix(1 * 2 + 1), x.matrix(1 * 3 + 1));
  x.set_matrix(0, Matrix::Constant(2, 4, -1.0f));
  EXPECT_EQ(x.at({0, 0, 1, 3}), -1.0f);
  expect_error([&] { x.matrix(6); }, "Tensor::matrix: slice 6 is out of range for (2, 3, 2, 4) (6 slices)");
  expect_error([&] { arange({4}).matrix(); }, "Tensor::matrix: (4,) has fewer than 2 dims");
  expect_error([&] { x.set_matrix(0, Matrix::Zero(4, 2)); },
               "Tensor::set_matrix: values (4, 2) do not match the slices (2, 4) of (2, 3, 2, 4)");
}

}  // namespace
}  // namespace attnlab
