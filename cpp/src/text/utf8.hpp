// UTF-8, read leniently, for the tokenizers (bpe.cpp, hf_tokenizer.cpp): an invalid byte is a
// character of its own, so any bytes can be split into characters and nothing is lost.
#pragma once

#include <cstddef>
#include <string_view>

namespace attnlab::utf8 {

inline constexpr char32_t kInvalid = 0xFFFFFFFF;

struct Character {
  char32_t code;     // the code point, or kInvalid for a byte that does not start valid UTF-8
  std::size_t size;  // its bytes (1 for an invalid byte)
};

// The character at text[i] (i < text.size()). Overlong forms, surrogates, code points past U+10FFFF
// and truncated sequences are not UTF-8: their first byte comes back as one invalid character, so
// the bytes after it are read again as characters of their own.
inline Character next_character(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return {b0, 1};
  const std::size_t size = b0 >= 0xC2 && b0 <= 0xDF   ? 2
                           : b0 >= 0xE0 && b0 <= 0xEF ? 3
                           : b0 >= 0xF0 && b0 <= 0xF4 ? 4
                                                      : 0;
  if (size == 0 || size > text.size() - i) return {kInvalid, 1};
  char32_t code = b0 & (0x7F >> size);
  for (std::size_t k = 1; k < size; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {kInvalid, 1};
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  constexpr char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};  // by size: below it is overlong
  if (code < kSmallest[size] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return {kInvalid, 1};
  return {code, size};
}

}  // namespace attnlab::utf8
