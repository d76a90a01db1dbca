// Fuzz target: text in — the tokenizer, the vocabulary, and embeddings of arbitrary bytes (invalid
// UTF-8, NULs, control characters, very long words).
#include "fuzz_input.hpp"

namespace attnlab::fuzz {
namespace {

void fuzz_tokenizer(FuzzInput& in) {
  const std::string text = in.text(4096);
  std::vector<std::string> tokens;
  if (!accepted([&] { tokens = tokenize(text); })) return;
  std::string joined;
  for (const std::string& t : tokens) {
    require(!t.empty(), "tokenize produced an empty token");
    joined += (joined.empty() ? "" : " ") + t;
  }
  // Tokens are already lower-case words and lone punctuation: tokenizing them again changes nothing.
  require(tokenize(joined) == tokens, "tokenize is not idempotent on its own output");
}

void fuzz_vocabulary(FuzzInput& in) {
  std::vector<std::string> corpus;
  for (int i = in.choice(6); i > 0; --i) corpus.push_back(in.text(256));
  std::optional<Vocabulary> vocab;
  if (!accepted([&] { vocab.emplace(corpus); })) return;
  const std::string text = in.text(512);
  std::vector<int> ids;
  if (!accepted([&] { ids = vocab->encode(text); })) return;
  for (int id : ids) require(id >= 0 && id < vocab->size(), "encode gave an id outside the vocabulary");
  const std::string decoded = vocab->decode(ids);
  const int probe = in.size(64);
  accepted([&] { vocab->token(probe); });
  std::vector<int> bad_ids = ids;
  bad_ids.push_back(in.size(1 << 20));
  accepted([&] { vocab->decode(bad_ids); });
}

void fuzz_embeddings(FuzzInput& in) {
  std::vector<std::string> words;
  for (int i = in.choice(8); i > 0; --i) words.push_back(in.text(64));
  const int d_model = in.size(64);
  Matrix e;
  if (accepted([&] { e = hashed_embedding(words, d_model, in.seed()); }))
    require(finite(e) && e.rows() == static_cast<Eigen::Index>(words.size()) && e.cols() == d_model, "hashed_embedding");
  const int vocab = in.size(64), d = in.size(32);
  Rng rng(in.seed());
  std::optional<Embedding> table;
  if (!accepted([&] { table.emplace(vocab, d, rng); })) return;
  std::vector<int> ids;
  for (int i = in.choice(8); i > 0; --i) ids.push_back(in.flag() ? in.choice(vocab) : in.size(1 << 20));
  Matrix rows;
  if (accepted([&] { rows = table->forward(ids); })) require(finite(rows) && rows.cols() == d, "Embedding::forward");
  if (in.flag()) accepted([&] { table->load(in.matrix(vocab % 64, d % 64)); });
}

}  // namespace
}  // namespace attnlab::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab::fuzz;
  static const FuzzCase cases[] = {fuzz_tokenizer, fuzz_vocabulary, fuzz_embeddings};
  return run_one_case(data, size, cases);
}
