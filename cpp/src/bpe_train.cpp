// Learning byte-level BPE merges from a corpus (BpeTokenizer::train): the corpus is split by GPT-2's
// rule, each distinct piece counted once with its frequency, and the most frequent adjacent pair is
// merged into a new token, again and again. Pair counts are updated only for the pieces that held the
// merged pair; a heap with stale entries skipped finds the next most frequent pair.
#include <queue>
#include <unordered_set>

#include "attnlab/bpe.hpp"
#include "checks.hpp"

namespace attnlab {

namespace {

struct Word {
  std::vector<int> symbols;  // token ids
  std::int64_t count = 0;    // how often the piece occurs in the corpus
};

struct Candidate {
  std::int64_t count;
  int left, right;
  // the heap's top: the highest count; ties go to the smaller ids (left, then right)
  bool operator<(const Candidate& o) const {
    if (count != o.count) return count < o.count;
    if (left != o.left) return left > o.left;
    return right > o.right;
  }
};

}  // namespace

BpeTokenizer BpeTokenizer::train(std::string_view corpus, const BpeTrainOptions& options) {
  const char* fn = "BpeTokenizer::train";
  if (options.vocab_size < 257)
    detail::fail(fn, "vocab_size must be at least 257 (256 bytes and <|endoftext|>), got ", options.vocab_size);
  if (options.min_count < 1) detail::fail(fn, "min_count must be ≥ 1, got ", options.min_count);
  BpeTokenizer t;
  for (int b = 0; b < 256; ++b) t.add_token(std::string(1, static_cast<char>(b)));

  // 1. the distinct pieces and their counts, each as one token per byte
  std::unordered_map<std::string_view, std::int64_t> piece_counts;
  for (std::string_view piece : pretokenize(corpus)) ++piece_counts[piece];
  std::vector<Word> words;
  for (const auto& [piece, count] : piece_counts) {
    Word w{{}, count};
    for (char byte : piece) w.symbols.push_back(static_cast<unsigned char>(byte));
    words.push_back(std::move(w));
  }
  // 2. every adjacent pair's count, and the words it occurs in
  std::unordered_map<std::uint64_t, std::int64_t> pair_counts;
  std::unordered_map<std::uint64_t, std::vector<int>> pair_words;
  const auto add_pairs = [&](int w, std::int64_t sign, std::unordered_set<std::uint64_t>& touched) {
    const Word& word = words[static_cast<std::size_t>(w)];
    for (std::size_t i = 0; i + 1 < word.symbols.size(); ++i) {
      const std::uint64_t key = pair_key(word.symbols[i], word.symbols[i + 1]);
      pair_counts[key] += sign * word.count;
      if (sign > 0) pair_words[key].push_back(w);
      touched.insert(key);
    }
  };
  std::unordered_set<std::uint64_t> touched;
  for (int w = 0; w < static_cast<int>(words.size()); ++w) add_pairs(w, 1, touched);
  std::priority_queue<Candidate> heap;
  const auto push = [&](std::uint64_t key) {
    if (const std::int64_t count = pair_counts[key]; count > 0)
      heap.push({count, static_cast<int>(key >> 32), static_cast<int>(key & 0xFFFFFFFFu)});
  };
  for (std::uint64_t key : touched) push(key);

  // 3. merge the most frequent pair until the vocabulary (less <|endoftext|>) is full
  while (t.vocab_size() < options.vocab_size - 1 && !heap.empty()) {
    const Candidate best = heap.top();
    heap.pop();
    const std::uint64_t key = pair_key(best.left, best.right);
    if (pair_counts[key] != best.count) continue;  // stale: the count changed since it was pushed
    if (best.count < options.min_count) break;
    // a merge whose bytes an earlier token already spells reuses that token's id
    const std::string bytes = t.token_bytes_[static_cast<std::size_t>(best.left)] + t.token_bytes_[static_cast<std::size_t>(best.right)];
    const auto existing = t.byte_ids_.find(bytes);
    const int merged = existing != t.byte_ids_.end() ? existing->second : t.vocab_size();
    if (existing == t.byte_ids_.end()) t.add_token(bytes);
    t.add_merge(best.left, best.right, merged);
    touched.clear();
    std::vector<int> holders = std::move(pair_words[key]);
    pair_words.erase(key);
    std::sort(holders.begin(), holders.end());
    holders.erase(std::unique(holders.begin(), holders.end()), holders.end());
    for (int w : holders) {
      std::vector<int>& symbols = words[static_cast<std::size_t>(w)].symbols;
      add_pairs(w, -1, touched);
      std::vector<int> next;
      for (std::size_t i = 0; i < symbols.size(); ++i) {
        if (i + 1 < symbols.size() && symbols[i] == best.left && symbols[i + 1] == best.right) {
          next.push_back(merged);
          ++i;
        } else {
          next.push_back(symbols[i]);
        }
      }
      symbols = std::move(next);
      add_pairs(w, 1, touched);
    }
    for (std::uint64_t k : touched) push(k);
  }
  t.add_token(std::string(kEndOfText));
  return t;
}

}  // namespace attnlab
