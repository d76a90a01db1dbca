#include "gpt/gpt_ops.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/kernels.hpp"
#include "tensor/parallel.hpp"

namespace attnlab::gpt_ops {

namespace {
// fn(first_row, row_count) over runs of an n-row matrix's rows, the runs split over threads when
// `work` is worth it. Runs are whole multiples of 16 rows (but the last), so Eigen's vectorised
// element-wise code meets the same packets and tails whatever the split: bit-identical results.
template <typename Fn>
void for_row_runs(Eigen::Index n, double work, Fn fn) {
  constexpr Eigen::Index kRowMultiple = 16;
  const int tasks = detail::task_count(work, n / kRowMultiple);
  detail::parallel_for(tasks, [&](int task) {
    const detail::RowRange rows = detail::task_rows(n, tasks, task, kRowMultiple);
    if (rows.end > rows.begin) fn(rows.begin, rows.end - rows.begin);
  });
}
}  // namespace

// ---- LayerNorm ----

void layer_norm(const Matrix& x, ConstRow weight, ConstRow bias, Matrix& y, Eigen::VectorXf& mean,
                Eigen::VectorXf& rstd) {
  // x [n×d] → y [n×d]; mean, rstd [n]
  const Eigen::Index n = x.rows();
  y.resize(n, x.cols());
  mean.resize(n);
  rstd.resize(n);
  detail::parallel_for(static_cast<int>(n), 8.0 * static_cast<double>(x.size()), [&](int r) {
    const auto row = x.row(r).cast<double>();
    const double mu = row.mean();
    const double inv_std = 1.0 / std::sqrt((row.array() - mu).square().mean() + kLayerNormEps);
    mean[r] = static_cast<float>(mu);
    rstd[r] = static_cast<float>(inv_std);
    y.row(r) = ((row.array() - mu) * inv_std).cast<float>() * weight.array() + bias.array();
  });
}

Matrix layer_norm_backward(const Matrix& x, const Eigen::VectorXf& mean, const Eigen::VectorXf& rstd,
                           ConstRow weight, const Matrix& d_y, float* d_weight_data, float* d_bias_data) {
  // x, d_y [n×d] → d_x [n×d]. With x̂ = (x − mean)·rstd and g = d_y ⊙ weight:
  //   d_x = rstd · (g − mean(g) − x̂ · mean(g ⊙ x̂)),  d_weight += Σ_rows d_y ⊙ x̂,  d_bias += Σ_rows d_y
  // Rows of d_x on separate threads; the sums over rows afterwards, in row order, on one.
  Matrix d_x(x.rows(), x.cols());
  detail::parallel_for(static_cast<int>(x.rows()), 8.0 * static_cast<double>(x.size()), [&](int r) {
    const Eigen::RowVectorXf x_hat = (x.row(r).array() - mean[r]) * rstd[r];
    const Eigen::RowVectorXf g = d_y.row(r).cwiseProduct(weight);
    const float g_mean = g.mean();
    const float gx_mean = g.cwiseProduct(x_hat).mean();
    d_x.row(r) = rstd[r] * (g.array() - g_mean - x_hat.array() * gx_mean);
  });
  if (!d_weight_data) return d_x;
  GradRow d_weight(d_weight_data, x.cols()), d_bias(d_bias_data, x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    d_weight += d_y.row(r).cwiseProduct(((x.row(r).array() - mean[r]) * rstd[r]).matrix());
    d_bias += d_y.row(r);
  }
  return d_x;
}

// ---- Conv1D (x·W + b) ----

Matrix conv1d(const Matrix& x, ConstMap weight, ConstRow bias) {
  // x [n×in] · weight [in×out] + bias [out] → [n×out]
  Matrix y = kernels::matmul(x, weight);
  y.rowwise() += bias;
  return y;
}

Matrix conv1d(const Matrix& x, const kernels::PackedMatrix& weight, ConstRow bias) {
  // x [n×in] · weight [in×out] (packed) + bias [out] → [n×out]
  Matrix y(x.rows(), weight.cols);
  kernels::gemm(x, weight, 0, 0, weight.cols, 1.0f, false, y.data(), y.cols());
  y.rowwise() += bias;
  return y;
}

Matrix conv1d_backward(const Matrix& x, ConstMap weight, const Matrix& d_y, float* d_weight, float* d_bias) {
  // d_y [n×out] → d_x [n×in] = d_y·weightᵀ; d_weight [in×out] += xᵀ·d_y; d_bias [out] += Σ_rows d_y
  if (d_weight) {
    GradMap(d_weight, weight.rows(), weight.cols()) += kernels::matmul(x.transpose(), d_y);
    GradRow(d_bias, weight.cols()) += d_y.colwise().sum();
  }
  return kernels::matmul_transposed(d_y, weight);
}

// ---- GELU (tanh approximation) ----

namespace {
constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kCubic = 0.044715f;
}  // namespace

Matrix gelu_tanh(const Matrix& x) {
  // x [n×m] → [n×m] (Eigen's vectorised tanh: this runs on every MLP activation, twice per step)
  Matrix y(x.rows(), x.cols());
  for_row_runs(x.rows(), 16.0 * static_cast<double>(x.size()), [&](Eigen::Index first, Eigen::Index rows) {
    const auto v = x.middleRows(first, rows).array();
    y.middleRows(first, rows) = 0.5f * v * (1.0f + (kSqrt2OverPi * (v + kCubic * v.cube())).tanh());
  });
  return y;
}

Matrix gelu_tanh_backward(const Matrix& x, const Matrix& d_y) {
  // d/dv ½v(1 + tanh u), u = √(2/π)(v + 0.044715v³):  ½(1 + tanh u) + ½v(1 − tanh²u)·√(2/π)(1 + 3·0.044715v²)
  Matrix d_x(x.rows(), x.cols());
  for_row_runs(x.rows(), 20.0 * static_cast<double>(x.size()), [&](Eigen::Index first, Eigen::Index rows) {
    const auto v = x.middleRows(first, rows).array();
    const Eigen::ArrayXXf t = (kSqrt2OverPi * (v + kCubic * v.cube())).tanh();
    const auto du = kSqrt2OverPi * (1.0f + 3.0f * kCubic * v.square());
    d_x.middleRows(first, rows) =
        (d_y.middleRows(first, rows).array() * (0.5f * (1.0f + t) + 0.5f * v * (1.0f - t.square()) * du)).matrix();
  });
  return d_x;
}

// ---- Causal multi-head attention ----

Matrix causal_scores(Eigen::Ref<const Matrix> q, Eigen::Ref<const Matrix> k) {
  // q, k [T×d_head] → scores [T×T] = q·kᵀ/√d_head, with −∞ where the key comes after the query
  const float scale = 1.0f / std::sqrt(static_cast<float>(q.cols()));
  Matrix scores = kernels::matmul_transposed(q, k) * scale;
  for (Eigen::Index i = 0; i < scores.rows(); ++i)
    scores.row(i).tail(scores.cols() - i - 1).setConstant(-std::numeric_limits<float>::infinity());
  return scores;
}

void causal_attention(Eigen::Ref<const Matrix> qkv, int num_heads, Eigen::Ref<Matrix> y,
                      std::vector<Matrix>& weights, const std::vector<Matrix>* dropout) {
  // qkv [T×3d] → y [T×d]; weights[h] [T×T]
  const Eigen::Index T = qkv.rows(), d = qkv.cols() / 3, d_head = d / num_heads;
  weights.resize(static_cast<std::size_t>(num_heads));
  // Heads are independent: on separate threads when the sequence is long enough to pay for it.
  detail::parallel_for(num_heads, 2.0 * static_cast<double>(T * T * d), [&](int h) {
    const auto q = qkv.middleCols(h * d_head, d_head);          // [T×d_head]
    const auto k = qkv.middleCols(d + h * d_head, d_head);      // [T×d_head]
    const auto v = qkv.middleCols(2 * d + h * d_head, d_head);  // [T×d_head]
    // 1. scores = q·kᵀ / √d_head, keys after the query blocked (−∞)
    Matrix& w = weights[static_cast<std::size_t>(h)];
    w = causal_scores(q, k);
    // 2. weights = softmax over each row (blocked keys get exactly 0)
    kernels::softmax_rows(w);
    // 3. this head's output = weights·v (the dropped weights', when training with dropout)
    if (dropout) y.middleCols(h * d_head, d_head) = kernels::matmul(w.cwiseProduct((*dropout)[static_cast<std::size_t>(h)]), v);
    else y.middleCols(h * d_head, d_head) = kernels::matmul(w, v);
  });
}

void causal_attention_backward(Eigen::Ref<const Matrix> qkv, const std::vector<Matrix>& weights, int num_heads,
                               Eigen::Ref<const Matrix> d_y, Eigen::Ref<Matrix> d_qkv, const std::vector<Matrix>* dropout) {
  // d_y [T×d] → d_qkv [T×3d], undoing causal_attention's three steps in reverse
  const Eigen::Index d = qkv.cols() / 3, d_head = d / num_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_head));
  const double T = static_cast<double>(qkv.rows());
  detail::parallel_for(num_heads, 4.0 * T * T * static_cast<double>(d), [&](int h) {
    const auto q = qkv.middleCols(h * d_head, d_head);
    const auto k = qkv.middleCols(d + h * d_head, d_head);
    const auto v = qkv.middleCols(2 * d + h * d_head, d_head);
    const Matrix& w = weights[static_cast<std::size_t>(h)];
    const auto d_out = d_y.middleCols(h * d_head, d_head);
    // 3. output = weights·v  →  d_weights = d_out·vᵀ,  d_v = weightsᵀ·d_out
    //    (with dropout: output = (weights ⊙ mask)·v  →  d_weights = (d_out·vᵀ) ⊙ mask,  d_v = (weights ⊙ mask)ᵀ·d_out)
    Matrix d_w = kernels::matmul_transposed(d_out, v);
    if (dropout) {
      const Matrix& mask = (*dropout)[static_cast<std::size_t>(h)];
      d_qkv.middleCols(2 * d + h * d_head, d_head) = kernels::matmul(w.cwiseProduct(mask).transpose(), d_out);
      d_w.array() *= mask.array();
    } else {
      d_qkv.middleCols(2 * d + h * d_head, d_head) = kernels::matmul(w.transpose(), d_out);
    }
    // 2. weights = softmax(scores)  →  d_scores = w ⊙ (d_w − Σ_row d_w ⊙ w)  (blocked keys: w = 0, so 0)
    const Eigen::VectorXf row_dot = d_w.cwiseProduct(w).rowwise().sum();
    Matrix d_scores = w.cwiseProduct(d_w - row_dot.replicate(1, d_w.cols()));
    d_scores *= scale;
    // 1. scores = q·kᵀ·scale  →  d_q = d_scores·k,  d_k = d_scoresᵀ·q
    d_qkv.middleCols(h * d_head, d_head) = kernels::matmul(d_scores, k);
    d_qkv.middleCols(d + h * d_head, d_head) = kernels::matmul(d_scores.transpose(), q);
  });
}

// ---- Cross-entropy ----

double cross_entropy(const Matrix& logits, std::span<const int> targets, Matrix* d_logits) {
  // logits [n×V], targets [n] → mean over scored rows of logsumexp(row) − row[target]
  std::int64_t scored = 0;
  for (int t : targets) scored += t != kGPTIgnoreTarget;
  if (d_logits) d_logits->setZero(logits.rows(), logits.cols());
  if (scored == 0) return 0.0;
  // Each row's loss on its own (rows on separate threads), then summed in row order: the same total
  // whatever the thread count.
  std::vector<double> row_loss(static_cast<std::size_t>(logits.rows()), 0.0);
  detail::parallel_for(static_cast<int>(logits.rows()), 8.0 * static_cast<double>(logits.size()), [&](int r) {
    const int target = targets[static_cast<std::size_t>(r)];
    if (target == kGPTIgnoreTarget) return;
    // exp(row − max) once, in float (vectorised); the sum in double
    const float max = logits.row(r).maxCoeff();
    const Eigen::RowVectorXf e = (logits.row(r).array() - max).exp();
    const double sum = e.cast<double>().sum();
    row_loss[static_cast<std::size_t>(r)] = std::log(sum) + max - logits(r, target);
    if (!d_logits) return;
    // ∂/∂logits of (logsumexp − logit[target]) / scored = (softmax − onehot) / scored
    d_logits->row(r) = e * static_cast<float>(1.0 / (sum * static_cast<double>(scored)));
    (*d_logits)(r, target) -= static_cast<float>(1.0 / static_cast<double>(scored));
  });
  double total = 0.0;
  for (double loss : row_loss) total += loss;
  return total / static_cast<double>(scored);
}

}  // namespace attnlab::gpt_ops
