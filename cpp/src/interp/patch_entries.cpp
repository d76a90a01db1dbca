#include "interp/patch_entries.hpp"

#include <numeric>

namespace attnlab {

void apply_patch(const Patch& patch, Matrix& value, const GPTConfig& config, int T) {
  // value [rows×cols] → the chosen segments replaced
  const HookPoint point = patch.point;
  const bool square = point.hook == Hook::attn_scores || point.hook == Hook::pattern;  // (heads, T, T)
  std::vector<int> positions = patch.positions, heads = patch.heads;
  if (positions.empty()) positions.resize(static_cast<std::size_t>(T)), std::iota(positions.begin(), positions.end(), 0);
  if (heads.empty()) {
    if (point.per_head()) heads.resize(static_cast<std::size_t>(config.num_heads)), std::iota(heads.begin(), heads.end(), 0);
    else heads = {-1};  // the whole row
  }
  const Eigen::Index d_head = config.head_dim();
  // Head h's rows and columns: [T×T] rows h·T … of a square point; d_head columns h·d_head … of a
  // (T, heads, d_head) one; everything of a point without heads.
  const auto head_block = [&](auto& m, int h) {
    if (h < 0) return m.block(0, 0, m.rows(), m.cols());
    if (square) return m.block(static_cast<Eigen::Index>(h) * T, 0, T, m.cols());
    return m.block(0, h * d_head, T, d_head);
  };
  Matrix source;
  if (patch.source == PatchSource::value) {
    const std::vector<float> data = patch.value.contiguous().to_vector();
    source = Eigen::Map<const Matrix>(data.data(), value.rows(), value.cols());
  }
  for (const int h : heads) {
    auto block = head_block(value, h);
    // The mean over the run's own positions, taken before any row of this head changes.
    const Eigen::RowVectorXf mean = block.colwise().mean();
    for (const int position : positions) {
      switch (patch.source) {
        case PatchSource::value: block.row(position) = head_block(source, h).row(position); break;
        case PatchSource::zero: block.row(position).setZero(); break;
        case PatchSource::mean: block.row(position) = mean; break;
      }
    }
  }
}

}  // namespace attnlab
