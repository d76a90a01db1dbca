// The Embind face of the "it" sentence model (attnlab/referent_encoder.hpp), in the GPT module
// (attnlab-gpt-<variant>.wasm), which lab.loadReferentModel() loads with the trained weights;
// web/lib/referent.js makes the handle friendly. As in the other bindings, a method returns undefined
// (or a null handle) on error and keeps the message for takeLastError().
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>

#include "attnlab/referent/referent_encoder.hpp"
#include "attnlab/attention/softmax.hpp"
#include "tensor/checks.hpp"
#include "shared/convert.hpp"

namespace attnlab::wasm {

namespace {

const ReferentData& sentences() {
  static const ReferentData data = referent_sentences();
  return data;
}

}  // namespace

class ReferentHandle {
 public:
  static ReferentHandle* from_safetensors(const val& bytes) {
    return catching<ReferentHandle*>([&] {
      const std::vector<std::uint8_t> file = bytes_from_js(bytes, "ReferentEncoder::from_safetensors");
      auto model = std::make_unique<ReferentEncoder>(ReferentEncoder::from_safetensors(file));
      const ReferentData& data = sentences();
      if (model->config().vocab_size != static_cast<int>(data.vocabulary.size()) || model->config().max_len < data.max_len)
        throw Error("ReferentEncoder::from_safetensors: the file's vocabulary or length is not the sentences' (" +
                    std::to_string(data.vocabulary.size()) + " words, " + std::to_string(data.max_len) + " positions)");
      return new ReferentHandle(std::move(model));
    }, nullptr);
  }

  val config() const {
    const ReferentEncoderConfig& c = model_->config();
    val js = val::object();
    js.set("vocabSize", c.vocab_size);
    js.set("maxLen", c.max_len);
    js.set("dModel", c.d_model);
    js.set("numHeads", c.num_heads);
    js.set("numLayers", c.num_layers);
    js.set("dFf", c.d_ff);
    js.set("parameterCount", static_cast<double>(model_->parameter_count()));
    return js;
  }

  // tokens (ids), it_position → { logits: Matrix [1×V], probabilities: Matrix [1×V] (their softmax),
  // prediction, attention: Matrix[layer][head] }
  val forward(const val& ids, int it_position) const {
    return guarded([&] {
      const ReferentOutput out = model_->forward(ints_from_js(ids, "ReferentEncoder::forward"), it_position);
      val js = val::object();
      js.set("logits", matrix_to_js(out.logits));
      js.set("probabilities", matrix_to_js(softmax(out.logits)));
      js.set("prediction", out.prediction);
      js.set("attention", matrix_grid_to_js(out.attention));
      return js;
    });
  }

 private:
  explicit ReferentHandle(std::unique_ptr<ReferentEncoder> model) : model_(std::move(model)) {}
  std::unique_ptr<ReferentEncoder> model_;
};

// { vocabulary, frames: [{ name, words, firstNouns, secondNouns, firstAdjectives, secondAdjectives }] }
val referent_sentence_lists() {
  return guarded([] {
    const ReferentData& data = sentences();
    val frames = val::array();
    for (const ReferentFrame& f : data.frames) {
      val js = val::object();
      js.set("name", f.name);
      js.set("words", strings_to_js(f.words));
      js.set("firstNouns", strings_to_js(f.first_nouns));
      js.set("secondNouns", strings_to_js(f.second_nouns));
      js.set("firstAdjectives", strings_to_js(f.first_adjectives));
      js.set("secondAdjectives", strings_to_js(f.second_adjectives));
      frames.call<void>("push", js);
    }
    val js = val::object();
    js.set("vocabulary", strings_to_js(data.vocabulary));
    js.set("frames", frames);
    js.set("trainCount", static_cast<double>(data.train.size()));
    js.set("heldOutCount", static_cast<double>(data.held_out.size()));
    return js;
  });
}

// One sentence: { words, tokens, itPosition, firstPosition, secondPosition, answerPosition, answer, heldOut }
val referent_sentence(int frame, const std::string& first, const std::string& second, const std::string& adjective) {
  return guarded([&] {
    const ReferentSentence s = make_referent_sentence(sentences(), frame, first, second, adjective);
    val js = val::object();
    js.set("words", strings_to_js(s.words));
    js.set("tokens", ints_to_js(s.tokens));
    js.set("itPosition", s.it_position);
    js.set("firstPosition", s.first_position);
    js.set("secondPosition", s.second_position);
    js.set("answerPosition", s.answer_position);
    js.set("answer", sentences().vocabulary[static_cast<std::size_t>(s.answer)]);
    js.set("heldOut", s.held_out);
    return js;
  });
}

}  // namespace attnlab::wasm

using namespace emscripten;
using namespace attnlab::wasm;

EMSCRIPTEN_BINDINGS(attnlab_referent) {
  class_<ReferentHandle>("ReferentHandle")
      .class_function("fromSafetensors", &ReferentHandle::from_safetensors, allow_raw_pointers())
      .function("config", &ReferentHandle::config)
      .function("forward", &ReferentHandle::forward);
  function("referentSentenceLists", &referent_sentence_lists);
  function("referentSentence", &referent_sentence);
}
