// The Unicode character classes GPT-2's pre-tokenisation rule uses (bpe.cpp): \p{L}, \p{N} and \s.
// The tables are generated (scripts/make_unicode_classes.py) from Unicode 14.0.0, the version of
// Debian 12's Python 3.11 unicodedata; unicode_classes.cpp's first line says which version it holds.
// A code point the tables' Unicode version has not assigned is in none of the classes.
#pragma once

namespace attnlab::unicode {

bool is_letter(char32_t c);      // \p{L}: Lu, Ll, Lt, Lm, Lo
bool is_number(char32_t c);      // \p{N}: Nd, Nl, No
bool is_whitespace(char32_t c);  // \s as GPT-2's `regex` module has it: Unicode's White_Space property

}  // namespace attnlab::unicode
