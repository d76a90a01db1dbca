// Packing op(B) into the panels the register-blocked GEMMs read (x86.cpp and simd128.cpp), with the
// transpose of Kᵀ done a square block at a time in registers by the caller's instruction set.
#pragma once

#include <algorithm>

#include "kernels.hpp"

namespace attnlab::kernels {

// op(B) [depth×cols] into panels of `width` columns: panel j is `depth` rows of `width` floats (columns
// j·width …), zero-padded past `cols`. B is [depth×cols], or [cols×depth] when transposed (Kᵀ from K:
// kBlock×kBlock blocks by transpose_block(src, src row stride, dst, dst row stride), which writes
// dst[i][j] = src[j][i]; the edges one float at a time). `packed`'s storage is reused, so only the
// padding is cleared, not the whole buffer. width is a multiple of kBlock.
template <int kBlock, typename TransposeBlock>
void pack_panels(MatrixView b, bool transposed, int width, PackedMatrix& packed, TransposeBlock transpose_block) {
  packed.depth = transposed ? b.cols() : b.rows();
  packed.cols = transposed ? b.rows() : b.cols();
  packed.width = width;
  const Eigen::Index depth = packed.depth, panels = (packed.cols + width - 1) / width, ldb = b.outerStride();
  packed.data.resize(static_cast<std::size_t>(panels * depth * width));
  for (Eigen::Index j0 = 0; j0 < packed.cols; j0 += width) {
    const Eigen::Index w = std::min<Eigen::Index>(width, packed.cols - j0);
    float* panel = packed.data.data() + j0 * depth;
    if (transposed) {  // column j0 + jj of op(B) is row j0 + jj of B
      const float* rows = b.data() + j0 * ldb;
      const Eigen::Index w_blocks = w / kBlock * kBlock, depth_blocks = depth / kBlock * kBlock;
      for (Eigen::Index jj = 0; jj < w_blocks; jj += kBlock)
        for (Eigen::Index p = 0; p < depth_blocks; p += kBlock)
          transpose_block(rows + jj * ldb + p, ldb, panel + p * width + jj, width);
      for (Eigen::Index p = 0; p < depth; ++p)
        for (Eigen::Index jj = p < depth_blocks ? w_blocks : 0; jj < w; ++jj) panel[p * width + jj] = rows[jj * ldb + p];
    } else {
      for (Eigen::Index p = 0; p < depth; ++p)  // a plain loop: copy_n calls memmove for each 32-byte row
        for (Eigen::Index jj = 0; jj < w; ++jj) panel[p * width + jj] = b.data()[p * ldb + j0 + jj];
    }
    if (w < width)
      for (Eigen::Index p = 0; p < depth; ++p) std::fill(panel + p * width + w, panel + (p + 1) * width, 0.0f);
  }
}

}  // namespace attnlab::kernels
