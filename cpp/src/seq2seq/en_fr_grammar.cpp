#include "attnlab/seq2seq/en_fr_grammar.hpp"

#include <algorithm>
#include <array>
#include <set>

namespace attnlab::translation {

namespace {

enum Gender { masculine, feminine };

struct Noun {
  const char *en, *en_plural, *fr, *fr_plural;
  Gender gender;
};
// No French noun starts with a vowel or a mute h, so no article elides ("l'oiseau").
constexpr std::array<Noun, 18> kNouns{{
    {"cat", "cats", "chat", "chats", masculine},          {"dog", "dogs", "chien", "chiens", masculine},
    {"horse", "horses", "cheval", "chevaux", masculine},  {"book", "books", "livre", "livres", masculine},
    {"boy", "boys", "garçon", "garçons", masculine},      {"garden", "gardens", "jardin", "jardins", masculine},
    {"cake", "cakes", "gâteau", "gâteaux", masculine},    {"king", "kings", "roi", "rois", masculine},
    {"car", "cars", "voiture", "voitures", feminine},     {"house", "houses", "maison", "maisons", feminine},
    {"apple", "apples", "pomme", "pommes", feminine},     {"girl", "girls", "fille", "filles", feminine},
    {"woman", "women", "femme", "femmes", feminine},      {"table", "tables", "table", "tables", feminine},
    {"flower", "flowers", "fleur", "fleurs", feminine},   {"letter", "letters", "lettre", "lettres", feminine},
    {"queen", "queens", "reine", "reines", feminine},     {"door", "doors", "porte", "portes", feminine},
}};

// French forms: masculine singular, feminine singular, masculine plural, feminine plural.
struct Adjective {
  const char* en;
  std::array<const char*, 4> fr;
};
constexpr std::array<Adjective, 5> kSizeAdjectives{{  // before the noun in French
    {"small", {"petit", "petite", "petits", "petites"}},
    {"big", {"grand", "grande", "grands", "grandes"}},
    {"good", {"bon", "bonne", "bons", "bonnes"}},
    {"pretty", {"joli", "jolie", "jolis", "jolies"}},
    {"old", {"vieux", "vieille", "vieux", "vieilles"}},
}};
constexpr std::array<Adjective, 8> kColourAdjectives{{  // after the noun in French
    {"red", {"rouge", "rouge", "rouges", "rouges"}},
    {"black", {"noir", "noire", "noirs", "noires"}},
    {"green", {"vert", "verte", "verts", "vertes"}},
    {"blue", {"bleu", "bleue", "bleus", "bleues"}},
    {"white", {"blanc", "blanche", "blancs", "blanches"}},
    {"happy", {"heureux", "heureuse", "heureux", "heureuses"}},
    {"sad", {"triste", "triste", "tristes", "tristes"}},
    {"european", {"européen", "européenne", "européens", "européennes"}},
}};

struct Verb {
  const char *en, *en_plural, *fr, *fr_plural;
};
constexpr std::array<Verb, 8> kVerbs{{
    {"sees", "see", "voit", "voient"},          {"eats", "eat", "mange", "mangent"},
    {"likes", "like", "aime", "aiment"},        {"watches", "watch", "regarde", "regardent"},
    {"follows", "follow", "suit", "suivent"},   {"finds", "find", "trouve", "trouvent"},
    {"takes", "take", "prend", "prennent"},     {"has", "have", "a", "ont"},
}};

constexpr std::array<std::array<const char*, 2>, 6> kPrepositions{{
    {"with", "avec"}, {"under", "sous"}, {"on", "sur"}, {"without", "sans"}, {"behind", "derrière"}, {"in", "dans"}}};

// Determiners: English singular / plural, French [gender][number]; "some" has no singular, "a" no plural.
struct Determiner {
  const char *en, *en_plural;
  std::array<const char*, 4> fr;  // m. sg, f. sg, m. pl, f. pl (nullptr: no such form)
};
constexpr std::array<Determiner, 4> kDeterminers{{
    {"the", "the", {"le", "la", "les", "les"}},
    {"a", "some", {"un", "une", "des", "des"}},
    {"my", "my", {"mon", "ma", "mes", "mes"}},
    {"this", "these", {"ce", "cette", "ces", "ces"}},
}};

int pick(Rng& rng, std::size_t n) { return static_cast<int>(rng.next_u32() % static_cast<std::uint32_t>(n)); }
bool chance(Rng& rng, float p) { return rng.uniform() < p; }

struct Phrase {
  bool plural = false;
};

// Appends a noun phrase to both sides of `pair`.
Phrase noun_phrase(Rng& rng, SentencePair& pair) {
  const Noun& noun = kNouns[static_cast<std::size_t>(pick(rng, kNouns.size()))];
  const Determiner& det = kDeterminers[static_cast<std::size_t>(pick(rng, kDeterminers.size()))];
  const bool plural = chance(rng, 0.4f);
  const Adjective* size = chance(rng, 0.3f) ? &kSizeAdjectives[static_cast<std::size_t>(pick(rng, kSizeAdjectives.size()))] : nullptr;
  const Adjective* colour = chance(rng, 0.4f) ? &kColourAdjectives[static_cast<std::size_t>(pick(rng, kColourAdjectives.size()))] : nullptr;
  const std::size_t form = static_cast<std::size_t>(noun.gender) + (plural ? 2 : 0);

  const int base = static_cast<int>(pair.english.size());
  // English: det [size] [colour] noun
  pair.english.push_back(plural ? det.en_plural : det.en);
  if (size) pair.english.push_back(size->en);
  if (colour) pair.english.push_back(colour->en);
  pair.english.push_back(plural ? noun.en_plural : noun.en);
  const int det_at = base, size_at = base + 1, colour_at = base + (size ? 2 : 1);
  const int noun_at = static_cast<int>(pair.english.size()) - 1;
  // French: det [size] noun [colour]; "des" before an adjective is "de".
  const bool de = plural && size && std::string(det.fr[form]) == "des";
  const auto add = [&](const char* word, int source) {
    pair.french.push_back(word);
    pair.alignment.push_back(source);
  };
  add(de ? "de" : det.fr[form], det_at);
  if (size) add(size->fr[form], size_at);
  add(plural ? noun.fr_plural : noun.fr, noun_at);
  if (colour) add(colour->fr[form], colour_at);
  return {plural};
}

}  // namespace

SentencePair sample_pair(Rng& rng) {
  SentencePair pair;
  const Phrase subject = noun_phrase(rng, pair);
  const Verb& verb = kVerbs[static_cast<std::size_t>(pick(rng, kVerbs.size()))];
  pair.english.push_back(subject.plural ? verb.en_plural : verb.en);
  pair.french.push_back(subject.plural ? verb.fr_plural : verb.fr);
  pair.alignment.push_back(static_cast<int>(pair.english.size()) - 1);
  noun_phrase(rng, pair);
  if (chance(rng, 0.35f)) {
    const auto& prep = kPrepositions[static_cast<std::size_t>(pick(rng, kPrepositions.size()))];
    pair.english.push_back(prep[0]);
    pair.french.push_back(prep[1]);
    pair.alignment.push_back(static_cast<int>(pair.english.size()) - 1);
    noun_phrase(rng, pair);
  }
  return pair;
}

std::vector<std::string> english_words() {
  std::set<std::string> words;
  for (const Noun& n : kNouns) words.insert({n.en, n.en_plural});
  for (const Adjective& a : kSizeAdjectives) words.insert(a.en);
  for (const Adjective& a : kColourAdjectives) words.insert(a.en);
  for (const Verb& v : kVerbs) words.insert({v.en, v.en_plural});
  for (const auto& p : kPrepositions) words.insert(p[0]);
  for (const Determiner& d : kDeterminers) words.insert({d.en, d.en_plural});
  return {words.begin(), words.end()};
}

std::vector<std::string> french_words() {
  std::set<std::string> words{"de"};
  for (const Noun& n : kNouns) words.insert({n.fr, n.fr_plural});
  for (const Adjective& a : kSizeAdjectives) words.insert(a.fr.begin(), a.fr.end());
  for (const Adjective& a : kColourAdjectives) words.insert(a.fr.begin(), a.fr.end());
  for (const Verb& v : kVerbs) words.insert({v.fr, v.fr_plural});
  for (const auto& p : kPrepositions) words.insert(p[1]);
  for (const Determiner& d : kDeterminers) words.insert(d.fr.begin(), d.fr.end());
  return {words.begin(), words.end()};
}

const Vocabularies& vocabularies() {
  static const Vocabularies v = [] {
    const std::vector<std::string> specials{"<pad>", "<s>", "</s>", "<unk>"};
    Vocabularies out{specials, specials, {}, {}};
    for (const std::string& w : english_words()) out.english.push_back(w);
    for (const std::string& w : french_words()) out.french.push_back(w);
    for (std::size_t i = 0; i < out.english.size(); ++i) out.english_ids[out.english[i]] = static_cast<int>(i);
    for (std::size_t i = 0; i < out.french.size(); ++i) out.french_ids[out.french[i]] = static_cast<int>(i);
    return out;
  }();
  return v;
}

namespace {
std::vector<int> ids_of(const std::vector<std::string>& words, const std::map<std::string, int>& index) {
  std::vector<int> ids;
  for (const std::string& w : words) ids.push_back(index.at(w));  // the grammar's own words: always there
  return ids;
}
}  // namespace

EncodedPair encode_pair(const SentencePair& pair) {
  const Vocabularies& v = vocabularies();
  EncodedPair e{ids_of(pair.english, v.english_ids), {kBosId}, ids_of(pair.french, v.french_ids)};
  e.target.insert(e.target.end(), e.targets.begin(), e.targets.end());
  e.targets.push_back(kEosId);
  return e;
}

std::vector<SentencePair> held_out_pairs(int count, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<SentencePair> pairs;
  std::set<std::vector<std::string>> seen;
  while (static_cast<int>(pairs.size()) < count) {
    SentencePair pair = sample_pair(rng);
    if (seen.insert(pair.english).second) pairs.push_back(std::move(pair));
  }
  return pairs;
}

// ---- The recognizer: the grammar of sample_pair read left to right ----
//
//   sentence    = noun-phrase(n) verb(n) noun-phrase [preposition noun-phrase]
//   noun-phrase = determiner [size adjective] [colour adjective] noun   (English order; the determiner
//                 and the noun agree in number, the verb with the subject's noun)
// Every word belongs to one kind only, and each step allows a few kinds, so a left-to-right walk
// decides: the first word that none of the allowed kinds holds is where the sentence leaves the grammar.

namespace {

// Grammatical number as a set: a determiner such as "the" allows both.
constexpr unsigned kSingular = 1, kPlural = 2, kEitherNumber = kSingular | kPlural;

enum class Kind { determiner, size_adjective, colour_adjective, noun, verb, preposition, end };
struct Allowed {
  Kind kind;
  unsigned numbers = kEitherNumber;  // determiners, nouns, verbs: the numbers their words may have here
};

// The words of one kind with one of `numbers`, in the grammar's order, each once.
std::vector<std::string> words_of(Kind kind, unsigned numbers) {
  std::vector<std::string> words;
  const auto add = [&](const char* word) {
    if (std::find(words.begin(), words.end(), word) == words.end()) words.emplace_back(word);
  };
  const auto add_forms = [&](const auto& list) {
    for (const auto& item : list) {
      if (numbers & kSingular) add(item.en);
      if (numbers & kPlural) add(item.en_plural);
    }
  };
  switch (kind) {
    case Kind::determiner: add_forms(kDeterminers); break;
    case Kind::noun: add_forms(kNouns); break;
    case Kind::verb: add_forms(kVerbs); break;
    case Kind::size_adjective: for (const Adjective& a : kSizeAdjectives) add(a.en); break;
    case Kind::colour_adjective: for (const Adjective& a : kColourAdjectives) add(a.en); break;
    case Kind::preposition: for (const auto& p : kPrepositions) add(p[0]); break;
    case Kind::end: break;
  }
  return words;
}

unsigned numbers_of(Kind kind, const std::string& word) {
  unsigned numbers = 0;
  for (unsigned number : {kSingular, kPlural}) {
    const std::vector<std::string> forms = words_of(kind, number);
    if (std::find(forms.begin(), forms.end(), word) != forms.end()) numbers |= number;
  }
  return numbers;
}

std::string name_of(Kind kind, unsigned numbers) {
  const char* number = numbers == kSingular ? "singular " : numbers == kPlural ? "plural " : "";
  switch (kind) {
    case Kind::determiner: return "a determiner";
    case Kind::size_adjective: return "an adjective French puts before the noun";
    case Kind::colour_adjective: return "an adjective French puts after the noun";
    case Kind::noun: return std::string("a ") + number + "noun";
    case Kind::verb: return numbers == kEitherNumber ? "a verb" : std::string("a verb agreeing with a ") + number + "subject";
    case Kind::preposition: return "a preposition";
    case Kind::end: return "the end of the sentence";
  }
  return {};
}

// Where the walk is: which part of the sentence comes next and, inside a noun phrase, which slot.
struct Walk {
  enum Part { subject, verb, object, preposition_or_end, prepositional_object, done } part = subject;
  enum Slot { determiner, size_colour_or_noun, colour_or_noun, noun } slot = determiner;
  unsigned numbers = kEitherNumber;  // in a noun phrase: those its determiner allows; at the verb: the subject's

  std::vector<Allowed> allowed() const {
    switch (part) {
      case verb: return {{Kind::verb, numbers}};
      case preposition_or_end: return {{Kind::preposition}, {Kind::end}};
      case done: return {{Kind::end}};
      default: break;
    }
    switch (slot) {
      case determiner: return {{Kind::determiner}};
      case size_colour_or_noun: return {{Kind::size_adjective}, {Kind::colour_adjective}, {Kind::noun, numbers}};
      case colour_or_noun: return {{Kind::colour_adjective}, {Kind::noun, numbers}};
      case noun: return {{Kind::noun, numbers}};
    }
    return {};
  }

  // The walk after `word`, read as an allowed word of `kind`.
  void take(Kind kind, const std::string& word) {
    switch (kind) {
      case Kind::determiner: numbers = numbers_of(kind, word); slot = size_colour_or_noun; return;
      case Kind::size_adjective: slot = colour_or_noun; return;
      case Kind::colour_adjective: slot = noun; return;
      case Kind::noun:
        numbers &= numbers_of(kind, word);
        slot = determiner;
        part = part == subject ? verb : part == object ? preposition_or_end : done;
        return;
      case Kind::verb: numbers = kEitherNumber; part = object; return;
      case Kind::preposition: part = prepositional_object; return;
      case Kind::end: return;
    }
  }
};

std::vector<WordKind> described(const std::vector<Allowed>& allowed) {
  std::vector<WordKind> kinds;
  for (const Allowed& a : allowed) kinds.push_back({name_of(a.kind, a.numbers), words_of(a.kind, a.numbers)});
  return kinds;
}

}  // namespace

GrammarCheck check_english(const std::vector<std::string>& words) {
  Walk walk;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::vector<Allowed> allowed = walk.allowed();
    const auto fits = std::find_if(allowed.begin(), allowed.end(), [&](const Allowed& a) {
      const std::vector<std::string> kind_words = words_of(a.kind, a.numbers);
      return std::find(kind_words.begin(), kind_words.end(), words[i]) != kind_words.end();
    });
    if (fits == allowed.end()) return {false, static_cast<int>(i), described(allowed)};
    walk.take(fits->kind, words[i]);
  }
  const std::vector<Allowed> allowed = walk.allowed();
  const bool may_end = std::any_of(allowed.begin(), allowed.end(), [](const Allowed& a) { return a.kind == Kind::end; });
  if (may_end && !words.empty()) return {true, -1, {}};
  return {false, static_cast<int>(words.size()), described(allowed)};
}

std::vector<WordKind> english_word_kinds() {
  return described({{Kind::determiner}, {Kind::size_adjective}, {Kind::colour_adjective}, {Kind::noun}, {Kind::verb},
                    {Kind::preposition}});
}

}  // namespace attnlab::translation
