// SafetensorsStream: the file's bytes in order, never kept. Two phases: the first 8 + N bytes are
// gathered and parsed (parse_safetensors_header, against the whole file's size), then every later byte
// belongs to the gap between tensors or to one tensor's range (sorted by begin, disjoint: the header's
// checks), and is widened where the caller said, a piece at a time.
#include "attnlab/io/safetensors_stream.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "io/safetensors_values.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {
constexpr const char* kStream = "SafetensorsStream";
}  // namespace

SafetensorsStream::SafetensorsStream(std::uint64_t file_size, Destinations destinations)
    : file_size_(file_size), destinations_(std::move(destinations)) {
  if (!destinations_) detail::fail(kStream, "destinations is empty: give a function saying where each tensor goes");
}

const SafetensorsHeader& SafetensorsStream::header() const {
  if (header_) return *header_;
  // Not all of it has come: a file shorter than its own header says so in parse_safetensors' words.
  if (complete()) (void)parse_safetensors_header(start_, file_size_);
  detail::fail(kStream, "the header is not in yet: ", received_, " of the file's ", file_size_, " bytes have come");
}

void SafetensorsStream::feed(std::span<const std::uint8_t> bytes) {
  if (bytes.size() > file_size_ - received_)
    detail::fail(kStream, "given ", bytes.size(), " more bytes after ", received_, ", past the file's ", file_size_);
  if (!header_) take_header_bytes(bytes);
  if (!bytes.empty()) take_data_bytes(bytes);
}

// Where the header ends (8 + its length), once start_ holds the 8 bytes of the length; a length past the
// file or the format's limit is refused here, in parse_safetensors' words, before more is gathered.
std::size_t SafetensorsStream::header_end() const {
  std::uint64_t length;
  std::memcpy(&length, start_.data(), 8);
  if (length > file_size_ - 8 || length > detail::kMaxSafetensorsHeader) (void)parse_safetensors_header(start_, file_size_);
  return 8 + static_cast<std::size_t>(length);
}

void SafetensorsStream::take_header_bytes(std::span<const std::uint8_t>& bytes) {
  // Byte 8 too before the length is trusted: a file that is not a .safetensors one (its byte 8 is not
  // the header's '{') is named as such, not as a file with an absurd header length.
  const std::size_t prefix = file_size_ > 8 ? 9 : 8;
  while (!header_ && !bytes.empty()) {
    const std::size_t wanted = start_.size() < prefix ? prefix : header_end();
    const std::size_t take = std::min(bytes.size(), wanted - start_.size());
    start_.insert(start_.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(take));
    bytes = bytes.subspan(take);
    received_ += take;
    if (start_.size() >= prefix && start_.size() >= header_end()) parse_header();
  }
}

void SafetensorsStream::parse_header() {
  header_ = parse_safetensors_header(start_, file_size_);
  // Bytes gathered past the header (its length was under 1 byte's worth of prefix) are data.
  const std::vector<std::uint8_t> extra(start_.begin() + static_cast<std::ptrdiff_t>(header_->data_start), start_.end());
  start_ = {};
  out_ = destinations_(*header_);
  if (out_.size() != header_->tensors.size())
    detail::fail(kStream, "destinations gave a list of ", out_.size(), " for the header's ", header_->tensors.size(), " tensors");
  for (std::size_t t = 0; t < out_.size(); ++t) {
    const SafetensorInfo& info = header_->tensors[t];
    if (!out_[t].wanted()) continue;
    if (const auto it = header_->unreadable.find(info.name); it != header_->unreadable.end())
      detail::fail(kStream, "tensor '", info.name, "' is ", it->second, ": attnlab reads F32, F16 and BF16");
  }
  if (!extra.empty()) {
    received_ -= extra.size();
    take_data_bytes(extra);
  }
}

void SafetensorsStream::take_data_bytes(std::span<const std::uint8_t> bytes) {
  const std::uint64_t first = received_ - header_->data_start;  // data offset of bytes[0]
  const std::uint64_t last = first + bytes.size();
  received_ += bytes.size();
  const std::vector<SafetensorInfo>& tensors = header_->tensors;
  while (next_ < tensors.size() && tensors[next_].end <= first) ++next_;
  for (std::size_t t = next_; t < tensors.size() && tensors[t].begin < last; ++t) {
    const SafetensorInfo& info = tensors[t];
    const std::uint64_t lo = std::max<std::uint64_t>(info.begin, first), hi = std::min<std::uint64_t>(info.end, last);
    if (lo >= hi || !out_[t].wanted()) continue;
    write(t, lo, bytes.subspan(static_cast<std::size_t>(lo - first), static_cast<std::size_t>(hi - lo)));
  }
}

// `bytes` of tensor `tensor`, starting at data offset `offset`: whole values widened, a value split at
// the piece's end kept in pending_ until the next piece completes it (a value never spans two tensors:
// each tensor's size is a whole number of values).
void SafetensorsStream::write(std::size_t tensor, std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  const SafetensorInfo& info = header_->tensors[tensor];
  const std::size_t value_size = dtype_size(info.dtype);
  std::size_t at = static_cast<std::size_t>(offset - info.begin);  // bytes into the tensor
  if (out_[tensor].bytes) {  // kept as the file holds it: a value split between pieces needs no care
    std::memcpy(out_[tensor].bytes + at, bytes.data(), bytes.size());
    return;
  }
  float* out = out_[tensor].floats;
  if (pending_size_ > 0) {
    const std::size_t take = std::min(value_size - pending_size_, bytes.size());
    std::memcpy(pending_ + pending_size_, bytes.data(), take);
    pending_size_ += take;
    bytes = bytes.subspan(take);
    at += take;
    if (pending_size_ < value_size) return;
    detail::read_values(pending_, info.dtype, 1, out + (at - value_size) / value_size);
    pending_size_ = 0;
  }
  const std::size_t whole = bytes.size() / value_size;
  detail::read_values(bytes.data(), info.dtype, whole, out + at / value_size);
  pending_size_ = bytes.size() - whole * value_size;
  std::memcpy(pending_, bytes.data() + whole * value_size, pending_size_);
}

}  // namespace attnlab
