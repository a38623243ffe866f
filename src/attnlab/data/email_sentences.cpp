// E-mail pipeline, sentences: decoded body text -> sentence texts
// (split_sentences, step 6 of the pipeline in email.hpp).
//
//  6. Sentences: the subject is the first sentence. The body splits at blank
//     lines (paragraphs), at a line break after a short line (< 40 bytes: greetings,
//     signatures, lists) or before a list/quote marker, and after ., ! or ? (runs
//     thereof, optionally followed by closing quotes/brackets) followed by
//     whitespace, except after common abbreviations (e.g., mr., etc.) and
//     single-letter initials. Other line breaks inside a paragraph join wrapped
//     lines. Leading quote markers (">") are removed from each line. A
//     sentence's text is trimmed and its whitespace collapsed to single spaces.
#include "attnlab/data/email.hpp"

#include "attnlab/data/email_detail.hpp"

namespace attnlab::data {

using namespace email_detail;

namespace {

bool is_abbreviation(std::string_view word) {
  static const char* const abbr[] = {"mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs",
                                     "etc", "e.g", "i.e", "inc", "ltd", "co", "corp", "no",
                                     "fig", "approx", "dept", "est", "ave", "u.s", "jan", "feb",
                                     "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
                                     "nov", "dec", "mon", "tue", "wed", "thu", "fri", "sat",
                                     "sun", "p.s", "a.m", "p.m", "ph.d", "cf", "al"};
  for (const char* a : abbr)
    if (iequals(word, a)) return true;
  // a single letter (an initial)
  return word.size() == 1 && is_alpha(static_cast<unsigned char>(word[0]));
}

bool starts_list_item(std::string_view line) {
  if (line.empty()) return false;
  const auto c = static_cast<unsigned char>(line[0]);
  if (c == '-' || c == '*' || c == '+' || c == '#' || c == '|' || c == '=') return true;
  if (line.size() >= 3 && static_cast<unsigned char>(line[0]) == 0xE2 &&
      static_cast<unsigned char>(line[1]) == 0x80 && static_cast<unsigned char>(line[2]) == 0xA2)
    return true;  // U+2022 bullet
  size_t i = 0;
  while (i < line.size() && is_digit(static_cast<unsigned char>(line[i]))) ++i;
  return i > 0 && i < 4 && i < line.size() && (line[i] == '.' || line[i] == ')');
}

// Line without its leading quote markers ("> > text" -> "text").
std::string_view strip_quote(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == '>' || is_hspace(static_cast<unsigned char>(line[i])))) ++i;
  return trim(line.substr(i));
}

}  // namespace

// Appends the sentences of one segment (a paragraph piece without breaks).
void email_detail::split_segment(std::string_view seg, std::vector<std::string>& out) {
  // collapse whitespace first
  std::string t;
  t.reserve(seg.size());
  bool space = false;
  for (size_t i = 0; i < seg.size();) {
    const auto c = static_cast<unsigned char>(seg[i]);
    size_t n = 1;
    bool ws = false;
    if (c < 0x80) {
      ws = is_space(c) || c < 0x20 || c == 0x7F;
    } else {
      uint32_t cp = next_cp(seg, i, &n);
      ws = is_space_cp(cp);
    }
    if (ws) {
      space = true;
    } else {
      if (space && !t.empty()) t += ' ';
      space = false;
      t.append(seg.data() + i, n);
    }
    i += n;
  }
  size_t start = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c != '.' && c != '!' && c != '?') continue;
    size_t j = i;
    while (j < t.size() && (t[j] == '.' || t[j] == '!' || t[j] == '?')) ++j;
    while (j < t.size() && (t[j] == '"' || t[j] == '\'' || t[j] == ')' || t[j] == ']')) ++j;
    if (j < t.size() && t[j] != ' ') {
      i = j - 1;
      continue;
    }
    if (c == '.' && j == i + 1) {  // a single '.': abbreviation or initial?
      size_t w = i;
      while (w > start && t[w - 1] != ' ') --w;
      std::string_view word(t.data() + w, i - w);
      while (!word.empty() && !is_alnum(static_cast<unsigned char>(word.front()))) word.remove_prefix(1);
      if (is_abbreviation(word)) {
        i = j - 1;
        continue;
      }
    }
    std::string_view s = trim(std::string_view(t).substr(start, j - start));
    if (!s.empty()) out.emplace_back(s);
    start = j;
    i = j - 1;
  }
  std::string_view s = trim(std::string_view(t).substr(start));
  if (!s.empty()) out.emplace_back(s);
}

std::vector<std::string> split_sentences(std::string_view text) {
  std::vector<std::string> out;
  std::string seg;  // current segment (lines joined by spaces)
  size_t prev_len = 0;
  bool prev_colon = false;
  auto flush = [&]() {
    if (!seg.empty()) split_segment(seg, out);
    seg.clear();
  };
  size_t pos = 0, next;
  while (pos < text.size()) {
    std::string_view line = next_line(text, pos, &next);
    // a lone '\r' also breaks lines (old Mac text)
    if (line.find('\r') != std::string_view::npos) {
      size_t cr = line.find('\r');
      next = pos + cr + 1;
      line = line.substr(0, cr);
    }
    pos = next;
    const std::string_view l = strip_quote(line);
    if (l.empty()) {  // paragraph break
      flush();
      prev_len = 0;
      continue;
    }
    if (!seg.empty() && (prev_len < 40 || prev_colon || starts_list_item(l))) flush();
    if (!seg.empty()) seg += ' ';
    seg.append(l.data(), l.size());
    prev_len = l.size();
    prev_colon = l.back() == ':';
  }
  flush();
  return out;
}

}  // namespace attnlab::data
