// The encoder–decoder against PyTorch 1.13's own nn.Transformer with the same weights
// (tests/fixtures/make_seq2seq_fixtures.py): logits, every attention map, greedy and beam-search
// decodes (through the key/value cache), five AdamW steps on a padded batch, and the state_dict's
// round trip and bad files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <nlohmann/json.hpp>

#include "attnlab/seq2seq/en_fr_grammar.hpp"
#include "attnlab/seq2seq/seq2seq.hpp"
#include "attnlab/seq2seq/seq2seq_training.hpp"
#include "attnlab/seq2seq/translation_scores.hpp"
#include "attnlab/tensor/trace.hpp"
#include "attnlab/training/optimizer.hpp"
#include "expect_error.hpp"
#include "fixture.hpp"
#include "gpt_fixture.hpp"

namespace attnlab {
namespace {

using testing::MatricesNear;
using testing::nested_grid;
using testing::nested_matrix;

std::vector<std::uint8_t> read_bytes(const std::string& file) { return testing::fixture_bytes("seq2seq/" + file); }
nlohmann::json read_json(const std::string& file) { return testing::fixture_json("seq2seq/" + file); }

Seq2SeqConfig config_of(const nlohmann::json& c) {
  return {.source_vocab_size = c.at("source_vocab_size"), .target_vocab_size = c.at("target_vocab_size"),
          .max_len = c.at("max_len"), .d_model = c.at("d_model"), .num_heads = c.at("num_heads"),
          .num_encoder_layers = c.at("num_encoder_layers"), .num_decoder_layers = c.at("num_decoder_layers"),
          .d_ff = c.at("d_ff"), .norm_first = c.at("norm_first").get<bool>()};
}

struct Loaded {
  nlohmann::json fixture;
  Seq2SeqTransformer model;
};

Loaded load(const std::string& name) {
  nlohmann::json fixture = read_json(name + ".json");
  Seq2SeqTransformer model(config_of(fixture.at("config")));
  model.load_safetensors(read_bytes(name + ".safetensors"));
  return {std::move(fixture), std::move(model)};
}

void expect_grid_near(const std::vector<std::vector<Matrix>>& actual, const nlohmann::json& expected, const char* what) {
  const std::vector<std::vector<Matrix>> want = nested_grid(expected);
  ASSERT_EQ(actual.size(), want.size()) << what;
  for (std::size_t l = 0; l < want.size(); ++l) {
    ASSERT_EQ(actual[l].size(), want[l].size()) << what << " layer " << l;
    for (std::size_t h = 0; h < want[l].size(); ++h)
      EXPECT_TRUE(MatricesNear(actual[l][h], want[l][h], 1e-5f, 1e-4f)) << what << " layer " << l << " head " << h;
  }
}

// Every parameter's gradient against PyTorch's, found under its state_dict name: attnlab keeps the
// attention's q, k and v projections apart, PyTorch stacks them in in_proj_weight / in_proj_bias.
void expect_gradients_near(const std::vector<ParameterRef>& parameters, const std::vector<std::uint8_t>& file) {
  const SafetensorsHeader header = parse_safetensors(file);
  for (const ParameterRef& p : parameters) {
    std::string name = p.name;
    std::size_t block = 0;
    for (const auto& [part, index] : {std::pair{std::string("q_proj."), 0u}, {"k_proj.", 1u}, {"v_proj.", 2u}}) {
      const std::size_t at = name.find(part);
      if (at == std::string::npos) continue;
      name = name.substr(0, at) + "in_proj_" + name.substr(at + part.size());
      block = index;
    }
    const SafetensorInfo* info = header.find(name);
    ASSERT_NE(info, nullptr) << name;
    std::vector<float> torch(static_cast<std::size_t>(info->element_count()));
    read_tensor(file, header, *info, torch.data());
    const Eigen::Index size = p.size;
    const Matrix ours = Eigen::Map<const Matrix>(p.grad, 1, size);
    const Matrix theirs = Eigen::Map<const Matrix>(torch.data() + block * static_cast<std::size_t>(size), 1, size);
    EXPECT_TRUE(MatricesNear(ours, theirs, 1e-5f, 1e-3f)) << p.name;
  }
}

class Seq2SeqAgainstTorch : public ::testing::TestWithParam<std::string> {};

TEST_P(Seq2SeqAgainstTorch, LogitsAndEveryAttentionMap) {
  Loaded m = load(GetParam());
  const auto& f = m.fixture;
  const Seq2SeqOutput out = m.model.forward(f.at("source"), f.at("target"), f.at("targets"));
  EXPECT_TRUE(MatricesNear(out.logits, nested_matrix(f.at("logits")), 1e-5f, 1e-4f));
  EXPECT_NEAR(out.loss, f.at("loss").get<double>(), 1e-5);
  expect_grid_near(out.attention.encoder_self, f.at("attention").at("encoder_self"), "encoder self-attention");
  expect_grid_near(out.attention.decoder_self, f.at("attention").at("decoder_self"), "decoder self-attention");
  expect_grid_near(out.attention.cross, f.at("attention").at("cross"), "cross-attention");
}

TEST_P(Seq2SeqAgainstTorch, GreedyDecodingThroughTheCacheMatchesTheFullForward) {
  Loaded m = load(GetParam());
  const auto& f = m.fixture;
  const auto& g = f.at("greedy");
  const Seq2SeqDecoded out = m.model.decode(f.at("source"), {.bos_id = f.at("bos_id"), .eos_id = f.at("eos_id"),
                                                              .max_tokens = g.at("max_tokens")});
  EXPECT_EQ(out.tokens, g.at("tokens").get<std::vector<int>>());
  EXPECT_EQ(out.output, g.at("output").get<std::vector<int>>());
  EXPECT_EQ(out.finished, g.at("finished").get<bool>());
  EXPECT_NEAR(out.log_prob, g.at("log_prob").get<double>(), 1e-4);
  // One row per token read, equal to PyTorch's cross-attention over the whole decoded target.
  expect_grid_near(out.cross_attention, g.at("cross_attention"), "decoded cross-attention");
}

TEST_P(Seq2SeqAgainstTorch, BeamSearchAndACutShortDecode) {
  Loaded m = load(GetParam());
  const auto& f = m.fixture;
  const auto& b = f.at("beam");
  const Seq2SeqDecoded beam = m.model.decode(
      f.at("source"), {.bos_id = f.at("bos_id"), .eos_id = f.at("eos_id"), .max_tokens = b.at("max_tokens"), .beam = b.at("beam")});
  EXPECT_EQ(beam.tokens, b.at("tokens").get<std::vector<int>>());
  EXPECT_EQ(beam.finished, b.at("finished").get<bool>());
  EXPECT_NEAR(beam.log_prob, b.at("log_prob").get<double>(), 1e-4);
  const auto& c = f.at("greedy_cut");
  const Seq2SeqDecoded cut = m.model.decode(f.at("source"), {.bos_id = f.at("bos_id"), .eos_id = f.at("eos_id"), .max_tokens = 1});
  EXPECT_EQ(cut.tokens, c.at("tokens").get<std::vector<int>>());
  EXPECT_EQ(cut.finished, c.at("finished").get<bool>());
  for (const auto& layer : cut.cross_attention)
    for (const Matrix& rows : layer) EXPECT_EQ(rows.rows(), static_cast<Eigen::Index>(cut.tokens.size()));
}

TEST_P(Seq2SeqAgainstTorch, FiveAdamWStepsOnAPaddedBatch) {
  Loaded m = load(GetParam());
  const auto& t = m.fixture.at("training");
  AdamW adamw({{m.model.parameters(), t.at("weight_decay").get<double>()}}, {.lr = t.at("lr").get<double>()});
  // PyTorch's loss is the mean over every real target token of the padded batch: each pair's mean
  // loss weighs by its share of those tokens.
  int total = 0;
  for (const auto& pair : t.at("pairs")) total += static_cast<int>(pair.at("targets").size());
  bool first = true;
  for (const auto& expected : t.at("losses")) {
    adamw.zero_grad();
    double loss = 0.0;
    for (const auto& pair : t.at("pairs")) {
      const float share = static_cast<float>(pair.at("targets").size()) / static_cast<float>(total);
      loss += share * m.model.accumulate_gradients(pair.at("source"), pair.at("target"), pair.at("targets"), share).loss;
    }
    EXPECT_NEAR(loss, expected.get<double>(), 2e-5 * expected.get<double>());
    if (first) expect_gradients_near(m.model.parameters(), read_bytes(GetParam() + "_grads.safetensors"));
    first = false;
    adamw.step();
  }
}

INSTANTIATE_TEST_SUITE_P(Torch, Seq2SeqAgainstTorch, ::testing::Values("post_norm", "pre_norm"));

TEST(Seq2SeqState, SavedFileLoadsIntoAFreshModelWithTheSameNumbers) {
  Loaded m = load("post_norm");
  const std::vector<std::uint8_t> saved = m.model.save_safetensors();
  Seq2SeqTransformer copy(config_of(m.fixture.at("config")));
  copy.load_safetensors(saved);
  const auto& f = m.fixture;
  EXPECT_TRUE(MatricesNear(copy.forward(f.at("source"), f.at("target")).logits, m.model.forward(f.at("source"), f.at("target")).logits, 0, 0));
  // PyTorch's names and shapes, in its order.
  const std::vector<Seq2SeqTensor> state = m.model.state_dict();
  EXPECT_EQ(state.front().name, "src_tok_emb.weight");
  EXPECT_EQ(state[2].name, "transformer.encoder.layers.0.self_attn.in_proj_weight");
  EXPECT_EQ(state[2].shape, (std::vector<std::int64_t>{48, 16}));
  EXPECT_EQ(state.back().name, "generator.bias");
}

TEST(Seq2SeqState, TheTutorialsTokenEmbeddingNamesLoadToo) {
  // PyTorch's translation tutorial keeps each nn.Embedding inside a TokenEmbedding module.
  Loaded m = load("post_norm");
  std::vector<Seq2SeqTensor> state = m.model.state_dict();
  std::vector<TensorToWrite> tensors;
  for (Seq2SeqTensor& t : state) {
    if (t.name == "src_tok_emb.weight") t.name = "src_tok_emb.embedding.weight";
    if (t.name == "tgt_tok_emb.weight") t.name = "tgt_tok_emb.embedding.weight";
    tensors.push_back({t.name, t.shape, t.values.data()});
  }
  Seq2SeqTransformer copy(config_of(m.fixture.at("config")));
  copy.load_safetensors(write_safetensors(tensors, DType::F32));
  const auto& f = m.fixture;
  EXPECT_TRUE(MatricesNear(copy.forward(f.at("source"), f.at("target")).logits, nested_matrix(f.at("logits")), 1e-5f, 1e-4f));
}

TEST(Seq2SeqState, AFileForAnotherConfigIsRefusedNamingTheTensorAndShapes) {
  Loaded m = load("post_norm");
  Seq2SeqConfig wider = config_of(m.fixture.at("config"));
  wider.d_ff = 40;
  Seq2SeqTransformer other(wider);
  const Matrix before = other.forward({3, 4}, {1, 5}).logits;
  expect_error([&] { other.load_safetensors(read_bytes("post_norm.safetensors")); },
                        "Seq2SeqTransformer::load_safetensors: 'transformer.encoder.layers.0.linear1.weight' is [32, 16] "
                        "in the file but [40, 16] for this config");
  EXPECT_TRUE(MatricesNear(other.forward({3, 4}, {1, 5}).logits, before, 0, 0));  // unchanged
  Seq2SeqConfig deeper = config_of(m.fixture.at("config"));
  deeper.num_decoder_layers = 3;
  Seq2SeqTransformer third(deeper);
  expect_error([&] { third.load_safetensors(read_bytes("post_norm.safetensors")); },
                        "Seq2SeqTransformer::load_safetensors: the file has no tensor "
                        "'transformer.decoder.layers.2.self_attn.in_proj_weight' ([48, 16] for this config)");
}

TEST(Seq2SeqErrors, BadIdsAndOptionsNameTheArgument) {
  Seq2SeqTransformer model({.source_vocab_size = 5, .target_vocab_size = 6, .max_len = 4, .d_model = 8, .num_heads = 2,
                            .num_encoder_layers = 1, .num_decoder_layers = 1, .d_ff = 8});
  expect_error([&] { model.forward({}, {1}); }, "Seq2SeqTransformer::forward: source is empty (give at least one token)");
  expect_error([&] { model.forward({1, 2, 3, 4, 1}, {1}); }, "Seq2SeqTransformer::forward: source has 5 tokens, more than the model's max_len = 4");
  expect_error([&] { model.forward({1}, {6}); }, "Seq2SeqTransformer::forward: target[0] = 6 is outside the vocabulary 0 … 5");
  expect_error([&] { model.decode({1}, {.bos_id = 0, .eos_id = 9}); }, "Seq2SeqTransformer::decode: eos_id = 9 is outside the target vocabulary 0 … 5");
  expect_error([&] { model.decode({1}, {.beam = 0}); }, "Seq2SeqTransformer::decode: beam must be ≥ 1, got 0");
  expect_error([&] { Seq2SeqTransformer({.source_vocab_size = 5, .target_vocab_size = 6, .d_model = 10, .num_heads = 4}); },
                        "Seq2SeqTransformer: d_model = 10 is not divisible by num_heads = 4");
  // Still usable: decoding stops at the position table's end and says it did not finish.
  const Seq2SeqDecoded out = model.decode({1, 2}, {.bos_id = 0, .eos_id = 5});
  EXPECT_LE(out.tokens.size(), 4u);
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

TEST(Seq2SeqTrainer, TheScheduleByHandAndAnEmptyBatchRefused) {
  Seq2SeqTransformer model({.source_vocab_size = 5, .target_vocab_size = 6, .max_len = 4, .d_model = 8, .num_heads = 2,
                            .num_encoder_layers = 1, .num_decoder_layers = 1, .d_ff = 8});
  Seq2SeqTrainer trainer(model, {.max_lr = 1e-3, .min_lr = 1e-4, .warmup_steps = 200, .total_steps = 1200});
  EXPECT_DOUBLE_EQ(trainer.learning_rate(0), 1e-3 / 200);        // linear warm-up from the first step
  EXPECT_DOUBLE_EQ(trainer.learning_rate(199), 1e-3);
  EXPECT_DOUBLE_EQ(trainer.learning_rate(200), 1e-3);            // the cosine starts at the top
  EXPECT_NEAR(trainer.learning_rate(700), 1e-4 + 0.5 * 9e-4, 1e-15);  // halfway: cos(π/2) = 0
  EXPECT_DOUBLE_EQ(trainer.learning_rate(1200), 1e-4);
  EXPECT_DOUBLE_EQ(trainer.learning_rate(5000), 1e-4);           // and stays at the floor
  expect_error([&] { trainer.step({}); }, "Seq2SeqTrainer::step: the batch is empty");
  expect_error([&] { trainer.step({{{1}, {1, 9}, {2, 2}}}); },
               "Seq2SeqTransformer::forward: target[1] = 9 is outside the vocabulary 0 … 5");
  EXPECT_EQ(trainer.steps(), 0);
  const double loss = trainer.step({{{1, 2}, {1, 3}, {3, 2}}});
  EXPECT_NEAR(loss, std::log(6.0), 1.0);  // an untrained model: about log(vocabulary)
  EXPECT_EQ(trainer.steps(), 1);
}

TEST(Seq2SeqTrace, EveryAttentionOfEveryLayerIsTraced) {
  Seq2SeqTransformer model({.source_vocab_size = 5, .target_vocab_size = 6, .max_len = 4, .d_model = 8, .num_heads = 2,
                            .num_encoder_layers = 2, .num_decoder_layers = 2, .d_ff = 8});
  Trace trace;
  const Seq2SeqOutput out = model.forward({1, 2, 3}, {1, 4}, {}, Tracer(trace));
  std::vector<std::string> ids;
  for (const auto& step : trace.steps()) ids.push_back(step.id);
  const auto has = [&](const std::string& id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); };
  for (const char* id : {"encoder.layers.0.attn.input", "encoder.layers.1.output", "encoder.norm",
                         "decoder.layers.0.self_attn.input", "decoder.layers.1.cross_attn.output",
                         "decoder.layers.1.residual3", "decoder.norm", "logits"})
    EXPECT_TRUE(has(id)) << id;
  EXPECT_EQ(out.attention.cross[1].size(), 2u);
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

// The grammar's recognizer, by hand: what sample_pair draws is in the grammar (many seeds); sentences
// outside it fail at the word a reader of the grammar points to, with the kinds allowed there.
std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

TEST(EnFrGrammar, EverySampledSentenceIsInTheGrammar) {
  int checked = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    Rng rng(seed);
    for (int i = 0; i < 50; ++i, ++checked) {
      const translation::SentencePair pair = translation::sample_pair(rng);
      const translation::GrammarCheck check = translation::check_english(pair.english);
      ASSERT_TRUE(check.in_grammar) << "seed " << seed << ": position " << check.position;
      EXPECT_EQ(check.position, -1);
      EXPECT_TRUE(check.expected.empty());
    }
  }
  EXPECT_EQ(checked, 10000);
  // The longest sentence the grammar makes (kMaxWords), every optional slot filled.
  EXPECT_TRUE(translation::check_english(split("the small red cat sees some small cats in my old green houses")).in_grammar);
}

struct Outside {
  const char* sentence;
  int position;
  std::vector<std::string> kinds;
};

TEST(EnFrGrammar, SentencesOutsideTheGrammarFailAtTheRightWord) {
  const std::string singular_noun = "a singular noun", plural_noun = "a plural noun", noun = "a noun";
  const std::string before = "an adjective French puts before the noun", after = "an adjective French puts after the noun";
  const std::vector<Outside> cases{
      // The two sentences: "is" is no verb of the grammar; "children" no noun.
      {"a blue car is near the big tree", 3, {"a verb agreeing with a singular subject"}},
      {"the children like the white cats", 1, {before, after, noun}},
      {"the cats sees the dog", 2, {"a verb agreeing with a plural subject"}},
      {"a cats sees the dog", 1, {before, after, singular_noun}},
      {"some small cat sees the dog", 2, {after, plural_noun}},
      {"the red small cat sees the dog", 2, {noun}},
      {"the cat sees the dog the", 5, {"a preposition", "the end of the sentence"}},
      {"the cat sees the dog in the house with the girl", 8, {"the end of the sentence"}},
      {"the cat sees the dog with", 6, {"a determiner"}},
      {"the cat sees", 3, {"a determiner"}},
      {"the dog", 2, {"a verb agreeing with a singular subject"}},
      {"", 0, {"a determiner"}},
  };
  for (const Outside& c : cases) {
    const translation::GrammarCheck check = translation::check_english(split(c.sentence));
    EXPECT_FALSE(check.in_grammar) << c.sentence;
    EXPECT_EQ(check.position, c.position) << c.sentence;
    std::vector<std::string> kinds;
    for (const translation::WordKind& k : check.expected) kinds.push_back(k.name);
    EXPECT_EQ(kinds, c.kinds) << c.sentence;
  }
  // The words allowed, by hand from the grammar's lists: agreement picks the verb's form.
  EXPECT_EQ(translation::check_english(split("a blue car is")).expected.at(0).words,
            (std::vector<std::string>{"sees", "eats", "likes", "watches", "follows", "finds", "takes", "has"}));
  EXPECT_EQ(translation::check_english(split("these cars sees")).expected.at(0).words,
            (std::vector<std::string>{"see", "eat", "like", "watch", "follow", "find", "take", "have"}));
  EXPECT_EQ(translation::check_english(split("the dog sees")).expected.at(0).words,
            (std::vector<std::string>{"the", "a", "some", "my", "this", "these"}));
  EXPECT_TRUE(translation::check_english(split("the cat sees the dog")).expected.empty());
  EXPECT_TRUE(translation::check_english(split("the cat sees the dog")).in_grammar);
}

TEST(EnFrGrammar, TheWordKindsHoldEveryEnglishWordOnce) {
  std::vector<std::string> all;
  for (const translation::WordKind& k : translation::english_word_kinds()) all.insert(all.end(), k.words.begin(), k.words.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, translation::english_words());
  EXPECT_EQ(all.size(), 77u);
  std::vector<std::string> names;
  for (const translation::WordKind& k : translation::english_word_kinds()) names.push_back(k.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a determiner", "an adjective French puts before the noun",
                                             "an adjective French puts after the noun", "a noun", "a verb", "a preposition"}));
}

// The shipped translator (web/models/translator/) scored again on the run's 500 held-out pairs gives
// the figures its training log ends with (both computed in float32 by the same code, so to rounding).
TEST(TranslatorModel, TheShippedWeightsScoreWhatTheLogSays) {
  const std::string dir = std::string(ATTNLAB_FIXTURE_DIR) + "/../../web/models/translator/";
  std::ifstream log_file(dir + "training-log.jsonl");
  ASSERT_TRUE(log_file) << dir;
  nlohmann::json summary;
  for (std::string line; std::getline(log_file, line);) summary = nlohmann::json::parse(line);
  ASSERT_EQ(summary.at("kind"), "summary");
  const translation::Vocabularies& v = translation::vocabularies();
  Seq2SeqTransformer model({.source_vocab_size = static_cast<int>(v.english.size()),
                            .target_vocab_size = static_cast<int>(v.french.size()), .max_len = 16, .d_model = 64,
                            .num_heads = 4, .num_encoder_layers = 2, .num_decoder_layers = 2, .d_ff = 256});
  std::ifstream weights(dir + "model.safetensors", std::ios::binary);
  model.load_safetensors(std::vector<std::uint8_t>(std::istreambuf_iterator<char>(weights), {}));
  const std::vector<translation::SentencePair> held_out = translation::held_out_pairs(500, 3);
  const translation::TranslationScores scores = translation::score_translations(model, held_out);
  EXPECT_NEAR(scores.exact_match, summary.at("heldout_exact_match").get<double>(), 1e-9);
  EXPECT_NEAR(scores.token_accuracy, summary.at("heldout_token_accuracy").get<double>(), 1e-9);
  EXPECT_NEAR(scores.loss, summary.at("heldout_loss").get<double>(), 1e-6);
  const auto& shares = summary.at("alignment_share");
  for (std::size_t l = 0; l < 2; ++l)
    for (std::size_t h = 0; h < 4; ++h) EXPECT_NEAR(scores.alignment[l][h], shares[l][h].get<double>(), 1e-9) << l << "," << h;
}

}  // namespace
}  // namespace attnlab
