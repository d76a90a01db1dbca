// The .safetensors reader and writer, and the half / bfloat16 conversions they use.
//   file = [8-byte little-endian N][N bytes of JSON header][data section]
// The header is checked in full before a single tensor byte is trusted: every number in it comes from
// the file, so each size is computed without overflow and compared with the bytes that really exist.
#include "attnlab/io/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>

#include "attnlab/tensor/limits.hpp"
#include "io/safetensors_values.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

std::vector<std::uint8_t> read_file_bytes(const char* function, const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) detail::fail(function, "cannot open '", path.string(), "'");
  std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) detail::fail(function, "cannot read '", path.string(), "'");
  return bytes;
}

namespace {

// The format is little-endian; memcpy of whole values is then the byte order (no unaligned casts).
// Every target attnlab builds for (x86-64, arm64, wasm32) is little-endian.
static_assert(std::endian::native == std::endian::little, "safetensors.cpp reads little-endian values with memcpy");

// std::bit_cast (Emscripten 3.1.6's libc++ has none): the same bits as another type of the same size.
template <typename To, typename From>
To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

constexpr const char* kParse = "parse_safetensors";
constexpr const char* kRead = "read_tensor";
constexpr const char* kWrite = "write_safetensors";
constexpr std::uint64_t kMaxHeader = detail::kMaxSafetensorsHeader;
// nlohmann/json's parsed tree takes up to ~37 bytes per byte of header text (measured on "[[[[…]]]]";
// ~13 on long arrays of numbers), so a header is also checked against the memory budget before parsing.
constexpr double kParsedBytesPerHeaderByte = 40.0;

// ---- dtypes ----

// Every dtype the format names (huggingface/safetensors, Dtype::bitsize), so that a file holding
// tensors attnlab cannot widen still has each byte range checked. F4 and F6 values are packed bits.
struct DTypeSpec {
  std::string_view name;
  unsigned bits;
  std::optional<DType> readable;  // the DType attnlab widens to float32, if any
};
constexpr DTypeSpec kDTypes[] = {
    {"F32", 32, DType::F32},  {"F16", 16, DType::F16},  {"BF16", 16, DType::BF16}, {"F64", 64, {}},
    {"C64", 64, {}},          {"I64", 64, {}},          {"U64", 64, {}},           {"I32", 32, {}},
    {"U32", 32, {}},          {"I16", 16, {}},          {"U16", 16, {}},           {"I8", 8, {}},
    {"U8", 8, {}},            {"BOOL", 8, {}},          {"F8_E4M3", 8, {}},        {"F8_E5M2", 8, {}},
    {"F8_E8M0", 8, {}},       {"F8_E4M3FNUZ", 8, {}},   {"F8_E5M2FNUZ", 8, {}},    {"F6_E2M3", 6, {}},
    {"F6_E3M2", 6, {}},       {"F4", 4, {}}};

const DTypeSpec* find_dtype(std::string_view name) {
  for (const DTypeSpec& spec : kDTypes)
    if (spec.name == name) return &spec;
  return nullptr;
}

const DTypeSpec& spec_of(DType dtype) { return *find_dtype(dtype_name(dtype)); }

std::string dtype_list() {
  std::string list;
  for (const DTypeSpec& spec : kDTypes) list += (list.empty() ? "" : ", ") + std::string(spec.name);
  return list;
}

// ---- message pieces ----

// At most `max` bytes of `text` (cut on a UTF-8 character boundary, then "…"): names and values in
// messages come from the file, and a 100 MB name must not become a 100 MB message.
std::string shortened(std::string_view text, std::size_t max = 80) {
  if (text.size() <= max) return std::string(text);
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "…";
}

std::string in_quotes(std::string_view name) { return "'" + shortened(name) + "'"; }

// `text` with every byte outside printable ASCII shown as '?': for text that may not be UTF-8 (a name
// the writer refuses, nlohmann's quote of a broken header), which a message must not carry on.
std::string printable(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  return out;
}

std::string offsets_text(std::uint64_t begin, std::uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

// A JSON value as a message shows it. Only scalars and short flat arrays are dumped: dump() recurses,
// and a hostile header can nest arrays millions deep.
std::string describe(const nlohmann::json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) {
    const bool flat = value.size() <= 8 && std::none_of(value.begin(), value.end(), [](const nlohmann::json& v) {
                        return v.is_structured();
                      });
    return flat ? shortened(value.dump()) : "an array of " + std::to_string(value.size()) + " values";
  }
  return shortened(value.dump());
}

// ---- sizes ----

// The bits that `shape` values of `spec` take, or nullopt if more than 2^64 − 1 (a shape like
// [2^62, 2^62] must be refused, not wrap around to a small number). Any extent 0 makes it 0.
std::optional<std::uint64_t> bit_count(const std::vector<std::int64_t>& shape, const DTypeSpec& spec) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  std::uint64_t bits = spec.bits;
  for (const std::int64_t extent : shape) {
    const auto e = static_cast<std::uint64_t>(extent);
    if (bits > std::numeric_limits<std::uint64_t>::max() / e) return std::nullopt;
    bits *= e;
  }
  return bits;
}

// "48 F32 values = 192 bytes": what `shape` needs, for messages.
std::string size_text(const std::vector<std::int64_t>& shape, const DTypeSpec& spec) {
  const std::optional<std::uint64_t> bits = bit_count(shape, spec);
  if (!bits) return "over 2^64 bits of " + std::string(spec.name) + " values";
  const std::string values = std::to_string(*bits / spec.bits) + " " + std::string(spec.name) + " values = ";
  return values + (*bits % 8 ? std::to_string(*bits) + " bits" : std::to_string(*bits / 8) + " bytes");
}

// Tensor `info`'s byte range must hold exactly its shape's values (a whole number of bytes).
void require_matching_size(const char* function, const SafetensorInfo& info, const DTypeSpec& spec) {
  const std::optional<std::uint64_t> bits = bit_count(info.shape, spec);
  const std::uint64_t held = info.end - info.begin;
  if (!bits || *bits % 8 != 0 || *bits / 8 != held)
    detail::fail(function, "tensor ", in_quotes(info.name), " has shape ", header_shape_text(info.shape), " (",
                 size_text(info.shape, spec), ") but data_offsets ", offsets_text(info.begin, info.end), " hold ",
                 held, " bytes");
}

// ---- the header's JSON ----

// nlohmann/json keeps the last of two equal keys, silently. A header naming a tensor twice, or giving
// a tensor's field twice, is ambiguous, so this parser callback notes the first repeat for
// parse_safetensors to refuse. Only the two levels the format defines are watched (tensor names and
// __metadata__; each entry's fields and metadata keys): anything deeper is refused or ignored anyway.
class RepeatedKeyFinder {
 public:
  bool operator()(int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start && depth <= 1) {
      keys_.resize(std::max<std::size_t>(keys_.size(), static_cast<std::size_t>(depth) + 2));
      keys_[static_cast<std::size_t>(depth) + 1].clear();
    } else if (event == Event::key && depth <= 2) {
      const auto d = static_cast<std::size_t>(depth);
      const std::string& key = parsed.get_ref<const std::string&>();
      if (d == 1) outer_ = key;
      if (!keys_[d].insert(key).second && message_.empty())
        message_ = d == 1 ? (key == "__metadata__" ? "the header gives __metadata__ twice"
                                                   : "the header lists tensor " + in_quotes(key) + " twice")
                          : (outer_ == "__metadata__" ? "__metadata__ gives " + in_quotes(key) + " twice"
                                                      : "tensor " + in_quotes(outer_) + " gives \"" + shortened(key) + "\" twice");
    }
    return true;
  }
  const std::string& message() const { return message_; }

 private:
  std::vector<std::set<std::string>> keys_;  // keys_[d]: the keys seen in the current object at depth d
  std::string outer_;                         // the current top-level key
  std::string message_;                       // the first repeat, described
};

// The parsed tree must fit the memory budget (limits.hpp), checked before nlohmann allocates it.
void require_header_within_budget(std::size_t length) {
  const double need = static_cast<double>(length) * kParsedBytesPerHeaderByte;
  const double budget = static_cast<double>(memory_budget());
  if (need > budget)
    detail::fail(kParse, "the header's ", length, " bytes of JSON may take up to ", need / 1048576.0,
                 " MiB once parsed (", kParsedBytesPerHeaderByte, " bytes per byte) but the memory budget is ",
                 budget / 1048576.0, " MiB (set_memory_budget raises it)");
}

nlohmann::json parse_header_json(std::span<const std::uint8_t> text) {
  require_header_within_budget(text.size());
  RepeatedKeyFinder repeats;
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text.data(), text.data() + text.size(), std::ref(repeats));
  } catch (const nlohmann::json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 7: …": keep what follows the tag
    const std::string_view what = e.what();
    detail::fail(kParse, "the header is not valid JSON: ", shortened(printable(what.substr(what.find(']') + 2)), 200));
  }
  if (!header.is_object()) detail::fail(kParse, "the header is ", describe(header), ", not a JSON object");
  if (!repeats.message().empty()) detail::fail(kParse, repeats.message());
  return header;
}

// A JSON integer ≥ 0 ("-0" included, which nlohmann keeps as a signed 0), or nullopt.
std::optional<std::uint64_t> non_negative_integer(const nlohmann::json& value) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() == 0) return 0;
  return std::nullopt;
}

const nlohmann::json& required_field(const std::string& name, const nlohmann::json& entry, const char* field) {
  const auto it = entry.find(field);
  if (it == entry.end()) detail::fail(kParse, "tensor ", in_quotes(name), " has no \"", field, "\"");
  return *it;
}

const DTypeSpec& parse_dtype(const std::string& name, const nlohmann::json& value) {
  if (!value.is_string())
    detail::fail(kParse, "tensor ", in_quotes(name), " has dtype ", describe(value), ": it must be a string such as \"F32\"");
  const DTypeSpec* spec = find_dtype(value.get_ref<const std::string&>());
  if (!spec)
    detail::fail(kParse, "tensor ", in_quotes(name), " has the unknown dtype ", describe(value), " (the format's dtypes: ",
                 dtype_list(), ")");
  return *spec;
}

std::vector<std::int64_t> parse_shape(const std::string& name, const nlohmann::json& value) {
  if (!value.is_array())
    detail::fail(kParse, "tensor ", in_quotes(name), " has shape ", describe(value), ": it must be an array of non-negative integers");
  std::vector<std::int64_t> shape;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::optional<std::uint64_t> extent = non_negative_integer(value[i]);
    if (!extent)
      detail::fail(kParse, "tensor ", in_quotes(name), " has shape[", i, "] = ", describe(value[i]),
                   ": it must be a non-negative integer");
    if (*extent > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      detail::fail(kParse, "tensor ", in_quotes(name), " has shape[", i, "] = ", *extent, ": over 2^63 − 1");
    shape.push_back(static_cast<std::int64_t>(*extent));
  }
  return shape;
}

// data_offsets [begin, end]: begin ≤ end ≤ the data section's size.
void parse_offsets(SafetensorInfo& info, const nlohmann::json& value, std::size_t data_size) {
  const bool pair = value.is_array() && value.size() == 2;
  const std::optional<std::uint64_t> begin = pair ? non_negative_integer(value[0]) : std::nullopt;
  const std::optional<std::uint64_t> end = pair ? non_negative_integer(value[1]) : std::nullopt;
  if (!begin || !end)
    detail::fail(kParse, "tensor ", in_quotes(info.name), " has data_offsets ", describe(value),
                 ": they must be [begin, end], two non-negative integers");
  if (*begin > *end)
    detail::fail(kParse, "tensor ", in_quotes(info.name), " has data_offsets ", offsets_text(*begin, *end), ": begin is after end");
  if (*end > data_size)
    detail::fail(kParse, "tensor ", in_quotes(info.name), " has data_offsets ", offsets_text(*begin, *end),
                 " but the data section has only ", data_size, " bytes");
  info.begin = static_cast<std::size_t>(*begin);  // ≤ data_size: fits size_t on wasm32 too
  info.end = static_cast<std::size_t>(*end);
}

// One tensor's entry; returns its dtype's spec beside the info (which has only F32/F16/BF16).
const DTypeSpec& parse_entry(SafetensorInfo& info, const nlohmann::json& entry, std::size_t data_size) {
  if (!entry.is_object())
    detail::fail(kParse, "tensor ", in_quotes(info.name), " is ", describe(entry), ", not an object with dtype, shape and data_offsets");
  const DTypeSpec& spec = parse_dtype(info.name, required_field(info.name, entry, "dtype"));
  info.dtype = spec.readable.value_or(DType::F32);
  info.shape = parse_shape(info.name, required_field(info.name, entry, "shape"));
  parse_offsets(info, required_field(info.name, entry, "data_offsets"), data_size);
  require_matching_size(kParse, info, spec);
  return spec;
}

void parse_metadata(const nlohmann::json& value, std::map<std::string, std::string>& metadata) {
  if (!value.is_object()) detail::fail(kParse, "__metadata__ is ", describe(value), ": it must be an object of strings");
  for (const auto& [key, text] : value.items()) {
    if (!text.is_string()) detail::fail(kParse, "__metadata__ ", in_quotes(key), " is ", describe(text), ": it must be a string");
    metadata[key] = text.get<std::string>();
  }
}

// Sorts `tensors` by byte range and refuses overlaps. Empty tensors hold no bytes, so they overlap
// nothing wherever they sit; non-empty ones, sorted by begin, are disjoint when each ends before the
// next non-empty one begins.
void sort_and_require_disjoint(std::vector<SafetensorInfo>& tensors) {
  std::sort(tensors.begin(), tensors.end(), [](const SafetensorInfo& a, const SafetensorInfo& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  const SafetensorInfo* previous = nullptr;
  for (const SafetensorInfo& info : tensors) {
    if (info.begin == info.end) continue;
    if (previous && info.begin < previous->end)
      detail::fail(kParse, "tensors ", in_quotes(previous->name), " (data_offsets ", offsets_text(previous->begin, previous->end),
                   ") and ", in_quotes(info.name), " (data_offsets ", offsets_text(info.begin, info.end), ") overlap");
    previous = &info;
  }
}

// ---- values ----

}  // namespace

// (count 0: nothing to copy, and memcpy must not see the null pointers an empty tensor may bring)
void detail::read_values(const std::uint8_t* bytes, DType dtype, std::size_t count, float* out) {
  if (count == 0) return;
  if (dtype == DType::F32) {
    std::memcpy(out, bytes, count * sizeof(float));
    return;
  }
  const auto widen = dtype == DType::F16 ? half_to_float : bfloat16_to_float;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint16_t bits;
    std::memcpy(&bits, bytes + 2 * i, 2);
    out[i] = widen(bits);
  }
}

namespace {

void write_values(const float* values, DType dtype, std::size_t count, std::uint8_t* bytes) {
  if (count == 0) return;
  if (dtype == DType::F32) {
    std::memcpy(bytes, values, count * sizeof(float));
    return;
  }
  const auto narrow = dtype == DType::F16 ? float_to_half : float_to_bfloat16;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint16_t bits = narrow(values[i]);
    std::memcpy(bytes + 2 * i, &bits, 2);
  }
}

// ---- writing ----

// nlohmann/json refuses to write a string that is not UTF-8 (type_error 316); say which one it is.
void require_utf8(std::string_view what, const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();
  } catch (const nlohmann::json::type_error&) {
    detail::fail(kWrite, what, " ", in_quotes(printable(text)), " is not valid UTF-8");
  }
}

// Tensor `t`'s size in bytes of `dtype`, after checking its name, shape and values.
std::uint64_t checked_tensor_bytes(const TensorToWrite& t, std::size_t index, DType dtype) {
  if (t.name.empty()) detail::fail(kWrite, "tensor ", index, " has an empty name");
  if (t.name == "__metadata__") detail::fail(kWrite, "tensor ", index, " is named __metadata__, which the format reserves");
  require_utf8("the tensor name", t.name);
  if (std::any_of(t.shape.begin(), t.shape.end(), [](std::int64_t e) { return e < 0; }))
    detail::fail(kWrite, "tensor ", in_quotes(t.name), " has shape ", header_shape_text(t.shape), ": extents must be non-negative");
  const DTypeSpec& spec = spec_of(dtype);
  const std::optional<std::uint64_t> bits = bit_count(t.shape, spec);
  if (!bits) detail::fail(kWrite, "tensor ", in_quotes(t.name), " has shape ", header_shape_text(t.shape), " (", size_text(t.shape, spec), ")");
  if (*bits > 0 && t.values == nullptr) detail::fail(kWrite, "tensor ", in_quotes(t.name), " has no values (a null pointer)");
  return *bits / 8;
}

}  // namespace

std::string header_shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string_view dtype_name(DType dtype) {
  return dtype == DType::F32 ? "F32" : dtype == DType::F16 ? "F16" : "BF16";
}

std::size_t dtype_size(DType dtype) { return dtype == DType::F32 ? 4 : 2; }

std::int64_t SafetensorInfo::element_count() const {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  std::int64_t count = 1;
  for (const std::int64_t extent : shape) {
    if (extent < 0 || count > std::numeric_limits<std::int64_t>::max() / extent)
      detail::fail("SafetensorInfo::element_count", "tensor ", in_quotes(name), " has shape ", header_shape_text(shape),
                   ", whose product is negative or over 2^63 − 1");
    count *= extent;
  }
  return count;
}

const SafetensorInfo* SafetensorsHeader::find(std::string_view name) const {
  for (const SafetensorInfo& info : tensors)
    if (info.name == name) return &info;
  return nullptr;
}

namespace {

// The end of the data the header describes: the largest well-formed data_offsets end (a malformed
// entry is parse_entry's to report). 0 when there is none.
std::uint64_t described_data_end(const nlohmann::json& header) {
  std::uint64_t end = 0;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__" || !entry.is_object() || !entry.contains("data_offsets")) continue;
    const nlohmann::json& offsets = entry["data_offsets"];
    if (offsets.is_array() && offsets.size() == 2 && offsets[1].is_number_unsigned())
      end = std::max(end, offsets[1].get<std::uint64_t>());
  }
  return end;
}

}  // namespace

SafetensorsHeader parse_safetensors(std::span<const std::uint8_t> file) { return parse_safetensors_header(file, file.size()); }

SafetensorsHeader parse_safetensors_header(std::span<const std::uint8_t> start, std::uint64_t file_size) {
  if (start.size() > file_size)
    detail::fail(kParse, "start holds ", start.size(), " bytes of a file of ", file_size, ": more than the whole file");
  if (file_size < 8) detail::fail(kParse, "the file has ", file_size, " bytes, fewer than the 8 of the header length");
  if (start.size() < 8) detail::fail(kParse, "start holds ", start.size(), " bytes, fewer than the 8 of the header length");
  // The format's header is a JSON object: its first byte, right after the 8-byte length, is '{'. Any
  // other file (a zip, a PyTorch .bin, text) fails here, before its first bytes are read as a length.
  if (start.size() > 8 && start[8] != '{')
    detail::fail(kParse, "this is not a .safetensors file: one starts with an 8-byte header length and then the header, a JSON "
                 "object, but byte 8 is ", static_cast<int>(start[8]), " and not '{'");
  std::uint64_t header_length;
  std::memcpy(&header_length, start.data(), 8);
  if (header_length > kMaxHeader)
    detail::fail(kParse, "the header length is ", header_length, " bytes, over the format's limit of ", kMaxHeader);
  if (header_length > file_size - 8)
    detail::fail(kParse, "the header length is ", header_length, " bytes but only ", file_size - 8,
                 " follow it: is the file cut short?");
  if (header_length > start.size() - 8)
    detail::fail(kParse, "start holds ", start.size(), " bytes, fewer than the header's ", 8 + header_length);
  // A file a wasm32 build could not address is refused by name, before a size_t wraps.
  if (file_size > std::numeric_limits<std::size_t>::max())
    detail::fail(kParse, "the file has ", file_size, " bytes, more than this build addresses (", std::numeric_limits<std::size_t>::max(), ")");

  SafetensorsHeader out;
  out.data_start = 8 + static_cast<std::size_t>(header_length);
  const std::size_t data_size = static_cast<std::size_t>(file_size) - out.data_start;
  const nlohmann::json header = parse_header_json(start.subspan(8, static_cast<std::size_t>(header_length)));
  if (const std::uint64_t end = described_data_end(header); end > data_size) {
    detail::fail(kParse, "the file is cut short: its header describes ", end, " bytes of tensor data but only ", data_size,
                 " follow the header (the whole file should be ", out.data_start + end, " bytes; it has ", file_size, ")");
  }
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      parse_metadata(entry, out.metadata);
      continue;
    }
    SafetensorInfo& info = out.tensors.emplace_back();
    info.name = name;
    const DTypeSpec& spec = parse_entry(info, entry, data_size);
    if (!spec.readable) out.unreadable[name] = std::string(spec.name);
  }
  sort_and_require_disjoint(out.tensors);
  return out;
}

void read_tensor(std::span<const std::uint8_t> file, const SafetensorsHeader& header, const SafetensorInfo& info,
                 float* out) {
  if (const auto it = header.unreadable.find(info.name); it != header.unreadable.end())
    detail::fail(kRead, "tensor ", in_quotes(info.name), " is ", it->second, ": attnlab reads F32, F16 and BF16");
  // parse_safetensors checked all this for its own infos; an info made or changed by hand, or a header
  // used with another file, must not read past the buffer or write past `out` either.
  if (info.begin > info.end) detail::fail(kRead, "tensor ", in_quotes(info.name), " has data_offsets ", offsets_text(info.begin, info.end), ": begin is after end");
  const std::size_t data_size = file.size() - std::min(file.size(), header.data_start);
  if (info.end > data_size)
    detail::fail(kRead, "tensor ", in_quotes(info.name), " has data_offsets ", offsets_text(info.begin, info.end),
                 " but this file's data section has only ", data_size, " bytes (is the header from another file?)");
  require_matching_size(kRead, info, spec_of(info.dtype));
  const std::size_t count = (info.end - info.begin) / dtype_size(info.dtype);
  if (count == 0) return;
  if (out == nullptr) detail::fail(kRead, "out is null for tensor ", in_quotes(info.name));
  detail::read_values(file.data() + header.data_start + info.begin, info.dtype, count, out);
}

std::vector<std::uint8_t> write_safetensors(const std::vector<TensorToWrite>& tensors, DType dtype,
                                            const std::map<std::string, std::string>& metadata) {
  // The header, keys in the tensors' order (ordered_json), __metadata__ first as the format's own
  // writer puts it; data_offsets consecutive from 0.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  for (const auto& [key, value] : metadata) {
    require_utf8("the metadata key", key);
    require_utf8("the metadata value", value);
  }
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::vector<std::uint64_t> bytes;
  std::set<std::string_view> names;
  std::uint64_t offset = 0;
  for (const TensorToWrite& t : tensors) {
    bytes.push_back(checked_tensor_bytes(t, bytes.size(), dtype));
    if (!names.insert(t.name).second) detail::fail(kWrite, "tensor ", in_quotes(t.name), " is listed twice");
    if (bytes.back() > std::numeric_limits<std::uint64_t>::max() - offset)
      detail::fail(kWrite, "the tensors up to ", in_quotes(t.name), " hold over 2^64 bytes");
    // appended, not header[name]: ordered_json looks a key up linearly, quadratic for a file of many
    // tensors (names are known unique here)
    nlohmann::ordered_json entry = {{"dtype", dtype_name(dtype)}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes.back()}}};
    header.get_ref<nlohmann::ordered_json::object_t&>().push_back({t.name, std::move(entry)});
    offset += bytes.back();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // so the data starts 8-byte aligned, as the format's writer does
  if (offset > std::numeric_limits<std::size_t>::max() - 8 - text.size())
    detail::fail(kWrite, "the file would be ", offset, " bytes of data plus the header: more than this platform can address");

  std::vector<std::uint8_t> file(8 + text.size() + static_cast<std::size_t>(offset));
  const std::uint64_t header_length = text.size();
  std::memcpy(file.data(), &header_length, 8);
  std::memcpy(file.data() + 8, text.data(), text.size());
  std::uint8_t* data = file.data() + 8 + text.size();
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    write_values(tensors[i].values, dtype, static_cast<std::size_t>(bytes[i]) / dtype_size(dtype), data);
    data += bytes[i];
  }
  return file;
}

// ---- half and bfloat16 ----
// half: sign 1, exponent 5 (bias 15), mantissa 10. bfloat16: the top 16 bits of a float32.

namespace {
// x / 2^shift rounded to nearest, ties to even (0 < shift < 32).
std::uint32_t shift_right_rounding(std::uint32_t x, unsigned shift) {
  const std::uint32_t quotient = x >> shift, remainder = x & ((1u << shift) - 1), half = 1u << (shift - 1);
  return quotient + (remainder > half || (remainder == half && (quotient & 1u)));
}
}  // namespace

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));  // ±∞, NaN (payload kept)
  if (exponent == 0) {  // ±0 or subnormal: mantissa · 2^−24, exact in float32 (normal there)
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return bit_cast<float>(sign | bit_cast<std::uint32_t>(magnitude));
  }
  return bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

std::uint16_t float_to_half(float value) {
  const std::uint32_t bits = bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));  // quiet NaN
  const std::uint32_t exponent = magnitude >> 23;
  if (exponent >= 127 - 14) {
    // Normal in half (or past it): rebias the exponent and round away 13 mantissa bits. A carry out of
    // the mantissa rightly bumps the exponent; anything reaching 0x7c00 (≥ 65520, or ∞) is ∞.
    const std::uint32_t rounded = shift_right_rounding(magnitude - ((127u - 15u) << 23), 13);
    return static_cast<std::uint16_t>(sign | std::min<std::uint32_t>(rounded, 0x7c00u));
  }
  // Subnormal in half: the value in units of 2^−24 (the implicit 1 made explicit), rounded. Below
  // 2^−25 (exponent < 102) everything rounds to 0; a result of 0x400 is the smallest normal, correctly.
  if (exponent < 102) return sign;
  const std::uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
  return static_cast<std::uint16_t>(sign | shift_right_rounding(significand, 126 - exponent));
}

float bfloat16_to_float(std::uint16_t bits) { return bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

std::uint16_t float_to_bfloat16(float value) {
  const std::uint32_t bits = bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = bits & 0x80000000u, magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);  // stays a (quiet) NaN
  // The top 16 bits, rounded; a carry past the largest finite value gives ∞, as it should.
  return static_cast<std::uint16_t>((sign >> 16) | shift_right_rounding(magnitude, 16));
}

}  // namespace attnlab
