// Internal to the e-mail pipeline (email*.cpp), not part of the API: the byte,
// UTF-8 and line helpers every stage uses, and the one cross-stage function.
// Plain ASCII classification on bytes; the UTF-8 readers assume nothing about
// their input (utf8_valid_len checks shortest form, surrogates and range).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/data/text_util.hpp"

namespace attnlab::data::email_detail {

// ------------------------------------------------------------------ bytes
inline bool is_space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
inline bool is_hspace(unsigned char c) { return c == ' ' || c == '\t'; }
inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
inline bool is_alpha(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
inline bool is_alnum(unsigned char c) { return is_digit(c) || is_alpha(c); }
inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
inline int hex_val(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c |= 0x20;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

inline std::string to_lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = lower(c);
  return r;
}
inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}
inline bool istarts_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && iequals(s.substr(0, p.size()), p);
}
inline std::string_view trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && is_space(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && is_space(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// ------------------------------------------------------------------ UTF-8
using data::append_utf8;  // data/text_util.hpp

// Length of the valid UTF-8 sequence starting at s[i] (0 if invalid), and its code point.
inline size_t utf8_valid_len(std::string_view s, size_t i, uint32_t* cp_out) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *cp_out = b0;
    return 1;
  }
  size_t n;
  uint32_t cp, lo;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2, cp = b0 & 0x1F, lo = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3, cp = b0 & 0x0F, lo = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4, cp = b0 & 0x07, lo = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < lo || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *cp_out = cp;
  return n;
}

// Decodes one code point of already-valid UTF-8 (output of sanitize_utf8).
inline uint32_t next_cp(std::string_view s, size_t i, size_t* len) {
  uint32_t cp;
  size_t n = utf8_valid_len(s, i, &cp);
  if (n == 0) {  // should not happen on sanitized text; treat as U+FFFD
    *len = 1;
    return 0xFFFD;
  }
  *len = n;
  return cp;
}

// Cut position <= n that does not split a UTF-8 sequence.
inline size_t utf8_cut(std::string_view s, size_t n) {
  if (n >= s.size()) return s.size();
  size_t k = n;
  // back up over at most 3 continuation bytes to the lead byte
  for (int i = 0; i < 3 && k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80; ++i) --k;
  return k;
}

// windows-1252's 0x80-0x9F (U+FFFD where it has none): charset conversion
// (email_mime.cpp) and numeric entities &#128;-&#159; (email_html.cpp).
inline constexpr uint16_t kCp1252[32] = {
    0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
    0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178};

// Unicode white space (ASCII, NBSP, U+2000-U+200B, U+202F, U+205F, U+3000).
inline bool is_space_cp(uint32_t cp) {
  return (cp < 0x80 && is_space(static_cast<unsigned char>(cp))) || cp == 0xA0 ||
         (cp >= 0x2000 && cp <= 0x200B) || cp == 0x3000 || cp == 0x202F || cp == 0x205F;
}

// Next line of s from pos: [pos, eol), and *next = start of the following line.
inline std::string_view next_line(std::string_view s, size_t pos, size_t* next) {
  size_t e = s.find('\n', pos);
  if (e == std::string_view::npos) {
    *next = s.size();
    e = s.size();
  } else {
    *next = e + 1;
  }
  size_t le = e;
  if (le > pos && s[le - 1] == '\r') --le;
  return s.substr(pos, le - pos);
}

// Step 6's sentence splitter for one segment without line breaks (email_sentences.cpp);
// tokenize_email also runs the subject through it.
void split_segment(std::string_view seg, std::vector<std::string>& out);

}  // namespace attnlab::data::email_detail
