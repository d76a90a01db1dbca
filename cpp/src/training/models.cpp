#include "attnlab/training/models.hpp"

#include "attnlab/training/loss.hpp"
#include "attnlab/training/tasks.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

void check_tokens(const char* function, const std::vector<int>& tokens, int vocab_size, int max_len) {
  if (tokens.empty()) detail::fail(function, "tokens is empty");
  if (max_len > 0 && static_cast<int>(tokens.size()) > max_len)
    detail::fail(function, "tokens has ", tokens.size(), " ids but the model takes at most max_len = ", max_len);
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || tokens[i] >= vocab_size)
      detail::fail(function, "tokens[", i, "] = ", tokens[i], " is outside the vocabulary 0 … ", vocab_size - 1);
}

// Loss, accuracy and ∂loss/∂logits of logits [n×C] against targets (kIgnoreTarget = no loss).
CrossEntropyResult score(const Matrix& logits, const std::vector<int>& targets, ModelOutput& out) {
  CrossEntropyResult ce = cross_entropy(logits, targets, kIgnoreTarget);
  out.loss = ce.loss;
  for (Eigen::Index r = 0; r < logits.rows(); ++r) {
    const int target = targets[static_cast<std::size_t>(r)];
    if (target == kIgnoreTarget) continue;
    Eigen::Index best = 0;
    logits.row(r).maxCoeff(&best);
    ++out.scored;
    if (best == target) ++out.correct;
  }
  return ce;
}

}  // namespace

// ---- AttentionClassifier ----

AttentionClassifier::AttentionClassifier(const AttentionClassifierConfig& c)
    : config_(c),
      init_rng_(c.seed),
      embedding_(c.vocab_size, c.d_model, init_rng_),
      attention_({.d_model = c.d_model, .num_heads = c.num_heads, .seed = c.seed + 1}),
      norm_(c.d_model),
      classifier_(c.d_model, c.num_classes, true, init_rng_) {
  detail::require_positive("AttentionClassifier", "num_classes", c.num_classes);
}

ModelOutput AttentionClassifier::forward(const std::vector<int>& tokens, int target) {
  return run(tokens, target, 0.0f, false);
}

ModelOutput AttentionClassifier::accumulate_gradients(const std::vector<int>& tokens, int target, float scale) {
  return run(tokens, target, scale, true);
}

ModelOutput AttentionClassifier::run(const std::vector<int>& tokens, int target, float scale, bool backward) {
  // tokens [n] → logits [1×C]
  constexpr const char* fn = "AttentionClassifier";
  check_tokens(fn, tokens, config_.vocab_size, 0);
  if (target >= config_.num_classes || (backward && target < 0))
    detail::fail(fn, "target ", target, " is not a class 0 … ", config_.num_classes - 1);
  ModelOutput out;
  MultiHeadAttentionCache cache;
  // emb = embedding(tokens); attended = attention(emb, emb, emb)
  const Matrix emb = embedding_.forward(tokens);
  MultiHeadAttentionOutput attended = attention_.forward(emb, {}, {}, &cache);
  out.attention.push_back(std::move(attended.head_weights));
  // x = norm(emb + attended); pooled = mean over tokens; logits = classifier(pooled)
  const Matrix sum = emb + attended.output;
  const Matrix x = norm_.forward(sum);
  const Matrix pooled = mean_pool(x);
  out.logits = classifier_.forward(pooled);
  if (target < 0) return out;
  const CrossEntropyResult ce = score(out.logits, {target}, out);
  if (!backward) return out;

  const Matrix d_pooled = classifier_.backward(pooled, ce.d_logits * scale);
  const Matrix d_sum = norm_.backward(sum, mean_pool_backward(static_cast<int>(tokens.size()), d_pooled));
  // emb feeds both the residual and the attention.
  const Matrix d_emb = d_sum + attention_.backward(cache, d_sum).d_query;
  embedding_.backward(tokens, d_emb);
  return out;
}

std::vector<ParameterRef> AttentionClassifier::parameters() {
  std::vector<ParameterRef> all = embedding_.parameters("embedding");
  append_parameters(all, attention_.parameters("attention"));
  append_parameters(all, norm_.parameters("norm"));
  append_parameters(all, classifier_.parameters("classifier"));
  return all;
}

void AttentionClassifier::zero_grad() {
  embedding_.zero_grad();
  attention_.zero_grad();
  norm_.zero_grad();
  classifier_.zero_grad();
}

std::int64_t AttentionClassifier::parameter_count() const {
  return embedding_.parameter_count() + attention_.parameter_count() + norm_.parameter_count() +
         classifier_.parameter_count();
}

// ---- TransformerStack ----

TransformerStack::TransformerStack(const char* owner, int vocab_size, int max_len, int d_model, int num_heads,
                                   int num_layers, int d_ff, std::uint64_t seed, bool with_positions)
    : init_rng_(seed),
      use_positions(with_positions),
      embedding(vocab_size, d_model, init_rng_),
      positions(max_len, d_model, init_rng_),
      norm(d_model),
      head(d_model, vocab_size, true, init_rng_) {
  if (num_layers < 1 || num_layers > 4) detail::fail(owner, "num_layers must be in 1 … 4, got ", num_layers);
  for (int i = 0; i < num_layers; ++i)
    layers.emplace_back(TransformerEncoderLayerConfig{.d_model = d_model, .num_heads = num_heads, .d_ff = d_ff,
                                                      .dropout = 0.0f, .activation = Activation::gelu,
                                                      .norm_first = true,
                                                      .seed = layer_seed(seed, i)});
}

Matrix TransformerStack::input(const std::vector<int>& tokens) const {
  Matrix h = embedding.forward(tokens);
  if (use_positions) h += positions.forward(static_cast<int>(tokens.size()));
  return h;
}

void TransformerStack::input_backward(const std::vector<int>& tokens, const Matrix& d_input) {
  embedding.backward(tokens, d_input);
  if (use_positions) positions.backward(d_input);
}

std::vector<ParameterRef> TransformerStack::parameters() {
  std::vector<ParameterRef> all = embedding.parameters("embedding");
  if (use_positions) append_parameters(all, positions.parameters("positions"));
  for (std::size_t i = 0; i < layers.size(); ++i) append_parameters(all, layers[i].parameters("layers." + std::to_string(i)));
  append_parameters(all, norm.parameters("norm"));
  append_parameters(all, head.parameters("head"));
  return all;
}

void TransformerStack::zero_grad() {
  embedding.zero_grad();
  positions.zero_grad();
  for (TransformerEncoderLayer& layer : layers) layer.zero_grad();
  norm.zero_grad();
  head.zero_grad();
}

std::int64_t TransformerStack::parameter_count() const {
  std::int64_t count = embedding.parameter_count() + (use_positions ? positions.parameter_count() : 0) +
                       norm.parameter_count() + head.parameter_count();
  for (const TransformerEncoderLayer& layer : layers) count += layer.parameter_count();
  return count;
}

// ---- CausalTransformer ----

CausalTransformer::CausalTransformer(const CausalTransformerConfig& c)
    : config_(c), stack_("CausalTransformer", c.vocab_size, c.max_len, c.d_model, c.num_heads, c.num_layers, c.d_ff, c.seed,
             c.positions) {}

ModelOutput CausalTransformer::forward(const std::vector<int>& tokens, const std::vector<int>& targets) {
  return run(tokens, targets, 0.0f, false);
}

ModelOutput CausalTransformer::accumulate_gradients(const std::vector<int>& tokens, const std::vector<int>& targets,
                                                    float scale) {
  return run(tokens, targets, scale, true);
}

ModelOutput CausalTransformer::run(const std::vector<int>& tokens, const std::vector<int>& targets, float scale,
                                   bool backward) {
  // tokens [n] → logits [n×vocab]
  constexpr const char* fn = "CausalTransformer";
  check_tokens(fn, tokens, config_.vocab_size, config_.max_len);
  if ((backward || !targets.empty()) && targets.size() != tokens.size())
    detail::fail(fn, "targets has ", targets.size(), " ids but tokens has ", tokens.size());
  ModelOutput out;
  // h = embedding(tokens) + positions(n) (or the embedding alone); h = layer(h) for each layer, causally
  std::vector<TransformerEncoderLayerCache> caches(stack_.layers.size());
  Matrix h = stack_.input(tokens);
  for (std::size_t i = 0; i < stack_.layers.size(); ++i) {
    h = stack_.layers[i].forward(h, {.causal = true}, {}, &caches[i]);
    if (backward) continue;  // a training step has no use for copies of the weights
    std::vector<Matrix> heads;
    for (const AttentionResult& head : caches[i].attention.heads) heads.push_back(head.weights);
    out.attention.push_back(std::move(heads));
  }
  // logits = head(norm(h))
  const Matrix normed = stack_.norm.forward(h);
  out.logits = stack_.head.forward(normed);
  if (targets.empty()) return out;
  const CrossEntropyResult ce = score(out.logits, targets, out);
  if (!backward) return out;

  Matrix d_h = stack_.norm.backward(h, stack_.head.backward(normed, ce.d_logits * scale));
  for (std::size_t i = stack_.layers.size(); i-- > 0;) d_h = stack_.layers[i].backward(caches[i], d_h);
  stack_.input_backward(tokens, d_h);
  return out;
}

std::vector<ParameterRef> CausalTransformer::parameters() { return stack_.parameters(); }

void CausalTransformer::zero_grad() { stack_.zero_grad(); }

std::int64_t CausalTransformer::parameter_count() const { return stack_.parameter_count(); }

}  // namespace attnlab
