#include "llama.hpp"

#include <string>
#include <vector>

#include "model_options.hpp"
#include "shared/convert.hpp"

namespace attnlab::wasm {

// ---- LlamaLoaderHandle ----

LlamaLoaderHandle* LlamaLoaderHandle::create(const std::string& config_json, const std::string& index_json) {
  return catching<LlamaLoaderHandle*>([&] { return new LlamaLoaderHandle(config_json, index_json); }, nullptr);
}

val LlamaLoaderHandle::weight_files() const {
  val names = val::array();
  for (const std::string& name : loader_.weight_files()) names.call<void>("push", name);
  return names;
}

val LlamaLoaderHandle::begin_file(const std::string& name, double size) {
  return guarded([&] {
    loader_.begin_file(name, static_cast<std::uint64_t>(size));
    return val(true);
  });
}

val LlamaLoaderHandle::feed(const val& piece) {
  return guarded([&] {
    bytes_into(piece, piece_);
    loader_.feed(piece_);
    return val(true);
  });
}

LlamaHandle* LlamaLoaderHandle::finish() {
  return catching<LlamaHandle*>([&] {
    piece_ = {};  // the last piece's bytes go before the model is handed over
    return new LlamaHandle(std::make_unique<Llama>(loader_.finish()));
  }, nullptr);
}

// ---- LlamaHandle ----

val LlamaHandle::config() const {
  const LlamaConfig& c = model_->config();
  val js = val::object();
  js.set("modelType", std::string(c.model_type()));
  js.set("vocabSize", c.vocab_size);
  js.set("hiddenSize", c.hidden_size);
  js.set("intermediateSize", c.intermediate_size);
  js.set("numLayers", c.num_layers);
  js.set("numHeads", c.num_heads);
  js.set("numKeyValueHeads", c.num_kv_heads);
  js.set("headDim", c.head_dim);
  js.set("rmsNormEps", c.rms_norm_eps);
  js.set("ropeTheta", c.rope.theta);
  js.set("ropeScaling", c.rope.scaling.llama3 ? val(std::string("llama3")) : val::null());
  js.set("maxPositionEmbeddings", c.max_position_embeddings);
  js.set("tieWordEmbeddings", c.tie_word_embeddings);
  js.set("slidingWindow", c.sliding_window);
  js.set("parameterCount", static_cast<double>(model_->parameter_count()));
  js.set("weightBytes", static_cast<double>(model_->weight_bytes()));
  js.set("kvCacheBytesPerToken", static_cast<double>(c.kv_cache_bytes_per_token()));
  return js;
}

val LlamaHandle::forward(const val& ids, const val& o) const {
  return guarded([&] {
    LlamaForwardOptions options;
    options.attention = option<bool>(o, "attention", false);
    options.ablate = ablate_from_js(o);
    options.ablation = ablation_from_js(o);
    options.logits = logit_rows_from_js(o);
    options.first_position = option<int>(o, "firstPosition", 0);
    const LlamaOutput out = model_->forward(ints_from_js(ids, "Llama::forward"), options);
    val js = val::object();
    js.set("logits", matrix_to_js(out.logits));
    if (options.attention) js.set("attention", matrix_grid_to_js(out.attention));
    return js;
  });
}

val LlamaHandle::generate(const val& ids, const val& o) const {
  return guarded([&] {
    const LlamaCachePolicy policy{option<int>(o, "sinks", 0), option<int>(o, "window", 0)};
    return generation_to_js(attnlab::generate(*model_, ints_from_js(ids, "generate"), generate_options_from_js(o), policy));
  });
}

val LlamaHandle::tensor_names() const {
  val names = val::array();
  for (const LlamaTensorSlot& slot : model_->tensors()) names.call<void>("push", slot.name);
  return names;
}

val LlamaHandle::tensor(const std::string& name) const {
  return guarded([&] {
    const std::vector<float> values = model_->tensor_values(name);  // BF16 widened
    return weight_to_js(model_->tensor(name).shape, values.data(), values.size());
  });
}

val LlamaHandle::save(const std::string& dtype) const {
  return guarded([&] {
    const std::vector<std::uint8_t> file = model_->to_safetensors(dtype_from_js(dtype));
    return bytes_to_js(file.data(), file.size());
  });
}

// ---- LlamaSessionHandle ----

LlamaSessionHandle* LlamaSessionHandle::create(const LlamaHandle& model, int sinks, int window) {
  return catching<LlamaSessionHandle*>([&] { return new LlamaSessionHandle(model.model(), {sinks, window}); }, nullptr);
}

val LlamaSessionHandle::append(const val& ids) {
  return guarded([&] {
    const Matrix logits = session_.append(ints_from_js(ids, "LlamaSession::append"));
    val js = val::object();
    js.set("logits", matrix_to_js(logits));
    js.set("attention", matrix_grid_to_js(session_.last_attention()));
    return js;
  });
}

val LlamaSessionHandle::cache(int layer) const {
  return guarded([&] {
    val js = val::object();
    js.set("keys", matrix_to_js(session_.keys(layer)));
    js.set("values", matrix_to_js(session_.values(layer)));
    return js;
  });
}

val LlamaSessionHandle::cached_tokens() const { return ints_to_js(session_.cached_tokens()); }

// ---- HFTokenizerHandle ----

HFTokenizerHandle* HFTokenizerHandle::from_json(const std::string& tokenizer_json) {
  return catching<HFTokenizerHandle*>([&] { return new HFTokenizerHandle(HFTokenizer::from_json(tokenizer_json)); }, nullptr);
}

val HFTokenizerHandle::encode(const std::string& text, bool add_special_tokens) const {
  return guarded([&] { return ints_to_js(tokenizer_.encode(text, add_special_tokens)); });
}

val HFTokenizerHandle::decode(const val& ids, bool skip_special_tokens) const {
  return guarded([&] {
    const std::string bytes = tokenizer_.decode(ints_from_js(ids, "HFTokenizer::decode"), skip_special_tokens);
    return bytes_to_js(bytes.data(), bytes.size());
  });
}

val HFTokenizerHandle::token(int id) const {
  return guarded([&] { return val(tokenizer_.token(id)); });
}

val HFTokenizerHandle::describe() const {
  val added = val::array();
  for (const HFAddedToken& a : tokenizer_.added_tokens()) {
    val js = val::object();
    js.set("id", a.id);
    js.set("content", a.content);
    js.set("special", a.special);
    added.call<void>("push", js);
  }
  val js = val::object();
  js.set("vocabSize", tokenizer_.vocab_size());
  js.set("normalizer", tokenizer_.normalizer());
  js.set("preTokenizer", tokenizer_.pre_tokenizer());
  js.set("addedTokens", added);
  return js;
}

}  // namespace attnlab::wasm
