#include "attnlab/seq2seq/seq2seq.hpp"

#include <cmath>

#include "attnlab/attention/positional.hpp"
#include "attnlab/training/loss.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

constexpr int kIgnore = -100;                       // nn.CrossEntropyLoss's ignore_index

void check_config(const Seq2SeqConfig& c) {
  constexpr const char* fn = "Seq2SeqTransformer";
  detail::require_positive(fn, "source_vocab_size", c.source_vocab_size);
  detail::require_positive(fn, "target_vocab_size", c.target_vocab_size);
  detail::require_positive(fn, "max_len", c.max_len);
  detail::require_positive(fn, "d_model", c.d_model);
  detail::require_positive(fn, "num_heads", c.num_heads);
  detail::require_positive(fn, "num_encoder_layers", c.num_encoder_layers);
  detail::require_positive(fn, "num_decoder_layers", c.num_decoder_layers);
  if (c.d_model % c.num_heads != 0)
    detail::fail(fn, "d_model = ", c.d_model, " is not divisible by num_heads = ", c.num_heads);
  detail::require_within_budget(fn, 2, c.source_vocab_size + c.target_vocab_size, c.d_model, "the embeddings");
}

std::vector<Matrix> head_weights(const MultiHeadAttentionCache& cache) {
  std::vector<Matrix> heads;
  for (const AttentionResult& head : cache.heads) heads.push_back(head.weights);
  return heads;
}

}  // namespace

Seq2SeqTransformer::Seq2SeqTransformer(const Seq2SeqConfig& config)
    : config_((check_config(config), config)),
      init_rng_(config.seed),
      src_tok_emb_(config.source_vocab_size, config.d_model, init_rng_),
      tgt_tok_emb_(config.target_vocab_size, config.d_model, init_rng_),
      positions_(sinusoidal_encoding(config.max_len, config.d_model)),
      encoder_norm_(config.d_model),
      decoder_norm_(config.d_model),
      generator_(config.d_model, config.target_vocab_size, true, init_rng_) {
  for (int i = 0; i < config.num_encoder_layers; ++i)
    encoder_layers_.emplace_back(TransformerEncoderLayerConfig{
        .d_model = config.d_model, .num_heads = config.num_heads, .d_ff = config.d_ff, .dropout = config.dropout,
        .activation = config.activation, .norm_first = config.norm_first, .seed = layer_seed(config.seed, i)});
  for (int i = 0; i < config.num_decoder_layers; ++i)
    decoder_layers_.emplace_back(TransformerDecoderLayerConfig{
        .d_model = config.d_model, .num_heads = config.num_heads, .d_ff = config.d_ff, .dropout = config.dropout,
        .activation = config.activation, .norm_first = config.norm_first,
        .seed = layer_seed(config.seed, config.num_encoder_layers + i)});
}

void Seq2SeqTransformer::check_ids(const char* function, const char* argument, const std::vector<int>& ids,
                                   int vocab) const {
  if (ids.empty()) detail::fail(function, argument, " is empty (give at least one token)");
  if (ids.size() > static_cast<std::size_t>(config_.max_len))
    detail::fail(function, argument, " has ", ids.size(), " tokens, more than the model's max_len = ", config_.max_len);
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= vocab)
      detail::fail(function, argument, "[", i, "] = ", ids[i], " is outside the vocabulary 0 … ", vocab - 1);
}

Matrix Seq2SeqTransformer::embed(const Embedding& table, const std::vector<int>& ids) const {
  // ids [n] → table[ids]·√d_model + positions[0 … n−1]  [n×d]
  const float scale = std::sqrt(static_cast<float>(config_.d_model));
  return table.forward(ids) * scale + positions_.topRows(static_cast<Eigen::Index>(ids.size()));
}

struct Seq2SeqTransformer::Pass {
  std::vector<TransformerEncoderLayerCache> encoder;
  Matrix encoded;  // [m×d] the last encoder layer's output, encoder.norm's input
  Matrix memory;   // [m×d]
  std::vector<TransformerDecoderLayerCache> decoder;
  Matrix decoded;  // [n×d] the last decoder layer's output, decoder.norm's input
  Matrix normed;   // [n×d] the generator's input
};

Seq2SeqOutput Seq2SeqTransformer::forward(const std::vector<int>& source, const std::vector<int>& target,
                                          const std::vector<int>& targets, const Tracer& tracer) {
  return run(source, target, targets, tracer, 0.0f, false);
}

Seq2SeqOutput Seq2SeqTransformer::accumulate_gradients(const std::vector<int>& source, const std::vector<int>& target,
                                                       const std::vector<int>& targets, float scale) {
  return run(source, target, targets, {}, scale, true);
}

Seq2SeqOutput Seq2SeqTransformer::run(const std::vector<int>& source, const std::vector<int>& target,
                                      const std::vector<int>& targets, const Tracer& tracer, float scale,
                                      bool backward) {
  // source [m], target [n] → logits [n×V_t]
  constexpr const char* fn = "Seq2SeqTransformer::forward";
  check_ids(fn, "source", source, config_.source_vocab_size);
  check_ids(fn, "target", target, config_.target_vocab_size);
  if ((backward || !targets.empty()) && targets.size() != target.size())
    detail::fail(fn, "targets has ", targets.size(), " ids but target has ", target.size());
  Seq2SeqOutput out;
  Pass pass;
  pass.encoder.resize(encoder_layers_.size());
  pass.decoder.resize(decoder_layers_.size());

  // Encoder: source [m] → memory [m×d]
  Matrix h = embed(src_tok_emb_, source);
  const Tracer encoder_tracer = tracer.child("encoder");
  for (std::size_t i = 0; i < encoder_layers_.size(); ++i) {
    h = encoder_layers_[i].forward(h, {}, encoder_tracer.child("layers." + std::to_string(i)), &pass.encoder[i]);
    if (!backward) out.attention.encoder_self.push_back(head_weights(pass.encoder[i].attention));
  }
  pass.encoded = h;
  pass.memory = encoder_norm_.forward(h);
  encoder_tracer.record("norm", "Encoder norm", "The memory every decoder layer's cross-attention reads.",
                        {{"memory", pass.memory}});

  // Decoder: target [n], memory → logits [n×V_t]
  h = embed(tgt_tok_emb_, target);
  const Tracer decoder_tracer = tracer.child("decoder");
  for (std::size_t i = 0; i < decoder_layers_.size(); ++i) {
    h = decoder_layers_[i].forward(h, pass.memory, nullptr, decoder_tracer.child("layers." + std::to_string(i)),
                                   &pass.decoder[i]);
    if (backward) continue;
    out.attention.decoder_self.push_back(head_weights(pass.decoder[i].self_attention));
    out.attention.cross.push_back(head_weights(pass.decoder[i].cross_attention));
  }
  pass.decoded = h;
  pass.normed = decoder_norm_.forward(h);
  decoder_tracer.record("norm", "Decoder norm", "The decoder's output, one row per target position.",
                        {{"normed", pass.normed}});
  out.logits = generator_.forward(pass.normed);
  tracer.record("logits", "Logits", "One score per target word for the token after each position.",
                {{"logits", out.logits}});
  if (targets.empty()) return out;

  const CrossEntropyResult ce = cross_entropy(out.logits, targets, kIgnore);
  out.loss = ce.loss;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    if (targets[t] == kIgnore) continue;
    ++out.scored;
    Eigen::Index best = 0;
    out.logits.row(static_cast<Eigen::Index>(t)).maxCoeff(&best);
    if (best == targets[t]) ++out.correct;
  }
  if (!backward) return out;

  // Backward, the forward read bottom to top.
  Matrix d_h = decoder_norm_.backward(pass.decoded, generator_.backward(pass.normed, ce.d_logits * scale));
  Matrix d_memory = Matrix::Zero(pass.memory.rows(), pass.memory.cols());
  for (std::size_t i = decoder_layers_.size(); i-- > 0;) {
    TransformerDecoderLayerGradients g = decoder_layers_[i].backward(pass.decoder[i], d_h);
    d_h = std::move(g.d_x);
    d_memory += g.d_memory;
  }
  const float embed_scale = std::sqrt(static_cast<float>(config_.d_model));
  tgt_tok_emb_.backward(target, d_h * embed_scale);
  d_h = encoder_norm_.backward(pass.encoded, d_memory);
  for (std::size_t i = encoder_layers_.size(); i-- > 0;) d_h = encoder_layers_[i].backward(pass.encoder[i], d_h);
  src_tok_emb_.backward(source, d_h * embed_scale);
  return out;
}

std::vector<ParameterRef> Seq2SeqTransformer::parameters() {
  std::vector<ParameterRef> all = src_tok_emb_.parameters("src_tok_emb");
  append_parameters(all, tgt_tok_emb_.parameters("tgt_tok_emb"));
  for (std::size_t i = 0; i < encoder_layers_.size(); ++i)
    append_parameters(all, encoder_layers_[i].parameters("transformer.encoder.layers." + std::to_string(i)));
  append_parameters(all, encoder_norm_.parameters("transformer.encoder.norm"));
  for (std::size_t i = 0; i < decoder_layers_.size(); ++i)
    append_parameters(all, decoder_layers_[i].parameters("transformer.decoder.layers." + std::to_string(i)));
  append_parameters(all, decoder_norm_.parameters("transformer.decoder.norm"));
  append_parameters(all, generator_.parameters("generator"));
  return all;
}

void Seq2SeqTransformer::zero_grad() {
  src_tok_emb_.zero_grad();
  tgt_tok_emb_.zero_grad();
  for (TransformerEncoderLayer& layer : encoder_layers_) layer.zero_grad();
  encoder_norm_.zero_grad();
  for (TransformerDecoderLayer& layer : decoder_layers_) layer.zero_grad();
  decoder_norm_.zero_grad();
  generator_.zero_grad();
}

void Seq2SeqTransformer::train(bool on) {
  for (TransformerEncoderLayer& layer : encoder_layers_) layer.train(on);
  for (TransformerDecoderLayer& layer : decoder_layers_) layer.train(on);
}

std::int64_t Seq2SeqTransformer::parameter_count() const {
  std::int64_t count = src_tok_emb_.parameter_count() + tgt_tok_emb_.parameter_count() +
                       encoder_norm_.parameter_count() + decoder_norm_.parameter_count() + generator_.parameter_count();
  for (const TransformerEncoderLayer& layer : encoder_layers_) count += layer.parameter_count();
  for (const TransformerDecoderLayer& layer : decoder_layers_) count += layer.parameter_count();
  return count;
}

}  // namespace attnlab
