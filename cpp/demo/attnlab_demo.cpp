// attnlab_demo: prints the tutorials' examples, computed by the core.
//   1. "Who attends to whom" for "the cat sat on mat" with random weights (one head, d_model 16).
//   2. Why divide by √d_k: one random query against 5 random keys for d_k = 4 … 1024.
//   3. Shapes through multi-head attention and parameter counts.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attnlab/attnlab.hpp"

using namespace attnlab;

namespace {

void print_weight_table() {
  const std::string sentence = "the cat sat on mat";
  const Vocabulary vocab({sentence});
  const std::vector<std::string> tokens = tokenize(sentence);
  Rng rng(2024);
  Embedding embedding(vocab.size(), 16, rng);
  const Matrix x = embedding.forward(vocab.encode(sentence)) + sinusoidal_encoding(5, 16);
  AttentionLayer layer(16, true, 7);
  const Matrix weights = layer.forward(x).weights;

  std::printf("1. Who attends to whom: \"%s\" (random weights: the pattern means nothing until trained)\n\n",
              sentence.c_str());
  std::printf("%-8s", "query");
  for (const auto& t : tokens) std::printf("%8s", t.c_str());
  std::printf("   most attended\n");
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    std::printf("%-8s", tokens[i].c_str());
    Eigen::Index best = 0;
    weights.row(static_cast<Eigen::Index>(i)).maxCoeff(&best);
    for (std::size_t j = 0; j < tokens.size(); ++j)
      std::printf("%8.2f", weights(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)));
    std::printf("   %s\n", tokens[static_cast<std::size_t>(best)].c_str());
  }
}

void print_sharpness_table() {
  std::printf("\n2. Why divide by sqrt(d_k): one random query against 5 random keys\n\n");
  std::printf("%6s %12s %16s %14s %16s\n", "d_k", "max |score|", "max weight", "max |scaled|", "max weight");
  std::printf("%6s %12s %16s %14s %16s\n", "", "(unscaled)", "(unscaled)", "", "(scaled)");
  for (int d_k : {4, 16, 64, 256, 1024}) {
    const Matrix q = randn(1, d_k, 100 + static_cast<std::uint64_t>(d_k));
    const Matrix k = randn(5, d_k, 200 + static_cast<std::uint64_t>(d_k));
    const Matrix v = Matrix::Identity(5, 5);
    const AttentionResult unscaled = scaled_dot_product_attention(q, k, v, {.scale = 1.0f});
    const AttentionResult scaled = scaled_dot_product_attention(q, k, v);
    std::printf("%6d %12.2f %16.4f %14.2f %16.4f\n", d_k, unscaled.scores.cwiseAbs().maxCoeff(),
                unscaled.weights.maxCoeff(), scaled.scaled_scores.cwiseAbs().maxCoeff(), scaled.weights.maxCoeff());
  }
  std::printf("Without scaling the largest score grows like sqrt(d_k) and the softmax goes one-hot.\n");
}

void print_shapes_and_counts() {
  std::printf("\n3. Shapes and parameter counts\n\n");
  const int d_model = 64, heads = 4, n = 10;
  MultiHeadAttention mha({.d_model = d_model, .num_heads = heads, .seed = 1});
  Trace trace;
  mha.forward(randn(n, d_model, 3), {.causal = true}, Tracer(trace));
  for (const char* id : {"input", "q", "head0.split", "head0.scores", "head0.weights", "head0.output", "concat",
                         "output"}) {
    const TraceStep& step = trace.step(id);
    const Matrix& first = step.tensors.back().value;
    std::printf("  %-14s %3ld×%-3ld  %s\n", id, static_cast<long>(first.rows()), static_cast<long>(first.cols()),
                step.explanation.c_str());
  }
  std::printf("\n  %-58s %8lld\n", "MultiHeadAttention(d_model 32, 4 heads, no bias)",
              static_cast<long long>(MultiHeadAttention({.d_model = 32, .num_heads = 4, .bias = false}).parameter_count()));
  std::printf("  %-58s %8lld\n", "MultiHeadAttention(d_model 64, 4 heads)",
              static_cast<long long>(mha.parameter_count()));
  TransformerEncoderLayer layer({.d_model = 64, .num_heads = 4, .d_ff = 256});
  std::printf("  %-58s %8lld\n", "TransformerEncoderLayer(64, 4 heads, d_ff 256)",
              static_cast<long long>(layer.parameter_count()));
  std::printf("  %-58s %8lld\n", "  12 such layers stacked (BERT-base depth)", static_cast<long long>(12 * layer.parameter_count()));
}

}  // namespace

int main() {
  try {
    print_weight_table();
    print_sharpness_table();
    print_shapes_and_counts();
  } catch (const Error& e) {
    std::fprintf(stderr, "attnlab error: %s\n", e.what());
    return 1;
  }
  return 0;
}
