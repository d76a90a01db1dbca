#include "fixture.hpp"

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

namespace attnlab::testing {

namespace {

std::ifstream open_fixture(const std::string& path, std::ios::openmode mode = std::ios::in) {
  const std::string full = std::string(ATTNLAB_FIXTURE_DIR) + "/" + path;
  std::ifstream in(full, mode);
  if (!in) throw std::runtime_error("cannot open fixture " + full);
  return in;
}

}  // namespace

std::vector<std::uint8_t> fixture_bytes(const std::string& path) {
  std::ifstream in = open_fixture(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

nlohmann::json fixture_json(const std::string& path) {
  std::ifstream in = open_fixture(path);
  return nlohmann::json::parse(in);
}

Fixture::Fixture(const std::string& name) : name_(name), json_(fixture_json(name + ".json")) {}

std::vector<float> Fixture::data(const std::string& key, std::vector<int>& shape) const {
  if (!json_.contains(key)) throw std::runtime_error("fixture " + name_ + " has no tensor " + key);
  const auto& tensor = json_.at(key);
  shape = tensor.at("shape").get<std::vector<int>>();
  // Values are float32 written exactly as doubles; the cast back is exact.
  std::vector<float> values;
  for (double x : tensor.at("data")) values.push_back(static_cast<float>(x));
  return values;
}

Matrix Fixture::matrix(const std::string& key) const {
  std::vector<int> shape;
  const std::vector<float> values = data(key, shape);
  if (shape.size() != 2) throw std::runtime_error(key + " is not 2-D in fixture " + name_);
  return Eigen::Map<const Matrix>(values.data(), shape[0], shape[1]);
}

Vector Fixture::vector(const std::string& key) const {
  if (!json_.contains(key)) return {};
  std::vector<int> shape;
  const std::vector<float> values = data(key, shape);
  if (shape.size() != 1) throw std::runtime_error(key + " is not 1-D in fixture " + name_);
  return Eigen::Map<const Vector>(values.data(), shape[0]);
}

std::vector<Matrix> Fixture::stack(const std::string& key) const {
  std::vector<int> shape;
  const std::vector<float> values = data(key, shape);
  if (shape.size() != 3) throw std::runtime_error(key + " is not 3-D in fixture " + name_);
  std::vector<Matrix> slices;
  const std::size_t slice_size = static_cast<std::size_t>(shape[1]) * static_cast<std::size_t>(shape[2]);
  for (int i = 0; i < shape[0]; ++i)
    slices.emplace_back(Eigen::Map<const Matrix>(values.data() + i * slice_size, shape[1], shape[2]));
  return slices;
}

MultiHeadAttentionWeights Fixture::attention_weights(const std::string& prefix) const {
  return {matrix(prefix + "in_proj_weight"), vector(prefix + "in_proj_bias"), matrix(prefix + "out_proj_weight"),
          vector(prefix + "out_proj_bias")};
}

TransformerEncoderLayerWeights Fixture::encoder_weights() const {
  return {attention_weights("self_attn_"),
          {matrix("linear1_weight"), vector("linear1_bias")},
          {matrix("linear2_weight"), vector("linear2_bias")},
          vector("norm1_weight"),
          vector("norm1_bias"),
          vector("norm2_weight"),
          vector("norm2_bias")};
}

::testing::AssertionResult MatricesNear(const Matrix& actual, const Matrix& expected, float atol, float rtol) {
  if (actual.rows() != expected.rows() || actual.cols() != expected.cols())
    return ::testing::AssertionFailure() << "shape " << shape_of(actual) << " != expected " << shape_of(expected);
  for (Eigen::Index r = 0; r < actual.rows(); ++r)
    for (Eigen::Index c = 0; c < actual.cols(); ++c) {
      const float a = actual(r, c), e = expected(r, c);
      if (!(std::fabs(a - e) <= atol + rtol * std::fabs(e)))
        return ::testing::AssertionFailure() << "at (" << r << ", " << c << "): " << a << " vs expected " << e
                                             << " (diff " << std::fabs(a - e) << ")";
    }
  return ::testing::AssertionSuccess();
}

std::pair<MatrixD, MatrixD> reference_attention(const MatrixD& q, const MatrixD& k, const MatrixD& v,
                                                double scale, const Matrix* mask) {
  MatrixD weights = q * k.transpose() * scale;
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    double max = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < weights.cols(); ++j)
      if (!mask || (*mask)(i, j) != 0.0f) max = std::max(max, weights(i, j));
    double sum = 0.0;
    for (Eigen::Index j = 0; j < weights.cols(); ++j) {
      const bool open = !mask || (*mask)(i, j) != 0.0f;
      weights(i, j) = open ? std::exp(weights(i, j) - max) : 0.0;
      sum += weights(i, j);
    }
    if (sum > 0.0) weights.row(i) /= sum;
  }
  return {weights, weights * v};
}

}  // namespace attnlab::testing
