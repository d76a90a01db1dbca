// Lookup tables: token embeddings (nn.Embedding) and learned position embeddings (BERT/GPT style,
// nn.Embedding(max_len, d_model) indexed by position). Initialised N(0, 1) like nn.Embedding.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/tensor/matrix.hpp"
#include "attnlab/tensor/parameter.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

class Rng;

class Embedding {
 public:
  Embedding(int num_embeddings, int d_model, Rng& rng);

  // ids (each in 0..num_embeddings−1) → [ids.size()×d_model], one table row per id.
  Matrix forward(const std::vector<int>& ids) const;
  void load(const Matrix& table);  // [num_embeddings×d_model]

  int num_embeddings() const { return static_cast<int>(table_.rows()); }
  int d_model() const { return static_cast<int>(table_.cols()); }
  const Matrix& table() const { return table_; }
  std::int64_t parameter_count() const { return table_.size(); }

  // ids [n] (forward's input), d_out [n×d_model] = ∂L/∂forward(ids): adds row i of d_out to row ids[i]
  // of table_grad (an id used twice gets both rows), as nn.Embedding's backward does. Ids have no
  // gradient, so nothing is returned.
  void backward(const std::vector<int>& ids, const Matrix& d_out);
  // [num_embeddings×d_model], empty before the first backward() or parameters() call.
  const Matrix& table_grad() const { return table_grad_; }
  void zero_grad() { table_grad_.setZero(); }
  std::vector<ParameterRef> parameters(std::string_view prefix = "");  // "<prefix>.weight", as in PyTorch

 private:
  friend class LearnedPositionalEmbedding;
  // Adds d_out's rows to the rows `ids` of table_grad, after checking every sum (all or nothing).
  void add_rows(std::string_view function, const std::vector<int>& ids, const Matrix& d_out);

  Matrix table_;
  Matrix table_grad_;  // empty until the first backward() or parameters()
};

// A learned position table: forward(seq_len) returns rows 0..seq_len−1 ([seq_len×d_model]).
class LearnedPositionalEmbedding {
 public:
  LearnedPositionalEmbedding(int max_len, int d_model, Rng& rng);

  Matrix forward(int seq_len) const;
  void load(const Matrix& table) { table_.load(table); }

  int max_len() const { return table_.num_embeddings(); }
  const Matrix& table() const { return table_.table(); }
  std::int64_t parameter_count() const { return table_.parameter_count(); }

  // d_out [seq_len×d_model] = ∂L/∂forward(seq_len): added to rows 0..seq_len−1 of table_grad.
  void backward(const Matrix& d_out);
  const Matrix& table_grad() const { return table_.table_grad(); }  // [max_len×d_model]
  void zero_grad() { table_.zero_grad(); }
  std::vector<ParameterRef> parameters(std::string_view prefix = "") { return table_.parameters(prefix); }

 private:
  Embedding table_;
};

// [tokens.size()×d_model]: each token's row is d_model standard normals from Rng(seed ^ FNV-1a(token)),
// so a word's vector depends only on the word and the seed — editing one word of a sentence leaves
// the other words' vectors as they were. The lessons' stand-in for a trained embedding table.
Matrix hashed_embedding(const std::vector<std::string>& tokens, int d_model, std::uint64_t seed);

}  // namespace attnlab
ATTNLAB_API_END
