// How well an English → French model translates the grammar's sentences: the scores the shipped
// translator's training run logs (cpp/train/train_translator.cpp) and "Watch it learn" shows.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <span>
#include <vector>

#include "attnlab/seq2seq/en_fr_grammar.hpp"
#include "attnlab/seq2seq/seq2seq.hpp"

ATTNLAB_API_BEGIN
namespace attnlab::translation {

struct TranslationScores {
  double loss = 0.0;            // cross-entropy per target token, teacher-forced
  double token_accuracy = 0.0;  // share of target tokens predicted right, teacher-forced
  double exact_match = 0.0;     // share of pairs whose greedy translation is the reference, EOS reached
  // [layer][head]: share of French words whose cross-attention row (the query that writes the word) has
  // its largest weight on the word's gold English word.
  std::vector<std::vector<double>> alignment;
};

// pairs (at least one) → their scores; the model is run in whatever mode it is in (evaluation, normally).
TranslationScores score_translations(Seq2SeqTransformer& model, std::span<const SentencePair> pairs);

}  // namespace attnlab::translation
ATTNLAB_API_END
