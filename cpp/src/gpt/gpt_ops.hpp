// The GPT's building blocks (gpt_ops.cpp), each a forward and the backward that undoes it, on the
// rows of a batch: n = batch·T rows, one per token position. Shared by the model's forward (gpt.cpp),
// its backward (gpt_backward.cpp) and the KV-cache decoder (gpt_session.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "attnlab/gpt/gpt.hpp"
#include "attnlab/tensor/matrix.hpp"
#include "kernels/kernels.hpp"

namespace attnlab {

// Inference's weights laid out once for the GEMM (kernels::pack), instead of on every product: a
// decoding step multiplies one row by every weight matrix, and packing them (10 MB for a 2.6M-
// parameter model) was most of its time.
struct PackedGPTWeights {
  struct Block {
    kernels::PackedMatrix c_attn, attn_proj, c_fc, mlp_proj;  // Conv1D weights [in×out]
  };
  std::vector<Block> blocks;
  kernels::PackedMatrix wte_t;  // wteᵀ [d×V], for the logits
};

// The packed weights of one parameter generation (GPT::generation_), shared by copies of a model
// while their parameters are the same.
struct PackedWeightsCache {
  std::mutex mutex;
  std::uint64_t generation = 0;
  std::shared_ptr<const PackedGPTWeights> weights;
};

}  // namespace attnlab

namespace attnlab::gpt_ops {

using ConstMap = Eigen::Map<const Matrix>;
using ConstRow = Eigen::Map<const Eigen::RowVectorXf>;
using GradMap = Eigen::Map<Matrix>;
using GradRow = Eigen::Map<Eigen::RowVectorXf>;

inline constexpr float kLayerNormEps = 1e-5f;

// x [n×d] → y [n×d] = (x − mean)/√(var + eps) · weight + bias, per row; mean and rstd [n] kept for
// the backward (statistics in double, as LayerNorm in norm.cpp).
void layer_norm(const Matrix& x, ConstRow weight, ConstRow bias, Matrix& y, Eigen::VectorXf& mean,
                Eigen::VectorXf& rstd);
// d_y [n×d] → d_x [n×d] (returned); adds ∂L/∂weight, ∂L/∂bias [d] into d_weight, d_bias unless they are
// nullptr (a backward for the activations' gradients alone: attribution patching).
Matrix layer_norm_backward(const Matrix& x, const Eigen::VectorXf& mean, const Eigen::VectorXf& rstd,
                           ConstRow weight, const Matrix& d_y, float* d_weight, float* d_bias);

// x ⊙ mask in place, for training's dropout (dropout_mask: 0 or 1/(1−p)); an empty mask — no dropout
// — leaves x as it is. The backward multiplies the gradient by the same mask.
inline void apply_dropout(Matrix& x, const Matrix& mask) {
  if (mask.size() > 0) x.array() *= mask.array();
}

// GPT-2's Conv1D: x [n×in] · weight [in×out] + bias [out] → [n×out].
Matrix conv1d(const Matrix& x, ConstMap weight, ConstRow bias);
// The same with the weight already packed (PackedGPTWeights).
Matrix conv1d(const Matrix& x, const kernels::PackedMatrix& weight, ConstRow bias);
// The one the forward uses: the packed weight when there is one, else `weight` packed for this call.
inline Matrix conv1d(const Matrix& x, const kernels::PackedMatrix* packed, ConstMap weight, ConstRow bias) {
  return packed ? conv1d(x, *packed, bias) : conv1d(x, weight, bias);
}
// d_y [n×out] → d_x [n×in] = d_y·weightᵀ (returned); adds xᵀ·d_y [in×out] into d_weight and Σ_rows d_y
// [out] into d_bias, unless they are nullptr.
Matrix conv1d_backward(const Matrix& x, ConstMap weight, const Matrix& d_y, float* d_weight, float* d_bias);

// ½x(1 + tanh(√(2/π)(x + 0.044715x³))), elementwise.
Matrix gelu_tanh(const Matrix& x);
Matrix gelu_tanh_backward(const Matrix& x, const Matrix& d_y);

// One head's causal scores: q, k [T×d_head] → [T×T] = q·kᵀ/√d_head, −∞ where the key comes after the
// query (step 1 of causal_attention, which the interpretability forward runs head by head).
Matrix causal_scores(Eigen::Ref<const Matrix> q, Eigen::Ref<const Matrix> k);

// Causal multi-head attention of one sequence. qkv [T×3d] (q | k | v, head h in columns h·d_head …
// of each third) → y [T×d], the heads' outputs side by side; weights[h] [T×T] the softmax weights.
// Query i sees keys 0 … i; the scale is 1/√d_head. With `dropout` (one [T×T] mask per head, 0 or
// 1/(1−p)), the output is (weights ⊙ mask)·v; `weights` keeps the softmax itself.
void causal_attention(Eigen::Ref<const Matrix> qkv, int num_heads, Eigen::Ref<Matrix> y,
                      std::vector<Matrix>& weights, const std::vector<Matrix>* dropout = nullptr);
// d_y [T×d] → d_qkv [T×3d], from the forward's qkv, weights and dropout masks.
void causal_attention_backward(Eigen::Ref<const Matrix> qkv, const std::vector<Matrix>& weights, int num_heads,
                               Eigen::Ref<const Matrix> d_y, Eigen::Ref<Matrix> d_qkv,
                               const std::vector<Matrix>* dropout = nullptr);

// logits [n×V] and targets [n] (kGPTIgnoreTarget = none) → mean cross-entropy over the scored rows
// (0 when none is scored); with d_logits, also ∂loss/∂logits [n×V] = (softmax − onehot)/scored.
double cross_entropy(const Matrix& logits, std::span<const int> targets, Matrix* d_logits);

}  // namespace attnlab::gpt_ops

namespace attnlab {

// Every intermediate of GPT::forward_pass over n = batch·T rows, in the order computed; the backward
// (gpt_backward.cpp) reads them in reverse.
struct GPT::Activations {
  int batch = 0, T = 0;
  struct Block {
    Matrix x;                                   // [n×d] the residual stream entering the block
    Matrix ln_1;                                // [n×d]
    Eigen::VectorXf ln_1_mean, ln_1_rstd;       // [n]
    Matrix qkv;                                 // [n×3d]
    std::vector<std::vector<Matrix>> weights;   // [sequence][head] → [T×T]
    std::vector<std::vector<Matrix>> weights_dropout;  // [sequence][head] → [T×T] masks (training dropout)
    Matrix heads;                               // [n×d] the heads' outputs side by side (after ablation)
    Matrix attn_dropout;                        // [n×d] the mask on c_proj(heads) (training dropout)
    Matrix x_mid;                               // [n×d] x + attention
    Matrix ln_2;                                // [n×d]
    Eigen::VectorXf ln_2_mean, ln_2_rstd;       // [n]
    Matrix fc;                                  // [n×4d] before GELU
    Matrix gelu;                                // [n×4d]
    Matrix mlp_dropout;                         // [n×d] the mask on the MLP's output (training dropout)
  };
  Matrix embed_dropout;                         // [n×d] the mask on wte[ids] + wpe (training dropout)
  std::vector<Block> blocks;
  Matrix x_final;                               // [n×d] the residual stream after the last block
  Matrix ln_f;                                  // [n×d]
  Eigen::VectorXf ln_f_mean, ln_f_rstd;         // [n]
  Matrix logits;                                // [n×V]
};

}  // namespace attnlab
