// A head's circuits from the weights alone (Elhage et al. 2021, "A Mathematical Framework for
// Transformer Circuits"), in TransformerLens's row-vector convention (x·W):
//
//   QK = W_Q·W_Kᵀ [d×d]: how much a query token's residual attends to a key token's   (factored: W_Q, W_K)
//   OV = W_V·W_O  [d×d]: what a head writes for the residual it attends to             (factored: W_V, W_O)
//
// W_Q, W_K, W_V [d×d_head] are the head's columns of c_attn's weight; W_O [d_head×d] its rows of
// attn.c_proj's. Biases and LayerNorms are left out, as the paper's circuits leave them out.
//
// OV copying score: of the full OV circuit W_E·OV·W_U [V×V] (W_E = wte, W_U = wteᵀ), Σλ / Σ|λ| over its
// eigenvalues — 1 for a head that copies the token it attends to. Its non-zero eigenvalues are those
// of W_O·W_U·W_E·W_V [d_head×d_head] (the eigenvalues of A·B and B·A agree but for zeros), so that
// small matrix is the one solved, in double precision.
//
// Composition scores of a head A and a head B of a later layer: ‖M_A·M_B‖_F / (‖M_A‖_F·‖M_B‖_F) with
// M_A = OV_A and M_B = QK_B (Q-composition), QK_Bᵀ (K-composition) or OV_B (V-composition), computed
// through the factors (d_head×d_head products, never d×d). Baseline: the same score of random
// factors of the same shapes (uniform, seeded; the score is unchanged by scaling), averaged.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <vector>

#include "attnlab/gpt/gpt.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct HeadCircuit {
  Matrix w_q, w_k, w_v;  // [d×d_head]
  Matrix w_o;            // [d_head×d]
};
HeadCircuit head_circuit(const GPT& model, int layer, int head);

double ov_copying_score(const GPT& model, int layer, int head);

// TransformerLens's weight processing (HookedTransformer.process_weights_), applied to the weights the copying
// score reads; all off (the default) is the raw W_E·W_V·W_O·W_U above. The score changes with each step: a
// shift of every logit by the same amount (what centre_unembed removes) is ignored by softmax but not by the
// eigenvalues, so say which processing a score was computed under.
struct CopyingProcessing {
  bool fold_ln = false;         // ln_1.weight into W_V and ln_f.weight into W_U, then those reading weights
                                // centred over d_model (a LayerNorm's output has mean 0; a Llama: no centring)
  bool centre_writing = false;  // W_E and W_O centred over d_model (LayerNorm only: it removes that mean)
  bool centre_unembed = false;  // W_U centred over the vocabulary
};

// Every head's copying score, layer-major [layers·heads]: W_U·W_E (a d×V×d product, the cost of one
// score) computed once for all of them.
std::vector<double> ov_copying_scores(const GPT& model, const CopyingProcessing& processing = {});

// ARENA's check of each head's full OV circuit W_E·W_V·W_O·W_U [V×V]: the share of the vocabulary's tokens whose
// own column holds the largest entry of their row — 1 for a head that, attending to a token, writes that token
// first. Unlike the eigenvalue score it reads only each row's order, which adding the same amount to a row (the
// shift softmax ignores, what centre_unembed removes) cannot change: centre_unembed leaves it exactly as it is.
// Layer-major [layers·heads]; the V×V products are a d-wide multiply each (about V²·d_head·2 multiply-adds a head).
std::vector<double> ov_copying_top1(const GPT& model, const CopyingProcessing& processing = {});

struct CompositionPair {
  int from_layer, from_head;  // A, the earlier head
  int to_layer, to_head;      // B, in a later layer
  double q, k, v;
};
struct CompositionScores {
  std::vector<CompositionPair> pairs;  // every A, B with A's layer < B's, ordered by A then B
  double baseline = 0.0;               // the mean random score over `draws` draws
  int draws = 0;
};
// TransformerLens's processing for the composition scores, each step off by default (the raw factors): fold_ln
// (each head's layer's ln_1.weight into its W_Q, W_K and W_V, those then centred over d_model) and centre_writing
// (W_O centred over d_model). The scores move with each: say which processing they were computed under.
struct CompositionProcessing {
  bool fold_ln = false;
  bool centre_writing = false;
};

// draws ≥ 1 (100 or more for a steady baseline); the same seed gives the same baseline everywhere. The baseline's
// random factors are not processed (they stand for weights of no model).
CompositionScores composition_scores(const GPT& model, int draws = 200, std::uint64_t seed = 0,
                                     const CompositionProcessing& processing = {});

}  // namespace attnlab
ATTNLAB_API_END
