#include "attnlab/layers/embedding.hpp"

#include <algorithm>
#include <numeric>

#include "attnlab/tensor/rng.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

Embedding::Embedding(int num_embeddings, int d_model, Rng& rng) {
  detail::require_positive("Embedding", "num_embeddings", num_embeddings);
  detail::require_positive("Embedding", "d_model", d_model);
  table_ = rng.normal_matrix(num_embeddings, d_model);
}

Matrix Embedding::forward(const std::vector<int>& ids) const {
  // ids [n] → [n×d_model]
  if (ids.empty()) detail::fail("Embedding::forward", "ids is empty");
  Matrix out(static_cast<Eigen::Index>(ids.size()), table_.cols());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= table_.rows())
      detail::fail("Embedding::forward", "ids[", i, "] = ", ids[i], " is outside the table's rows 0 … ",
                   table_.rows() - 1, " (table is ", shape_of(table_), ")");
    out.row(static_cast<Eigen::Index>(i)) = table_.row(ids[i]);
  }
  return out;
}

void Embedding::load(const Matrix& table) {
  detail::require_shape("Embedding::load", "table", table, table_.rows(), table_.cols());
  detail::require_finite("Embedding::load", "table", table);
  table_ = table;
}

void Embedding::backward(const std::vector<int>& ids, const Matrix& d_out) {
  // ids [n], d_out [n×d_model] → table_grad [num_embeddings×d_model], rows ids[i] += d_out row i
  const char* fn = "Embedding::backward";
  if (ids.empty()) detail::fail(fn, "ids is empty");
  if (d_out.rows() != static_cast<Eigen::Index>(ids.size()) || d_out.cols() != table_.cols())
    detail::fail(fn, "d_out is ", shape_of(d_out), " but must be ids.size()×d_model = ", ids.size(), "×",
                 table_.cols());
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= table_.rows())
      detail::fail(fn, "ids[", i, "] = ", ids[i], " is outside the table's rows 0 … ", table_.rows() - 1, " (table is ",
                   shape_of(table_), ")");
  detail::require_finite(fn, "d_out", d_out);
  add_rows(fn, ids, d_out);
}

void Embedding::add_rows(std::string_view fn, const std::vector<int>& ids, const Matrix& d_out) {
  // ids [n] (valid), d_out [n×d_model] (finite) → table_grad rows ids[i] += d_out row i
  if (table_grad_.size() == 0)
    detail::require_within_budget(fn, 1, static_cast<double>(table_.rows()), static_cast<double>(table_.cols()),
                                  "the table's gradient");
  detail::require_within_budget(fn, 1, static_cast<double>(ids.size()), static_cast<double>(table_.cols()),
                                "the updated rows");
  // 1. Group the positions by id (stable, so each row adds its contributions in the order given).
  std::vector<std::size_t> order(ids.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
  // 2. forward: out[i] = table[ids[i]]  ⇒  ∂L/∂table[id] = Σ_{i: ids[i] = id} d_out[i]; each touched row's
  //    new gradient is computed aside and checked, so an overflow changes nothing.
  Matrix rows(static_cast<Eigen::Index>(ids.size()), table_.cols());
  std::vector<int> row_ids;
  for (std::size_t start = 0; start < order.size();) {
    const int id = ids[order[start]];
    const Eigen::Index k = static_cast<Eigen::Index>(row_ids.size());
    if (table_grad_.size() == 0)
      rows.row(k).setZero();
    else
      rows.row(k) = table_grad_.row(id);
    std::size_t end = start;
    for (; end < order.size() && ids[order[end]] == id; ++end)
      rows.row(k) += d_out.row(static_cast<Eigen::Index>(order[end]));
    if (!detail::all_finite(rows.row(k).data(), rows.cols()))
      detail::fail(fn, "the gradient of table row ", id, " overflows float32 (d_out's rows for it sum past 3.4e38)");
    row_ids.push_back(id);
    start = end;
  }
  // 3. Commit.
  if (table_grad_.size() == 0) table_grad_ = Matrix::Zero(table_.rows(), table_.cols());
  for (std::size_t k = 0; k < row_ids.size(); ++k)
    table_grad_.row(row_ids[k]) = rows.row(static_cast<Eigen::Index>(k));
}

std::vector<ParameterRef> Embedding::parameters(std::string_view prefix) {
  return {make_parameter(parameter_name(prefix, "weight"), table_, table_grad_)};
}

LearnedPositionalEmbedding::LearnedPositionalEmbedding(int max_len, int d_model, Rng& rng)
    : table_(max_len, d_model, rng) {}

Matrix LearnedPositionalEmbedding::forward(int seq_len) const {
  if (seq_len <= 0 || seq_len > max_len())
    detail::fail("LearnedPositionalEmbedding::forward", "seq_len must be in 1..max_len = 1..", max_len(),
                 ", got ", seq_len);
  return table_.table().topRows(seq_len);
}

void LearnedPositionalEmbedding::backward(const Matrix& d_out) {
  // d_out [seq_len×d_model] → table_grad rows 0..seq_len−1 += d_out
  const char* fn = "LearnedPositionalEmbedding::backward";
  if (d_out.rows() == 0 || d_out.rows() > max_len() || d_out.cols() != table_.d_model())
    detail::fail(fn, "d_out is ", shape_of(d_out), " but must be seq_len×d_model with seq_len in 1..", max_len(),
                 " and d_model = ", table_.d_model());
  detail::require_finite(fn, "d_out", d_out);
  // forward(seq_len) = table rows 0..seq_len−1  ⇒  ∂L/∂table[p] = d_out[p]
  std::vector<int> positions(static_cast<std::size_t>(d_out.rows()));
  std::iota(positions.begin(), positions.end(), 0);
  table_.add_rows(fn, positions, d_out);
}

Matrix hashed_embedding(const std::vector<std::string>& tokens, int d_model, std::uint64_t seed) {
  if (tokens.empty()) detail::fail("hashed_embedding", "tokens is empty");
  detail::require_positive("hashed_embedding", "d_model", d_model);
  detail::require_within_budget("hashed_embedding", 1, static_cast<double>(tokens.size()), d_model, "the embeddings");
  Matrix out(static_cast<Eigen::Index>(tokens.size()), d_model);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a, 64-bit
    for (unsigned char c : tokens[i]) hash = (hash ^ c) * 1099511628211ULL;
    out.row(static_cast<Eigen::Index>(i)) = Rng(seed ^ hash).normal_matrix(1, d_model);
  }
  return out;
}

}  // namespace attnlab
