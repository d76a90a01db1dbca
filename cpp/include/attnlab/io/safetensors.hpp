// The .safetensors format (Hugging Face), read and written: 8 bytes of little-endian header length N,
// N bytes of JSON header { "<name>": { "dtype", "shape", "data_offsets": [begin, end] }, …,
// "__metadata__": { "<key>": "<string>" } }, then the tensors' raw little-endian bytes, offsets
// counted from the end of the header. attnlab reads F32, F16 and BF16 tensors (widened to float32
// exactly) and writes F32, F16 or BF16 (rounded to nearest, ties to even).
//
// Every file is checked before any tensor is read: a truncated file, a header that is too long or not
// JSON, a key given twice, a tensor with an unknown dtype, a shape whose size disagrees with its byte
// range (computed without overflow), offsets outside the data or overlapping another tensor's — each
// is an attnlab::Error naming the function, the tensor and the numbers.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

ATTNLAB_API_BEGIN
namespace attnlab {

enum class DType { F32, F16, BF16 };

// A whole file's bytes, for the from_safetensors calls that take a path: Error naming `function` and the
// path when it cannot be opened or read.
std::vector<std::uint8_t> read_file_bytes(const char* function, const std::filesystem::path& path);

std::string_view dtype_name(DType dtype);  // "F32", "F16", "BF16"
std::size_t dtype_size(DType dtype);       // 4, 2, 2

// One tensor's entry in a file's header.
struct SafetensorInfo {
  std::string name;
  DType dtype = DType::F32;         // for a tensor named in SafetensorsHeader::unreadable: F32, meaningless
  std::vector<std::int64_t> shape;  // [] for a scalar
  std::size_t begin = 0, end = 0;   // byte range within the data section (after the header)
  // The product of shape (1 for a scalar, 0 if any extent is 0). Error if it passes 2^63 − 1, which
  // only an info made or changed by hand can do: parse_safetensors checks every shape against its bytes.
  std::int64_t element_count() const;
};

// "[2, 3]", "[]" for a scalar: a shape as the file's JSON header writes it, for messages about a file.
std::string header_shape_text(const std::vector<std::int64_t>& shape);

// A parsed, checked header. The tensors' bytes stay in the caller's buffer.
struct SafetensorsHeader {
  std::vector<SafetensorInfo> tensors;          // in the order of their data offsets (then name)
  std::map<std::string, std::string> metadata;  // "__metadata__" (string values only, as the format says)
  std::map<std::string, std::string> unreadable;  // tensors attnlab cannot widen to float32 → their dtype
  std::size_t data_start = 0;                   // 8 + header length: where offset 0 is in the file
  const SafetensorInfo* find(std::string_view name) const;  // nullptr if absent
};

// The header of `file` (the whole file's bytes), checked as above. Refused besides: a header longer
// than 100,000,000 bytes (the format's own limit) or whose parsed JSON could exceed the memory budget
// (about 40 bytes per header byte; limits.hpp); a tensor name, a tensor's field or a metadata key given
// twice (nlohmann/json would silently keep the last, so the file says two things); a dtype the format
// does not name. Tensors of the format's other dtypes (F64, C64, I64, U8, BOOL, F8_*, F6_*, F4, …) are
// listed too, with their byte ranges checked, and named in `unreadable` with their dtype: read_tensor
// refuses them, naming it. Accepted as harmless, though the format's own writer never makes them: gaps
// between tensors and bytes after the last, empty tensors anywhere, fields besides dtype, shape and
// data_offsets (ignored), an empty tensor name.
SafetensorsHeader parse_safetensors(std::span<const std::uint8_t> file);
// The same from the file's first bytes only (at least the 8 + N of the length and the header: a file
// read in pieces, SafetensorsStream) and its whole size, against which every tensor's range is checked.
SafetensorsHeader parse_safetensors_header(std::span<const std::uint8_t> start, std::uint64_t file_size);

// Tensor `info`'s values as float32, row-major, into `out` (info.element_count() floats). Error for a
// tensor in header.unreadable (naming its dtype), and for an info whose byte range is not inside this
// file's data or does not match its shape (one made or changed by hand, or a header from another file).
void read_tensor(std::span<const std::uint8_t> file, const SafetensorsHeader& header, const SafetensorInfo& info,
                 float* out);

// A tensor to write: its name, shape and float32 values (product of shape floats).
struct TensorToWrite {
  std::string name;
  std::vector<std::int64_t> shape;
  const float* values = nullptr;
};

// A .safetensors file holding `tensors` converted to `dtype`, with `metadata` as "__metadata__".
// Names must be unique, non-empty, not "__metadata__" and valid UTF-8 (JSON's text), as must the
// metadata; extents non-negative. The header lists __metadata__ first, then the tensors in the order
// given, with consecutive data_offsets; it is padded with spaces to a multiple of 8 bytes, as the
// format's own writer pads it, so the data starts 8-byte aligned.
std::vector<std::uint8_t> write_safetensors(const std::vector<TensorToWrite>& tensors, DType dtype,
                                            const std::map<std::string, std::string>& metadata = {});

// IEEE 754 half and bfloat16 conversions: widening is exact (subnormals, ±0, ±∞ and NaN included);
// narrowing rounds to nearest, ties to even, into subnormals too, overflows to ±∞ (half: from 65520),
// and keeps NaN a (quiet) NaN.
float half_to_float(std::uint16_t bits);
std::uint16_t float_to_half(float value);
float bfloat16_to_float(std::uint16_t bits);
std::uint16_t float_to_bfloat16(float value);

}  // namespace attnlab
ATTNLAB_API_END
