// The two baselines a language model must beat, fitted on the training tokens and scored on the
// held-out ones (mean cross-entropy in nats per token):
//   unigram: p(b) = (count(b) + 1) / (N + V)                         (add-one)
//   bigram:  p(b | a) = (count(a b) + α·p_unigram(b)) / (count(a) + α)   (Dirichlet-smoothed towards
//            the unigram; α is the best of a grid on the held-out tokens themselves, which flatters
//            the bigram, so the comparison is conservative)
#pragma once

#include <span>

namespace attnlab::train {

struct NgramBaselines {
  double unigram = 0.0;
  double bigram = 0.0;
  double bigram_alpha = 0.0;  // the α chosen
};

// train, heldout: token ids in [0, vocab_size). Scores heldout[1 …] (every token that has a
// predecessor), the same targets the GPT's held-out windows score.
NgramBaselines ngram_baselines(std::span<const int> train, std::span<const int> heldout, int vocab_size);

}  // namespace attnlab::train
