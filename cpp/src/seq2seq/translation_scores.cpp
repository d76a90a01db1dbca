#include "attnlab/seq2seq/translation_scores.hpp"

#include "tensor/checks.hpp"

namespace attnlab::translation {

TranslationScores score_translations(Seq2SeqTransformer& model, std::span<const SentencePair> pairs) {
  if (pairs.empty()) detail::fail("score_translations", "pairs is empty");
  const std::size_t layers = static_cast<std::size_t>(model.config().num_decoder_layers);
  const std::size_t heads = static_cast<std::size_t>(model.config().num_heads);
  TranslationScores scores;
  scores.alignment.assign(layers, std::vector<double>(heads, 0.0));
  int tokens = 0, correct = 0, exact = 0, words = 0;
  for (const SentencePair& pair : pairs) {
    const EncodedPair e = encode_pair(pair);
    const Seq2SeqOutput out = model.forward(e.source, e.target, e.targets);
    scores.loss += static_cast<double>(out.loss) * out.scored;  // in double: a sum over many sentences
    tokens += out.scored;
    correct += out.correct;
    for (std::size_t l = 0; l < layers; ++l)
      for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t t = 0; t < pair.alignment.size(); ++t) {
          Eigen::Index top = 0;
          out.attention.cross[l][h].row(static_cast<Eigen::Index>(t)).maxCoeff(&top);
          if (top == pair.alignment[t]) scores.alignment[l][h] += 1;
        }
    words += static_cast<int>(pair.alignment.size());
    const Seq2SeqDecoded decoded = model.decode(e.source, {.bos_id = kBosId, .eos_id = kEosId});
    if (decoded.finished && decoded.output == std::vector<int>(e.target.begin() + 1, e.target.end())) ++exact;
  }
  scores.loss /= tokens;
  scores.token_accuracy = static_cast<double>(correct) / tokens;
  scores.exact_match = static_cast<double>(exact) / static_cast<double>(pairs.size());
  for (auto& layer : scores.alignment)
    for (double& share : layer) share /= words;
  return scores;
}

}  // namespace attnlab::translation
