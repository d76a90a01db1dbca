// Lookup tables: token embeddings (nn.Embedding) and learned position embeddings (BERT/GPT style,
// nn.Embedding(max_len, d_model) indexed by position). Initialised N(0, 1) like nn.Embedding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/matrix.hpp"

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

 private:
  Matrix table_;
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

 private:
  Embedding table_;
};

// [tokens.size()×d_model]: each token's row is d_model standard normals from Rng(seed ^ FNV-1a(token)),
// so a word's vector depends only on the word and the seed — editing one word of a sentence leaves
// the other words' vectors as they were. The lessons' stand-in for a trained embedding table.
Matrix hashed_embedding(const std::vector<std::string>& tokens, int d_model, std::uint64_t seed);

}  // namespace attnlab
