// English → French sentence pairs from a small seeded grammar, each French word aligned to the English
// word it translates, for the translator the cross-attention lesson trains (train_translator.cpp).
//
//   sentence = subject verb object [preposition noun-phrase]
//   noun phrase = determiner [size adjective] noun [colour adjective]
//
// What a learner can check in the alignment: French puts most adjectives after the noun ("the red car"
// → "la voiture rouge": the alignment crosses), size adjectives before it ("the small car" → "la petite
// voiture"); articles, adjectives and verbs agree with the noun's gender and number ("the red cars" →
// "les voitures rouges", "the cats see" → "les chats voient"); "some" before a size adjective is "de"
// ("some small cats" → "de petits chats"). Every French word has exactly one English word.
#pragma once

#include <string>
#include <vector>

#include "attnlab/tensor/rng.hpp"

namespace attnlab::translation {

struct SentencePair {
  std::vector<std::string> english;
  std::vector<std::string> french;
  std::vector<int> alignment;  // [french.size()]: the index in `english` of each French word's source
};

// One sentence pair drawn from the grammar.
SentencePair sample_pair(Rng& rng);

// Every word the grammar can produce, sorted: the vocabularies.
std::vector<std::string> english_words();
std::vector<std::string> french_words();

// The longest sentence the grammar makes, in words (both languages).
inline constexpr int kMaxWords = 14;

}  // namespace attnlab::translation
