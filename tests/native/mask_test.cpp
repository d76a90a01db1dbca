#include <gtest/gtest.h>

#include "attnlab/attention/mask.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

Matrix rows(int r, int c, std::initializer_list<float> values) {
  Matrix m(r, c);
  std::copy(values.begin(), values.end(), m.data());
  return m;
}

TEST(Masks, CausalIsLowerTriangularLikeTorchTril) {
  EXPECT_EQ(causal_mask(4), rows(4, 4, {1, 0, 0, 0,  //
                                        1, 1, 0, 0,  //
                                        1, 1, 1, 0,  //
                                        1, 1, 1, 1}));
}

TEST(Masks, RectangularCausalIsAlignedToTheLastKey) {
  // Decoding with a cache: 2 new queries are positions 2 and 3 of a 4-key sequence.
  EXPECT_EQ(causal_mask(2, 4), rows(2, 4, {1, 1, 1, 0,  //
                                           1, 1, 1, 1}));
  // More queries than keys: the first rows see nothing (and will get zero weights).
  EXPECT_EQ(causal_mask(4, 2), rows(4, 2, {0, 0,  //
                                           0, 0,  //
                                           1, 0,  //
                                           1, 1}));
}

TEST(Masks, KeyPaddingBlocksKeysPastTheValidLength) {
  EXPECT_EQ(key_padding_mask(2, 5, 3), rows(2, 5, {1, 1, 1, 0, 0,  //
                                                   1, 1, 1, 0, 0}));
  const std::vector<Matrix> batch = key_padding_masks(1, 3, {3, 1});
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0], rows(1, 3, {1, 1, 1}));
  EXPECT_EQ(batch[1], rows(1, 3, {1, 0, 0}));
}

TEST(Masks, CombineIsElementwiseAnd) {
  EXPECT_EQ(combine_masks(causal_mask(3), key_padding_mask(3, 3, 2)), rows(3, 3, {1, 0, 0,  //
                                                                                  1, 1, 0,  //
                                                                                  1, 1, 0}));
}

}  // namespace
}  // namespace attnlab
