// The Unicode character classes GPT-2's pre-tokenisation rule uses (bpe.cpp): \p{L}, \p{N} and \s.
// The tables are generated (scripts/make_unicode_classes.py); see unicode_classes.cpp for the version.
#pragma once

namespace attnlab::unicode {

bool is_letter(char32_t c);      // \p{L}: Lu, Ll, Lt, Lm, Lo
bool is_number(char32_t c);      // \p{N}: Nd, Nl, No
bool is_whitespace(char32_t c);  // \s: Unicode White_Space

}  // namespace attnlab::unicode
