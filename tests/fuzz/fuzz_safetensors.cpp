// Fuzz target: .safetensors files — arbitrary bytes, a fuzzed header with its length prefix kept
// right, headers assembled from plausible and hostile pieces, and write_safetensors' own files with
// bytes changed. Each file is refused with attnlab::Error or parses into a header that keeps its
// promises: ranges inside the data, sorted, non-empty ones disjoint; every F32/F16/BF16 tensor reads
// exactly element_count() floats; and writing what was read gives a file that parses back to the same
// values (NaN-aware), in every dtype.
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>

#include "attnlab/io/safetensors.hpp"
#include "fuzz_input.hpp"

namespace attnlab::fuzz {
namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

bool same_value(float a, float b) { return (std::isnan(a) && std::isnan(b)) || bits_of(a) == bits_of(b); }

// What reading `value` back from a file written in `dtype` must give.
float stored_as(float value, DType dtype) {
  if (dtype == DType::F16) return half_to_float(float_to_half(value));
  if (dtype == DType::BF16) return bfloat16_to_float(float_to_bfloat16(value));
  return value;
}

std::vector<std::uint8_t> framed(const std::string& header, const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> file(8);
  const std::uint64_t length = header.size();
  std::memcpy(file.data(), &length, 8);
  file.insert(file.end(), header.begin(), header.end());
  file.insert(file.end(), data.begin(), data.end());
  return file;
}

struct ReadTensor {
  const SafetensorInfo* info;
  std::vector<float> values;
};

// A parsed header's promises; returns the readable tensors' values.
std::vector<ReadTensor> check_header(std::span<const std::uint8_t> file, const SafetensorsHeader& header) {
  std::uint64_t header_length;
  std::memcpy(&header_length, file.data(), 8);
  require(header.data_start == 8 + header_length && header.data_start <= file.size(), "data_start is not 8 + the header length");
  const std::size_t data_size = file.size() - header.data_start;
  std::set<std::string_view> names;
  const SafetensorInfo* previous = nullptr;  // the last non-empty range
  std::vector<ReadTensor> read;
  for (std::size_t i = 0; i < header.tensors.size(); ++i) {
    const SafetensorInfo& info = header.tensors[i];
    require(info.begin <= info.end && info.end <= data_size, "a tensor's range is outside the data");
    require(i == 0 || header.tensors[i - 1].begin <= info.begin, "tensors are not in the order of their offsets");
    require(names.insert(info.name).second && header.find(info.name) == &info, "a tensor is listed twice");
    if (info.begin < info.end) {
      require(!previous || previous->end <= info.begin, "two tensors' bytes overlap");
      previous = &info;
    }
    if (header.unreadable.contains(info.name)) {
      float unused;
      require(!accepted([&] { read_tensor(file, header, info, &unused); }), "read_tensor read an unreadable dtype");
      continue;
    }
    const auto count = static_cast<std::size_t>(info.element_count());
    require(count * dtype_size(info.dtype) == info.end - info.begin, "a readable tensor's range does not match its shape");
    std::vector<float> values(count);  // exactly count floats: ASan reports any write past them
    read_tensor(file, header, info, values.data());
    read.push_back({&info, std::move(values)});
  }
  for (const auto& [name, dtype] : header.unreadable) require(header.find(name) != nullptr, "unreadable names a tensor not listed");
  return read;
}

// Writing what was read, in each dtype, parses back to the same names, shapes, metadata and values.
void check_round_trip(const SafetensorsHeader& header, const std::vector<ReadTensor>& read) {
  std::vector<TensorToWrite> tensors;
  std::vector<const ReadTensor*> sources;
  for (const ReadTensor& t : read) {
    if (t.info->name.empty()) continue;  // the reader accepts an empty name; the writer refuses one
    tensors.push_back({t.info->name, t.info->shape, t.values.data()});
    sources.push_back(&t);
  }
  for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    std::vector<std::uint8_t> file;
    require(accepted([&] { file = write_safetensors(tensors, dtype, header.metadata); }), "write_safetensors refused what was read");
    std::optional<SafetensorsHeader> again;
    require(accepted([&] { again.emplace(parse_safetensors(file)); }), "write_safetensors' file does not parse");
    require(again->metadata == header.metadata && again->tensors.size() == tensors.size() && again->unreadable.empty(),
            "the written file's metadata or tensor list differs");
    for (const ReadTensor* source : sources) {
      const SafetensorInfo* info = again->find(source->info->name);
      require(info && info->shape == source->info->shape && info->dtype == dtype, "a written tensor's name, shape or dtype differs");
      std::vector<float> values(source->values.size());
      read_tensor(file, *again, *info, values.data());
      for (std::size_t i = 0; i < values.size(); ++i) {
        const float original = source->values[i];
        // Read as F16 and written as F16 (or BF16 as BF16, or F32 at all): nothing may change.
        const float expected = source->info->dtype == dtype ? original : stored_as(original, dtype);
        require(same_value(values[i], expected), "a value changed on the way through write and parse");
      }
    }
  }
}

void check_file(std::span<const std::uint8_t> file) {
  std::optional<SafetensorsHeader> header;
  if (!accepted([&] { header.emplace(parse_safetensors(file)); })) return;
  check_round_trip(*header, check_header(file, *header));
}

// A header of the fuzzer's own text, its length prefix right, then data.
void fuzz_framed_header(FuzzInput& in) {
  const std::string header = in.text(4096);
  const std::string data = in.text(4096);
  check_file(framed(header, {data.begin(), data.end()}));
}

// A header assembled from pieces: mostly well-formed entries with consecutive offsets, sometimes a
// hostile name, dtype, extent or offset, or a bad __metadata__.
void fuzz_assembled_header(FuzzInput& in) {
  static const char* const kNames[] = {"a", "b", "h.0.attn.c_attn.weight", "__metadata__", "", "é\\u0000", "a"};
  static const char* const kDTypes[] = {"F32", "F16", "BF16", "I64", "U8", "BOOL", "F4", "F6_E3M2", "C64", "Q4", "f32"};
  static const unsigned kBits[] = {32, 16, 16, 64, 8, 8, 4, 6, 64, 0, 0};
  static const char* const kHostileExtents[] = {"4611686018427387904", "9223372036854775808", "18446744073709551615",
                                                "-1", "-0", "2.0", "\"2\"", "1e3", "null"};
  std::string header = "{";
  std::uint64_t offset = 0;
  for (int n = in.choice(6); n > 0; --n) {
    const int d = in.choice(11);
    std::string shape;
    std::uint64_t values = 1;
    for (int rank = in.choice(4); rank > 0; --rank) {
      const bool hostile = in.choice(16) == 0;
      const int extent = in.choice(5);
      shape += std::string(shape.empty() ? "" : ",") + (hostile ? kHostileExtents[in.choice(9)] : std::to_string(extent));
      values *= static_cast<std::uint64_t>(extent);
    }
    const std::uint64_t bytes = values * kBits[d] / 8 + (in.choice(8) == 0 ? in.choice(3) : 0);
    std::uint64_t begin = offset;
    if (in.choice(8) == 0) begin = in.flag() ? offset - std::min<std::uint64_t>(offset, 2) : offset + 3;
    const std::string name = kNames[in.choice(7)] + (in.flag() ? "" : std::to_string(in.choice(3)));
    header += std::string(header.size() > 1 ? "," : "") + "\"" + name +
              "\":{\"dtype\":\"" + kDTypes[d] + "\",\"shape\":[" + shape + "],\"data_offsets\":[" + std::to_string(begin) +
              "," + std::to_string(begin + bytes) + "]}";
    offset = begin + bytes;
  }
  if (in.flag()) header += std::string(header.size() > 1 ? "," : "") + "\"__metadata__\":" + (in.flag() ? "{\"n_head\":\"2\"}" : "{\"k\":4}");
  header += "}" + std::string(static_cast<std::size_t>(in.choice(8)), ' ');
  std::vector<std::uint8_t> data(static_cast<std::size_t>(std::min<std::uint64_t>(offset, 1 << 16)) + in.choice(3));
  std::uint64_t state = in.seed();  // a cheap stream of bytes from one seed: any float bits will do
  for (std::uint8_t& byte : data) {
    byte = static_cast<std::uint8_t>(state >> 56);
    state = state * 6364136223846793005u + 1442695040888963407u;
  }
  check_file(framed(header, data));
}

// write_safetensors' own file: unchanged, it must read back exactly (as narrowed); then with bytes
// changed, cut short or grown, it must still be refused cleanly or keep every promise.
void fuzz_written_file(FuzzInput& in) {
  std::vector<std::vector<float>> values;
  std::vector<TensorToWrite> tensors;
  values.reserve(3);  // tensors point into these
  for (int n = in.choice(4); n > 0; --n) {
    std::vector<std::int64_t> shape;
    std::size_t count = 1;
    for (int rank = in.choice(3); rank > 0; --rank) count *= static_cast<std::size_t>(shape.emplace_back(in.choice(4)));
    std::vector<float>& v = values.emplace_back(count);
    for (float& x : v) x = in.flag() ? in.value() : std::bit_cast<float>(static_cast<std::uint32_t>(in.seed()));
    tensors.push_back({in.text(6), shape, v.data()});
  }
  const DType dtype = in.flag() ? DType::F32 : (in.flag() ? DType::F16 : DType::BF16);
  std::vector<std::uint8_t> file;
  if (!accepted([&] { file = write_safetensors(tensors, dtype, {{in.text(4), in.text(4)}}); })) return;
  std::optional<SafetensorsHeader> header;
  require(accepted([&] { header.emplace(parse_safetensors(file)); }), "write_safetensors' file does not parse");
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    const SafetensorInfo* info = header->find(tensors[t].name);
    require(info && info->shape == tensors[t].shape, "the writer's file lists other tensors");
    std::vector<float> read(values[t].size());
    read_tensor(file, *header, *info, read.data());
    for (std::size_t i = 0; i < read.size(); ++i)
      require(same_value(read[i], stored_as(values[t][i], dtype)), "the writer's file reads back other values");
  }
  for (int edits = 1 + in.choice(3); edits > 0 && !file.empty(); --edits) {
    const auto at = static_cast<std::size_t>(in.seed() % file.size());
    switch (in.choice(3)) {
      case 0: file[at] = static_cast<std::uint8_t>(in.choice(256)); break;
      case 1: file.resize(at); break;
      default: file.insert(file.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(in.choice(256)));
    }
  }
  check_file(file);
}

}  // namespace
}  // namespace attnlab::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab::fuzz;
  use_small_budget();
  // The last byte picks the case; case 0 takes the rest as a whole file (so a real .safetensors file
  // with one byte 0 appended is a seed).
  FuzzedDataProvider bytes(data, size);
  const int which = bytes.ConsumeIntegralInRange(0, 3);
  const std::vector<std::uint8_t> rest = bytes.ConsumeRemainingBytes<std::uint8_t>();
  if (which == 0) {
    check_file(rest);
    return 0;
  }
  FuzzInput in(rest.data(), rest.size());
  static const FuzzCase cases[] = {fuzz_framed_header, fuzz_assembled_header, fuzz_written_file};
  cases[which - 1](in);
  return 0;
}
