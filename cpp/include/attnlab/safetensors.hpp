// The .safetensors format (Hugging Face), read and written: 8 bytes of little-endian header length N,
// N bytes of JSON header { "<name>": { "dtype", "shape", "data_offsets": [begin, end] }, …,
// "__metadata__": { "<key>": "<string>" } }, then the tensors' raw little-endian bytes, offsets
// counted from the end of the header. attnlab reads F32, F16 and BF16 tensors (widened to float32
// exactly) and writes F32, F16 or BF16 (rounded to nearest, ties to even).
//
// Every file is checked before any tensor is read: a truncated file, a header that is too long or not
// JSON, a tensor with an unknown dtype, a shape whose size disagrees with its byte range, offsets
// outside the data or overlapping another tensor's — each is an attnlab::Error saying what is wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

enum class DType { F32, F16, BF16 };

std::string_view dtype_name(DType dtype);  // "F32", "F16", "BF16"
std::size_t dtype_size(DType dtype);       // 4, 2, 2

// One tensor's entry in a file's header.
struct SafetensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;  // [] for a scalar
  std::size_t begin = 0, end = 0;   // byte range within the data section (after the header)
  std::int64_t element_count() const;  // the product of shape (1 for a scalar)
};

// A parsed, checked header. The tensors' bytes stay in the caller's buffer.
struct SafetensorsHeader {
  std::vector<SafetensorInfo> tensors;          // in the order of their data offsets
  std::map<std::string, std::string> metadata;  // "__metadata__" (string values only, as the format says)
  std::map<std::string, std::string> unreadable;  // tensors attnlab cannot widen to float32 → their dtype
  std::size_t data_start = 0;                   // 8 + header length: where offset 0 is in the file
  const SafetensorInfo* find(std::string_view name) const;  // nullptr if absent
};

// The header of `file` (the whole file's bytes), checked as above. Headers longer than 100 MB are
// refused (the format's own limit). Tensors of the format's other dtypes (F64, I64, U8, BOOL, …) are
// listed too, with their byte ranges checked, and named in `unreadable`: read_tensor refuses them,
// naming the dtype. A key given twice in the JSON keeps its last value (nlohmann/json's rule).
SafetensorsHeader parse_safetensors(std::span<const std::uint8_t> file);

// Tensor `info`'s values as float32, row-major, into `out` (info.element_count() floats).
void read_tensor(std::span<const std::uint8_t> file, const SafetensorsHeader& header, const SafetensorInfo& info,
                 float* out);

// A tensor to write: its name, shape and float32 values (product of shape floats).
struct TensorToWrite {
  std::string name;
  std::vector<std::int64_t> shape;
  const float* values = nullptr;
};

// A .safetensors file holding `tensors` converted to `dtype`, with `metadata` as "__metadata__".
// Names must be unique and non-empty; the header is padded with spaces to a multiple of 8 bytes.
std::vector<std::uint8_t> write_safetensors(const std::vector<TensorToWrite>& tensors, DType dtype,
                                            const std::map<std::string, std::string>& metadata = {});

// IEEE 754 half and bfloat16 conversions (exact widening; narrowing rounds to nearest, ties to even,
// overflow to ±∞, NaN stays NaN).
float half_to_float(std::uint16_t bits);
std::uint16_t float_to_half(float value);
float bfloat16_to_float(std::uint16_t bits);
std::uint16_t float_to_bfloat16(float value);

}  // namespace attnlab
