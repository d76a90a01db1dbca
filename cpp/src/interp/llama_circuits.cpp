// A Llama head's circuits: its factors read from q_proj, k_proj, v_proj and o_proj, scored as a GPT's.
#include "attnlab/interp/llama_interp.hpp"

#include "interp/circuit_scores.hpp"
#include "kernels/kernels.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

void check_head(const char* function, const LlamaConfig& c, int layer, int head) {
  if (layer < 0 || layer >= c.num_layers || head < 0 || head >= c.num_heads)
    detail::fail(function, "layer ", layer, ", head ", head, " is not in the model: layers 0 … ", c.num_layers - 1,
                 ", heads 0 … ", c.num_heads - 1);
}

Matrix weight(const Llama& model, const std::string& name) { return model.tensor_matrix(name); }

// An RMSNorm's weight [d].
Vector norm_weight(const Llama& model, const std::string& name) { return model.tensor_matrix(name).row(0).transpose(); }

const char* unembedding_name(const Llama& model) {
  return model.config().tie_word_embeddings ? "model.embed_tokens.weight" : "lm_head.weight";
}

// W_U·W_E [d×d] = unembeddingᵀ·embed_tokens (lm_head or, tied, embed_tokens itself)
Matrix unembed_embed(const Llama& model) {
  const auto embed = weight(model, "model.embed_tokens.weight");  // [V×d]
  const auto unembed = weight(model, unembedding_name(model));
  return kernels::matmul(unembed.transpose(), embed);
}

}  // namespace

HeadCircuit head_circuit(const Llama& model, int layer, int head, int distance) {
  const char* fn = "head_circuit";
  const LlamaConfig& c = model.config();
  check_head(fn, c, layer, head);
  if (distance < 0) detail::fail(fn, "distance must be ≥ 0 (a key that many tokens before the query), got ", distance);
  const int hd = c.head_dim, kv = head / (c.num_heads / c.num_kv_heads);
  const std::string p = "model.layers." + std::to_string(layer) + ".self_attn.";
  // nn.Linear's [out×in]: a head's rows of q_proj, k_proj, v_proj, its columns of o_proj.
  HeadCircuit circuit{weight(model, p + "q_proj.weight").middleRows(head * hd, hd).transpose(),
                      weight(model, p + "k_proj.weight").middleRows(kv * hd, hd).transpose(),
                      weight(model, p + "v_proj.weight").middleRows(kv * hd, hd).transpose(),
                      weight(model, p + "o_proj.weight").middleCols(head * hd, hd).transpose()};
  // W_Q·R(Δ): each row of W_Q [d×hd] turned as a query Δ positions after its key would be.
  const std::vector<int> positions(static_cast<std::size_t>(c.hidden_size), distance);
  apply_rotary_half(circuit.w_q, hd, rotary_table(positions, rope_frequencies(c.rope)));
  return circuit;
}

double ov_copying_score(const Llama& model, int layer, int head) {
  check_head("ov_copying_score", model.config(), layer, head);
  return circuit_scores::copying_score(head_circuit(model, layer, head), unembed_embed(model));
}

namespace {

// Each layer's input_layernorm weight, the norm its heads read through.
std::vector<Vector> first_norms(const Llama& model) {
  std::vector<Vector> norms;
  for (int l = 0; l < model.config().num_layers; ++l)
    norms.push_back(norm_weight(model, "model.layers." + std::to_string(l) + ".input_layernorm.weight"));
  return norms;
}

}  // namespace

// An RMSNorm removes no mean: folded weights are not centred, and centring the writing weights would change
// what the model computes (TransformerLens skips that step for RMSNorm models; here it is refused).
std::vector<double> ov_copying_scores(const Llama& model, const CopyingProcessing& processing) {
  const LlamaConfig& c = model.config();
  if (processing.centre_writing)
    detail::fail("ov_copying_scores", "centre_writing needs a LayerNorm, which removes the residual stream's mean; a Llama's ",
                 "RMSNorm does not, so centring W_E and W_O would change the model (fold_ln and centre_unembed apply)");
  std::vector<HeadCircuit> heads = circuit_scores::every_head(model, c.num_layers, c.num_heads);
  if (!processing.fold_ln && !processing.centre_unembed) return circuit_scores::copying_scores(heads, unembed_embed(model));
  circuit_scores::ProcessingInputs inputs{.embed = weight(model, "model.embed_tokens.weight"),
                                          .unembed = weight(model, unembedding_name(model)).transpose(),
                                          .final_norm = norm_weight(model, "model.norm.weight"),
                                          .centre_reading = false};
  inputs.layer_norms = first_norms(model);
  const Matrix processed = circuit_scores::process(processing, std::move(inputs), heads, c.num_heads);
  return circuit_scores::copying_scores(heads, processed);
}

CompositionScores composition_scores(const Llama& model, int draws, std::uint64_t seed, const CompositionProcessing& processing) {
  const LlamaConfig& c = model.config();
  if (processing.centre_writing)
    detail::fail("composition_scores", "centre_writing needs a LayerNorm, which removes the residual stream's mean; a Llama's ",
                 "RMSNorm does not, so centring W_O would change the model (fold_ln applies)");
  std::vector<HeadCircuit> heads = circuit_scores::every_head(model, c.num_layers, c.num_heads);
  circuit_scores::process_heads(processing.fold_ln, false, first_norms(model), false, true, heads, c.num_heads);
  return circuit_scores::composition(heads, c.num_layers, c.num_heads, draws, seed);
}

}  // namespace attnlab
