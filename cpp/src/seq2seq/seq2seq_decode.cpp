// Decoding with a key/value cache: the source is encoded once, each decoder layer's cross-attention
// keys and values are projected from that memory once, and the self-attention's keys and values grow
// by one row per token read. A step then costs one row through every layer instead of the whole
// target again; the numbers are the full forward's (the tests compare them).
#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/seq2seq/seq2seq.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

struct HeadsOutput {
  Matrix concat;                 // [1×d] the heads' outputs side by side
  std::vector<Matrix> weights;   // [head] → [1×t]
};

// q [1×d] over keys K [t×d] and values V [t×d], split into `heads` heads of d/heads columns →
// softmax(q_h·K_hᵀ/√d_k)·V_h per head.
HeadsOutput attend(const Matrix& q, const Matrix& keys, const Matrix& values, int heads) {
  const Eigen::Index d = q.cols(), dk = d / heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
  HeadsOutput out{Matrix(1, d), {}};
  for (int h = 0; h < heads; ++h) {
    const Eigen::Index c = h * dk;
    Matrix scores = (q.middleCols(c, dk) * keys.middleCols(c, dk).transpose()) * scale;  // [1×t]
    scores.array() -= scores.maxCoeff();
    scores = scores.array().exp().matrix();
    scores /= scores.sum();
    out.concat.middleCols(c, dk) = scores * values.middleCols(c, dk);
    out.weights.push_back(std::move(scores));
  }
  return out;
}

void append_row(Matrix& m, const Matrix& row) {
  m.conservativeResize(m.rows() + 1, row.cols());
  m.row(m.rows() - 1) = row;
}

Matrix log_softmax(const Matrix& logits) {
  // [1×V] → [1×V], in double for the normaliser
  const double top = logits.maxCoeff();
  double sum = 0.0;
  for (Eigen::Index j = 0; j < logits.cols(); ++j) sum += std::exp(static_cast<double>(logits(0, j)) - top);
  const double log_z = top + std::log(sum);
  Matrix out(1, logits.cols());
  for (Eigen::Index j = 0; j < logits.cols(); ++j) out(0, j) = static_cast<float>(logits(0, j) - log_z);
  return out;
}

}  // namespace

struct Seq2SeqTransformer::DecoderState {
  std::vector<Matrix> self_keys, self_values;    // [layer] → [t×d], one row per token read
  const std::vector<Matrix>* cross_keys = nullptr;    // [layer] → [m×d], shared by every hypothesis
  const std::vector<Matrix>* cross_values = nullptr;
};

Matrix Seq2SeqTransformer::decode_step(DecoderState& state, int token, int position,
                                       std::vector<std::vector<Matrix>>& cross) const {
  // token read at `position` → log-probabilities [1×V_t]
  const int H = config_.num_heads;
  Matrix x = tgt_tok_emb_.table().row(token) * std::sqrt(static_cast<float>(config_.d_model)) + positions_.row(position);
  for (std::size_t l = 0; l < decoder_layers_.size(); ++l) {
    const TransformerDecoderLayer& layer = decoder_layers_[l];
    const bool pre = layer.config().norm_first;
    // Causal self-attention: this token's key and value join the cache; its query reads them all.
    const Matrix self_in = pre ? layer.norm1().forward(x) : x;
    const MultiHeadAttention& self_attn = layer.self_attn();
    append_row(state.self_keys[l], self_attn.k_proj().forward(self_in));
    append_row(state.self_values[l], self_attn.v_proj().forward(self_in));
    const HeadsOutput self = attend(self_attn.q_proj().forward(self_in), state.self_keys[l], state.self_values[l], H);
    Matrix h = x + self_attn.out_proj().forward(self.concat);
    if (!pre) h = layer.norm1().forward(h);
    // Cross-attention over the source's cached keys and values.
    const Matrix cross_in = pre ? layer.norm2().forward(h) : h;
    const MultiHeadAttention& cross_attn = layer.cross_attn();
    HeadsOutput crossed = attend(cross_attn.q_proj().forward(cross_in), (*state.cross_keys)[l], (*state.cross_values)[l], H);
    h += cross_attn.out_proj().forward(crossed.concat);
    if (!pre) h = layer.norm2().forward(h);
    for (int head = 0; head < H; ++head) append_row(cross[l][static_cast<std::size_t>(head)], crossed.weights[static_cast<std::size_t>(head)]);
    // Feed-forward network.
    const Matrix ffn_in = pre ? layer.norm3().forward(h) : h;
    h += layer.feed_forward().forward(ffn_in);
    x = pre ? h : layer.norm3().forward(h);
  }
  return log_softmax(generator_.forward(decoder_norm_.forward(x)));
}

Seq2SeqDecoded Seq2SeqTransformer::decode(const std::vector<int>& source, const Seq2SeqDecodeOptions& options) {
  constexpr const char* fn = "Seq2SeqTransformer::decode";
  check_ids(fn, "source", source, config_.source_vocab_size);
  const int V = config_.target_vocab_size;
  for (const auto& [name, id] : {std::pair{"bos_id", options.bos_id}, std::pair{"eos_id", options.eos_id}})
    if (id < 0 || id >= V) detail::fail(fn, name, " = ", id, " is outside the target vocabulary 0 … ", V - 1);
  if (options.beam < 1) detail::fail(fn, "beam must be ≥ 1, got ", options.beam);
  if (options.max_tokens < 0) detail::fail(fn, "max_tokens must be ≥ 0, got ", options.max_tokens);
  // Every token the decoder reads needs a row of the position table: at most max_len − 1 produced.
  const int limit = std::min(options.max_tokens > 0 ? options.max_tokens : config_.max_len, config_.max_len - 1);

  // Encode once; project every decoder layer's cross-attention keys and values once.
  Matrix memory = embed(src_tok_emb_, source);
  for (TransformerEncoderLayer& layer : encoder_layers_) memory = layer.forward(memory);
  memory = encoder_norm_.forward(memory);
  std::vector<Matrix> cross_keys, cross_values;
  for (const TransformerDecoderLayer& layer : decoder_layers_) {
    cross_keys.push_back(layer.cross_attn().k_proj().forward(memory));
    cross_values.push_back(layer.cross_attn().v_proj().forward(memory));
  }

  struct Hypothesis {
    DecoderState state;
    Seq2SeqDecoded result;
  };
  const std::size_t L = decoder_layers_.size(), H = static_cast<std::size_t>(config_.num_heads);
  Hypothesis start;
  start.state.self_keys.assign(L, Matrix(0, config_.d_model));
  start.state.self_values.assign(L, Matrix(0, config_.d_model));
  start.state.cross_keys = &cross_keys;
  start.state.cross_values = &cross_values;
  start.result.tokens = {options.bos_id};
  start.result.cross_attention.assign(L, std::vector<Matrix>(H, Matrix(0, static_cast<Eigen::Index>(source.size()))));
  std::vector<Hypothesis> alive{std::move(start)}, finished;

  for (int produced = 0; produced < limit && !alive.empty(); ++produced) {
    struct Candidate {
      std::size_t parent;
      int token;
      double log_prob;
    };
    std::vector<Candidate> candidates;
    for (std::size_t i = 0; i < alive.size(); ++i) {
      Hypothesis& hyp = alive[i];
      const Matrix log_probs = decode_step(hyp.state, hyp.result.tokens.back(), static_cast<int>(hyp.result.tokens.size()) - 1,
                                           hyp.result.cross_attention);
      for (int t = 0; t < V; ++t) candidates.push_back({i, t, hyp.result.log_prob + log_probs(0, t)});
    }
    // The best `beam` candidates, ties to the earlier hypothesis, then the lower token id.
    const std::size_t keep = std::min(candidates.size(), static_cast<std::size_t>(options.beam));
    std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(keep), candidates.end(),
                      [](const Candidate& a, const Candidate& b) { return a.log_prob > b.log_prob; });
    std::vector<Hypothesis> next;
    for (std::size_t c = 0; c < keep; ++c) {
      Hypothesis child = alive[candidates[c].parent];
      child.result.log_prob = candidates[c].log_prob;
      if (candidates[c].token == options.eos_id) {
        child.result.finished = true;
        finished.push_back(std::move(child));
      } else {
        child.result.output.push_back(candidates[c].token);
        child.result.tokens.push_back(candidates[c].token);
        next.push_back(std::move(child));
      }
    }
    alive = std::move(next);
    const auto best = [](const std::vector<Hypothesis>& hyps) {
      double top = -std::numeric_limits<double>::infinity();
      for (const Hypothesis& h : hyps) top = std::max(top, h.result.log_prob);
      return top;
    };
    if (!finished.empty() && best(finished) >= best(alive)) break;
  }
  std::vector<Hypothesis>& pool = finished.empty() ? alive : finished;
  if (pool.empty()) detail::fail(fn, "no hypothesis survived (max_tokens = ", options.max_tokens, ")");
  const auto winner = std::max_element(pool.begin(), pool.end(), [](const Hypothesis& a, const Hypothesis& b) {
    return a.result.log_prob < b.result.log_prob;
  });
  // An unfinished hypothesis's last token was produced but not yet read: read it, so that
  // cross_attention has exactly one row per entry of `tokens`.
  if (!winner->result.finished)
    decode_step(winner->state, winner->result.tokens.back(), static_cast<int>(winner->result.tokens.size()) - 1,
                winner->result.cross_attention);
  return std::move(winner->result);
}

}  // namespace attnlab
