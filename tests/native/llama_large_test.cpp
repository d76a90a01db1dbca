// SmolLM2-135M's shapes (30 layers, 9 query heads on 3 key/value heads, d 576, MLP 1536, vocabulary
// 49,152, theta 100,000, tied) on random BF16 weights written as Hugging Face saves them, against the
// float64 PyTorch reference: `make_llama_fixtures.py --large DIR` writes the 270 MB folder at test time
// (tests/CMakeLists.txt runs it first); ATTNLAB_LARGE_FIXTURE_DIR names it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnlab/llama/llama.hpp"
#include "attnlab/llama/llama_session.hpp"
#include "attnlab/tensor/limits.hpp"

namespace attnlab {
namespace {

std::vector<std::uint8_t> large_file(const std::string& name) {
  const char* dir = std::getenv("ATTNLAB_LARGE_FIXTURE_DIR");
  if (!dir) throw std::runtime_error("ATTNLAB_LARGE_FIXTURE_DIR is not set (tests/CMakeLists.txt sets it)");
  std::ifstream in(std::string(dir) + "/smollm2_135m/" + name, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + name + " (written by make_llama_fixtures.py --large)");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(LlamaLarge, SmolLM2ShapedCheckpointMatchesTheReference) {
  set_memory_budget(std::size_t{2} << 30);
  const std::vector<std::uint8_t> config = large_file("config.json"), weights = large_file("model.safetensors");
  const Llama model = Llama::from_files({{"config.json", config}, {"model.safetensors", weights}});
  const nlohmann::json expected = nlohmann::json::parse(large_file("expected.json"));
  EXPECT_EQ(model.parameter_count(), 134515008);
  EXPECT_EQ(model.config().kv_cache_bytes_per_token(), 46080);
  EXPECT_EQ(model.config().group_size(), 3);

  const std::vector<int> prompt = expected.at("prompt").get<std::vector<int>>();
  const Matrix logits = model.forward(prompt).logits;
  const auto& last_rows = expected.at("logits_last_rows");
  double largest = 1.0, worst = 0.0;
  for (const auto& row : last_rows)
    for (double v : row) largest = std::max(largest, std::abs(v));
  for (std::size_t r = 0; r < last_rows.size(); ++r) {
    const auto row = static_cast<Eigen::Index>(prompt.size() - last_rows.size() + r);
    for (std::size_t c = 0; c < last_rows[r].size(); ++c)
      worst = std::max(worst, std::abs(static_cast<double>(logits(row, static_cast<Eigen::Index>(c))) - last_rows[r][c].get<double>()));
  }
  EXPECT_LE(worst, 1e-4 * largest) << "largest difference " << worst << " against logits up to " << largest;
  const std::vector<int> argmax = expected.at("argmax").get<std::vector<int>>();
  for (std::size_t t = 0; t < prompt.size(); ++t) {
    Eigen::Index best = 0;
    logits.row(static_cast<Eigen::Index>(t)).maxCoeff(&best);
    EXPECT_EQ(best, argmax[t]) << "position " << t;
  }
  // The cache gives the full forward's last row: the prompt but its last token, then that token alone.
  LlamaSession session(model);
  session.append(std::span<const int>(prompt).first(prompt.size() - 1));
  const Matrix next = session.append(prompt.back());
  EXPECT_LE((next.row(0) - logits.bottomRows(1)).cwiseAbs().maxCoeff(), 1e-3f);
  EXPECT_EQ(session.cache_bytes(), static_cast<std::int64_t>(prompt.size()) * 46080);
  set_memory_budget(kDefaultMemoryBudget);
}

}  // namespace
}  // namespace attnlab
