#include "interp/circuit_scores.hpp"

#include <Eigen/Eigenvalues>

#include "attnlab/tensor/rng.hpp"
#include "kernels/kernels.hpp"
#include "tensor/checks.hpp"

namespace attnlab::circuit_scores {

namespace {

// Products go to the float kernels (the module has them already; Eigen's double product would add its
// own, ~80 KB of wasm); traces and norms are summed in double.
using kernels::matmul;

// tr(Aᵀ·B) = Σ A ⊙ B, in double.
double trace_of_product(const Matrix& a, const Matrix& b) { return a.cast<double>().cwiseProduct(b.cast<double>()).sum(); }

// ‖L·X·R‖²_F = tr(Xᵀ·(LᵀL)·X·(R·Rᵀ)) = Σ (LᵀL·X) ⊙ (X·R·Rᵀ), from the Gram matrices of the outer
// factors (L [d×k], X [k×k], R [k×d]): no d×d product is formed.
double frobenius_sq(const Matrix& gram_left, const Matrix& x, const Matrix& gram_right) {
  return trace_of_product(matmul(gram_left, x), matmul(x, gram_right));
}

// One head's factors and the Gram matrices the scores use.
struct Factors {
  Matrix w_q, w_k, w_v, w_o;               // [d×k] ×3, [k×d]
  Matrix gram_q, gram_k, gram_v, gram_o;   // W_QᵀW_Q, W_KᵀW_K, W_VᵀW_V [k×k]; W_O·W_Oᵀ [k×k]
  double qk_sq = 0, ov_sq = 0;             // ‖W_Q·W_Kᵀ‖², ‖W_V·W_O‖²
  explicit Factors(HeadCircuit c)
      : w_q(std::move(c.w_q)), w_k(std::move(c.w_k)), w_v(std::move(c.w_v)), w_o(std::move(c.w_o)) {
    gram_q = matmul(w_q.transpose(), w_q);
    gram_k = matmul(w_k.transpose(), w_k);
    gram_v = matmul(w_v.transpose(), w_v);
    gram_o = kernels::matmul_transposed(w_o, w_o);
    qk_sq = trace_of_product(gram_q, gram_k);  // Gram matrices are symmetric: tr(G_Q·G_K) = Σ G_Q ⊙ G_K
    ov_sq = trace_of_product(gram_v, gram_o);
  }
};

struct Scores {
  double q, k, v;
};

// A's OV against B's QK, QKᵀ and OV.
Scores compose(const Factors& a, const Factors& b) {
  // OV_A·QK_B  = W_V^A·(W_O^A·W_Q^B)·W_K^Bᵀ;  OV_A·QK_Bᵀ = W_V^A·(W_O^A·W_K^B)·W_Q^Bᵀ;  OV_A·OV_B = W_V^A·(W_O^A·W_V^B)·W_O^B
  const double q = frobenius_sq(a.gram_v, matmul(a.w_o, b.w_q), b.gram_k) / (a.ov_sq * b.qk_sq);
  const double k = frobenius_sq(a.gram_v, matmul(a.w_o, b.w_k), b.gram_q) / (a.ov_sq * b.qk_sq);
  const double v = frobenius_sq(a.gram_v, matmul(a.w_o, b.w_v), b.gram_o) / (a.ov_sq * b.ov_sq);
  return {std::sqrt(q), std::sqrt(k), std::sqrt(v)};
}

}  // namespace

double copying_score(const HeadCircuit& c, const Matrix& unembed_embed) {
  const Matrix small = matmul(matmul(c.w_o, unembed_embed), c.w_v);
  const Eigen::VectorXcd lambda = Eigen::EigenSolver<Eigen::MatrixXd>(small.cast<double>(), false).eigenvalues();
  return lambda.sum().real() / lambda.cwiseAbs().sum();
}

namespace {

// x − each row's mean (centring over columns), and x − each column's mean (over rows).
// (The means are taken first: Eigen would otherwise read x while writing it.)
void centre_rows(Matrix& x) {
  const Vector mean = x.rowwise().mean();
  x.colwise() -= mean;
}
void centre_columns(Matrix& x) {
  const Eigen::RowVectorXf mean = x.colwise().mean();
  x.rowwise() -= mean;
}

}  // namespace

// TransformerLens's order: fold_layer_norm (with its centring of reading weights), center_writing_weights,
// center_unembed. The steps are linear maps of the weights, so each is written as its definition.
Matrix process(const CopyingProcessing& p, ProcessingInputs in, std::vector<HeadCircuit>& heads, int num_heads) {
  const ProcessedEnds ends = process_ends(p, std::move(in), heads, num_heads);
  return matmul(ends.unembed, ends.embed);
}

ProcessedEnds process_ends(const CopyingProcessing& p, ProcessingInputs in, std::vector<HeadCircuit>& heads, int num_heads) {
  if (p.fold_ln) {
    in.unembed = in.final_norm.asDiagonal() * in.unembed;  // the norm's weight scales W_U's rows
    if (in.centre_reading) centre_columns(in.unembed);
  }
  if (p.centre_writing) centre_rows(in.embed);
  if (p.centre_unembed) centre_rows(in.unembed);
  process_heads(p.fold_ln, p.centre_writing, in.layer_norms, in.centre_reading, false, heads, num_heads);
  return {std::move(in.embed), std::move(in.unembed)};
}

std::vector<double> copying_top1(const std::vector<HeadCircuit>& heads, const Matrix& embed, const Matrix& unembed) {
  const Eigen::Index V = embed.rows();
  constexpr Eigen::Index kRows = 256;  // a block of the V×V circuit: 256 rows of V floats (4 MB at V = 4096)
  std::vector<double> shares;
  for (const HeadCircuit& head : heads) {
    const Matrix left = matmul(embed, head.w_v), right = matmul(head.w_o, unembed);  // [V×k], [k×V]
    Eigen::Index first = 0;
    for (Eigen::Index row = 0; row < V; row += kRows) {
      const Eigen::Index n = std::min(kRows, V - row);
      const Matrix block = matmul(left.middleRows(row, n), right);  // rows row … row + n − 1 of the full circuit
      for (Eigen::Index i = 0; i < n; ++i) {
        Eigen::Index top = 0;
        block.row(i).maxCoeff(&top);
        first += top == row + i;
      }
    }
    shares.push_back(static_cast<double>(first) / static_cast<double>(V));
  }
  return shares;
}

void process_heads(bool fold_ln, bool centre_writing, const std::vector<Vector>& layer_norms, bool centre_reading,
                   bool queries_and_keys, std::vector<HeadCircuit>& heads, int num_heads) {
  for (std::size_t i = 0; i < heads.size(); ++i) {
    HeadCircuit& head = heads[i];
    if (fold_ln) {
      const Vector& norm = layer_norms[i / static_cast<std::size_t>(num_heads)];
      for (Matrix* reading : {&head.w_q, &head.w_k, &head.w_v}) {
        if (reading != &head.w_v && !queries_and_keys) continue;
        *reading = norm.asDiagonal() * *reading;
        if (centre_reading) centre_columns(*reading);
      }
    }
    if (centre_writing) centre_rows(head.w_o);
  }
}

std::vector<double> copying_scores(const std::vector<HeadCircuit>& heads, const Matrix& unembed_embed) {
  std::vector<double> scores;
  for (const HeadCircuit& head : heads) scores.push_back(copying_score(head, unembed_embed));
  return scores;
}

CompositionScores composition(const std::vector<HeadCircuit>& circuits, int L, int H, int draws, std::uint64_t seed) {
  const char* fn = "composition_scores";
  if (draws < 1) detail::fail(fn, "draws must be ≥ 1, got ", draws);
  const auto d = static_cast<int>(circuits.front().w_q.rows()), k = static_cast<int>(circuits.front().w_q.cols());
  std::vector<Factors> heads(circuits.begin(), circuits.end());
  CompositionScores out;
  for (int a = 0; a < L * H; ++a)
    for (int b = (a / H + 1) * H; b < L * H; ++b) {
      const Scores s = compose(heads[static_cast<std::size_t>(a)], heads[static_cast<std::size_t>(b)]);
      out.pairs.push_back({a / H, a % H, b / H, b % H, s.q, s.k, s.v});
    }
  // The baseline: the score of two random [d×k]·[k×d] products (every kind has these shapes), factors
  // uniform in (−1, 1), drawn in a fixed order (A's left, A's right, B's left, B's right).
  Rng rng(seed);
  double total = 0.0;
  for (int i = 0; i < draws; ++i) {
    const Matrix left_a = rng.uniform_matrix(d, k, -1.0f, 1.0f), right_a = rng.uniform_matrix(k, d, -1.0f, 1.0f);
    const Matrix left_b = rng.uniform_matrix(d, k, -1.0f, 1.0f), right_b = rng.uniform_matrix(k, d, -1.0f, 1.0f);
    const Matrix gram_a = matmul(left_a.transpose(), left_a), gram_b = kernels::matmul_transposed(right_b, right_b);
    const double norm_a_sq = trace_of_product(gram_a, kernels::matmul_transposed(right_a, right_a));
    const double norm_b_sq = trace_of_product(matmul(left_b.transpose(), left_b), gram_b);
    total += std::sqrt(frobenius_sq(gram_a, matmul(right_a, left_b), gram_b) / (norm_a_sq * norm_b_sq));
  }
  out.baseline = total / draws;
  out.draws = draws;
  return out;
}

}  // namespace attnlab::circuit_scores
