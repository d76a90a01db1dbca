#include "attnlab/attention/grouped_attention.hpp"

#include <cmath>
#include <limits>

#include "kernels/kernels.hpp"
#include "tensor/checks.hpp"
#include "tensor/parallel.hpp"

namespace attnlab {

Matrix grouped_attention(Eigen::Ref<const Matrix> q, Eigen::Ref<const Matrix> k, Eigen::Ref<const Matrix> v,
                         const GroupedAttentionShape& shape, std::vector<Matrix>* weights, std::vector<Matrix>* scores_out) {
  // q [Tq × H·hd], k, v [Tk × Hkv·hd] → z [Tq × H·hd]
  const char* fn = "grouped_attention";
  const int H = shape.num_heads, Hkv = shape.num_kv_heads, hd = shape.head_dim;
  if (H <= 0 || Hkv <= 0 || hd <= 0 || H % Hkv != 0)
    detail::fail(fn, "num_heads = ", H, " must be a positive multiple of num_kv_heads = ", Hkv, " (head_dim ", hd, ")");
  const Eigen::Index Tq = q.rows(), Tk = k.rows();
  if (q.cols() != static_cast<Eigen::Index>(H) * hd)
    detail::fail(fn, "q is (", Tq, ", ", q.cols(), ") but ", H, " heads of ", hd, " need ", H * hd, " columns");
  if (k.cols() != static_cast<Eigen::Index>(Hkv) * hd || v.rows() != Tk || v.cols() != k.cols())
    detail::fail(fn, "k is (", Tk, ", ", k.cols(), ") and v (", v.rows(), ", ", v.cols(), ") but ", Hkv,
                 " key/value heads of ", hd, " need (Tk, ", Hkv * hd, ") each");
  const Eigen::Index offset = shape.query_offset < 0 ? Tk - Tq : shape.query_offset;
  if (Tq == 0 || Tk == 0 || offset + Tq > Tk)
    detail::fail(fn, Tq, " queries from key position ", offset, " need at least ", offset + Tq, " keys, got ", Tk);

  const int group = H / Hkv;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  const float blocked = -std::numeric_limits<float>::infinity();
  Matrix z(Tq, static_cast<Eigen::Index>(H) * hd);
  if (weights) weights->assign(static_cast<std::size_t>(H), Matrix());
  if (scores_out) scores_out->assign(static_cast<std::size_t>(H), Matrix());
  detail::parallel_for(H, 2.0 * static_cast<double>(Tq) * static_cast<double>(Tk) * hd * H, [&](int h) {
    const int kv = h / group;
    // 1. scores = q_h·k_kvᵀ/√hd, blocked keys −∞                                [Tq×Tk]
    Matrix scores = kernels::matmul_transposed(q.middleCols(h * hd, hd), k.middleCols(kv * hd, hd));
    scores *= scale;
    for (Eigen::Index i = 0; i < Tq; ++i) {
      const Eigen::Index last = offset + i;  // the query's own key
      const Eigen::Index first = shape.window > 0 ? std::max<Eigen::Index>(0, last - shape.window + 1) : 0;
      for (Eigen::Index j = 0; j < first; ++j) scores(i, j) = blocked;
      for (Eigen::Index j = last + 1; j < Tk; ++j) scores(i, j) = blocked;
    }
    if (scores_out) (*scores_out)[static_cast<std::size_t>(h)] = scores;
    // 2. weights = softmax per row; 3. z_h = weights·v_kv                        [Tq×hd]
    kernels::softmax_rows(scores);
    z.middleCols(h * hd, hd) = kernels::matmul(scores, v.middleCols(kv * hd, hd));
    if (weights) (*weights)[static_cast<std::size_t>(h)] = std::move(scores);
  });
  return z;
}

}  // namespace attnlab
