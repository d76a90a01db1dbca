#include "attnlab/interp/circuits.hpp"

#include "interp/circuit_scores.hpp"
#include "kernels/kernels.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

// Products go to the float kernels (the module has them already; Eigen's double product would add its
// own, ~80 KB of wasm); traces and norms are summed in double.
using kernels::matmul;

void check_head(const char* function, const GPTConfig& c, int layer, int head) {
  if (layer < 0 || layer >= c.num_layers || head < 0 || head >= c.num_heads)
    detail::fail(function, "layer ", layer, ", head ", head, " is not in the model: layers 0 … ", c.num_layers - 1,
                 ", heads 0 … ", c.num_heads - 1);
}

Eigen::Map<const Matrix> weight(const GPT& model, const std::string& name) {
  const GPTTensorSlot& slot = model.tensor(name);
  return {model.values().data() + slot.offset, static_cast<Eigen::Index>(slot.shape[0]), static_cast<Eigen::Index>(slot.shape[1])};
}

// A LayerNorm's weight [d].
Vector norm_weight(const GPT& model, const std::string& name) {
  const GPTTensorSlot& slot = model.tensor(name);
  return Eigen::Map<const Vector>(model.values().data() + slot.offset, static_cast<Eigen::Index>(slot.shape[0]));
}

}  // namespace

HeadCircuit head_circuit(const GPT& model, int layer, int head) {
  const GPTConfig& c = model.config();
  check_head("head_circuit", c, layer, head);
  const int d = c.d_model, k = c.head_dim();
  const std::string block = "h." + std::to_string(layer) + ".attn.";
  const auto c_attn = weight(model, block + "c_attn.weight");  // [d×3d]: q | k | v, head h in columns h·k …
  const auto c_proj = weight(model, block + "c_proj.weight");  // [d×d]: head h in rows h·k …
  return {c_attn.middleCols(head * k, k), c_attn.middleCols(d + head * k, k), c_attn.middleCols(2 * d + head * k, k),
          c_proj.middleRows(head * k, k)};
}

namespace {

// Each block's ln_1 weight, the norm its heads read through.
std::vector<Vector> first_norms(const GPT& model) {
  std::vector<Vector> norms;
  for (int l = 0; l < model.config().num_layers; ++l) norms.push_back(norm_weight(model, "h." + std::to_string(l) + ".ln_1.weight"));
  return norms;
}

// The weights the copying checks read, for their processing: W_E = wte, W_U = wteᵀ (tied), ln_f's and each ln_1's weight.
circuit_scores::ProcessingInputs processing_inputs(const GPT& model) {
  const auto wte = weight(model, "wte.weight");
  return {.embed = wte, .unembed = wte.transpose(), .final_norm = norm_weight(model, "ln_f.weight"), .layer_norms = first_norms(model)};
}

// W_U·W_E = wteᵀ·wte [d×d]
Matrix unembed_embed(const GPT& model) {
  const auto wte = weight(model, "wte.weight");
  return matmul(wte.transpose(), wte);
}

}  // namespace

double ov_copying_score(const GPT& model, int layer, int head) {
  check_head("ov_copying_score", model.config(), layer, head);
  return circuit_scores::copying_score(head_circuit(model, layer, head), unembed_embed(model));
}

std::vector<double> ov_copying_scores(const GPT& model, const CopyingProcessing& processing) {
  const GPTConfig& c = model.config();
  std::vector<HeadCircuit> heads = circuit_scores::every_head(model, c.num_layers, c.num_heads);
  if (!processing.fold_ln && !processing.centre_writing && !processing.centre_unembed)
    return circuit_scores::copying_scores(heads, unembed_embed(model));
  const Matrix processed = circuit_scores::process(processing, processing_inputs(model), heads, c.num_heads);
  return circuit_scores::copying_scores(heads, processed);
}

std::vector<double> ov_copying_top1(const GPT& model, const CopyingProcessing& processing) {
  const GPTConfig& c = model.config();
  std::vector<HeadCircuit> heads = circuit_scores::every_head(model, c.num_layers, c.num_heads);
  const circuit_scores::ProcessedEnds ends = circuit_scores::process_ends(processing, processing_inputs(model), heads, c.num_heads);
  return circuit_scores::copying_top1(heads, ends.embed, ends.unembed);
}

CompositionScores composition_scores(const GPT& model, int draws, std::uint64_t seed, const CompositionProcessing& processing) {
  const GPTConfig& c = model.config();
  std::vector<HeadCircuit> heads = circuit_scores::every_head(model, c.num_layers, c.num_heads);
  circuit_scores::process_heads(processing.fold_ln, processing.centre_writing, first_norms(model), true, true, heads, c.num_heads);
  return circuit_scores::composition(heads, c.num_layers, c.num_heads, draws, seed);
}

}  // namespace attnlab
