#include "gpt.hpp"

#include <cmath>

#include "model_options.hpp"

#include "attnlab/gpt/head_scores.hpp"
#include "attnlab/gpt/sampling.hpp"
#include "tensor/checks.hpp"
#include "shared/convert.hpp"

namespace attnlab::wasm {

namespace {

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::stop_token: return "stopToken";
    case StopReason::context_full: return "context";
    case StopReason::max_tokens: break;
  }
  return "maxTokens";
}

val config_to_js(const GPTConfig& c) {
  val js = val::object();
  js.set("vocabSize", c.vocab_size);
  js.set("contextLength", c.context_length);
  js.set("dModel", c.d_model);
  js.set("numHeads", c.num_heads);
  js.set("numLayers", c.num_layers);
  js.set("parameterCount", static_cast<double>(c.parameter_count()));
  return js;
}

GPTForwardOptions forward_options_from_js(const val& o) {
  GPTForwardOptions options;
  options.attention = option<bool>(o, "attention", false);
  options.ablation = ablation_from_js(o);
  options.logits = logit_rows_from_js(o);
  options.ablate = ablate_from_js(o);
  return options;
}

}  // namespace

std::vector<HeadAblation> ablate_from_js(const val& o) {
  std::vector<HeadAblation> out;
  const val ablate = o.isUndefined() || o.isNull() ? val::undefined() : o["ablate"];
  if (!ablate.isUndefined())
    for (std::size_t i = 0, n = ablate["length"].as<std::size_t>(); i < n; ++i)
      out.push_back({ablate[i]["layer"].as<int>(), ablate[i]["head"].as<int>()});
  return out;
}

AblationMode ablation_from_js(const val& o) {
  return option<std::string>(o, "ablation", "zero") == "mean" ? AblationMode::mean : AblationMode::zero;
}

LogitRows logit_rows_from_js(const val& o) {
  const std::string logits = option<std::string>(o, "logits", "all");  // checked in web/lib/
  return logits == "last" ? LogitRows::last : logits == "none" ? LogitRows::none : LogitRows::all;
}

SamplingOptions sampling_from_js(const val& o) {
  return {.temperature = option<float>(o, "temperature", 1.0f), .top_k = option<int>(o, "topK", 0),
          .top_p = option<float>(o, "topP", 1.0f), .repetition_penalty = option<float>(o, "repetitionPenalty", 1.0f),
          .no_repeat_ngram_size = option<int>(o, "noRepeatNgramSize", 0),
          .presence_penalty = option<float>(o, "presencePenalty", 0.0f),
          .frequency_penalty = option<float>(o, "frequencyPenalty", 0.0f)};
}

GenerateOptions generate_options_from_js(const val& o) {
  return {.max_tokens = option<int>(o, "maxTokens", 32), .sampling = sampling_from_js(o),
          .seed = seed_from_js(option<double>(o, "seed", 0)), .stop_token = option<int>(o, "stopToken", -1),
          .stop_tokens = ints_from_js(o["stopTokens"], "stopTokens")};
}

val generation_to_js(const Generation& g) {
  val js = val::object();
  js.set("tokens", ints_to_js(g.tokens));
  js.set("probabilities", floats_to_js(g.probabilities.data(), g.probabilities.size()));
  js.set("stopped", std::string(stop_reason_name(g.stopped)));
  return js;
}

DType dtype_from_js(const std::string& dtype) {
  return dtype == "F16" ? DType::F16 : dtype == "BF16" ? DType::BF16 : DType::F32;
}

val weight_to_js(const std::vector<std::int64_t>& shape, const float* data, std::size_t size) {
  val js_shape = val::array();
  for (std::int64_t extent : shape) js_shape.call<void>("push", static_cast<double>(extent));
  val js = val::object();
  js.set("shape", js_shape);
  js.set("data", floats_to_js(data, size));
  return js;
}

// ---- GPTHandle ----

GPTHandle* GPTHandle::from_safetensors(const val& bytes, int num_heads, bool override_n_head) {
  return catching<GPTHandle*>([&] {
    const std::vector<std::uint8_t> file = bytes_from_js(bytes, "GPT::from_safetensors");
    return new GPTHandle(std::make_unique<GPT>(GPT::load(file, num_heads, override_n_head, file.size())));
  }, nullptr);
}

GPTHandle* GPTHandle::create(const val& c, double seed) {
  return catching<GPTHandle*>([&] {
    const GPTConfig config{c["vocabSize"].as<int>(), c["contextLength"].as<int>(), c["dModel"].as<int>(),
                           c["numHeads"].as<int>(), c["numLayers"].as<int>()};
    return new GPTHandle(std::make_unique<GPT>(config, seed_from_js(seed)));
  }, nullptr);
}

val GPTHandle::config() const { return config_to_js(model_->config()); }

val GPTHandle::forward(const val& ids, const val& options) const {
  return guarded([&] {
    const std::vector<int> tokens = ints_from_js(ids, "GPT::forward");
    const GPTForwardOptions forward_options = forward_options_from_js(options);
    Trace trace;
    const bool tracing = option<bool>(options, "trace", false);
    const GPTOutput out = model_->forward(tokens, forward_options, tracing ? Tracer(trace) : Tracer());
    val js = val::object();
    js.set("logits", matrix_to_js(out.logits));
    if (forward_options.attention) js.set("attention", matrix_grid_to_js(out.attention));
    if (tracing) js.set("trace", trace_to_js(trace));
    return js;
  });
}

val GPTHandle::save(const std::string& dtype) const {
  return guarded([&] {
    const std::vector<std::uint8_t> file = model_->to_safetensors(dtype_from_js(dtype));
    return bytes_to_js(file.data(), file.size());
  });
}

val GPTHandle::head_scores(const val& text, const val& o) const {
  return guarded([&] {
    const std::vector<int> tokens = ints_from_js(text, "head_scores");
    const HeadScoreOptions options{option<int>(o, "repeatLength", 0), option<int>(o, "samples", 4),
                                   seed_from_js(option<double>(o, "seed", 0)), option<int>(o, "tokenLow", 0),
                                   option<int>(o, "tokenHigh", 0)};
    const HeadScores s = attnlab::head_scores(*model_, tokens, options);
    val js = val::object();
    js.set("previousToken", matrix_to_js(s.previous_token));
    js.set("firstToken", matrix_to_js(s.first_token));
    js.set("induction", matrix_to_js(s.induction));
    js.set("duplicateToken", matrix_to_js(s.duplicate_token));
    return js;
  });
}

val GPTHandle::token_losses(const val& ids, const val& options) const {
  return guarded([&] {
    const std::vector<float> losses =
        attnlab::token_losses(*model_, ints_from_js(ids, "token_losses"), forward_options_from_js(options));
    return floats_to_js(losses.data(), losses.size());
  });
}

val GPTHandle::generate(const val& ids, const val& o) const {
  return guarded([&] {
    return generation_to_js(attnlab::generate(*model_, ints_from_js(ids, "generate"), generate_options_from_js(o)));
  });
}

val GPTHandle::tensor_names() const {
  val names = val::array();
  for (const GPTTensorSlot& slot : model_->tensors()) names.call<void>("push", slot.name);
  return names;
}

val GPTHandle::tensor(const std::string& name) const {
  return guarded([&] {
    const GPTTensorSlot& slot = model_->tensor(name);
    return weight_to_js(slot.shape, model_->values().data() + slot.offset, slot.size);
  });
}

val GPTHandle::start_training(const val& c) {
  return guarded([&] {
    GPTTrainerConfig config;
    config.schedule = {option<double>(c, "maxLr", 3e-3), option<double>(c, "minLr", 3e-4),
                       option<int>(c, "warmupSteps", 0), option<int>(c, "totalSteps", 1000)};
    config.beta1 = option<double>(c, "beta1", 0.9);
    config.beta2 = option<double>(c, "beta2", 0.95);
    config.weight_decay = option<double>(c, "weightDecay", 0.1);
    config.clip_norm = option<double>(c, "clipNorm", 1.0);
    trainer_ = std::make_unique<GPTTrainer>(*model_, config);
    return val(true);
  });
}

val GPTHandle::train_step(const val& ids, const val& targets, int batch) {
  return guarded([&] {
    if (!trainer_) throw Error("GPT::train_step: call startTraining() first");
    const GPTStepResult r = trainer_->step(ints_from_js(ids, "GPT::train_step"), ints_from_js(targets, "GPT::train_step"), batch);
    val js = val::object();
    js.set("loss", r.loss);
    js.set("gradNorm", r.grad_norm);
    js.set("lr", r.lr);
    js.set("step", static_cast<double>(trainer_->steps()));
    return js;
  });
}

val GPTHandle::loss(const val& ids, const val& targets, int batch) const {
  return guarded([&] { return val(model_->loss(ints_from_js(ids, "GPT::loss"), ints_from_js(targets, "GPT::loss"), batch)); });
}

val GPTHandle::multiply_adds(int n, bool with_cache) const {
  return val(static_cast<double>(gpt_multiply_adds(model_->config(), n, with_cache)));
}

// ---- GPTSessionHandle ----

GPTSessionHandle* GPTSessionHandle::create(const GPTHandle& model) {
  return catching<GPTSessionHandle*>([&] { return new GPTSessionHandle(model.model()); }, nullptr);
}

val GPTSessionHandle::append(int id) {
  return guarded([&] {
    const Matrix logits = session_.append(id);
    val js = val::object();
    js.set("logits", floats_to_js(logits.data(), static_cast<std::size_t>(logits.size())));
    js.set("attention", matrix_grid_to_js(session_.last_attention()));
    return js;
  });
}

val GPTSessionHandle::cache(int layer) const {
  return guarded([&] {
    val js = val::object();
    js.set("keys", matrix_to_js(session_.keys(layer)));
    js.set("values", matrix_to_js(session_.values(layer)));
    return js;
  });
}

// ---- TokenizerHandle ----

TokenizerHandle* TokenizerHandle::from_gpt2(const std::string& vocab_json, const std::string& merges_text) {
  return catching<TokenizerHandle*>(
      [&] { return new TokenizerHandle(BpeTokenizer::from_gpt2(vocab_json, merges_text)); }, nullptr);
}

TokenizerHandle* TokenizerHandle::train(const std::string& corpus, int vocab_size, int min_count) {
  return catching<TokenizerHandle*>(
      [&] { return new TokenizerHandle(BpeTokenizer::train(corpus, {vocab_size, min_count})); }, nullptr);
}

val TokenizerHandle::encode(const std::string& text) const {
  return guarded([&] { return ints_to_js(tokenizer_.encode(text)); });
}

val TokenizerHandle::encode_with_steps(const std::string& text) const {
  return guarded([&] {
    val pieces = val::array();
    for (const BpePiece& piece : tokenizer_.encode_with_steps(text)) {
      val steps = val::array();
      for (const BpeMergeStep& step : piece.steps) {
        val js = val::object();
        js.set("rank", step.rank);
        js.set("left", step.left);
        js.set("right", step.right);
        js.set("merged", step.merged);
        js.set("tokens", ints_to_js(step.tokens));
        steps.call<void>("push", js);
      }
      val js = val::object();
      js.set("bytes", bytes_to_js(piece.text.data(), piece.text.size()));
      js.set("start", ints_to_js(piece.bytes));
      js.set("steps", steps);
      js.set("ids", ints_to_js(piece.ids));
      pieces.call<void>("push", js);
    }
    return pieces;
  });
}

val TokenizerHandle::decode(const val& ids) const {
  return guarded([&] {
    const std::string bytes = tokenizer_.decode(ints_from_js(ids, "BpeTokenizer::decode"));
    return bytes_to_js(bytes.data(), bytes.size());
  });
}

val TokenizerHandle::token_bytes(int id) const {
  return guarded([&] {
    const std::string& bytes = tokenizer_.token_bytes(id);
    return bytes_to_js(bytes.data(), bytes.size());
  });
}

val TokenizerHandle::token_text(int id) const {
  return guarded([&] { return val(tokenizer_.token_text(id)); });
}

// ---- Sampling ----

val sample_token(const val& logits, const val& options) {
  return guarded([&] {
    const auto count = logits["length"].as<std::size_t>();
    Matrix row(1, static_cast<Eigen::Index>(count));
    static const val to_heap = val::module_property("copyToHeap");
    if (!to_heap(logits, reinterpret_cast<std::uintptr_t>(row.data()), count).as<bool>())
      throw Error("sample: logits changed length while being read");
    Rng rng(seed_from_js(option<double>(options, "seed", 0)));
    const std::vector<int> context = ints_from_js(options["context"], "context");
    const SampledToken s = sample(std::span<const float>(row.data(), count), context, sampling_from_js(options), rng);
    val js = val::object();
    js.set("token", s.token);
    js.set("probabilities", floats_to_js(s.probabilities.data(), s.probabilities.size()));
    return js;
  });
}

val repeated_tokens(int length, int low, int high, double seed) {
  return guarded([&] { return ints_to_js(repeated_random_tokens(length, low, high, seed_from_js(seed))); });
}

}  // namespace attnlab::wasm
