// E-mail pipeline, words: one sentence -> word tokens (tokenize_words, step 7
// of the pipeline in email.hpp).
//
//  7. Words (tokenize_words): whitespace-separated chunks, stripped of
//     surrounding punctuation; a chunk starting with http://, https://, ftp://,
//     www. -> <url>; mailto: or local@domain.tld -> <email>; a bare domain with a
//     common TLD (example.com, foo.co.uk/path) -> <url>. Otherwise the chunk
//     splits into runs of word characters (ASCII letters and digits, and
//     non-ASCII letters: every code point >= U+0080 except spaces, punctuation,
//     symbols, private use, emoji and U+FFFD); an apostrophe (' or U+2019)
//     between letters stays inside the word (as '), and . , : / - between digits
//     glue a number (1,000.50, 12:30, 2002-08-22). A run of digits and those
//     separators -> <num>; any other run -> lowercased (ASCII, Latin-1,
//     Latin Extended-A, Greek and Cyrillic capitals). Punctuation is dropped.
//     Sentences without tokens are dropped.
#include "attnlab/data/email.hpp"

#include <cstring>

#include "attnlab/data/email_detail.hpp"

namespace attnlab::data {

using namespace email_detail;

namespace {

bool is_word_cp(uint32_t cp) {
  if (cp < 0x80) return is_alnum(static_cast<unsigned char>(cp));
  if (cp <= 0xBF) return cp == 0xAA || cp == 0xB5 || cp == 0xBA;  // C1 controls, Latin-1 punct.
  if (cp == 0xD7 || cp == 0xF7) return false;
  if (cp >= 0x2000 && cp <= 0x2BFF) return false;  // punctuation, currency, symbols, arrows, boxes
  if (cp >= 0x3000 && cp <= 0x303F) return false;  // CJK punctuation
  if (cp >= 0xE000 && cp <= 0xF8FF) return false;  // private use
  if (cp >= 0xFE00 && cp <= 0xFE0F) return false;  // variation selectors
  if (cp >= 0xFF00 && cp <= 0xFF0F) return false;  // fullwidth punctuation
  if (cp >= 0xFFF0 && cp <= 0xFFFF) return false;  // specials incl. U+FFFD
  if (cp >= 0x1F000 && cp <= 0x1FAFF) return false;  // emoji, symbols
  return true;
}
uint32_t lower_cp(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 0x20;
  if (cp >= 0x100 && cp <= 0x17F) {
    if ((cp <= 0x137 || (cp >= 0x14A && cp <= 0x177)) && cp % 2 == 0) return cp + 1;
    if (((cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E)) && cp % 2 == 1)
      return cp + 1;
    if (cp == 0x178) return 0xFF;
    return cp;
  }
  if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) return cp + 0x20;
  if (cp >= 0x410 && cp <= 0x42F) return cp + 0x20;
  if (cp >= 0x400 && cp <= 0x40F) return cp + 0x50;
  return cp;
}
bool is_apostrophe_cp(uint32_t cp) { return cp == '\'' || cp == 0x2019; }
bool is_num_glue(uint32_t cp) { return cp == '.' || cp == ',' || cp == ':' || cp == '/' || cp == '-'; }

const char* const kTlds[] = {"com", "net", "org", "edu", "gov", "mil", "biz", "info", "us",
                             "uk",  "de",  "ca",  "au",  "fr",  "jp",  "ru",  "nl",   "ch",
                             "se",  "tv",  "cc",  "ws",  "io",  "cn",  "kr", "br",   "be",
                             "at",  "dk",  "no",  "pl",  "name", "mobi", "ie", "nz",  "za"};

bool is_domain_like(std::string_view s) {
  // label(.label)+ with a known TLD, optionally followed by / path or :port
  size_t end = s.size();
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == '/' || s[i] == ':' || s[i] == '?') {
      end = i;
      break;
    }
  std::string_view host = s.substr(0, end);
  if (host.size() < 4) return false;
  size_t dots = 0, label = 0;
  for (size_t i = 0; i < host.size(); ++i) {
    const auto c = static_cast<unsigned char>(host[i]);
    if (c == '.') {
      if (label == 0) return false;
      ++dots, label = 0;
    } else if (is_alnum(c) || c == '-') {
      ++label;
    } else {
      return false;
    }
  }
  if (dots == 0 || label == 0) return false;
  const std::string tld = to_lower(host.substr(host.rfind('.') + 1));
  for (const char* t : kTlds)
    if (tld == t) return true;
  return false;
}

bool is_email_like(std::string_view s) {
  const size_t at = s.find('@');
  if (at == 0 || at == std::string_view::npos || at + 1 >= s.size()) return false;
  if (s.find('@', at + 1) != std::string_view::npos) return false;
  for (size_t i = 0; i < at; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (!(is_alnum(c) || std::strchr("._%+-=!#$&*/?^{|}~'", c))) return false;
  }
  std::string_view dom = s.substr(at + 1);
  if (dom.find('.') == std::string_view::npos) return false;
  for (char ch : dom) {
    const auto c = static_cast<unsigned char>(ch);
    if (!(is_alnum(c) || c == '.' || c == '-')) return false;
  }
  return dom.front() != '.' && dom.back() != '.';
}

void emit(std::vector<std::string>& toks, std::vector<TokenSpan>* spans, std::string tok,
          size_t b, size_t e) {
  toks.push_back(std::move(tok));
  if (spans) spans->push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(e - b)});
}

// One whitespace-free chunk s[a, b).
void tokenize_chunk(std::string_view s, size_t a, size_t b, std::vector<std::string>& toks,
                    std::vector<TokenSpan>* spans) {
  // strip surrounding non-word characters (keeping the chunk's core)
  size_t ca = a, cb = b;
  while (ca < cb) {
    size_t n;
    const uint32_t cp = next_cp(s, ca, &n);
    if (is_word_cp(cp)) break;
    ca += n;
  }
  while (cb > ca) {
    size_t k = cb - 1;
    while (k > ca && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
    size_t n;
    const uint32_t cp = next_cp(s, k, &n);
    if (is_word_cp(cp) || cp == '/') break;  // keep a trailing '/' of a URL
    cb = k;
  }
  if (ca >= cb) return;
  std::string_view core = s.substr(ca, cb - ca);
  // URL / e-mail: the original chunk may start with '<' or '(' which we stripped.
  if (istarts_with(core, "http://") || istarts_with(core, "https://") ||
      istarts_with(core, "ftp://") || istarts_with(core, "www.")) {
    emit(toks, spans, kUrlToken, ca, cb);
    return;
  }
  if (istarts_with(core, "mailto:") || is_email_like(core)) {
    emit(toks, spans, kEmailToken, ca, cb);
    return;
  }
  if (core.find('.') != std::string_view::npos && is_domain_like(core)) {
    emit(toks, spans, kUrlToken, ca, cb);
    return;
  }
  // runs of word characters
  size_t i = ca;
  while (i < cb) {
    size_t n;
    uint32_t cp = next_cp(s, i, &n);
    if (!is_word_cp(cp)) {
      i += n;
      continue;
    }
    const size_t start = i;
    bool only_num = true;
    uint32_t prev = 0;
    std::string tok;
    while (i < cb) {
      cp = next_cp(s, i, &n);
      if (is_word_cp(cp)) {
        if (!(cp < 0x80 && is_digit(static_cast<unsigned char>(cp)))) only_num = false;
        append_utf8(tok, lower_cp(cp));
        prev = cp;
        i += n;
        continue;
      }
      // glue characters need a word character on both sides
      if (i + n >= cb) break;
      size_t n2;
      const uint32_t nx = next_cp(s, i + n, &n2);
      const bool prev_digit = prev < 0x80 && is_digit(static_cast<unsigned char>(prev));
      const bool next_digit = nx < 0x80 && is_digit(static_cast<unsigned char>(nx));
      if (is_apostrophe_cp(cp) && is_word_cp(prev) && !prev_digit && is_word_cp(nx) &&
          !next_digit) {
        tok += '\'';
        prev = cp;
        i += n;
        continue;
      }
      if (is_num_glue(cp) && prev_digit && next_digit) {
        tok += static_cast<char>(cp);
        prev = cp;
        i += n;
        continue;
      }
      break;
    }
    emit(toks, spans, only_num ? std::string(kNumToken) : std::move(tok), start, i);
  }
}

}  // namespace

std::vector<std::string> tokenize_words(std::string_view s, std::vector<TokenSpan>* spans) {
  std::vector<std::string> toks;
  if (spans) spans->clear();
  size_t i = 0;
  while (i < s.size()) {
    // skip whitespace
    size_t n = 1;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (is_space(c)) {
        ++i;
        continue;
      }
    } else if (is_space_cp(next_cp(s, i, &n))) {
      i += n;
      continue;
    }
    size_t j = i;
    while (j < s.size()) {
      const auto cj = static_cast<unsigned char>(s[j]);
      if (cj < 0x80) {
        if (is_space(cj)) break;
        ++j;
      } else {
        size_t m;
        if (is_space_cp(next_cp(s, j, &m))) break;
        j += m;
      }
    }
    tokenize_chunk(s, i, j, toks, spans);
    i = j;
  }
  return toks;
}

}  // namespace attnlab::data
