#include "attnlab/embedding.hpp"

#include "attnlab/rng.hpp"
#include "checks.hpp"

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
      detail::fail("Embedding::forward", "ids[", i, "] = ", ids[i], " is outside the table's 0..",
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

LearnedPositionalEmbedding::LearnedPositionalEmbedding(int max_len, int d_model, Rng& rng)
    : table_(max_len, d_model, rng) {}

Matrix LearnedPositionalEmbedding::forward(int seq_len) const {
  if (seq_len <= 0 || seq_len > max_len())
    detail::fail("LearnedPositionalEmbedding::forward", "seq_len must be in 1..max_len = 1..", max_len(),
                 ", got ", seq_len);
  return table_.table().topRows(seq_len);
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
