// The arithmetic of the circuit scores (circuits.hpp), on heads' factors whatever model they come from.
#pragma once

#include <cstdint>
#include <vector>

#include "attnlab/interp/circuits.hpp"

namespace attnlab::circuit_scores {

// Σλ / Σ|λ| over the eigenvalues of W_O·(W_U·W_E)·W_V [k×k]; unembed_embed = W_U·W_E [d×d].
double copying_score(const HeadCircuit& head, const Matrix& unembed_embed);

// Q-, K- and V-composition of every pair of heads in different layers, and the random baseline;
// `heads` layer-major [num_layers·num_heads], every W_Q, W_K, W_V [d×k] and W_O [k×d].
CompositionScores composition(const std::vector<HeadCircuit>& heads, int num_layers, int num_heads, int draws,
                              std::uint64_t seed);

// Every head's circuit of a model (a GPT or a Llama: head_circuit(model, layer, head)), layer-major.
template <class Model>
std::vector<HeadCircuit> every_head(const Model& model, int num_layers, int num_heads) {
  std::vector<HeadCircuit> heads;
  for (int l = 0; l < num_layers; ++l)
    for (int h = 0; h < num_heads; ++h) heads.push_back(head_circuit(model, l, h));
  return heads;
}

// Each head's copying score, layer-major, W_U·W_E computed once by the caller.
std::vector<double> copying_scores(const std::vector<HeadCircuit>& heads, const Matrix& unembed_embed);

// The copying score's weights under CopyingProcessing (circuits.hpp), whatever model they come from:
// embed W_E [V×d], unembed W_U [d×V], final_norm (ln_f / model.norm weight, d) and each layer's first norm
// weight (d); centre_reading: the norm removes the mean (LayerNorm), so folded reading weights are centred.
struct ProcessingInputs {
  Matrix embed, unembed;
  Vector final_norm;
  std::vector<Vector> layer_norms;
  bool centre_reading = true;
};
// W_E and W_U processed, and every head's W_V and W_O processed in place.
struct ProcessedEnds {
  Matrix embed;    // [V×d]
  Matrix unembed;  // [d×V]
};
ProcessedEnds process_ends(const CopyingProcessing& p, ProcessingInputs inputs, std::vector<HeadCircuit>& heads, int num_heads);
// process_ends' W_U·W_E [d×d], what the copying score reads.
Matrix process(const CopyingProcessing& p, ProcessingInputs inputs, std::vector<HeadCircuit>& heads, int num_heads);

// Each head's share of tokens t whose row of the full OV circuit W_E·W_V·W_O·W_U [V×V] is largest at column t
// (ARENA's top-1 check), layer-major; the V×V product is made a block of rows at a time.
std::vector<double> copying_top1(const std::vector<HeadCircuit>& heads, const Matrix& embed, const Matrix& unembed);

// Every head's factors as TransformerLens's processing leaves them (layer-major, num_heads a layer): with fold_ln
// its layer's first norm weight (layer_norms[l], d) scales the rows of W_V — and of W_Q and W_K with
// `queries_and_keys` — which are then centred over d_model when `centre_reading`; with centre_writing W_O is centred
// over d_model.
void process_heads(bool fold_ln, bool centre_writing, const std::vector<Vector>& layer_norms, bool centre_reading,
                   bool queries_and_keys, std::vector<HeadCircuit>& heads, int num_heads);

}  // namespace attnlab::circuit_scores
