// The Embind face of the encoder–decoder (attnlab/seq2seq/seq2seq.hpp), in its own module
// (attnlab-seq2seq-<variant>.wasm), which lab.loadBuiltinTranslator() and lab.loadSeq2Seq() load;
// web/lib/seq2seq.js makes the handle friendly (tokenising, translate()). As in the other bindings, a
// method returns undefined (or a null handle) on error and keeps the message for takeLastError().
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>

#include "attnlab/seq2seq/seq2seq.hpp"
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

}  // namespace attnlab::wasm

using namespace emscripten;
using namespace attnlab::wasm;

EMSCRIPTEN_BINDINGS(attnlab_seq2seq) {
  class_<Seq2SeqHandle>("Seq2SeqHandle")
      .class_function("fromSafetensors", &Seq2SeqHandle::from_safetensors, allow_raw_pointers())
      .function("parameterCount", &Seq2SeqHandle::parameter_count)
      .function("forward", &Seq2SeqHandle::forward)
      .function("decode", &Seq2SeqHandle::decode);
}
