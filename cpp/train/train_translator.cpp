// Trains the cross-attention lesson's English → French translator (seq2seq.hpp) with nothing but
// attnlab, on sentence pairs from the seeded grammar in en_fr_grammar.hpp, and measures it:
//
//   train_translator --out DIR [--steps N]
//   train_translator --check-log LOG    reruns the first 5 steps and compares their losses with LOG's
//       grammar → held-out pairs (fixed seed) and a stream of training pairs (another seed, never a
//       held-out English sentence) → Seq2SeqTransformer → AdamW steps →
//       DIR/model.safetensors (F32, PyTorch's names), DIR/vocab.json (both vocabularies, special ids,
//       the config), DIR/heldout.json (the first held-out pairs with their gold alignment, for the
//       lesson), DIR/training-log.jsonl (setup, an evaluation every 250 steps, the summary).
//
// Measured on every held-out pair: greedy translation exact match; teacher-forced, for every layer and
// head, the share of French words whose cross-attention row (the query position that predicts the
// word) has its largest weight on the word's gold-aligned English word. scripts/train-translator.sh
// rebuilds and runs this; everything that decides the result is in this file and the grammar.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/seq2seq/en_fr_grammar.hpp"
#include "attnlab/seq2seq/seq2seq.hpp"
#include "attnlab/seq2seq/seq2seq_training.hpp"
#include "attnlab/seq2seq/translation_scores.hpp"

namespace {

using json = nlohmann::json;
using namespace attnlab;

// The recipe. nn.Transformer's defaults where they fit a 14-word grammar (post-norm, ReLU), scaled
// down: 2 + 2 layers of d_model 64 and 4 heads train in minutes on one core.
constexpr std::uint64_t kInitSeed = 1, kDataSeed = 2, kHeldOutSeed = 3;
constexpr int kDModel = 64, kHeads = 4, kEncoderLayers = 2, kDecoderLayers = 2, kDff = 256;
constexpr int kMaxLen = translation::kMaxWords + 2;  // BOS + words (+ EOS) on the decoder's side
constexpr int kBatch = 32;
constexpr int kDefaultSteps = 3000;
constexpr int kWarmup = 200;
constexpr double kMaxLr = 1e-3, kMinLr = 1e-4, kWeightDecay = 0.01;
constexpr int kHeldOut = 500, kHeldOutShipped = 60;
constexpr int kEvalEvery = 250;
using translation::kBosId;
using translation::kEosId;

struct Example {
  translation::SentencePair pair;
  Seq2SeqExample ids;
};

Example make_example(translation::SentencePair pair) {
  const translation::EncodedPair e = translation::encode_pair(pair);
  return {std::move(pair), {e.source, e.target, e.targets}};
}

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

// The held-out pairs' scores (translation_scores.hpp).
translation::TranslationScores evaluate(Seq2SeqTransformer& model, const std::vector<Example>& held_out) {
  std::vector<translation::SentencePair> pairs;
  for (const Example& e : held_out) pairs.push_back(e.pair);
  return translation::score_translations(model, pairs);
}

json evaluation_json(const translation::TranslationScores& ev) {
  json best = json::array();
  for (const auto& layer : ev.alignment) {
    const auto top = std::max_element(layer.begin(), layer.end());
    best.push_back({{"head", top - layer.begin()}, {"share", *top}});
  }
  return {{"heldout_loss", ev.loss}, {"heldout_token_accuracy", ev.token_accuracy},
          {"heldout_exact_match", ev.exact_match}, {"alignment_share", ev.alignment}, {"best_head_per_layer", best}};
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + path);
}

// The losses of the log's "first_step" records.
std::vector<double> logged_first_losses(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<double> losses;
  for (std::string line; std::getline(in, line);) {
    const json record = json::parse(line);
    if (record.at("kind") == "first_step") losses.push_back(record.at("loss").get<double>());
  }
  return losses;
}

int run(const std::string& out_dir, int steps, const std::string& check_log) {
  const bool checking = !check_log.empty();
  std::vector<double> first_losses;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const translation::Vocabularies& vocab = translation::vocabularies();
  std::vector<Example> held_out;
  std::set<std::string> held_sentences;
  for (translation::SentencePair& pair : translation::held_out_pairs(kHeldOut, kHeldOutSeed)) {
    held_sentences.insert(joined(pair.english));
    held_out.push_back(make_example(std::move(pair)));
  }

  const Seq2SeqConfig config{.source_vocab_size = static_cast<int>(vocab.english.size()),
                             .target_vocab_size = static_cast<int>(vocab.french.size()),
                             .max_len = kMaxLen, .d_model = kDModel, .num_heads = kHeads,
                             .num_encoder_layers = kEncoderLayers, .num_decoder_layers = kDecoderLayers,
                             .d_ff = kDff, .seed = kInitSeed};
  Seq2SeqTransformer model(config);
  Seq2SeqTrainer trainer(model, {.max_lr = kMaxLr, .min_lr = kMinLr, .warmup_steps = kWarmup, .total_steps = steps,
                                 .weight_decay = kWeightDecay});

  std::ofstream log;
  if (!checking) log.open(out_dir + "/training-log.jsonl");
  if (!checking && !log) throw std::runtime_error("cannot write " + out_dir + "/training-log.jsonl");
  const auto write_log = [&](const json& record) {
    if (checking) return;
    log << record.dump() << '\n';
    log.flush();
    std::cout << record.dump() << std::endl;
  };
  write_log({{"kind", "setup"}, {"source_vocab", vocab.english.size()}, {"target_vocab", vocab.french.size()},
             {"parameters", model.parameter_count()}, {"steps", steps}, {"batch", kBatch}, {"d_model", kDModel},
             {"heads", kHeads}, {"encoder_layers", kEncoderLayers}, {"decoder_layers", kDecoderLayers},
             {"d_ff", kDff}, {"max_lr", kMaxLr}, {"min_lr", kMinLr}, {"warmup", kWarmup},
             {"weight_decay", kWeightDecay}, {"init_seed", kInitSeed}, {"data_seed", kDataSeed},
             {"heldout_seed", kHeldOutSeed}, {"heldout_pairs", kHeldOut}});

  Rng data_rng(kDataSeed);
  int skipped = 0;
  double loss_sum = 0.0;
  int loss_count = 0;
  model.train(true);
  for (int step = 0; step < steps; ++step) {
    std::vector<Seq2SeqExample> batch;
    while (static_cast<int>(batch.size()) < kBatch) {
      translation::SentencePair pair = translation::sample_pair(data_rng);
      if (held_sentences.count(joined(pair.english))) {
        ++skipped;
        continue;
      }
      batch.push_back(make_example(std::move(pair)).ids);
    }
    const double loss = trainer.step(batch);
    loss_sum += loss;
    ++loss_count;
    if (step < 5) {
      write_log({{"kind", "first_step"}, {"step", step}, {"loss", loss}});
      first_losses.push_back(loss);
    }
    if (checking && step + 1 == 5) break;
    if ((step + 1) % kEvalEvery == 0 || step + 1 == steps) {
      model.train(false);
      json record = evaluation_json(evaluate(model, held_out));
      record.update({{"kind", "eval"}, {"step", step + 1}, {"train_loss", loss_sum / loss_count}, {"seconds", seconds()}});
      write_log(record);
      loss_sum = 0.0;
      loss_count = 0;
      model.train(true);
    }
  }
  model.train(false);
  if (checking) {
    const std::vector<double> logged = logged_first_losses(check_log);
    bool same = logged.size() == first_losses.size();
    for (std::size_t i = 0; same && i < logged.size(); ++i) {
      std::printf("step %zu: loss %.9f, log %.9f\n", i, first_losses[i], logged[i]);
      same = std::fabs(first_losses[i] - logged[i]) <= 1e-5 * std::fabs(logged[i]);
    }
    if (!same) std::printf("the first steps do not match %s\n", check_log.c_str());
    return same ? 0 : 1;
  }

  write_file(out_dir + "/model.safetensors",
             [&] {
               const std::vector<std::uint8_t> bytes = model.save_safetensors(DType::F32, {{"format", "pt"}});
               return std::string(bytes.begin(), bytes.end());
             }());
  json vocab_json = {{"source", vocab.english}, {"target", vocab.french}, {"pad_id", translation::kPadId},
                     {"bos_id", kBosId}, {"eos_id", kEosId}, {"unk_id", translation::kUnkId},
                {"config", {{"d_model", kDModel}, {"num_heads", kHeads}, {"num_encoder_layers", kEncoderLayers},
                            {"num_decoder_layers", kDecoderLayers}, {"dim_feedforward", kDff}, {"max_len", kMaxLen},
                            {"norm_first", false}, {"activation", "relu"}}}};
  write_file(out_dir + "/vocab.json", vocab_json.dump(1) + "\n");
  json shipped = json::array();
  for (int i = 0; i < kHeldOutShipped; ++i)
    shipped.push_back({{"english", joined(held_out[static_cast<std::size_t>(i)].pair.english)},
                       {"french", joined(held_out[static_cast<std::size_t>(i)].pair.french)},
                       {"alignment", held_out[static_cast<std::size_t>(i)].pair.alignment}});
  write_file(out_dir + "/heldout.json", shipped.dump(1) + "\n");
  json summary = evaluation_json(evaluate(model, held_out));
  summary.update({{"kind", "summary"}, {"steps", steps}, {"skipped_heldout_sentences", skipped}, {"seconds", seconds()}});
  write_log(summary);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_dir, check_log;
  int steps = kDefaultSteps;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc) out_dir = argv[++i];
    else if (arg == "--steps" && i + 1 < argc) steps = std::stoi(argv[++i]);
    else if (arg == "--check-log" && i + 1 < argc) check_log = argv[++i];
    else {
      std::cerr << "usage: train_translator --out DIR [--steps N] | --check-log LOG\n";
      return 2;
    }
  }
  if (out_dir.empty() && check_log.empty()) {
    std::cerr << "usage: train_translator --out DIR [--steps N] | --check-log LOG\n";
    return 2;
  }
  try {
    return run(out_dir, steps, check_log);
  } catch (const std::exception& e) {
    std::cerr << "train_translator: " << e.what() << "\n";
    return 1;
  }
}
