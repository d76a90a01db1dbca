// Grouped-query attention of one sequence (Ainslie et al. 2023), the attention of Llama 2 70B, Llama 3,
// Qwen2, Mistral and SmolLM2: H query heads share Hkv key/value heads, query head h reading key/value
// head h / (H / Hkv) (each group of H / Hkv consecutive query heads shares one). Hkv = H is ordinary
// multi-head attention; Hkv = 1 is multi-query attention (Shazeer 2019). The KV cache shrinks by H / Hkv.
//
//   for each query head h (kv = h / (H/Hkv)):
//     scores = q_h·k_kvᵀ / √hd                     [Tq×Tk]
//     blocked: a key after the query (causal), or, with a window w, a key w or more positions before it
//     weights = softmax(scores) per row            [Tq×Tk]
//     z_h = weights·v_kv                           [Tq×hd]
//
// Query row i stands at key position query_offset + i: with a cache holding the Tk − Tq keys before
// the queries, query_offset = Tk − Tq (the default), and query i sees keys 0 … query_offset + i.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <vector>

#include "attnlab/tensor/matrix.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct GroupedAttentionShape {
  int num_heads = 0;       // H
  int num_kv_heads = 0;    // Hkv, dividing H
  int head_dim = 0;        // hd
  int query_offset = -1;   // key position of query row 0 (−1: Tk − Tq)
  int window = 0;          // 0: every earlier key; w > 0: keys j with i − j < w (the query's own included)
};

// q [Tq × H·hd], k and v [Tk × Hkv·hd] (head h in columns h·hd …) → z [Tq × H·hd], the heads' outputs
// side by side; with `weights`, each head's softmax weights [H] → [Tq×Tk] (0 where blocked); with
// `scores`, each head's scaled scores before the softmax (−∞ where blocked). Error (naming the argument
// and both shapes) for shapes that disagree with `shape`.
Matrix grouped_attention(Eigen::Ref<const Matrix> q, Eigen::Ref<const Matrix> k, Eigen::Ref<const Matrix> v,
                         const GroupedAttentionShape& shape, std::vector<Matrix>* weights = nullptr,
                         std::vector<Matrix>* scores = nullptr);

}  // namespace attnlab
ATTNLAB_API_END
