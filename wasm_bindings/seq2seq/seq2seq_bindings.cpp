// The Embind face of the encoder–decoder (attnlab/seq2seq/seq2seq.hpp), in its own module
// (attnlab-seq2seq-<variant>.wasm), which lab.loadBuiltinTranslator() and lab.loadSeq2Seq() load;
// web/lib/seq2seq.js makes the handle friendly (tokenising, translate()). As in the other bindings, a
// method returns undefined (or a null handle) on error and keeps the message for takeLastError().
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/seq2seq/en_fr_grammar.hpp"
#include "attnlab/seq2seq/seq2seq.hpp"
#include "attnlab/seq2seq/seq2seq_training.hpp"
#include "attnlab/seq2seq/translation_scores.hpp"
#include "attnlab/tensor/error.hpp"
#include "shared/convert.hpp"

namespace attnlab::wasm {

namespace {

int int_field(const val& object, const char* name) { return object[name].as<int>(); }

}  // namespace

class Seq2SeqHandle {
 public:
  // bytes: a .safetensors state_dict; c: { sourceVocabSize, targetVocabSize, maxLen, dModel, numHeads,
  // numEncoderLayers, numDecoderLayers, dFf, normFirst } (checked by the package first).
  static Seq2SeqHandle* from_safetensors(const val& bytes, const val& c) {
    return catching<Seq2SeqHandle*>([&] {
      const std::vector<std::uint8_t> file = bytes_from_js(bytes, "Seq2SeqTransformer::load_safetensors");
      const Seq2SeqConfig config{.source_vocab_size = int_field(c, "sourceVocabSize"),
                                 .target_vocab_size = int_field(c, "targetVocabSize"),
                                 .max_len = int_field(c, "maxLen"), .d_model = int_field(c, "dModel"),
                                 .num_heads = int_field(c, "numHeads"),
                                 .num_encoder_layers = int_field(c, "numEncoderLayers"),
                                 .num_decoder_layers = int_field(c, "numDecoderLayers"), .d_ff = int_field(c, "dFf"),
                                 .norm_first = c["normFirst"].as<bool>()};
      auto model = std::make_unique<Seq2SeqTransformer>(config);
      model->load_safetensors(file);
      return new Seq2SeqHandle(std::move(model));
    }, nullptr);
  }

  double parameter_count() const { return static_cast<double>(model_->parameter_count()); }

  // source ids, target ids (what the decoder reads) → { logits: Matrix [n×V_t], encoderSelf,
  // decoderSelf, cross: Matrix[layer][head] }
  val forward(const val& source, const val& target) {
    return guarded([&] {
      const Seq2SeqOutput out = model_->forward(ints_from_js(source, "Seq2SeqTransformer::forward"),
                                                ints_from_js(target, "Seq2SeqTransformer::forward"));
      val js = val::object();
      js.set("logits", matrix_to_js(out.logits));
      js.set("encoderSelf", matrix_grid_to_js(out.attention.encoder_self));
      js.set("decoderSelf", matrix_grid_to_js(out.attention.decoder_self));
      js.set("cross", matrix_grid_to_js(out.attention.cross));
      return js;
    });
  }

  // source ids, { bosId, eosId, maxTokens, beam } → { tokens, output (Int32Array), finished, logProb,
  // crossAttention: Matrix[layer][head] (tokens × source) }
  val decode(const val& source, const val& options) {
    return guarded([&] {
      const Seq2SeqDecoded out = model_->decode(
          ints_from_js(source, "Seq2SeqTransformer::decode"),
          {.bos_id = int_field(options, "bosId"), .eos_id = int_field(options, "eosId"),
           .max_tokens = int_field(options, "maxTokens"), .beam = int_field(options, "beam")});
      val js = val::object();
      js.set("tokens", ints_to_js(out.tokens));
      js.set("output", ints_to_js(out.output));
      js.set("finished", out.finished);
      js.set("logProb", out.log_prob);
      js.set("crossAttention", matrix_grid_to_js(out.cross_attention));
      return js;
    });
  }

 private:
  explicit Seq2SeqHandle(std::unique_ptr<Seq2SeqTransformer> model) : model_(std::move(model)) {}
  std::unique_ptr<Seq2SeqTransformer> model_;
};

// A fresh English → French translator trained in the page ("Watch it learn"): the shipped model's
// shape and recipe (cpp/train/train_translator.cpp), drawn from `seed`; training pairs from the grammar
// (stream seed + 1), never one of the held-out sentences it is scored on (the shipped run's held-out
// seed, so they are the package's heldout.json sentences first).
class TranslatorTrainerHandle {
 public:
  static constexpr int kHeldOut = 100;

  static TranslatorTrainerHandle* create(double seed, int total_steps) {
    return catching<TranslatorTrainerHandle*>([&] { return new TranslatorTrainerHandle(seed_from_js(seed), total_steps); }, nullptr);
  }

  int steps() const { return trainer_.steps(); }

  // `count` AdamW steps on batches of `batch` fresh pairs → their losses (Float32Array).
  val train(int count, int batch) {
    return guarded([&] {
      if (count < 1 || batch < 1) throw Error("TranslatorTrainer::train: count and batch must be ≥ 1, got " +
                                              std::to_string(count) + " and " + std::to_string(batch));
      std::vector<float> losses;
      for (int s = 0; s < count; ++s) {
        std::vector<Seq2SeqExample> examples;
        for (const translation::SentencePair& pair : next_pairs(data_rng_, batch)) {
          const translation::EncodedPair e = translation::encode_pair(pair);
          examples.push_back({e.source, e.target, e.targets});
        }
        model_.train(true);
        losses.push_back(static_cast<float>(trainer_.step(examples)));
        model_.train(false);
      }
      return floats_to_js(losses.data(), losses.size());
    });
  }

  // The pairs the next `count` calls of train(1, batch) will use, drawn from a copy of the data stream
  // (nothing is consumed) → [step][pair] { english, french (words), source, target, targets (Int32Array
  // ids: what the encoder reads, what the decoder reads, what each decoder position must predict) }.
  val upcoming_batches(int count, int batch) const {
    return guarded([&] {
      if (count < 1 || batch < 1) throw Error("TranslatorTrainer::upcomingBatches: count and batch must be ≥ 1, got " +
                                              std::to_string(count) + " and " + std::to_string(batch));
      Rng stream = data_rng_;
      val steps = val::array();
      for (int s = 0; s < count; ++s) {
        val pairs = val::array();
        for (const translation::SentencePair& pair : next_pairs(stream, batch)) {
          const translation::EncodedPair e = translation::encode_pair(pair);
          val js = val::object();
          js.set("english", strings_to_js(pair.english));
          js.set("french", strings_to_js(pair.french));
          js.set("source", ints_to_js(e.source));
          js.set("target", ints_to_js(e.target));
          js.set("targets", ints_to_js(e.targets));
          pairs.call<void>("push", js);
        }
        steps.call<void>("push", pairs);
      }
      return steps;
    });
  }

  // The model's state_dict as nn.Transformer names it (Seq2SeqTransformer::state_dict: attention
  // projections fused into in_proj_weight) → [{ name, shape, data: Float32Array }], PyTorch's order.
  val parameters() const {
    return guarded([&] {
      val js = val::array();
      for (const Seq2SeqTensor& t : model_.state_dict()) {
        val shape = val::array();
        for (std::int64_t extent : t.shape) shape.call<void>("push", static_cast<double>(extent));
        val entry = val::object();
        entry.set("name", t.name);
        entry.set("shape", shape);
        entry.set("data", floats_to_js(t.values.data(), t.values.size()));
        js.call<void>("push", entry);
      }
      return js;
    });
  }

  // The first `count` held-out pairs → { loss, tokenAccuracy (teacher-forced), exactMatch (greedy),
  // alignment: [layer][head] share of French words whose largest cross-attention weight is on the gold
  // English word }.
  val evaluate(int count) {
    return guarded([&] {
      const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(std::max(count, 1)), held_out_.size());
      const translation::TranslationScores scores =
          translation::score_translations(model_, std::span<const translation::SentencePair>(held_out_.data(), n));
      val alignment = val::array();
      for (const auto& row : scores.alignment) {
        val js_row = val::array();
        for (double v : row) js_row.call<void>("push", v);
        alignment.call<void>("push", js_row);
      }
      val js = val::object();
      js.set("loss", scores.loss);
      js.set("tokenAccuracy", scores.token_accuracy);
      js.set("exactMatch", scores.exact_match);
      js.set("alignment", alignment);
      return js;
    });
  }

  // Held-out pair `index` → { english, french (words), alignment (gold), translation (greedy, words),
  // crossAttention: Matrix[layer][head], the French it should write × the English (teacher-forced) }.
  val watch(int index) {
    return guarded([&] {
      if (index < 0 || index >= static_cast<int>(held_out_.size()))
        throw Error("TranslatorTrainer::watch: index must be in 0 … " + std::to_string(held_out_.size() - 1) + ", got " + std::to_string(index));
      const translation::SentencePair& pair = held_out_[static_cast<std::size_t>(index)];
      const translation::EncodedPair e = translation::encode_pair(pair);
      const Seq2SeqOutput out = model_.forward(e.source, e.target, e.targets);
      const Seq2SeqDecoded decoded = model_.decode(e.source, {.bos_id = translation::kBosId, .eos_id = translation::kEosId});
      std::vector<std::string> translation;
      for (int id : decoded.output) translation.push_back(translation::vocabularies().french[static_cast<std::size_t>(id)]);
      val js = val::object();
      js.set("english", strings_to_js(pair.english));
      js.set("french", strings_to_js(pair.french));
      js.set("alignment", ints_to_js(pair.alignment));
      js.set("translation", strings_to_js(translation));
      js.set("source", ints_to_js(e.source));
      js.set("target", ints_to_js(e.target));
      js.set("crossAttention", matrix_grid_to_js(out.attention.cross));
      return js;
    });
  }

 private:
  // `batch` fresh pairs from `stream`, skipping the held-out sentences: train() and upcomingBatches()
  // both draw through here, so what one announces is what the other trains on.
  std::vector<translation::SentencePair> next_pairs(Rng& stream, int batch) const {
    std::vector<translation::SentencePair> pairs;
    while (static_cast<int>(pairs.size()) < batch) {
      translation::SentencePair pair = translation::sample_pair(stream);
      if (held_sentences_.count(pair.english)) continue;
      pairs.push_back(std::move(pair));
    }
    return pairs;
  }

  TranslatorTrainerHandle(std::uint64_t seed, int total_steps)
      : model_(config(seed)),
        trainer_(model_, {.total_steps = total_steps}),
        data_rng_(seed, 1),
        held_out_(translation::held_out_pairs(kHeldOut, 3)) {
    for (const translation::SentencePair& p : held_out_) held_sentences_.insert(p.english);
  }
  static Seq2SeqConfig config(std::uint64_t seed) {
    const translation::Vocabularies& v = translation::vocabularies();
    return {.source_vocab_size = static_cast<int>(v.english.size()), .target_vocab_size = static_cast<int>(v.french.size()),
            .max_len = translation::kMaxWords + 2, .d_model = 64, .num_heads = 4, .num_encoder_layers = 2,
            .num_decoder_layers = 2, .d_ff = 256, .seed = seed};
  }

  Seq2SeqTransformer model_;
  Seq2SeqTrainer trainer_;
  Rng data_rng_;
  std::vector<translation::SentencePair> held_out_;
  std::set<std::vector<std::string>> held_sentences_;
};

// The grammar the built-in translator was trained on (attnlab/seq2seq/en_fr_grammar.hpp), for
// translate()'s verdict and the lesson's list of the words the model knows.
val word_kinds_to_js(const std::vector<translation::WordKind>& kinds) {
  val js = val::array();
  for (const translation::WordKind& k : kinds) {
    val kind = val::object();
    kind.set("kind", k.name);
    kind.set("words", strings_to_js(k.words));
    js.call<void>("push", kind);
  }
  return js;
}

// words (an array of lower-case strings) → { inGrammar, position (-1 when in the grammar), expected: [{ kind, words }] }
val check_english(const val& words) {
  return guarded([&] {
    const translation::GrammarCheck check = translation::check_english(emscripten::vecFromJSArray<std::string>(words));
    val js = val::object();
    js.set("inGrammar", check.in_grammar);
    js.set("position", check.position);
    js.set("expected", word_kinds_to_js(check.expected));
    return js;
  });
}

val english_word_kinds() {
  return guarded([] { return word_kinds_to_js(translation::english_word_kinds()); });
}

}  // namespace attnlab::wasm

using namespace emscripten;
using namespace attnlab::wasm;

EMSCRIPTEN_BINDINGS(attnlab_seq2seq) {
  class_<Seq2SeqHandle>("Seq2SeqHandle")
      .class_function("fromSafetensors", &Seq2SeqHandle::from_safetensors, allow_raw_pointers())
      .function("parameterCount", &Seq2SeqHandle::parameter_count)
      .function("forward", &Seq2SeqHandle::forward)
      .function("decode", &Seq2SeqHandle::decode);
  function("checkEnglish", &check_english);
  function("englishWordKinds", &english_word_kinds);
  class_<TranslatorTrainerHandle>("TranslatorTrainerHandle")
      .class_function("create", &TranslatorTrainerHandle::create, allow_raw_pointers())
      .function("steps", &TranslatorTrainerHandle::steps)
      .function("train", &TranslatorTrainerHandle::train)
      .function("evaluate", &TranslatorTrainerHandle::evaluate)
      .function("watch", &TranslatorTrainerHandle::watch)
      .function("upcomingBatches", &TranslatorTrainerHandle::upcoming_batches)
      .function("parameters", &TranslatorTrainerHandle::parameters);
}
