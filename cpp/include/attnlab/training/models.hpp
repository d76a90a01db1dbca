// Small trainable models for the toy tasks (tasks.hpp), built from the layers and their backward
// passes. Each takes one example at a time; a batch is a loop whose gradients accumulate, as when a
// PyTorch loss is the mean over the batch.
//
// AttentionClassifier is the tutorials' sentiment classifier:
//   embedding → multi-head self-attention → add & LayerNorm → mean over tokens → Linear → class scores
// CausalTransformer is a one- or two-layer GPT-style model for next-token tasks:
//   token embedding + learned position embedding → pre-norm encoder layers with a causal mask →
//   LayerNorm → Linear to the vocabulary
// With d_ff = 0 its layers are attention-only (x + attn(LN(x)), no MLP), and with positions = false
// it has no position embedding: the two switches of the induction-head lesson.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

#include "attnlab/layers/embedding.hpp"
#include "attnlab/layers/encoder_layer.hpp"
#include "attnlab/layers/linear.hpp"
#include "attnlab/layers/multi_head_attention.hpp"
#include "attnlab/layers/norm.hpp"
#include "attnlab/tensor/parameter.hpp"
#include "attnlab/tensor/rng.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// What a model says about one example: its scores, its loss when targets are given, how many of the
// scored positions it got right, and every head's attention weights (layer-major).
struct ModelOutput {
  Matrix logits;                                   // [1×classes] or [n×vocab]
  float loss = 0.0f;                               // mean cross-entropy over the scored positions
  int correct = 0, scored = 0;                     // argmax == target, over positions with a target
  std::vector<std::vector<Matrix>> attention;      // [layer][head] → [n×n] (forward only, not training)
};

struct AttentionClassifierConfig {
  int vocab_size = 0;
  int d_model = 32;
  int num_heads = 2;
  int num_classes = 2;
  std::uint64_t seed = 0;
};

class AttentionClassifier {
 public:
  explicit AttentionClassifier(const AttentionClassifierConfig& config);

  // tokens [n] (ids < vocab_size) → logits [1×num_classes]; `target` ≥ 0 also gives the loss.
  ModelOutput forward(const std::vector<int>& tokens, int target = -1);
  // The same, then adds ∂(loss · scale)/∂parameters to the gradients (scale = 1/batch for a mean).
  ModelOutput accumulate_gradients(const std::vector<int>& tokens, int target, float scale);

  std::vector<ParameterRef> parameters();  // embedding.weight, attention.*, norm.*, classifier.*
  void zero_grad();
  std::int64_t parameter_count() const;
  const AttentionClassifierConfig& config() const { return config_; }

 private:
  ModelOutput run(const std::vector<int>& tokens, int target, float scale, bool backward);

  AttentionClassifierConfig config_;
  Rng init_rng_;
  Embedding embedding_;
  MultiHeadAttention attention_;
  LayerNorm norm_;
  Linear classifier_;
};

struct CausalTransformerConfig {
  int vocab_size = 0;
  int max_len = 0;  // longest sequence (the position table's rows)
  int d_model = 32;
  int num_heads = 2;
  int num_layers = 1;
  int d_ff = 64;          // 0: attention-only layers
  bool positions = true;  // false: no position embedding (the model sees positions only through the mask)
  std::uint64_t seed = 0;
};

// What CausalTransformer and ReferentEncoder (referent_encoder.hpp) are built from: token embedding +
// learned positions → num_layers (1 … 4) pre-norm encoder layers (GELU, no dropout) → LayerNorm →
// Linear to the vocabulary, all drawn from one seed. Each model chooses the mask and which rows reach
// the head. d_ff = 0 makes the layers attention-only. Without positions the table is still drawn (so
// the other weights are the same draws either way) but is neither added nor a parameter.
class TransformerStack {
 public:
  // `owner` names the model in errors.
  TransformerStack(const char* owner, int vocab_size, int max_len, int d_model, int num_heads, int num_layers,
                   int d_ff, std::uint64_t seed, bool with_positions = true);
  // tokens [n] → embedding(tokens) + positions(n) [n×d_model] (no positions: the embedding alone)
  Matrix input(const std::vector<int>& tokens) const;
  // d_input [n×d_model] = ∂L/∂input(tokens) → the embedding's (and positions') gradients
  void input_backward(const std::vector<int>& tokens, const Matrix& d_input);
  // embedding.weight, positions.weight (when used), layers.<i>.*, norm.*, head.*
  std::vector<ParameterRef> parameters();
  void zero_grad();
  std::int64_t parameter_count() const;

 private:
  Rng init_rng_;  // declared first: the members below draw their weights from it, in this order

 public:
  bool use_positions;
  Embedding embedding;
  LearnedPositionalEmbedding positions;
  std::vector<TransformerEncoderLayer> layers;
  LayerNorm norm;
  Linear head;
};

class CausalTransformer {
 public:
  explicit CausalTransformer(const CausalTransformerConfig& config);

  // tokens [n ≤ max_len] → logits [n×vocab_size] (position t predicts token t + 1); `targets` (empty,
  // or n ids with kIgnoreTarget where there is no loss) also give the loss and accuracy.
  ModelOutput forward(const std::vector<int>& tokens, const std::vector<int>& targets = {});
  ModelOutput accumulate_gradients(const std::vector<int>& tokens, const std::vector<int>& targets, float scale);

  std::vector<ParameterRef> parameters();  // embedding.weight, positions.weight (if any), layers.<i>.*, norm.*, head.*
  void zero_grad();
  std::int64_t parameter_count() const;
  const CausalTransformerConfig& config() const { return config_; }

 private:
  ModelOutput run(const std::vector<int>& tokens, const std::vector<int>& targets, float scale, bool backward);

  CausalTransformerConfig config_;
  TransformerStack stack_;
};

}  // namespace attnlab
ATTNLAB_API_END
