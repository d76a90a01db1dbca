// An encoder–decoder transformer for translation, laid out as PyTorch's translation tutorial builds
// one around nn.Transformer:
//   source ids [m] → src_tok_emb · √d_model + sinusoidal positions → encoder layers → encoder.norm
//       = memory [m×d]
//   target ids [n] → tgt_tok_emb · √d_model + sinusoidal positions → decoder layers (causal
//       self-attention, cross-attention over memory, FFN) → decoder.norm → generator → logits [n×V_t]
// The parameters keep PyTorch's names: "transformer.*" is exactly an nn.Transformer's state_dict
// (encoder.layers.<i>.self_attn.in_proj_weight, …, decoder.layers.<i>.multihead_attn.…,
// encoder.norm, decoder.norm), beside "src_tok_emb.weight", "tgt_tok_emb.weight" and "generator.*".
// One sequence pair at a time; a batch is a loop whose gradients accumulate.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "attnlab/io/safetensors.hpp"
#include "attnlab/layers/decoder_layer.hpp"
#include "attnlab/layers/embedding.hpp"
#include "attnlab/layers/encoder_layer.hpp"
#include "attnlab/layers/linear.hpp"
#include "attnlab/layers/norm.hpp"
#include "attnlab/tensor/parameter.hpp"
#include "attnlab/tensor/trace.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct Seq2SeqConfig {
  int source_vocab_size = 0;
  int target_vocab_size = 0;
  int max_len = 64;  // longest source and longest target sequence (the position table's rows)
  int d_model = 64;
  int num_heads = 4;
  int num_encoder_layers = 2;
  int num_decoder_layers = 2;
  int d_ff = 256;
  float dropout = 0.0f;  // training mode only; nn.Transformer's default is 0.1
  Activation activation = Activation::relu;  // nn.Transformer's default
  bool norm_first = false;                   // post-norm, nn.Transformer's default
  std::uint64_t seed = 0;                    // initial weights
};

// Every head's attention weights, [layer][head].
struct Seq2SeqAttention {
  std::vector<std::vector<Matrix>> encoder_self;  // [m×m] source × source
  std::vector<std::vector<Matrix>> decoder_self;  // [n×n] target × target, causal
  std::vector<std::vector<Matrix>> cross;         // [n×m] target queries × source keys
};

struct Seq2SeqOutput {
  Matrix logits;            // [n×target_vocab_size]: row t predicts target token t + 1
  float loss = 0.0f;        // mean cross-entropy over the scored rows (when targets are given)
  int correct = 0, scored = 0;
  Seq2SeqAttention attention;  // filled by forward, not by accumulate_gradients
};

struct Seq2SeqDecodeOptions {
  int bos_id = 0;        // the token the decoder reads first
  int eos_id = 1;        // decoding stops once it is produced
  int max_tokens = 0;    // most tokens to produce (EOS included); 0: until the position table ends
  int beam = 1;          // 1: greedy; > 1: beam search keeping this many hypotheses
};

struct Seq2SeqDecoded {
  std::vector<int> tokens;   // what the decoder read: bos_id, then every produced token but the EOS
  std::vector<int> output;   // the produced tokens, EOS excluded
  bool finished = false;     // the EOS was produced (false: max_tokens or the position table ran out)
  double log_prob = 0.0;     // natural log of the sequence's probability, EOS included when produced
  // [layer][head] → [tokens.size()×m]: row t is query position t (reading tokens[t]) over the source
  std::vector<std::vector<Matrix>> cross_attention;
};

// One tensor of the state_dict: its PyTorch name, shape ([k] for a vector) and row-major values.
struct Seq2SeqTensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};

class Seq2SeqTransformer {
 public:
  explicit Seq2SeqTransformer(const Seq2SeqConfig& config);

  // source ids [m], target ids [n] (what the decoder reads: BOS first) → logits [n×V_t] and every
  // attention map; `targets` (empty, or n ids, kIgnoreTarget where unscored) also give the loss.
  // Traced: encoder.layers.<i>.*, encoder.norm, decoder.layers.<i>.*, decoder.norm, logits.
  Seq2SeqOutput forward(const std::vector<int>& source, const std::vector<int>& target,
                        const std::vector<int>& targets = {}, const Tracer& tracer = {});
  // The same, then adds ∂(loss · scale)/∂parameters to the gradients.
  Seq2SeqOutput accumulate_gradients(const std::vector<int>& source, const std::vector<int>& target,
                                     const std::vector<int>& targets, float scale);

  // Greedy or beam-search decoding with a key/value cache: the cross-attention's keys and values are
  // computed once per source, the self-attention's grow by one row per produced token.
  // Ties go to the lower token id; beam search ranks by log-probability without a length penalty, and
  // stops once the best finished hypothesis beats every unfinished one (they can only fall).
  Seq2SeqDecoded decode(const std::vector<int>& source, const Seq2SeqDecodeOptions& options);

  std::vector<ParameterRef> parameters();  // PyTorch's structure, the attentions' q/k/v separate
  void zero_grad();
  void train(bool on = true);
  std::int64_t parameter_count() const;
  const Seq2SeqConfig& config() const { return config_; }

  // The state_dict as PyTorch names and shapes it (attention projections fused into in_proj_weight
  // [3d×d] and in_proj_bias [3d]), in PyTorch's order.
  std::vector<Seq2SeqTensor> state_dict() const;
  std::vector<std::uint8_t> save_safetensors(DType dtype = DType::F32,
                                             const std::map<std::string, std::string>& metadata = {}) const;
  // Loads every tensor this config needs from a .safetensors file (others are ignored). Error naming
  // the tensor for one missing, of the wrong shape or not finite; the model is unchanged then.
  void load_safetensors(std::span<const std::uint8_t> file);

 private:
  struct Pass;  // what one forward keeps for the backward
  struct DecoderState;  // one hypothesis's key/value cache (seq2seq_decode.cpp)
  // One decoding step: `token` read at `position` → log-probabilities of the next token [1×V_t];
  // appends each layer's cross-attention rows [head] → [1×m] to `cross`.
  Matrix decode_step(DecoderState& state, int token, int position, std::vector<std::vector<Matrix>>& cross) const;
  Seq2SeqOutput run(const std::vector<int>& source, const std::vector<int>& target, const std::vector<int>& targets,
                    const Tracer& tracer, float scale, bool backward);
  Matrix embed(const Embedding& table, const std::vector<int>& ids) const;
  void check_ids(const char* function, const char* argument, const std::vector<int>& ids, int vocab) const;

  Seq2SeqConfig config_;
  Rng init_rng_;  // declared before the members that draw their weights from it
  Embedding src_tok_emb_, tgt_tok_emb_;
  Matrix positions_;  // [max_len×d_model] sinusoidal, not a parameter
  std::vector<TransformerEncoderLayer> encoder_layers_;
  LayerNorm encoder_norm_;
  std::vector<TransformerDecoderLayer> decoder_layers_;
  LayerNorm decoder_norm_;
  Linear generator_;
};

}  // namespace attnlab
ATTNLAB_API_END
