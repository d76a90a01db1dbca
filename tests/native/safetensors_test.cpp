// The .safetensors format: float conversions against numpy and PyTorch
// (tests/fixtures/make_safetensors_fixture.py), files built byte by byte here, and every malformed
// header with its exact message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "attnlab/safetensors.hpp"
#include "expect_error.hpp"

namespace attnlab {
namespace {

float from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

TEST(SafetensorsConversions, RoundLikeNumpyAndPyTorch) {
  std::ifstream in(std::string(ATTNLAB_FIXTURE_DIR) + "/safetensors_conversions.json");
  const nlohmann::json f = nlohmann::json::parse(in);
  const auto f32 = f.at("f32_bits").get<std::vector<std::uint32_t>>();
  const auto f16 = f.at("f16_bits").get<std::vector<std::uint16_t>>();
  const auto bf16 = f.at("bf16_bits").get<std::vector<std::uint16_t>>();
  ASSERT_GT(f32.size(), 4000u);
  for (std::size_t i = 0; i < f32.size(); ++i) {
    const float value = from_bits(f32[i]);
    if (std::isnan(value)) {  // NaN stays NaN (payloads differ between libraries)
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(value))));
      EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(value))));
      continue;
    }
    EXPECT_EQ(float_to_half(value), f16[i]) << "F16 of " << value << " (bits " << f32[i] << ")";
    EXPECT_EQ(float_to_bfloat16(value), bf16[i]) << "BF16 of " << value << " (bits " << f32[i] << ")";
  }
  const auto half = f.at("half_bits").get<std::vector<std::uint16_t>>();
  const auto widened = f.at("half_as_f32_bits").get<std::vector<std::uint32_t>>();
  for (std::size_t i = 0; i < half.size(); ++i) {
    const float value = half_to_float(half[i]);
    if (std::isnan(from_bits(widened[i]))) EXPECT_TRUE(std::isnan(value));
    else EXPECT_EQ(value, from_bits(widened[i])) << "F16 bits " << half[i];
  }
  EXPECT_EQ(bfloat16_to_float(0x3F80), 1.0f);
}

// A file from a header's JSON text and `data_bytes` bytes of data (0, 1, 2, …).
std::vector<std::uint8_t> file_of(const std::string& header, std::size_t data_bytes) {
  std::vector<std::uint8_t> file;
  for (int b = 0; b < 8; ++b) file.push_back(static_cast<std::uint8_t>(header.size() >> (8 * b)));
  for (char c : header) file.push_back(static_cast<std::uint8_t>(c));
  for (std::size_t i = 0; i < data_bytes; ++i) file.push_back(static_cast<std::uint8_t>(i));
  return file;
}

TEST(Safetensors, ReadsEveryDtypeAndItsMetadata) {
  // a: F32 [2] = 1.0, −2.5; b: F16 [3] = 1, 0.5, 65504; c: BF16 [] = 1.0; d: I64 [1] (listed, not readable)
  std::vector<std::uint8_t> file = file_of(
      R"({"__metadata__":{"n_head":"4"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("b":{"dtype":"F16","shape":[3],"data_offsets":[8,14]},"c":{"dtype":"BF16","shape":[],"data_offsets":[14,16]},)"
      R"("d":{"dtype":"I64","shape":[1],"data_offsets":[16,24]},"e":{"dtype":"F32","shape":[0,5],"data_offsets":[24,24]}})",
      0);
  const std::uint8_t data[] = {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x20, 0xC0,   // 1.0f, −2.5f
                               0x00, 0x3C, 0x00, 0x38, 0xFF, 0x7B,               // half 1, 0.5, 65504
                               0x80, 0x3F,                                       // bfloat16 1.0
                               1, 0, 0, 0, 0, 0, 0, 0};
  for (std::uint8_t byte : data) file.push_back(byte);
  const SafetensorsHeader h = parse_safetensors(file);
  EXPECT_EQ(h.metadata.at("n_head"), "4");
  ASSERT_EQ(h.tensors.size(), 5u);
  float a[2], b[3], c[1];
  read_tensor(file, h, *h.find("a"), a);
  read_tensor(file, h, *h.find("b"), b);
  read_tensor(file, h, *h.find("c"), c);
  EXPECT_EQ(a[0], 1.0f);
  EXPECT_EQ(a[1], -2.5f);
  EXPECT_EQ(b[1], 0.5f);
  EXPECT_EQ(b[2], 65504.0f);
  EXPECT_EQ(c[0], 1.0f);
  EXPECT_EQ(h.find("e")->element_count(), 0);
  EXPECT_EQ(h.find("c")->element_count(), 1);
  expect_error([&] { read_tensor(file, h, *h.find("d"), a); }, "read_tensor: tensor 'd' is I64; attnlab reads F32, F16 and BF16");
}

TEST(Safetensors, WritesWhatItReads) {
  const std::vector<float> values = {1.0f, -2.0f, 0.1f, 3.0e-6f, 70000.0f, 0.0f};
  for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    const std::vector<std::uint8_t> file =
        write_safetensors({{"x", {2, 3}, values.data()}, {"y", {1}, values.data() + 5}}, dtype, {{"k", "v"}});
    const std::uint64_t header_length = file[0] | (file[1] << 8) | (file[2] << 16);
    EXPECT_EQ(header_length % 8, 0u);  // padded with spaces
    const SafetensorsHeader h = parse_safetensors(file);
    EXPECT_EQ(h.metadata.at("k"), "v");
    EXPECT_EQ(h.tensors[0].name, "x");
    EXPECT_EQ(h.tensors[0].shape, (std::vector<std::int64_t>{2, 3}));
    std::vector<float> read(6);
    read_tensor(file, h, h.tensors[0], read.data());
    for (std::size_t i = 0; i < 6; ++i) {
      const float expected = dtype == DType::F32   ? values[i]
                             : dtype == DType::F16 ? half_to_float(float_to_half(values[i]))
                                                   : bfloat16_to_float(float_to_bfloat16(values[i]));
      EXPECT_EQ(read[i], expected);
    }
  }
  expect_error([&] { write_safetensors({{"x", {1}, values.data()}, {"x", {1}, values.data()}}, DType::F32); },
               "write_safetensors: tensor 'x' is listed twice");
}

TEST(Safetensors, MalformedFilesSayWhatIsWrong) {
  const std::string fn = "parse_safetensors: ";
  auto refused = [&](const std::vector<std::uint8_t>& file, const std::string& message) {
    expect_error([&] { parse_safetensors(file); }, fn + message);
  };
  refused({1, 2, 3}, "the file has 3 bytes: too short for the 8-byte header length");
  refused({0, 0, 0, 0, 1, 0, 0, 0}, "the header length 4294967296 is over the format's limit of 100000000 bytes");
  refused({50, 0, 0, 0, 0, 0, 0, 0, '{', '}'}, "the header length 50 is past the end of the file (10 bytes): truncated?");
  refused(file_of("{\"a\": ", 0), "the header is not valid JSON");
  refused(file_of("[1, 2]", 0), "the header is not a JSON object");
  refused(file_of(R"({"a": {"dtype": "F32", "shape": [2]}})", 8), "tensor 'a' needs data_offsets [begin, end]");
  refused(file_of(R"({"a": {"dtype": "Q4", "shape": [2], "data_offsets": [0, 8]}})", 8), "tensor 'a' has the unknown dtype 'Q4'");
  refused(file_of(R"({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", 8),
          "tensor 'a': shape must hold non-negative integers, got -2");
  refused(file_of(R"({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", 8),
          "tensor 'a' has shape [3] (F32) but data_offsets [0, 8] hold 8 bytes");
  refused(file_of(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", 4),
          "tensor 'a' has data_offsets [0, 8] past the end of the data (4 bytes)");
  refused(file_of(R"({"a": {"dtype": "F32", "shape": [4611686018427387904, 4611686018427387904], "data_offsets": [0, 8]}})", 8),
          "tensor 'a' has shape [4611686018427387904, 4611686018427387904] (F32) but data_offsets [0, 8] hold 8 bytes");
  refused(file_of(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}})", 8),
          "tensor 'a' has data_offsets [8, 0] with begin after end");
  refused(file_of(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "b": {"dtype": "F16", "shape": [2], "data_offsets": [6, 10]}})", 10),
          "tensors 'a' [0, 8] and 'b' [6, 10] overlap");
  refused(file_of(R"({"__metadata__": {"n_head": 4}})", 0), "__metadata__ 'n_head' must be a string, got 4");
}

}  // namespace
}  // namespace attnlab
