// Reading the GPT fixtures (tests/fixtures/gpt/, made by tests/fixtures/make_gpt_fixtures.py with
// PyTorch): .safetensors files as bytes, JSON nested lists as matrices.
#pragma once

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/tensor/matrix.hpp"

namespace attnlab::testing {

inline std::string gpt_fixture_path(const std::string& file) { return std::string(ATTNLAB_FIXTURE_DIR) + "/gpt/" + file; }

inline std::vector<std::uint8_t> read_gpt_fixture_bytes(const std::string& file) {
  std::ifstream in(gpt_fixture_path(file), std::ios::binary);
  if (!in) throw std::runtime_error("cannot open fixture " + gpt_fixture_path(file));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline nlohmann::json read_gpt_fixture_json(const std::string& file) {
  std::ifstream in(gpt_fixture_path(file));
  if (!in) throw std::runtime_error("cannot open fixture " + gpt_fixture_path(file));
  return nlohmann::json::parse(in);
}

// [[…], …] → rows×cols (floats written as doubles: the cast back is exact).
inline Matrix nested_matrix(const nlohmann::json& rows) {
  Matrix m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.at(0).size()));
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c) m(r, c) = static_cast<float>(rows.at(r).at(c).get<double>());
  return m;
}

// [layer][head][T][T] → matrices
inline std::vector<std::vector<Matrix>> nested_grid(const nlohmann::json& layers) {
  std::vector<std::vector<Matrix>> grid;
  for (const auto& heads : layers) {
    grid.emplace_back();
    for (const auto& m : heads) grid.back().push_back(nested_matrix(m));
  }
  return grid;
}

}  // namespace attnlab::testing
