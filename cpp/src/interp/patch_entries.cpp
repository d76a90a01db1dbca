#include "interp/patch_entries.hpp"

#include <numeric>
#include <vector>

namespace attnlab {

void write_patch(PatchSource source, const Tensor& values, std::span<const int> chosen_positions,
                 std::span<const int> chosen_heads, PatchLayout layout, Matrix& value, int T) {
  // value [rows×cols] → the chosen segments replaced
  std::vector<int> positions(chosen_positions.begin(), chosen_positions.end()), heads(chosen_heads.begin(), chosen_heads.end());
  if (positions.empty()) positions.resize(static_cast<std::size_t>(T)), std::iota(positions.begin(), positions.end(), 0);
  if (heads.empty()) {
    if (layout.heads > 0) heads.resize(static_cast<std::size_t>(layout.heads)), std::iota(heads.begin(), heads.end(), 0);
    else heads = {-1};  // the whole row
  }
  const Eigen::Index d_head = layout.head_dim;
  // Head h's rows and columns: [T×T] rows h·T … of a square point; d_head columns h·d_head … of a
  // (T, heads, d_head) one; everything of a point without heads.
  const auto head_block = [&](auto& m, int h) {
    if (h < 0) return m.block(0, 0, m.rows(), m.cols());
    if (layout.square) return m.block(static_cast<Eigen::Index>(h) * T, 0, T, m.cols());
    return m.block(0, h * d_head, T, d_head);
  };
  Matrix replacement;
  if (source == PatchSource::value) {
    const std::vector<float> data = values.contiguous().to_vector();
    replacement = Eigen::Map<const Matrix>(data.data(), value.rows(), value.cols());
  }
  for (const int h : heads) {
    auto block = head_block(value, h);
    // The mean over the run's own positions, taken before any row of this head changes.
    const Eigen::RowVectorXf mean = block.colwise().mean();
    for (const int position : positions) {
      switch (source) {
        case PatchSource::value: block.row(position) = head_block(replacement, h).row(position); break;
        case PatchSource::zero: block.row(position).setZero(); break;
        case PatchSource::mean: block.row(position) = mean; break;
      }
    }
  }
}

void apply_patch(const Patch& patch, Matrix& value, int heads, int head_dim, int T) {
  const bool square = patch.point.hook == Hook::attn_scores || patch.point.hook == Hook::pattern;  // (heads, T, T)
  write_patch(patch.source, patch.value, patch.positions, patch.heads,
              {.heads = patch.point.per_head() ? heads : 0, .head_dim = head_dim, .square = square}, value, T);
}

}  // namespace attnlab
