// Test helpers: reading the PyTorch fixtures under tests/fixtures/ and comparing matrices.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnlab/layers/encoder_layer.hpp"
#include "attnlab/tensor/matrix.hpp"
#include "attnlab/layers/multi_head_attention.hpp"

namespace attnlab::testing {

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// A vector as a 1×n matrix (one row: a single token's activations).
inline Matrix row(const Vector& v) { return v.transpose(); }

// The bytes and the JSON of a file under tests/fixtures/ (path relative to it).
std::vector<std::uint8_t> fixture_bytes(const std::string& path);
nlohmann::json fixture_json(const std::string& path);

class Fixture {
 public:
  explicit Fixture(const std::string& name);  // tests/fixtures/<name>.json

  bool has(const std::string& key) const { return json_.contains(key); }
  Matrix matrix(const std::string& key) const;              // a 2-D tensor
  Vector vector(const std::string& key) const;              // a 1-D tensor (or empty if absent)
  std::vector<Matrix> stack(const std::string& key) const;  // a 3-D tensor, split on its first axis
  double number(const std::string& key) const { return json_.at(key).get<double>(); }
  bool flag(const std::string& key) const { return json_.at(key).get<bool>(); }
  const nlohmann::json& json() const { return json_; }

  // nn.MultiheadAttention's state_dict stored under "<prefix>in_proj_weight" and so on.
  MultiHeadAttentionWeights attention_weights(const std::string& prefix = "") const;
  TransformerEncoderLayerWeights encoder_weights() const;

 private:
  std::vector<float> data(const std::string& key, std::vector<int>& shape) const;
  std::string name_;
  nlohmann::json json_;
};

// |actual − expected| ≤ atol + rtol·|expected| entry by entry, reporting the first offender.
::testing::AssertionResult MatricesNear(const Matrix& actual, const Matrix& expected, float atol = 1e-5f,
                                        float rtol = 1e-5f);

// A matrix in double precision, for references evaluated from the formula.
using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// softmax(Q·Kᵀ·scale masked)·V evaluated in double precision; returns {weights, output}.
std::pair<MatrixD, MatrixD> reference_attention(const MatrixD& q, const MatrixD& k, const MatrixD& v,
                                                double scale, const Matrix* mask = nullptr);

}  // namespace attnlab::testing
