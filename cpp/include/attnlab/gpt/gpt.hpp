// A GPT with GPT-2's architecture, so a GPT-2 checkpoint means the same thing here as in PyTorch:
//
//   x = wte[ids] + wpe[0 … n−1]                               token + learned position embeddings
//   for each of the num_layers blocks (pre-norm):
//     x = x + c_proj(attention(c_attn(ln_1(x))))             causal, num_heads heads, scale 1/√(d/H)
//     x = x + c_proj(gelu_tanh(c_fc(ln_2(x))))              MLP with a 4·d hidden layer
//   logits = ln_f(x) · wteᵀ                                   the output layer is tied to wte
//
// Every projection is GPT-2's Conv1D: weight [in×out], y = x·W + b (the transpose of nn.Linear).
// c_attn's 3·d output columns are q, k, v in that order, and head h uses columns h·d_head … of each.
// LayerNorm eps is 1e-5; GELU is the tanh approximation, as in GPT-2.
//
// All parameters live in one flat buffer in a fixed order (parameters() names them as Hugging Face's
// GPT2Model does: "wte.weight", "h.0.attn.c_attn.weight", …), and their gradients in a second buffer
// of the same layout, so an optimizer, a checkpoint writer or a learner can walk them as one list.
//
// Files: gpt.cpp (config, parameters, forward), gpt_backward.cpp (training forward + backward),
// gpt_session.cpp (KV-cache decoding, generation), gpt_checkpoint.cpp (.safetensors).
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/tensor/matrix.hpp"
#include "attnlab/tensor/parameter.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/tensor/trace.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

namespace wasm {
class GPTHandle;
}  // namespace wasm

struct PackedGPTWeights;    // gpt_ops.hpp
struct PackedWeightsCache;
class HookedGPT;            // interp/hooked_gpt.hpp: this model's forward with hook points

struct GPTConfig {
  int vocab_size = 0;      // V
  int context_length = 0;  // C: the longest sequence (wpe's rows)
  int d_model = 0;         // d
  int num_heads = 0;       // H, dividing d
  int num_layers = 0;      // L

  int head_dim() const { return num_heads > 0 ? d_model / num_heads : 0; }
  int d_mlp() const { return 4 * d_model; }
  std::int64_t parameter_count() const;  // V·d + C·d + L·(12d² + 13d) + 2d
};

// Throws Error naming the field unless every size is positive, num_heads divides d_model, and the
// parameters fit the memory budget. `function` names the caller in the message.
void check_gpt_config(const char* function, const GPTConfig& config);

// Knocking a head out of a forward pass: its output (its d_head columns of the concatenated heads,
// before attn.c_proj) is set to zero, or to its mean over the sequence's positions.
struct HeadAblation {
  int layer = 0;
  int head = 0;
};
enum class AblationMode { zero, mean };

// Which rows of logits a forward computes: every position's (training, per-token losses), only the
// last position's (the next token: a next-token chart, an ablation's effect on it), or none (a lesson
// that draws attention). For a short prompt the logits are much of the work: V·d multiply-adds per row
// (4096·192 for attnlab-kjv), more than one whole block's 12·d².
enum class LogitRows { all, last, none };

struct GPTForwardOptions {
  bool attention = false;             // also return every head's attention weights
  std::vector<HeadAblation> ablate;   // heads to knock out (none by default)
  AblationMode ablation = AblationMode::zero;
  LogitRows logits = LogitRows::all;
};

struct GPTOutput {
  Matrix logits;  // [n×V]: row t scores the token after position t (or, by options.logits, [1×V] or [0×V])
  std::vector<std::vector<Matrix>> attention;   // [layer][head] → [n×n] causal weights (when asked)
};

// Dropout in a training pass, where GPT-2 (and nanoGPT's `dropout`) put it: on the embeddings' sum, on
// every head's attention weights after the softmax, and on the attention's and the MLP's outputs before
// each joins the residual stream. Each is torch.nn.Dropout(p): an entry is zeroed with probability p and
// the survivors are scaled by 1/(1−p). The masks come from Rng(seed, stream), drawn on the calling thread
// in the forward's order (the embeddings [n×d]; then per block: each sequence's heads' [T×T] weights in
// turn, the attention output [n×d], the MLP output [n×d]), one uniform per entry: the same pass on any
// thread count. Evaluation (forward, loss) never drops.
struct GPTDropout {
  float p = 0.0f;  // in [0, 1); 0 draws nothing
  std::uint64_t seed = 0;
  std::uint64_t stream = 0;
};

inline constexpr int kGPTIgnoreTarget = -1;  // a target position with no loss (nanoGPT's ignore_index)

// The named parameter tensors, in buffer order (the order parameters() lists them).
struct GPTTensorSlot {
  std::string name;                   // Hugging Face's GPT2Model name: "h.0.mlp.c_fc.weight"
  std::vector<std::int64_t> shape;    // {in, out} for Conv1D weights, {V, d} for wte, {d} for vectors
  std::size_t offset = 0;             // into the flat buffer
  std::size_t size = 0;               // floats
  bool is_matrix() const { return shape.size() == 2; }  // the tensors weight decay applies to
};

class GPT {
 public:
  // GPT-2's initialisation from a seed: every weight matrix (wte, wpe, Conv1D) normal(0, 0.02), the
  // two c_proj weights of each block normal(0, 0.02/√(2L)), biases 0, LayerNorm weights 1, biases 0.
  GPT(const GPTConfig& config, std::uint64_t seed);
  // Every parameter 0: a model to load a checkpoint into (no time spent drawing 124M normals).
  explicit GPT(const GPTConfig& config);

  // A checkpoint in Hugging Face GPT-2's .safetensors layout (gpt_checkpoint.cpp): tensors named
  // wte.weight, wpe.weight, h.{i}.ln_1.weight, …, ln_f.bias, optionally prefixed "transformer.";
  // F32, F16 or BF16. The sizes come from the tensors' shapes; the head count from `num_heads` if
  // positive, else the metadata's "n_head". A positive `num_heads` that differs from the metadata's
  // n_head is refused unless `override_n_head` (a wrong count gives a model that loads and computes
  // nonsense, so disagreeing with the file must be said twice). An lm_head.weight must equal wte.weight (GPT-2 ties them);
  // the causal-mask buffers h.{i}.attn.bias and h.{i}.attn.masked_bias are ignored. Anything else
  // missing, extra, mis-shaped or non-finite is an Error naming the tensor, before the model is
  // allocated where the shapes allow. The parameters count against the memory budget (limits.hpp).
  static GPT from_safetensors(std::span<const std::uint8_t> file, int num_heads = 0, bool override_n_head = false);
  // The same, from a file on disk (read whole; Error naming the path when it cannot be read).
  static GPT from_safetensors(const std::filesystem::path& path, int num_heads = 0, bool override_n_head = false);
  // This model as such a file (metadata: n_head, format "pt"), in F32, F16 or BF16.
  std::vector<std::uint8_t> to_safetensors(DType dtype = DType::F32) const;

  const GPTConfig& config() const { return config_; }
  std::int64_t parameter_count() const { return static_cast<std::int64_t>(values_.size()); }
  const std::vector<GPTTensorSlot>& tensors() const { return slots_; }
  const GPTTensorSlot& tensor(std::string_view name) const;  // Error if no tensor has that name
  // The flat parameter buffer (read-only); writable through parameters() or load_tensor().
  std::span<const float> values() const { return values_; }
  // Replaces one tensor's values (size floats, finite); Error naming the tensor otherwise.
  void load_tensor(std::string_view name, std::span<const float> values);

  // ids [n], 1 ≤ n ≤ C, each < V → logits [n×V] (and attention, ablations as asked). With an
  // enabled tracer, records every step by name (for the first sequence): embed; per layer h<l>.ln_1,
  // .attn.qkv, per head .attn.head<h>.scores (q, k, scores), .weights, .output (v, output), then
  // .attn.heads, .residual_1, .mlp.c_fc, .mlp.gelu, .residual_2; ln_f, logits.
  GPTOutput forward(std::span<const int> ids, const GPTForwardOptions& options = {},
                    const Tracer& tracer = {}) const;

  // One training pass over a batch of `batch` sequences of equal length T, row-major [batch×T] ids
  // and targets (kGPTIgnoreTarget = no loss): the mean cross-entropy over the scored positions (as
  // F.cross_entropy(ignore_index=-1) over the whole batch), after adding its gradient to the grads.
  // With dropout.p > 0, the loss and gradient of the pass with that dropout (GPTDropout).
  float forward_backward(std::span<const int> ids, std::span<const int> targets, int batch,
                         const GPTDropout& dropout = {});
  // The same loss without gradients (held-out evaluation).
  float loss(std::span<const int> ids, std::span<const int> targets, int batch) const;

  // Views of every tensor and its gradient (allocated as zeros on first call), Hugging Face's names.
  std::vector<ParameterRef> parameters();
  std::span<const float> grads() const { return grads_; }
  void zero_grad();

  // Inference (forward, loss, GPTSession) multiplies by weights packed once for the GEMM, for models
  // up to kPackedWeightsLimit parameters (a larger one, GPT-2's 124M, would hold its weights twice in
  // memory; it packs them per product instead). The pack is redone after the parameters change:
  // load_tensor(), parameters() and GPTTrainer::step() say so themselves; code that writes through
  // views parameters() returned earlier calls weights_changed() afterwards.
  static constexpr std::int64_t kPackedWeightsLimit = 16'000'000;
  void weights_changed();

 private:
  // The wasm binding loads from its own copy of the file, which counts against the budget too.
  friend class wasm::GPTHandle;
  static GPT load(std::span<const std::uint8_t> file, int num_heads, bool override_n_head, std::size_t copy_bytes);
  friend class GPTSession;
  friend class HookedGPT;  // reads the weights (and their pack) as forward_pass does
  struct Activations;  // gpt_ops.hpp: every intermediate of a forward pass, which the backward reads
  // The buffer's tensors, grouped for reading the forward: block l's, and the embeddings and ln_f.
  int wte_ = 0, wpe_ = 0, ln_f_weight_ = 0, ln_f_bias_ = 0;
  struct BlockSlots {  // indices into slots_
    int ln_1_weight, ln_1_bias, c_attn_weight, c_attn_bias, attn_proj_weight, attn_proj_bias;
    int ln_2_weight, ln_2_bias, c_fc_weight, c_fc_bias, mlp_proj_weight, mlp_proj_bias;
  };
  std::vector<BlockSlots> blocks_;

  Eigen::Map<const Matrix> matrix(int slot) const;       // a weight as [rows×cols]
  Eigen::Map<const Eigen::RowVectorXf> row(int slot) const;  // a bias or norm parameter as [1×n]
  Eigen::Map<Matrix> grad_matrix(int slot);
  Eigen::Map<Eigen::RowVectorXf> grad_row(int slot);

  void check_ids(const char* function, std::span<const int> ids, int batch) const;
  // The forward over `batch` sequences of ids.size()/batch tokens, keeping every intermediate.
  // `packed`: the weights packed for inference, or nullptr to pack per product (training).
  // `dropout`: training's dropout (the masks kept in acts for the backward).
  void forward_pass(std::span<const int> ids, int batch, Activations& acts, const GPTForwardOptions& options,
                    const Tracer& tracer, const PackedGPTWeights* packed, const GPTDropout& dropout = {}) const;
  // ln_f(x) [n×d] → logits [n×V] = ln_f(x)·wteᵀ, with the packed wteᵀ when there is one.
  Matrix tied_logits(const Matrix& ln_f, const PackedGPTWeights* packed) const;
  // This generation's packed weights (packing them if needed); nullptr above kPackedWeightsLimit.
  std::shared_ptr<const PackedGPTWeights> packed_weights() const;
  // Checks ids and targets, runs forward_pass, returns the loss (and ∂loss/∂logits when d_logits is given).
  double training_forward(const char* function, std::span<const int> ids, std::span<const int> targets, int batch,
                          Activations& acts, Matrix* d_logits, const PackedGPTWeights* packed,
                          const GPTDropout& dropout = {}) const;

  // A backward pass's gradient at one hook point: the name after "blocks.{layer}." (hook_resid_pre,
  // attn.hook_q, attn.hook_k, attn.hook_v, attn.hook_z, hook_attn_out, hook_resid_mid, hook_mlp_out,
  // hook_resid_post) and ∂/∂point [n×cols] laid out as forward_pass's rows.
  using PointGradient = std::function<void(std::string_view point, int layer, const Matrix& gradient)>;
  // The backward of forward_pass (`a`) from d_logits [n×V]: adds the parameters' gradients into `grads`
  // (the parameter buffer's layout; nullptr: not computed) and hands each hook point's gradient to `point`
  // (empty: none). → ∂/∂(wte[ids] + wpe) [n×d], dropout's mask applied.
  Matrix backward(const Activations& a, const Matrix& d_logits, float* grads, const PointGradient& point) const;

  void lay_out();  // slots_ and blocks_ for config_ (values_ not allocated)
  struct LayoutOnly {};
  GPT(const GPTConfig& config, LayoutOnly);  // the tensor table alone, to check a file against

  GPTConfig config_;
  std::vector<GPTTensorSlot> slots_;
  std::vector<float> values_;
  std::vector<float> grads_;  // empty until parameters() or forward_backward()
  std::uint64_t generation_;  // a number no other parameter values had (a copy shares it until either changes)
  std::shared_ptr<PackedWeightsCache> packed_cache_;
};

}  // namespace attnlab
ATTNLAB_API_END
