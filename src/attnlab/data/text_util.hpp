// Small text helpers shared by the data readers and the metrics: UTF-8 writing, lines,
// splitting at separators.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::data {

// Reads the line of text that starts at pos (up to '\n' or the end, without the '\n') into
// line and moves pos past it; false when pos is at the end of text.
inline bool read_line(const std::string& text, size_t& pos, std::string& line) {
  if (pos >= text.size()) return false;
  size_t end = text.find('\n', pos);
  if (end == std::string::npos) end = text.size();
  line.assign(text, pos, end - pos);
  pos = end + 1;
  return true;
}

// Appends code point cp as UTF-8; a surrogate or a value past U+10FFFF becomes U+FFFD.
inline void append_utf8(std::string& out, uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The non-empty runs between separators of seq (chars or code points): is_sep(c) tells a
// separator, append(run, c) adds any other element to the current run.
template <class Seq, class IsSep, class Append>
std::vector<std::string> split_runs(const Seq& seq, IsSep is_sep, Append append) {
  std::vector<std::string> out;
  std::string cur;
  for (const auto c : seq) {
    if (is_sep(c)) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      append(cur, c);
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

}  // namespace attnlab::data
