// English → French sentence pairs from a small seeded grammar, each French word aligned to the English
// word it translates: the data of the translator the cross-attention lesson ships (cpp/train/
// train_translator.cpp) and of the one "Watch it learn" trains in the browser.
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

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attnlab/tensor/rng.hpp"

ATTNLAB_API_BEGIN
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

// Both vocabularies: ids 0 … 3 are <pad>, <s>, </s>, <unk>, then the grammar's words, sorted.
inline constexpr int kPadId = 0, kBosId = 1, kEosId = 2, kUnkId = 3;
struct Vocabularies {
  std::vector<std::string> english, french;          // id → word
  std::map<std::string, int> english_ids, french_ids;  // word → id
};
const Vocabularies& vocabularies();

// A pair as the model reads it: English ids; the French the decoder reads (<s> first); what each of
// its positions must predict (the French, then </s>).
struct EncodedPair {
  std::vector<int> source, target, targets;
};
EncodedPair encode_pair(const SentencePair& pair);

// The held-out pairs: `count` distinct English sentences drawn from their own seed; training draws
// from another seed and skips these (is_held_out).
std::vector<SentencePair> held_out_pairs(int count, std::uint64_t seed);

// Whether an English sentence is one the grammar generates, and if not, where it leaves the grammar
// and what the grammar allows there: what a translator trained on these sentences alone can be
// trusted with. Built from the same word lists as sample_pair, so it cannot drift from it.
struct WordKind {
  std::string name;                // "a verb agreeing with a singular subject", "the end of the sentence"
  std::vector<std::string> words;  // the words of that kind the grammar allows there (none for the end)
};
struct GrammarCheck {
  bool in_grammar = false;
  int position = -1;               // the first word outside the grammar (words.size(): the sentence stops too early); -1 when in_grammar
  std::vector<WordKind> expected;  // what the grammar allows at `position` (empty when in_grammar)
};
// words: lower case, as the vocabularies hold them.
GrammarCheck check_english(const std::vector<std::string>& words);

// The English words by kind (determiners, adjectives of each kind, nouns, verbs, prepositions), in the
// grammar's own order: for showing a learner what the translator knows.
std::vector<WordKind> english_word_kinds();

}  // namespace attnlab::translation
ATTNLAB_API_END
