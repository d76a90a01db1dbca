#include "attnlab/interp/circuits.hpp"

#include <Eigen/Eigenvalues>

#include "attnlab/tensor/rng.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

using MatrixXd = Eigen::MatrixXd;

void check_head(const char* function, const GPTConfig& c, int layer, int head) {
  if (layer < 0 || layer >= c.num_layers || head < 0 || head >= c.num_heads)
    detail::fail(function, "layer ", layer, ", head ", head, " is not in the model: layers 0 … ", c.num_layers - 1,
                 ", heads 0 … ", c.num_heads - 1);
}

Eigen::Map<const Matrix> weight(const GPT& model, const std::string& name) {
  const GPTTensorSlot& slot = model.tensor(name);
  return {model.values().data() + slot.offset, static_cast<Eigen::Index>(slot.shape[0]), static_cast<Eigen::Index>(slot.shape[1])};
}

// ‖L·X·R‖²_F = tr(Xᵀ·(LᵀL)·X·(R·Rᵀ)), from the Gram matrices of the outer factors: L [d×k], X [k×k], R [k×d].
double frobenius_sq(const MatrixXd& gram_left, const MatrixXd& x, const MatrixXd& gram_right) {
  return (x.transpose() * gram_left * x * gram_right).trace();
}

// One head's factors in double, and the Gram matrices the scores use.
struct Factors {
  MatrixXd w_q, w_k, w_v, w_o;                 // [d×k] ×3, [k×d]
  MatrixXd gram_q, gram_k, gram_v, gram_o;     // W_QᵀW_Q, W_KᵀW_K, W_VᵀW_V [k×k]; W_O·W_Oᵀ [k×k]
  double qk_sq = 0, ov_sq = 0;                 // ‖W_Q·W_Kᵀ‖², ‖W_V·W_O‖²
  Factors(MatrixXd q, MatrixXd k, MatrixXd v, MatrixXd o)
      : w_q(std::move(q)), w_k(std::move(k)), w_v(std::move(v)), w_o(std::move(o)) {
    gram_q = w_q.transpose() * w_q;
    gram_k = w_k.transpose() * w_k;
    gram_v = w_v.transpose() * w_v;
    gram_o = w_o * w_o.transpose();
    qk_sq = (gram_q * gram_k).trace();
    ov_sq = (gram_v * gram_o).trace();
  }
};

struct Scores {
  double q, k, v;
};

// A's OV against B's QK, QKᵀ and OV.
Scores compose(const Factors& a, const Factors& b) {
  // OV_A·QK_B  = W_V^A·(W_O^A·W_Q^B)·W_K^Bᵀ;  OV_A·QK_Bᵀ = W_V^A·(W_O^A·W_K^B)·W_Q^Bᵀ;  OV_A·OV_B = W_V^A·(W_O^A·W_V^B)·W_O^B
  const double q = frobenius_sq(a.gram_v, a.w_o * b.w_q, b.gram_k) / (a.ov_sq * b.qk_sq);
  const double k = frobenius_sq(a.gram_v, a.w_o * b.w_k, b.gram_q) / (a.ov_sq * b.qk_sq);
  const double v = frobenius_sq(a.gram_v, a.w_o * b.w_v, b.gram_o) / (a.ov_sq * b.ov_sq);
  return {std::sqrt(q), std::sqrt(k), std::sqrt(v)};
}

Factors factors_of(const GPT& model, int layer, int head) {
  const HeadCircuit c = head_circuit(model, layer, head);
  return Factors(c.w_q.cast<double>(), c.w_k.cast<double>(), c.w_v.cast<double>(), c.w_o.cast<double>());
}

}  // namespace

HeadCircuit head_circuit(const GPT& model, int layer, int head) {
  const GPTConfig& c = model.config();
  check_head("head_circuit", c, layer, head);
  const int d = c.d_model, k = c.head_dim();
  const std::string block = "h." + std::to_string(layer) + ".attn.";
  const auto c_attn = weight(model, block + "c_attn.weight");  // [d×3d]: q | k | v, head h in columns h·k …
  const auto c_proj = weight(model, block + "c_proj.weight");  // [d×d]: head h in rows h·k …
  return {c_attn.middleCols(head * k, k), c_attn.middleCols(d + head * k, k), c_attn.middleCols(2 * d + head * k, k),
          c_proj.middleRows(head * k, k)};
}

double ov_copying_score(const GPT& model, int layer, int head) {
  // eigenvalues of W_O·(W_U·W_E)·W_V [k×k], W_U·W_E = wteᵀ·wte [d×d]
  check_head("ov_copying_score", model.config(), layer, head);
  const Factors f = factors_of(model, layer, head);
  const auto wte = weight(model, "wte.weight").cast<double>();
  const MatrixXd unembed_embed = wte.transpose() * wte;
  const Eigen::VectorXcd lambda = Eigen::EigenSolver<MatrixXd>(f.w_o * unembed_embed * f.w_v, false).eigenvalues();
  return lambda.sum().real() / lambda.cwiseAbs().sum();
}

CompositionScores composition_scores(const GPT& model, int draws, std::uint64_t seed) {
  const char* fn = "composition_scores";
  const GPTConfig& c = model.config();
  if (draws < 1) detail::fail(fn, "draws must be ≥ 1, got ", draws);
  const int L = c.num_layers, H = c.num_heads, d = c.d_model, k = c.head_dim();
  std::vector<Factors> heads;
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) heads.push_back(factors_of(model, l, h));
  CompositionScores out;
  for (int a = 0; a < L * H; ++a)
    for (int b = (a / H + 1) * H; b < L * H; ++b) {
      const Scores s = compose(heads[static_cast<std::size_t>(a)], heads[static_cast<std::size_t>(b)]);
      out.pairs.push_back({a / H, a % H, b / H, b % H, s.q, s.k, s.v});
    }
  // The baseline: the score of two random [d×k]·[k×d] products (every kind has these shapes), factors
  // uniform in (−1, 1), drawn in a fixed order (A's left, A's right, B's left, B's right).
  Rng rng(seed);
  const auto random = [&](int rows, int cols) { return rng.uniform_matrix(rows, cols, -1.0f, 1.0f).cast<double>().eval(); };
  double total = 0.0;
  for (int i = 0; i < draws; ++i) {
    const MatrixXd left_a = random(d, k), right_a = random(k, d), left_b = random(d, k), right_b = random(k, d);
    const MatrixXd gram_a = left_a.transpose() * left_a, gram_b = right_b * right_b.transpose();
    const double norm_a_sq = (gram_a * (right_a * right_a.transpose())).trace();
    const double norm_b_sq = ((left_b.transpose() * left_b) * gram_b).trace();
    total += std::sqrt(frobenius_sq(gram_a, right_a * left_b, gram_b) / (norm_a_sq * norm_b_sq));
  }
  out.baseline = total / draws;
  out.draws = draws;
  return out;
}

}  // namespace attnlab
