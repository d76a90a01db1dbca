// A .safetensors file read as its bytes arrive — a file read from disk in pieces, a browser's
// File.stream() — instead of whole: the header is parsed and checked as parse_safetensors checks it once
// its bytes are in, then each tensor's values are widened to float32 (or copied as they are) straight
// into the place the caller chose for it. Memory: the header's bytes and at most one value split between two pieces;
// never the file, so a checkpoint's load needs its weights and not its weights plus its file.
//
//   SafetensorsStream stream(file_size, [&](const SafetensorsHeader& header) {
//     std::vector<TensorDestination> out;           // one per header.tensors entry, in that order:
//     for (const SafetensorInfo& info : header.tensors) out.push_back({.floats = where(info)});   // {} skips one
//     return out;
//   });
//   while (…) stream.feed(piece);                   // the file's bytes in order, pieces of any size
//   stream.complete();                               // true once file_size bytes came
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "attnlab/io/safetensors.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// Where one tensor's values go: widened to float32 into `floats` (element_count() of them), or its bytes
// copied as the file holds them (little-endian, its dtype) into `bytes`; neither: skipped.
struct TensorDestination {
  float* floats = nullptr;
  std::uint8_t* bytes = nullptr;
  bool wanted() const { return floats || bytes; }
};

class SafetensorsStream {
 public:
  // Called once, with the checked header: where each tensor goes, in header.tensors' order. It may throw
  // to refuse the file; feed() passes the Error on.
  using Destinations = std::function<std::vector<TensorDestination>(const SafetensorsHeader&)>;

  SafetensorsStream(std::uint64_t file_size, Destinations destinations);

  // The file's next bytes. Error (naming the sizes) past file_size; the header's errors as
  // parse_safetensors words them; a wanted tensor of a dtype attnlab cannot widen (naming it).
  void feed(std::span<const std::uint8_t> bytes);

  std::uint64_t file_size() const { return file_size_; }
  std::uint64_t received() const { return received_; }
  bool complete() const { return received_ == file_size_; }
  // The header once its bytes are in; before then, Error (a file too short to hold one says so).
  const SafetensorsHeader& header() const;

 private:
  std::size_t header_end() const;
  void take_header_bytes(std::span<const std::uint8_t>& bytes);
  void parse_header();
  // Data-section bytes from offset received_ − data_start on: each wanted tensor's part widened.
  void take_data_bytes(std::span<const std::uint8_t> bytes);
  void write(std::size_t tensor, std::uint64_t offset, std::span<const std::uint8_t> bytes);

  std::uint64_t file_size_ = 0;
  std::uint64_t received_ = 0;
  Destinations destinations_;
  std::vector<std::uint8_t> start_;           // the length and header, until parsed
  std::optional<SafetensorsHeader> header_;
  std::vector<TensorDestination> out_;        // per header_->tensors entry
  std::size_t next_ = 0;                      // the first tensor not yet wholly received
  std::uint8_t pending_[4] = {};              // a value split between two pieces
  std::size_t pending_size_ = 0;
};

}  // namespace attnlab
ATTNLAB_API_END
