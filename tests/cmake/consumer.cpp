// A program using attnlab as a C++ library: it includes only the umbrella header and uses a name from
// every subsystem through it; its CMake projects (add_subdirectory/, fetch_content/, find_package/) set
// no C++ standard of their own. scripts/test-cmake-consumers.sh builds and runs each:
//   consumer <GPT .safetensors> <that model's first logit, from its PyTorch fixture>
#include <attnlab/attnlab.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

int failures = 0;

void expect_near(const char* what, double actual, double expected, double tolerance) {
  const bool ok = std::abs(actual - expected) <= tolerance;
  std::printf("%s %s: %.7f (expected %.7f)\n", ok ? "ok  " : "FAIL", what, actual, expected);
  if (!ok) ++failures;
}

std::vector<std::uint8_t> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer <gpt.safetensors> <its first logit>\n");
    return 2;
  }
  std::printf("attnlab %s (ATTNLAB_VERSION %d)\n", ATTNLAB_VERSION_STRING, ATTNLAB_VERSION);

  // tensor + attention: Q = K = the first three rows of I₄, V = 1 … 12 (3×4). Each query matches its
  // own key with score 1/√4 = 0.5 and the others with 0, so row 0's weights are e^0.5 / (e^0.5 + 2) on
  // key 0 and 1 / (e^0.5 + 2) on keys 1 and 2.
  attnlab::Matrix q = attnlab::Matrix::Identity(3, 4);
  attnlab::Matrix v(3, 4);
  for (int i = 0; i < 12; ++i) v(i / 4, i % 4) = static_cast<float>(i + 1);
  const attnlab::AttentionResult r = attnlab::scaled_dot_product_attention(q, q, v);
  const double own = std::exp(0.5) / (std::exp(0.5) + 2.0);
  const double other = 1.0 / (std::exp(0.5) + 2.0);
  expect_near("weights[0][0]", r.weights(0, 0), own, 1e-6);
  expect_near("output[0][0]", r.output(0, 0), own * 1 + other * 5 + other * 9, 1e-5);

  // io + gpt: a GPT-2-layout checkpoint, its first logit against PyTorch's.
  const std::vector<std::uint8_t> file = read_file(argv[1]);
  const attnlab::SafetensorsHeader header = attnlab::parse_safetensors(file);
  const attnlab::GPT gpt = attnlab::GPT::from_safetensors(file);
  const std::vector<int> ids = {24, 36, 30, 8};  // the fixture's first ids
  const auto logits = gpt.forward(ids).logits;
  expect_near("GPT logits[0][0]", logits(0, 0), std::strtod(argv[2], nullptr), 1e-5);
  std::printf("     the file holds %zu tensors; %d layers\n", header.tensors.size(), gpt.config().num_layers);

  // interp: the same forward with TransformerLens's hook points, every one cached (2 + 17 per block + 2),
  // its logits the plain forward's bit for bit.
  const attnlab::HookedRun run = attnlab::HookedGPT(gpt).run_with_cache(ids);
  expect_near("hook points cached", static_cast<double>(run.cache.names().size()), 2 + 17 * gpt.config().num_layers + 2, 0);
  expect_near("cached run's logits[0][0] − forward's", run.logits(0, 0) - logits(0, 0), 0, 0);

  // layers, text, training, seq2seq, referent: one name from each.
  attnlab::MultiHeadAttention mha({.d_model = 4, .num_heads = 2, .seed = 1});
  expect_near("multi-head output rows", static_cast<double>(mha.forward(v).output.rows()), 3, 0);
  expect_near("tokens in 'the cat sat'", static_cast<double>(attnlab::tokenize("the cat sat").size()), 3, 0);
  expect_near("kIgnoreTarget", attnlab::kIgnoreTarget, -100, 0);
  const attnlab::Seq2SeqConfig translator{};
  const attnlab::ReferentSentence sentence{};
  std::printf("     seq2seq config and referent sentence: %zu and %zu bytes\n", sizeof translator, sizeof sentence);
  attnlab::BpeTokenizer* no_tokenizer = nullptr;
  (void)no_tokenizer;

  std::printf(failures ? "%d FAILED\n" : "all passed\n", failures);
  return failures ? 1 : 0;
}
