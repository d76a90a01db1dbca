// The .safetensors format. Expected values come from elsewhere: numpy's and PyTorch's float
// conversions and a file they wrote (tests/fixtures/make_safetensors_fixture.py), the format's own
// writer (byte-exact files from huggingface/safetensors' tests), values computed by hand; and every
// malformed header is built byte by byte here, with its exact message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "attnlab/tensor/limits.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/io/safetensors_stream.hpp"
#include "expect_error.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

float from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::uint32_t bits_of(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

// A file from its header's JSON text and `data` bytes (by default `data_bytes` bytes 0, 1, 2, …).
std::vector<std::uint8_t> file_of(const std::string& header, std::size_t data_bytes,
                                  const std::vector<std::uint8_t>& data = {}) {
  std::vector<std::uint8_t> file;
  for (int b = 0; b < 8; ++b) file.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(header.size()) >> (8 * b)));
  file.insert(file.end(), header.begin(), header.end());
  for (std::size_t i = 0; i < data_bytes; ++i) file.push_back(static_cast<std::uint8_t>(i));
  file.insert(file.end(), data.begin(), data.end());
  return file;
}

// Equal as float32 bit patterns, except that any NaN matches any NaN (payloads differ between libraries).
void expect_same_values(const std::vector<float>& actual, const std::vector<std::uint32_t>& expected_bits,
                        const std::string& what) {
  ASSERT_EQ(actual.size(), expected_bits.size()) << what;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const float expected = from_bits(expected_bits[i]);
    if (std::isnan(expected)) EXPECT_TRUE(std::isnan(actual[i])) << what << "[" << i << "]";
    else EXPECT_EQ(bits_of(actual[i]), expected_bits[i]) << what << "[" << i << "] = " << actual[i] << ", expected " << expected;
  }
}

std::vector<float> read_all(std::span<const std::uint8_t> file, const SafetensorsHeader& h, const SafetensorInfo& info) {
  std::vector<float> values(static_cast<std::size_t>(info.element_count()));
  read_tensor(file, h, info, values.data());
  return values;
}

TEST(SafetensorsConversions, RoundLikeNumpyAndPyTorch) {
  const nlohmann::json f = testing::fixture_json("safetensors_conversions.json");
  const auto f32 = f.at("f32_bits").get<std::vector<std::uint32_t>>();
  const auto f16 = f.at("f16_bits").get<std::vector<std::uint16_t>>();
  const auto bf16 = f.at("bf16_bits").get<std::vector<std::uint16_t>>();
  ASSERT_GT(f32.size(), 4500u);
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
  std::vector<float> ours;
  for (std::uint16_t h : half) ours.push_back(half_to_float(h));
  expect_same_values(ours, widened, "F16 widened");
}

TEST(SafetensorsConversions, EveryHalfAndBfloat16PatternSurvivesARoundTrip) {
  // Widening is exact, so narrowing the result must give back the same bits (NaN: some NaN).
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float half = half_to_float(bits), brain = bfloat16_to_float(bits);
    if (std::isnan(half)) EXPECT_TRUE(std::isnan(half_to_float(float_to_half(half))));
    else EXPECT_EQ(float_to_half(half), bits) << "F16 bits " << h;
    if (std::isnan(brain)) EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(brain))));
    else EXPECT_EQ(float_to_bfloat16(brain), bits) << "BF16 bits " << h;
  }
}

TEST(SafetensorsFixture, ReadsTheFileNumpyAndPyTorchWrote) {
  const std::vector<std::uint8_t> file = testing::fixture_bytes("safetensors/mixed.safetensors");
  const nlohmann::json expected = testing::fixture_json("safetensors/mixed.json");
  const SafetensorsHeader h = parse_safetensors(file);
  EXPECT_EQ(h.metadata, (expected.at("metadata").get<std::map<std::string, std::string>>()));
  EXPECT_EQ(h.unreadable, (expected.at("unreadable").get<std::map<std::string, std::string>>()));
  EXPECT_EQ(h.data_start, expected.at("data_start").get<std::size_t>());
  const nlohmann::json& tensors = expected.at("tensors");
  ASSERT_EQ(h.tensors.size(), tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {  // in data order, though the header lists them by name
    const SafetensorInfo& info = h.tensors[i];
    const nlohmann::json& t = tensors[i];
    EXPECT_EQ(info.name, t.at("name").get<std::string>());
    EXPECT_EQ(info.shape, t.at("shape").get<std::vector<std::int64_t>>()) << info.name;
    EXPECT_EQ(info.begin, t.at("data_offsets")[0].get<std::size_t>()) << info.name;
    EXPECT_EQ(info.end, t.at("data_offsets")[1].get<std::size_t>()) << info.name;
    EXPECT_EQ(h.find(info.name), &info);
    if (!t.contains("f32_bits")) continue;
    EXPECT_EQ(dtype_name(info.dtype), t.at("dtype").get<std::string>()) << info.name;
    expect_same_values(read_all(file, h, info), t.at("f32_bits").get<std::vector<std::uint32_t>>(), info.name);
  }
  EXPECT_EQ(h.find("temperature")->element_count(), 1);  // a scalar
  EXPECT_EQ(h.find("empty")->element_count(), 0);
  EXPECT_EQ(h.find("absent"), nullptr);
  float out[5];
  expect_error([&] { read_tensor(file, h, *h.find("position_ids"), out); },
               "read_tensor: tensor 'position_ids' is I64: attnlab reads F32, F16 and BF16");
}

TEST(Safetensors, WritesShapesAsTheHeaderDoes) {
  // JSON list notation, as the file's header and safetensors' Python API print a shape.
  EXPECT_EQ(header_shape_text({2, 3}), "[2, 3]");
  EXPECT_EQ(header_shape_text({4096}), "[4096]");
  EXPECT_EQ(header_shape_text({}), "[]");
}

TEST(Safetensors, ReadsValuesComputedByHand) {
  // a: F32 [2] = 1.0, −2.5; b: F16 [3] = 1, 0.5, 65504; c: BF16 [] = 1.0
  const std::vector<std::uint8_t> file = file_of(
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F16","shape":[3],"data_offsets":[8,14]},)"
      R"("c":{"dtype":"BF16","shape":[],"data_offsets":[14,16]}})",
      0, {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x20, 0xC0, 0x00, 0x3C, 0x00, 0x38, 0xFF, 0x7B, 0x80, 0x3F});
  const SafetensorsHeader h = parse_safetensors(file);
  EXPECT_EQ(read_all(file, h, *h.find("a")), (std::vector<float>{1.0f, -2.5f}));
  EXPECT_EQ(read_all(file, h, *h.find("b")), (std::vector<float>{1.0f, 0.5f, 65504.0f}));
  EXPECT_EQ(read_all(file, h, *h.find("c")), (std::vector<float>{1.0f}));
}

TEST(Safetensors, AcceptsWhatTheFormatAllows) {
  // Gaps and trailing bytes; an empty tensor inside another's range (it holds no bytes); fields the
  // format may add later; "-0"; every other dtype, packed F4 included; a huge shape with an extent 0.
  const SafetensorsHeader h = parse_safetensors(file_of(
      R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8], "comment": {"x": 1, "x": 2}},)"
      R"( "e": {"dtype": "F16", "shape": [0], "data_offsets": [6, 6]}, "f": {"dtype": "F4", "shape": [2, 3], "data_offsets": [-0, 3]},)"
      R"( "z": {"dtype": "BF16", "shape": [4611686018427387904, 4611686018427387904, 0], "data_offsets": [8, 8]},)"
      R"( "i": {"dtype": "C64", "shape": [1], "data_offsets": [8, 16]}, "__metadata__": {}}       )",
      20));
  std::vector<std::string> names;
  for (const SafetensorInfo& info : h.tensors) names.push_back(info.name);
  EXPECT_EQ(names, (std::vector<std::string>{"f", "a", "e", "z", "i"}));  // by data offsets, then name
  EXPECT_EQ(h.unreadable, (std::map<std::string, std::string>{{"f", "F4"}, {"i", "C64"}}));
  EXPECT_EQ(h.find("z")->element_count(), 0);
}

// Files written by the format's own writer (huggingface/safetensors, safetensors/src/tensor.rs: tests
// test_serialization, test_serialization_forced_alignement and test_empty), byte for byte.
TEST(Safetensors, WritesWhatTheFormatsOwnWriterWrites) {
  const float values[] = {0, 1, 2, 3, 4, 5};
  const std::vector<std::uint8_t> data = {0, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0, 160, 64};
  EXPECT_EQ(write_safetensors({{"attn.0", {1, 2, 3}, values}}, DType::F32),
            file_of(R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})", 0, data));
  EXPECT_EQ(write_safetensors({{"attn0", {1, 1, 2, 3}, values}}, DType::F32),
            file_of(R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}       )", 0, data));
  EXPECT_EQ(write_safetensors({}, DType::F32), file_of("{}      ", 0));
  EXPECT_EQ(write_safetensors({}, DType::F16, {{"framework", "pt"}}), file_of(R"({"__metadata__":{"framework":"pt"}}     )", 0));
}

// Narrowing in the writer gives numpy's F16 bytes and PyTorch's BF16 bytes; reading them back gives
// the widened values; names, shapes, order and metadata survive.
TEST(Safetensors, RoundTripsEveryDtype) {
  const nlohmann::json f = testing::fixture_json("safetensors_conversions.json");
  const auto f32_bits = f.at("f32_bits").get<std::vector<std::uint32_t>>();
  std::vector<float> values;
  for (std::uint32_t bits : f32_bits) values.push_back(from_bits(bits));
  const auto count = static_cast<std::int64_t>(values.size());
  const float scalar = -0.375f;
  for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    const std::vector<std::uint8_t> file = write_safetensors(
        {{"z.values", {count}, values.data()}, {"a.scalar", {}, &scalar}, {"m.empty", {3, 0}, nullptr}}, dtype,
        {{"format", "pt"}, {"note", "ünïcode"}});
    const SafetensorsHeader h = parse_safetensors(file);
    EXPECT_EQ(h.data_start % 8, 0u);  // the header padded to a multiple of 8
    EXPECT_EQ(h.metadata, (std::map<std::string, std::string>{{"format", "pt"}, {"note", "ünïcode"}}));
    ASSERT_EQ(h.tensors.size(), 3u);
    EXPECT_EQ(h.tensors[0].name, "z.values");  // data in the tensors' order, consecutive
    EXPECT_EQ(h.tensors[1].name, "a.scalar");
    EXPECT_EQ(h.tensors[2].name, "m.empty");
    EXPECT_EQ(h.tensors[1].begin, h.tensors[0].end);
    EXPECT_EQ(h.tensors[2].shape, (std::vector<std::int64_t>{3, 0}));
    EXPECT_EQ(file.size(), h.data_start + h.tensors[1].end);
    const std::string name(dtype_name(dtype));
    EXPECT_EQ(dtype_name(h.tensors[0].dtype), name);
    std::vector<std::uint32_t> expected;
    if (dtype == DType::F32) {
      expected = f32_bits;
    } else {
      const auto narrowed = f.at(dtype == DType::F16 ? "f16_bits" : "bf16_bits").get<std::vector<std::uint16_t>>();
      for (std::size_t i = 0; i < narrowed.size(); ++i) {
        std::uint16_t written;
        std::memcpy(&written, file.data() + h.data_start + 2 * i, 2);
        if (!std::isnan(values[i])) {
          EXPECT_EQ(written, narrowed[i]) << name << " of " << values[i];
        }
        expected.push_back(bits_of(dtype == DType::F16 ? half_to_float(narrowed[i]) : bfloat16_to_float(narrowed[i])));
      }
    }
    expect_same_values(read_all(file, h, h.tensors[0]), expected, name);
    EXPECT_EQ(read_all(file, h, h.tensors[1]), (std::vector<float>{-0.375f})) << name;
  }
}

// The same file fed in pieces of every size from 1 to 9 bytes (values split between pieces) and whole:
// every readable tensor's values as numpy and PyTorch wrote them, the others skipped; a BF16 tensor asked
// for as bytes (in the odd-sized pieces' runs) gets the file's own bytes.
TEST(SafetensorsStream, ReadsTheFileNumpyAndPyTorchWroteInPiecesOfAnySize) {
  const std::vector<std::uint8_t> file = testing::fixture_bytes("safetensors/mixed.safetensors");
  const nlohmann::json expected = testing::fixture_json("safetensors/mixed.json");
  for (const std::size_t piece : {1, 2, 3, 4, 5, 6, 7, 8, 9, 1 << 20}) {
    std::map<std::string, std::vector<float>> values;
    std::map<std::string, std::vector<std::uint8_t>> raw;
    const bool bf16_as_bytes = piece % 2 == 1;
    SafetensorsStream stream(file.size(), [&](const SafetensorsHeader& h) {
      std::vector<TensorDestination> out;
      for (const SafetensorInfo& info : h.tensors) {
        const bool readable = !h.unreadable.contains(info.name) && info.element_count() > 0;
        if (readable && bf16_as_bytes && info.dtype == DType::BF16) out.push_back({.bytes = (raw[info.name] = std::vector<std::uint8_t>(info.end - info.begin)).data()});
        else out.push_back({.floats = readable ? (values[info.name] = std::vector<float>(static_cast<std::size_t>(info.element_count()))).data() : nullptr});
      }
      return out;
    });
    for (std::size_t at = 0; at < file.size(); at += piece)
      stream.feed(std::span<const std::uint8_t>(file).subspan(at, std::min(piece, file.size() - at)));
    EXPECT_TRUE(stream.complete());
    EXPECT_EQ(stream.header().data_start, expected.at("data_start").get<std::size_t>());
    std::size_t checked = 0;
    for (const nlohmann::json& t : expected.at("tensors")) {
      if (!t.contains("f32_bits") || !values.contains(t.at("name"))) continue;
      expect_same_values(values.at(t.at("name")), t.at("f32_bits").get<std::vector<std::uint32_t>>(),
                         t.at("name").get<std::string>() + " in pieces of " + std::to_string(piece));
      ++checked;
    }
    EXPECT_GE(checked, bf16_as_bytes ? 2u : 3u);
    EXPECT_EQ(raw.empty(), !bf16_as_bytes) << "the fixture has a BF16 tensor";
    for (const auto& [name, bytes] : raw) {
      const SafetensorInfo& info = *stream.header().find(name);
      const auto from = file.begin() + static_cast<std::ptrdiff_t>(stream.header().data_start + info.begin);
      EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), from)) << name << " in pieces of " << piece;
    }
  }
}

TEST(SafetensorsStream, RefusesWhatItCannotRead) {
  const std::vector<std::uint8_t> file = testing::fixture_bytes("safetensors/mixed.safetensors");
  const auto want_all = [](const SafetensorsHeader& h) {
    static std::vector<float> sink(1024);
    return std::vector<TensorDestination>(h.tensors.size(), {.floats = sink.data()});
  };
  expect_error([&] { SafetensorsStream(file.size(), want_all).feed(file); },
               "SafetensorsStream: tensor 'position_ids' is I64: attnlab reads F32, F16 and BF16");
  const auto none = [](const SafetensorsHeader& h) { return std::vector<TensorDestination>(h.tensors.size()); };
  SafetensorsStream stream(file.size(), none);
  expect_error([&] { (void)stream.header(); }, "SafetensorsStream: the header is not in yet: 0 of the file's " +
                                                   std::to_string(file.size()) + " bytes have come");
  stream.feed(std::span<const std::uint8_t>(file).first(10));
  expect_error([&] { stream.feed(file); }, "SafetensorsStream: given " + std::to_string(file.size()) + " more bytes after 10, past the file's " +
                                               std::to_string(file.size()));
  stream.feed(std::span<const std::uint8_t>(file).subspan(10));  // the refusal changed nothing
  EXPECT_TRUE(stream.complete());
  expect_error([&] { SafetensorsStream(file.size(), [](const SafetensorsHeader&) { return std::vector<TensorDestination>(1); }).feed(file); },
               "SafetensorsStream: destinations gave a list of 1 for the header's " +
                   std::to_string(parse_safetensors(file).tensors.size()) + " tensors");
}

TEST(Safetensors, MalformedFilesSayWhatIsWrong) {
  // Each refusal is also the streaming reader's, fed the file a byte at a time (it parses the header as
  // soon as its bytes are in, against the whole file's size).
  auto refused = [](const std::vector<std::uint8_t>& file, const std::string& message) {
    expect_error([&] { parse_safetensors(file); }, "parse_safetensors: " + message);
    expect_error([&] {
      SafetensorsStream stream(file.size(), [](const SafetensorsHeader& h) { return std::vector<TensorDestination>(h.tensors.size()); });
      for (const std::uint8_t& byte : file) stream.feed({&byte, 1});
      (void)stream.header();
    }, "parse_safetensors: " + message);
  };
  auto entry = [](const std::string& fields) { return R"({"w": {)" + fields + "}}"; };
  refused({}, "the file has 0 bytes, fewer than the 8 of the header length");
  refused({1, 2, 3}, "the file has 3 bytes, fewer than the 8 of the header length");
  refused({0, 0, 0, 0, 1, 0, 0, 0}, "the header length is 4294967296 bytes, over the format's limit of 100000000");
  refused({0x01, 0xe1, 0xf5, 0x05, 0, 0, 0, 0}, "the header length is 100000001 bytes, over the format's limit of 100000000");
  refused({50, 0, 0, 0, 0, 0, 0, 0, '{', '}'}, "the header length is 50 bytes but only 2 follow it: is the file cut short?");
  refused(file_of("", 0), "the header is not valid JSON: parse error at line 1, column 1: syntax error while parsing value - "
                          "unexpected end of input; expected '[', '{', or a literal");
  refused(file_of(R"({"a": )", 0), "the header is not valid JSON: parse error at line 1, column 7: syntax error while parsing "
                                   "value - unexpected end of input; expected '[', '{', or a literal");
  refused(file_of("{\"a\xff\": 1}", 0), "the header is not valid JSON: parse error at line 1, column 4: syntax error while "
                                        "parsing object key - invalid string: ill-formed UTF-8 byte; last read: '\"a?'; "
                                        "expected string literal");
  refused(file_of("[1, 2]", 0), "this is not a .safetensors file: one starts with an 8-byte header length and then the "
                                "header, a JSON object, but byte 8 is 91 and not '{'");
  // The first bytes of a file that is not safetensors at all are not read as a header length (bytes 1 … 8
  // would be 578437695752307201): a zip archive (PyTorch's .pt) and plain text.
  refused({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, "this is not a .safetensors file: one starts with an 8-byte header length and "
                                           "then the header, a JSON object, but byte 8 is 9 and not '{'");
  refused({'P', 'K', 3, 4, 20, 0, 0, 0, 8, 0}, "this is not a .safetensors file: one starts with an 8-byte header length and "
                                               "then the header, a JSON object, but byte 8 is 8 and not '{'");
  refused(file_of(R"({"w": [1]})", 0), "tensor 'w' is [1], not an object with dtype, shape and data_offsets");
  refused(file_of(entry(R"("shape": [2], "data_offsets": [0, 8])"), 8), "tensor 'w' has no \"dtype\"");
  refused(file_of(entry(R"("dtype": "F32", "data_offsets": [0, 8])"), 8), "tensor 'w' has no \"shape\"");
  refused(file_of(entry(R"("dtype": "F32", "shape": [2])"), 8), "tensor 'w' has no \"data_offsets\"");
  refused(file_of(entry(R"("dtype": 32, "shape": [2], "data_offsets": [0, 8])"), 8),
          "tensor 'w' has dtype 32: it must be a string such as \"F32\"");
  refused(file_of(entry(R"("dtype": "Q4", "shape": [2], "data_offsets": [0, 8])"), 8),
          "tensor 'w' has the unknown dtype \"Q4\" (the format's dtypes: F32, F16, BF16, F64, C64, I64, U64, I32, U32, I16, U16, "
          "I8, U8, BOOL, F8_E4M3, F8_E5M2, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ, F6_E2M3, F6_E3M2, F4)");
  refused(file_of(entry(R"("dtype": "F32", "shape": {"rows": 2}, "data_offsets": [0, 8])"), 8),
          "tensor 'w' has shape an object: it must be an array of non-negative integers");
  refused(file_of(entry(R"("dtype": "F32", "shape": [1, -2], "data_offsets": [0, 8])"), 8),
          "tensor 'w' has shape[1] = -2: it must be a non-negative integer");
  refused(file_of(entry(R"("dtype": "F32", "shape": [2.0], "data_offsets": [0, 8])"), 8),
          "tensor 'w' has shape[0] = 2.0: it must be a non-negative integer");
  refused(file_of(entry(R"("dtype": "F32", "shape": [9223372036854775808, 0], "data_offsets": [0, 0])"), 8),
          "tensor 'w' has shape[0] = 9223372036854775808: over 2^63 − 1");
  refused(file_of(entry(R"("dtype": "F32", "shape": [2], "data_offsets": [0])"), 8),
          "tensor 'w' has data_offsets [0]: they must be [begin, end], two non-negative integers");
  refused(file_of(entry(R"("dtype": "F32", "shape": [2], "data_offsets": [0, -8])"), 8),
          "tensor 'w' has data_offsets [0,-8]: they must be [begin, end], two non-negative integers");
  refused(file_of(entry(R"("dtype": "F32", "shape": [2], "data_offsets": [8, 0])"), 8),
          "tensor 'w' has data_offsets [8, 0]: begin is after end");
  // 8 bytes of length, a 61-byte header, then 4 of the 8 data bytes it describes
  refused(file_of(entry(R"("dtype": "F32", "shape": [2], "data_offsets": [0, 8])"), 4),
          "the file is cut short: its header describes 8 bytes of tensor data but only 4 follow the header (the whole file "
          "should be 77 bytes; it has 73)");
  refused(file_of(R"({"h.0.attn.c_attn.weight": {"dtype": "F32", "shape": [4, 12], "data_offsets": [0, 100]}})", 100),
          "tensor 'h.0.attn.c_attn.weight' has shape [4, 12] (48 F32 values = 192 bytes) but data_offsets [0, 100] hold 100 bytes");
  refused(file_of(entry(R"("dtype": "F32", "shape": [4611686018427387904, 4611686018427387904], "data_offsets": [0, 8])"), 8),
          "tensor 'w' has shape [4611686018427387904, 4611686018427387904] (over 2^64 bits of F32 values) but data_offsets "
          "[0, 8] hold 8 bytes");
  refused(file_of(entry(R"("dtype": "F4", "shape": [3], "data_offsets": [0, 2])"), 8),
          "tensor 'w' has shape [3] (3 F4 values = 12 bits) but data_offsets [0, 2] hold 2 bytes");
  refused(file_of(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "b": {"dtype": "F16", "shape": [2], "data_offsets": [6, 10]}})", 10),
          "tensors 'a' (data_offsets [0, 8]) and 'b' (data_offsets [6, 10]) overlap");
  refused(file_of(R"({"__metadata__": ["n_head", "4"]})", 0), "__metadata__ is [\"n_head\",\"4\"]: it must be an object of strings");
  refused(file_of(R"({"__metadata__": {"n_head": 4}})", 0), "__metadata__ 'n_head' is 4: it must be a string");
}

// nlohmann/json would keep the last of two equal keys; a file that says two things is refused instead.
TEST(Safetensors, RepeatedKeysAreRefused) {
  auto refused = [](const std::string& header, const std::string& message) {
    expect_error([&] { parse_safetensors(file_of(header, 8)); }, "parse_safetensors: " + message);
  };
  const std::string w = R"("w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]})";
  refused("{" + w + ", " + w + "}", "the header lists tensor 'w' twice");
  refused(R"({"w": {"dtype": "F32", "shape": [2], "dtype": "I64", "data_offsets": [0, 8]}})", "tensor 'w' gives \"dtype\" twice");
  refused(R"({"__metadata__": {"k": "1", "k": "2"}})", "__metadata__ gives 'k' twice");
  refused(R"({"__metadata__": {}, "__metadata__": {}})", "the header gives __metadata__ twice");
}

TEST(Safetensors, HugeHeadersAreCheckedAgainstTheMemoryBudget) {
  const std::size_t saved = memory_budget();
  set_memory_budget(std::size_t{1} << 20);
  const std::string header = "{}" + std::string(30000 - 2, ' ');
  expect_error([&] { parse_safetensors(file_of(header, 0)); },
               "parse_safetensors: the header's 30000 bytes of JSON may take up to 1.14441 MiB once parsed (40 bytes per "
               "byte) but the memory budget is 1 MiB (set_memory_budget raises it)");
  set_memory_budget(saved);
  EXPECT_TRUE(parse_safetensors(file_of(header, 0)).tensors.empty());
}

TEST(Safetensors, ReadTensorChecksTheInfoItIsGiven) {
  const std::vector<std::uint8_t> file = file_of(R"({"w": {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]}})", 8);
  const SafetensorsHeader h = parse_safetensors(file);
  std::vector<float> out(64);
  SafetensorInfo info = h.tensors[0];
  info.shape = {4, 4};
  expect_error([&] { read_tensor(file, h, info, out.data()); },
               "read_tensor: tensor 'w' has shape [4, 4] (16 F16 values = 32 bytes) but data_offsets [0, 8] hold 8 bytes");
  info = h.tensors[0];
  info.begin = 9;
  expect_error([&] { read_tensor(file, h, info, out.data()); }, "read_tensor: tensor 'w' has data_offsets [9, 8]: begin is after end");
  const std::vector<std::uint8_t> shorter(file.begin(), file.end() - 1);
  expect_error([&] { read_tensor(shorter, h, h.tensors[0], out.data()); },
               "read_tensor: tensor 'w' has data_offsets [0, 8] but this file's data section has only 7 bytes (is the header "
               "from another file?)");
  expect_error([&] { read_tensor(file, h, h.tensors[0], nullptr); }, "read_tensor: out is null for tensor 'w'");
  info.shape = {4611686018427387904, 4611686018427387904};
  expect_error([&] { (void)info.element_count(); },
               "SafetensorInfo::element_count: tensor 'w' has shape [4611686018427387904, 4611686018427387904], whose "
               "product is negative or over 2^63 − 1");
}

TEST(Safetensors, WriteRefusesWhatNoReaderCouldLoad) {
  const float v[4] = {1, 2, 3, 4};
  auto refused = [](const std::vector<TensorToWrite>& tensors, const std::string& message,
                    const std::map<std::string, std::string>& metadata = {}) {
    expect_error([&] { write_safetensors(tensors, DType::F32, metadata); }, "write_safetensors: " + message);
  };
  refused({{"a", {1}, v}, {"", {1}, v}}, "tensor 1 has an empty name");
  refused({{"__metadata__", {1}, v}}, "tensor 0 is named __metadata__, which the format reserves");
  refused({{"x", {1}, v}, {"x", {2}, v}}, "tensor 'x' is listed twice");
  refused({{"x", {2, -2}, v}}, "tensor 'x' has shape [2, -2]: extents must be non-negative");
  refused({{"x", {4294967296, 4294967296}, v}}, "tensor 'x' has shape [4294967296, 4294967296] (over 2^64 bits of F32 values)");
  refused({{"x", {2}, nullptr}}, "tensor 'x' has no values (a null pointer)");
  refused({{"caf\xe9", {1}, v}}, "the tensor name 'caf?' is not valid UTF-8");
  refused({{"x", {1}, v}}, "the metadata value 'caf?' is not valid UTF-8", {{"name", "caf\xe9"}});
}

}  // namespace
}  // namespace attnlab
