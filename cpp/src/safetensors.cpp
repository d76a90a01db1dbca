#include "attnlab/safetensors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "checks.hpp"

namespace attnlab {

namespace {

// std::bit_cast (Emscripten 3.1.6's libc++ has none): the same bits as another type of the same size.
template <typename To, typename From>
To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

constexpr const char* kParse = "parse_safetensors";
constexpr std::size_t kMaxHeader = 100'000'000;  // the format's own limit

// Every dtype the format names, with its size; only F32, F16 and BF16 can be read as float32.
struct DTypeEntry {
  std::string_view name;
  std::size_t size;
};
constexpr DTypeEntry kDTypes[] = {{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4},
                                  {"I16", 2}, {"I8", 1},  {"U64", 8}, {"U32", 4}, {"U16", 2}, {"U8", 1},
                                  {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::uint64_t read_u64_le(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// A JSON number that is a non-negative integer (nlohmann keeps those as unsigned), else Error.
std::uint64_t unsigned_field(const nlohmann::json& value, std::string_view tensor, std::string_view field) {
  if (!value.is_number_unsigned())
    detail::fail(kParse, "tensor '", tensor, "': ", field, " must hold non-negative integers, got ", value.dump());
  return value.get<std::uint64_t>();
}

SafetensorInfo parse_entry(const std::string& name, const nlohmann::json& entry, std::size_t data_size,
                           std::string& dtype_text) {
  if (!entry.is_object()) detail::fail(kParse, "tensor '", name, "' must be an object with dtype, shape and data_offsets");
  SafetensorInfo info;
  info.name = name;
  const auto dtype = entry.find("dtype");
  const auto shape = entry.find("shape");
  const auto offsets = entry.find("data_offsets");
  if (dtype == entry.end() || !dtype->is_string()) detail::fail(kParse, "tensor '", name, "' has no dtype string");
  if (shape == entry.end() || !shape->is_array()) detail::fail(kParse, "tensor '", name, "' has no shape array");
  if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2)
    detail::fail(kParse, "tensor '", name, "' needs data_offsets [begin, end]");
  dtype_text = dtype->get<std::string>();
  std::size_t element_size = 0;
  for (const DTypeEntry& d : kDTypes)
    if (d.name == dtype_text) element_size = d.size;
  if (element_size == 0) detail::fail(kParse, "tensor '", name, "' has the unknown dtype '", dtype_text, "'");
  info.dtype = dtype_text == "F16" ? DType::F16 : dtype_text == "BF16" ? DType::BF16 : DType::F32;
  // size = product(shape)·element size, refused as soon as it passes the data section (no overflow).
  std::uint64_t bytes = element_size;
  for (const nlohmann::json& extent : *shape) {
    const std::uint64_t e = unsigned_field(extent, name, "shape");
    if (e > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      detail::fail(kParse, "tensor '", name, "' has a shape extent ", e, " that is too large");
    info.shape.push_back(static_cast<std::int64_t>(e));
    if (e != 0 && bytes > data_size / e + 1) bytes = std::numeric_limits<std::uint64_t>::max();
    else bytes *= e;
  }
  const std::uint64_t begin = unsigned_field((*offsets)[0], name, "data_offsets");
  const std::uint64_t end = unsigned_field((*offsets)[1], name, "data_offsets");
  if (begin > end) detail::fail(kParse, "tensor '", name, "' has data_offsets [", begin, ", ", end, "] with begin after end");
  if (end > data_size)
    detail::fail(kParse, "tensor '", name, "' has data_offsets [", begin, ", ", end, "] past the end of the data (",
                 data_size, " bytes)");
  if (bytes != end - begin)
    detail::fail(kParse, "tensor '", name, "' has shape ", shape_text(info.shape), " (", dtype_text, ") but data_offsets [",
                 begin, ", ", end, "] hold ", end - begin, " bytes");
  info.begin = static_cast<std::size_t>(begin);
  info.end = static_cast<std::size_t>(end);
  return info;
}

}  // namespace

std::string_view dtype_name(DType dtype) {
  return dtype == DType::F32 ? "F32" : dtype == DType::F16 ? "F16" : "BF16";
}

std::size_t dtype_size(DType dtype) { return dtype == DType::F32 ? 4 : 2; }

std::int64_t SafetensorInfo::element_count() const {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  return count;
}

const SafetensorInfo* SafetensorsHeader::find(std::string_view name) const {
  for (const SafetensorInfo& info : tensors)
    if (info.name == name) return &info;
  return nullptr;
}

SafetensorsHeader parse_safetensors(std::span<const std::uint8_t> file) {
  // file: [8-byte little-endian N][N bytes of JSON][data]
  if (file.size() < 8) detail::fail(kParse, "the file has ", file.size(), " bytes: too short for the 8-byte header length");
  const std::uint64_t header_length = read_u64_le(file.data());
  if (header_length > kMaxHeader) detail::fail(kParse, "the header length ", header_length, " is over the format's limit of 100000000 bytes");
  if (header_length > file.size() - 8)
    detail::fail(kParse, "the header length ", header_length, " is past the end of the file (", file.size(), " bytes): truncated?");
  const auto* text = reinterpret_cast<const char*>(file.data() + 8);
  // parse without exceptions: a malformed header is `discarded`, and duplicate keys keep the last (nlohmann)
  const nlohmann::json header = nlohmann::json::parse(text, text + header_length, nullptr, false);
  if (header.is_discarded()) detail::fail(kParse, "the header is not valid JSON");
  if (!header.is_object()) detail::fail(kParse, "the header is not a JSON object");

  SafetensorsHeader out;
  out.data_start = 8 + static_cast<std::size_t>(header_length);
  const std::size_t data_size = file.size() - out.data_start;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) detail::fail(kParse, "__metadata__ must be an object of strings");
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) detail::fail(kParse, "__metadata__ '", key, "' must be a string, got ", value.dump());
        out.metadata[key] = value.get<std::string>();
      }
      continue;
    }
    std::string dtype_text;
    out.tensors.push_back(parse_entry(name, entry, data_size, dtype_text));
    if (dtype_text != "F32" && dtype_text != "F16" && dtype_text != "BF16") out.unreadable[name] = dtype_text;
  }
  // in data order, with no two ranges overlapping (empty tensors take no bytes)
  std::sort(out.tensors.begin(), out.tensors.end(),
            [](const SafetensorInfo& a, const SafetensorInfo& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  for (std::size_t i = 1; i < out.tensors.size(); ++i) {
    const SafetensorInfo& a = out.tensors[i - 1];
    const SafetensorInfo& b = out.tensors[i];
    if (b.begin < a.end)
      detail::fail(kParse, "tensors '", a.name, "' [", a.begin, ", ", a.end, "] and '", b.name, "' [", b.begin, ", ", b.end,
                   "] overlap");
  }
  return out;
}

void read_tensor(std::span<const std::uint8_t> file, const SafetensorsHeader& header, const SafetensorInfo& info,
                 float* out) {
  // info's bytes (checked by parse_safetensors) → element_count() floats
  if (const auto it = header.unreadable.find(info.name); it != header.unreadable.end())
    detail::fail("read_tensor", "tensor '", info.name, "' is ", it->second, "; attnlab reads F32, F16 and BF16");
  if (header.data_start + info.end > file.size())
    detail::fail("read_tensor", "tensor '", info.name, "' lies past the end of this file");
  const std::uint8_t* p = file.data() + header.data_start + info.begin;
  const auto count = static_cast<std::size_t>(info.element_count());
  for (std::size_t i = 0; i < count; ++i) {
    if (info.dtype == DType::F32) {
      std::uint32_t bits = 0;
      for (int b = 3; b >= 0; --b) bits = (bits << 8) | p[4 * i + static_cast<std::size_t>(b)];
      out[i] = bit_cast<float>(bits);
    } else {
      const auto bits = static_cast<std::uint16_t>(p[2 * i] | (p[2 * i + 1] << 8));
      out[i] = info.dtype == DType::F16 ? half_to_float(bits) : bfloat16_to_float(bits);
    }
  }
}

std::vector<std::uint8_t> write_safetensors(const std::vector<TensorToWrite>& tensors, DType dtype,
                                            const std::map<std::string, std::string>& metadata) {
  const char* fn = "write_safetensors";
  // The header, keys in the tensors' order (nlohmann's ordered_json), offsets consecutive.
  nlohmann::ordered_json header;
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::size_t offset = 0;
  for (const TensorToWrite& t : tensors) {
    if (t.name.empty() || t.name == "__metadata__") detail::fail(fn, "a tensor name must be non-empty and not __metadata__");
    if (header.contains(t.name)) detail::fail(fn, "tensor '", t.name, "' is listed twice");
    std::size_t count = 1;
    for (std::int64_t extent : t.shape) {
      if (extent < 0) detail::fail(fn, "tensor '", t.name, "' has a negative extent in ", shape_text(t.shape));
      count *= static_cast<std::size_t>(extent);
    }
    const std::size_t bytes = count * dtype_size(dtype);
    header[t.name] = {{"dtype", dtype_name(dtype)}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::vector<std::uint8_t> file(8 + text.size() + offset);
  for (int b = 0; b < 8; ++b) file[static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(text.size()) >> (8 * b));
  std::memcpy(file.data() + 8, text.data(), text.size());
  std::uint8_t* p = file.data() + 8 + text.size();
  for (const TensorToWrite& t : tensors) {
    std::size_t count = 1;
    for (std::int64_t extent : t.shape) count *= static_cast<std::size_t>(extent);
    for (std::size_t i = 0; i < count; ++i) {
      if (dtype == DType::F32) {
        const auto bits = bit_cast<std::uint32_t>(t.values[i]);
        for (int b = 0; b < 4; ++b) *p++ = static_cast<std::uint8_t>(bits >> (8 * b));
      } else {
        const std::uint16_t bits = dtype == DType::F16 ? float_to_half(t.values[i]) : float_to_bfloat16(t.values[i]);
        *p++ = static_cast<std::uint8_t>(bits);
        *p++ = static_cast<std::uint8_t>(bits >> 8);
      }
    }
  }
  return file;
}

// ---- half and bfloat16 ----

float half_to_float(std::uint16_t h) {
  // sign 1, exponent 5 (bias 15), mantissa 10
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const int exponent = (h >> 10) & 0x1f;
  const std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));  // ±∞, NaN
  if (exponent == 0) {  // zero or subnormal: mantissa · 2^−24, exact in float
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return bit_cast<float>(sign | static_cast<std::uint32_t>(exponent - 15 + 127) << 23 | (mantissa << 13));
}

std::uint16_t float_to_half(float value) {
  const std::uint32_t bits = bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const float magnitude = std::fabs(value);
  if (std::isnan(value)) return static_cast<std::uint16_t>(sign | 0x7e00u);
  if (magnitude >= 65520.0f) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds past 65504: ∞
  if (magnitude < 6.103515625e-05f) {
    // subnormal (or 0): the nearest multiple of 2^−24, ties to even (nearbyint's default rounding)
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::nearbyint(magnitude * 16777216.0f)));
  }
  // normal: drop 13 mantissa bits, rounding to nearest even (a carry may bump the exponent: correct)
  const std::uint32_t m = bits & 0x7fffffffu;
  const std::uint32_t rounded = m + 0x0fffu + ((m >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | ((rounded - (static_cast<std::uint32_t>(127 - 15) << 23)) >> 13));
}

float bfloat16_to_float(std::uint16_t bits) { return bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

std::uint16_t float_to_bfloat16(float value) {
  const std::uint32_t bits = bit_cast<std::uint32_t>(value);
  if (std::isnan(value)) return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);  // stays a (quiet) NaN
  // the top 16 bits, rounded to nearest even; an overflow carries into ±∞ as it should
  return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

}  // namespace attnlab
