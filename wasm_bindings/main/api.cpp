#include "api.hpp"

#include <cmath>

#include "attnlab/attnlab.hpp"
#include "shared/convert.hpp"

namespace attnlab::wasm {

namespace {

template <typename T>
T option(const val& object, const char* name, T fallback) {
  if (object.isUndefined() || object.isNull()) return fallback;
  const val value = object[name];
  return value.isUndefined() || value.isNull() ? fallback : value.as<T>();
}

PositionalScheme positions_from_js(const val& config) {
  const std::string name = option<std::string>(config, "positions", "none");
  if (name == "none") return PositionalScheme::none;
  if (name == "rotary") return PositionalScheme::rotary;
  if (name == "alibi") return PositionalScheme::alibi;
  throw Error("positions must be 'none', 'rotary' or 'alibi', got '" + name + "'");
}

MultiHeadAttentionWeights attention_weights_from_js(const val& w) {
  return {matrix_from_js(w["inProjWeight"], "inProjWeight"), vector_from_js(w["inProjBias"], "inProjBias"),
          matrix_from_js(w["outProjWeight"], "outProjWeight"), vector_from_js(w["outProjBias"], "outProjBias")};
}

LinearWeights linear_from_js(const val& w, const char* name) {
  return {matrix_from_js(w["weight"], name), vector_from_js(w["bias"], name)};
}

// The caller's Float32Array for the result matrix `name` (options.out, checked in web/lib), or undefined.
val out_array(const val& options, const char* name) {
  const val into = options["out"];
  return into.isUndefined() ? val::undefined() : into[name];
}

// { output, weights, averageWeights }, or just { output } when the caller asked for no weights
// (saves copying num_heads n×n matrices out of the heap).
val multi_head_output_to_js(const MultiHeadAttentionOutput& out, const val& options) {
  val result = val::object();
  result.set("output", matrix_to_js(out.output, out_array(options, "output")));
  if (!option<bool>(options, "weights", true)) return result;
  val heads = val::array();
  for (const Matrix& w : out.head_weights) heads.call<void>("push", matrix_to_js(w));
  result.set("weights", heads);
  result.set("averageWeights", matrix_to_js(out.average_weights, out_array(options, "averageWeights")));
  return result;
}

}  // namespace

val softmax(const val& logits) {
  return guarded([&] { return matrix_to_js(attnlab::softmax(matrix_from_js(logits, "softmax: m"))); });
}

namespace {
// The core's options from JS { mask?, causal?, scale? }; `mask` keeps the converted mask alive.
AttentionOptions attention_options_from_js(const val& options, Matrix& mask) {
  const MaskOptions masking = mask_options_from_js(options, mask);
  AttentionOptions attention{.mask = masking.mask, .causal = masking.causal};
  const float scale = option<float>(options, "scale", NAN);
  if (!std::isnan(scale)) attention.scale = scale;
  return attention;
}
}  // namespace

val scaled_dot_product_attention(const val& q, const val& k, const val& v, const val& options) {
  return guarded([&] {
    const Matrix qm = matrix_from_js(q, "q"), km = matrix_from_js(k, "k"), vm = matrix_from_js(v, "v");
    Matrix mask;
    const AttentionOptions attention = attention_options_from_js(options, mask);
    const auto result = [&](const char* name, const Matrix& m) { return matrix_to_js(m, out_array(options, name)); };
    val out = val::object();
    if (!option<bool>(options, "weights", true)) {  // output only: online softmax, no n×n matrices
      out.set("output", result("output", attnlab::attention_output(qm, km, vm, attention)));
      return out;
    }
    const AttentionResult r = attnlab::scaled_dot_product_attention(qm, km, vm, attention);
    out.set("output", result("output", r.output));
    out.set("weights", result("weights", r.weights));
    out.set("scores", result("scores", r.scores));
    out.set("scaledScores", result("scaledScores", r.scaled_scores));
    out.set("maskedScores", result("maskedScores", r.masked_scores));
    return out;
  });
}

val trace_attention(const val& q, const val& k, const val& v, const val& options) {
  return guarded([&] {
    const Matrix qm = matrix_from_js(q, "q"), km = matrix_from_js(k, "k"), vm = matrix_from_js(v, "v");
    Matrix mask;
    Trace trace;
    attnlab::scaled_dot_product_attention(qm, km, vm, attention_options_from_js(options, mask), Tracer(trace));
    return trace_to_js(trace);
  });
}

val flash_attention_trace(const val& q, const val& k, const val& v, int block_size, const val& options) {
  return guarded([&] {
    const Matrix qm = matrix_from_js(q, "q"), km = matrix_from_js(k, "k"), vm = matrix_from_js(v, "v");
    Matrix mask;
    const FlashAttentionTrace trace =
        attnlab::flash_attention_trace(qm, km, vm, block_size, attention_options_from_js(options, mask));
    val blocks = val::array();
    for (const FlashAttentionBlock& b : trace.blocks) {
      val block = val::object();
      block.set("keyStart", static_cast<double>(b.key_start));
      block.set("keyCount", static_cast<double>(b.key_count));
      block.set("scores", matrix_to_js(b.scores));
      block.set("max", floats_to_js(b.running_max.data(), static_cast<std::size_t>(b.running_max.size())));
      block.set("sum", floats_to_js(b.running_sum.data(), static_cast<std::size_t>(b.running_sum.size())));
      block.set("rescale", floats_to_js(b.rescale.data(), static_cast<std::size_t>(b.rescale.size())));
      block.set("accumulator", matrix_to_js(b.accumulator));
      blocks.call<void>("push", block);
    }
    val out = val::object();
    out.set("blocks", blocks);
    out.set("output", matrix_to_js(trace.output));
    return out;
  });
}

val embed_tokens(const val& tokens, int d_model, double seed, bool sinusoidal_positions) {
  return guarded([&] {
    const auto words = emscripten::vecFromJSArray<std::string>(tokens);
    Matrix x = hashed_embedding(words, d_model, seed_from_js(seed));
    if (sinusoidal_positions) x += sinusoidal_encoding(static_cast<int>(x.rows()), d_model);
    return matrix_to_js(x);
  });
}

val causal_mask(int rows, int cols) { return guarded([&] { return matrix_to_js(attnlab::causal_mask(rows, cols)); }); }

val key_padding_mask(int n_q, int n_k, int valid_length) {
  return guarded([&] { return matrix_to_js(attnlab::key_padding_mask(n_q, n_k, valid_length)); });
}

val combine_masks(const val& a, const val& b) {
  return guarded([&] { return matrix_to_js(attnlab::combine_masks(matrix_from_js(a, "a"), matrix_from_js(b, "b"))); });
}

val positional_encoding(int seq_len, int d_model, const std::string& kind, double seed) {
  return guarded([&] {
    if (kind == "sinusoidal") return matrix_to_js(sinusoidal_encoding(seq_len, d_model));
    if (kind == "learned") {
      Rng rng(seed_from_js(seed));
      return matrix_to_js(LearnedPositionalEmbedding(seq_len, d_model, rng).forward(seq_len));
    }
    throw Error("positionalEncoding: kind must be 'sinusoidal' or 'learned', got '" + kind +
                "' (RoPE and ALiBi act on the scores: see applyRotary and alibiBias)");
  });
}

val randn(int rows, int cols, double seed) {
  return guarded([&] { return matrix_to_js(attnlab::randn(rows, cols, seed_from_js(seed))); });
}

val apply_rotary(const val& x, int position_offset) {
  return guarded([&] { return matrix_to_js(attnlab::apply_rotary(matrix_from_js(x, "x"), position_offset)); });
}

val alibi_slopes(int num_heads) {
  return guarded([&] {
    const std::vector<float> slopes = attnlab::alibi_slopes(num_heads);
    return val::global("Float32Array").new_(val(emscripten::typed_memory_view(slopes.size(), slopes.data())));
  });
}

val alibi_bias(int n_q, int n_k, float slope) {
  return guarded([&] { return matrix_to_js(attnlab::alibi_bias(n_q, n_k, slope)); });
}

val tokenize(const std::string& text) {
  return guarded([&] {
    val tokens = val::array();
    for (const std::string& t : attnlab::tokenize(text)) tokens.call<void>("push", t);
    return tokens;
  });
}

// ---- MultiHeadAttention ----

MultiHeadAttentionHandle* MultiHeadAttentionHandle::create(const val& config) {
  return catching<MultiHeadAttentionHandle*>([&] {
    return new MultiHeadAttentionHandle({.d_model = option<int>(config, "dModel", 0),
                                         .num_heads = option<int>(config, "numHeads", 1),
                                         .bias = option<bool>(config, "bias", true),
                                         .dropout = option<float>(config, "dropout", 0.0f),
                                         .positions = positions_from_js(config),
                                         .seed = seed_from_js(option<double>(config, "seed", 0.0))});
  }, nullptr);
}

double MultiHeadAttentionHandle::parameter_count() const { return static_cast<double>(attention_.parameter_count()); }

val MultiHeadAttentionHandle::load_weights(const val& weights) {
  return guarded([&] {
    attention_.load(attention_weights_from_js(weights));
    return val(true);
  });
}

val MultiHeadAttentionHandle::weights() const {
  return guarded([&] {
    const MultiHeadAttentionWeights w = attention_.weights();
    val out = val::object();
    out.set("inProjWeight", matrix_to_js(w.in_proj_weight));
    out.set("outProjWeight", matrix_to_js(w.out_proj_weight));
    if (w.in_proj_bias.size() > 0) {
      out.set("inProjBias", matrix_to_js(Matrix(w.in_proj_bias.transpose()))["data"]);
      out.set("outProjBias", matrix_to_js(Matrix(w.out_proj_bias.transpose()))["data"]);
    }
    return out;
  });
}

// Self-attention when key is undefined (so a trace shows one input X), else query/key/value.
MultiHeadAttentionOutput MultiHeadAttentionHandle::run(const val& query, const val& key, const val& value,
                                                       const val& options, const Tracer& tracer) {
  Matrix mask;
  const MaskOptions masking = mask_options_from_js(options, mask);
  const Matrix q = matrix_from_js(query, "query");
  if (key.isUndefined()) return attention_.forward(q, masking, tracer);
  return attention_.forward(q, matrix_from_js(key, "key"), matrix_from_js(value, "value"), masking, tracer);
}

val MultiHeadAttentionHandle::forward(const val& query, const val& key, const val& value, const val& options) {
  return guarded([&] { return multi_head_output_to_js(run(query, key, value, options, Tracer()), options); });
}

val MultiHeadAttentionHandle::trace(const val& query, const val& key, const val& value, const val& options) {
  return guarded([&] {
    Trace trace;
    run(query, key, value, options, Tracer(trace));
    return trace_to_js(trace);
  });
}

// ---- TransformerEncoderLayer ----

TransformerEncoderLayerHandle* TransformerEncoderLayerHandle::create(const val& config) {
  return catching<TransformerEncoderLayerHandle*>([&] {
    const std::string activation = option<std::string>(config, "activation", "gelu");
    const std::string norm = option<std::string>(config, "norm", "layernorm");
    TransformerEncoderLayerConfig c{.d_model = option<int>(config, "dModel", 0),
                                    .num_heads = option<int>(config, "numHeads", 1),
                                    .d_ff = option<int>(config, "dFF", 2048),
                                    .dropout = option<float>(config, "dropout", 0.1f),
                                    .norm_first = option<bool>(config, "normFirst", false),
                                    .norm_eps = option<float>(config, "normEps", 1e-5f),
                                    .bias = option<bool>(config, "bias", true),
                                    .positions = positions_from_js(config),
                                    .seed = seed_from_js(option<double>(config, "seed", 0.0))};
    if (activation == "gelu") c.activation = Activation::gelu;
    else if (activation == "gelu_tanh") c.activation = Activation::gelu_tanh;
    else if (activation == "relu") c.activation = Activation::relu;
    else throw Error("TransformerEncoderLayer: activation must be 'gelu', 'gelu_tanh' or 'relu', got '" + activation + "'");
    if (norm == "layernorm") c.norm = NormKind::layer_norm;
    else if (norm == "rmsnorm") c.norm = NormKind::rms_norm;
    else throw Error("TransformerEncoderLayer: norm must be 'layernorm' or 'rmsnorm', got '" + norm + "'");
    return new TransformerEncoderLayerHandle(c);
  }, nullptr);
}

double TransformerEncoderLayerHandle::parameter_count() const { return static_cast<double>(layer_.parameter_count()); }

val TransformerEncoderLayerHandle::parameter_counts() const {
  val counts = val::object();
  counts.set("selfAttn", static_cast<double>(layer_.self_attn().parameter_count()));
  counts.set("feedForward", static_cast<double>(layer_.feed_forward().parameter_count()));
  counts.set("norms", static_cast<double>(layer_.norm_parameter_count()));
  counts.set("total", static_cast<double>(layer_.parameter_count()));
  return counts;
}

val TransformerEncoderLayerHandle::load_weights(const val& w) {
  return guarded([&] {
    layer_.load({attention_weights_from_js(w["selfAttn"]),
                 linear_from_js(w["linear1"], "linear1.weight"),
                 linear_from_js(w["linear2"], "linear2.weight"),
                 vector_from_js(w["norm1"]["weight"], "norm1.weight"),
                 vector_from_js(w["norm1"]["bias"], "norm1.bias"),
                 vector_from_js(w["norm2"]["weight"], "norm2.weight"),
                 vector_from_js(w["norm2"]["bias"], "norm2.bias")});
    return val(true);
  });
}

val TransformerEncoderLayerHandle::forward(const val& x, const val& options) {
  return guarded([&] {
    Matrix mask;
    const MaskOptions masking = mask_options_from_js(options, mask);
    return matrix_to_js(layer_.forward(matrix_from_js(x, "x"), masking));
  });
}

val TransformerEncoderLayerHandle::trace(const val& x, const val& options) {
  return guarded([&] {
    Matrix mask;
    const MaskOptions masking = mask_options_from_js(options, mask);
    Trace trace;
    layer_.forward(matrix_from_js(x, "x"), masking, Tracer(trace));
    return trace_to_js(trace);
  });
}

}  // namespace attnlab::wasm
