#include "attnlab/data/tsv_pairs.hpp"

#include <cstdlib>
#include <map>
#include <sstream>

#include "attnlab/data/text_util.hpp"
#include "attnlab/io/safetensors.hpp"

namespace attnlab::data {

TokenUnit parse_token_unit(const std::string& s) {
  if (s == "char") return TokenUnit::Char;
  if (s == "word") return TokenUnit::Word;
  if (s == "wordpunct") return TokenUnit::WordPunct;
  throw Error("tokens: expected 'char', 'word' or 'wordpunct', got '" + s + "'");
}
const char* token_unit_name(TokenUnit u) {
  return u == TokenUnit::Char ? "char" : u == TokenUnit::Word ? "word" : "wordpunct";
}

namespace {
// Length of the well-formed UTF-8 sequence at s[i], or 0 (RFC 3629 table 3-7).
size_t utf8_seq_len(const std::string& s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;  // <= U+10FFFF
  } else
    return 0;
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
bool blank(const std::string& s) {
  for (char c : s)
    if (!is_space(c)) return false;
  return true;
}
}  // namespace

size_t utf8_invalid_at(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_seq_len(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string::npos;
}

namespace {
// The code point of the well-formed sequence of n bytes at s[i].
uint32_t decode_at(const std::string& s, size_t i, size_t n) {
  const auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k])); };
  if (n == 1) return b(0);
  uint32_t cp = n == 2 ? (b(0) & 0x1f) : n == 3 ? (b(0) & 0x0f) : (b(0) & 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (b(k) & 0x3f);
  return cp;
}
bool ws_cp(uint32_t c) { return c == ' ' || (c >= 0x09 && c <= 0x0d) || c == 0xA0 || c == 0x3000; }
bool punct_cp(uint32_t c) {
  if (c < 0x80) return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) ||
                       (c >= 0x7b && c <= 0x7e);
  return (c >= 0xA1 && c <= 0xBF && c != 0xAA && c != 0xB2 && c != 0xB3 && c != 0xB5 && c != 0xB9 &&
          c != 0xBA && c != 0xBC && c != 0xBD && c != 0xBE) ||
         c == 0xD7 || c == 0xF7 || (c >= 0x2010 && c <= 0x205E) || (c >= 0x3001 && c <= 0x303F) ||
         (c >= 0xFF01 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
         (c >= 0xFF5B && c <= 0xFF65);
}
bool apostrophe_cp(uint32_t c) { return c == '\'' || c == 0x2019; }
bool digit_cp(uint32_t c) { return c >= '0' && c <= '9'; }
// Lower case of the capitals of Basic Latin, Latin-1, Greek and Cyrillic (others unchanged).
uint32_t lower_cp(uint32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}
[[noreturn]] void not_utf8(const std::string& text, size_t i) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[i])));
  throw Error("text is not UTF-8: byte " + std::string(hex) + " at offset " + std::to_string(i));
}

std::vector<std::string> split_wordpunct(const std::string& text) {
  std::vector<uint32_t> cps;
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_seq_len(text, i);
    if (n == 0) not_utf8(text, i);
    cps.push_back(decode_at(text, i, n));
    i += n;
  }
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&]() {
    if (!cur.empty()) out.push_back(std::move(cur));
    cur.clear();
  };
  for (size_t k = 0; k < cps.size(); ++k) {
    const uint32_t c = cps[k];
    if (ws_cp(c)) {
      flush();
      continue;
    }
    if (punct_cp(c)) {
      const bool inner = !cur.empty() && k + 1 < cps.size();
      const uint32_t prev = k ? cps[k - 1] : 0, next = k + 1 < cps.size() ? cps[k + 1] : 0;
      // kept inside a word: don't, o'clock (an apostrophe between letters); 3.5, 1,000
      if (inner && apostrophe_cp(c) && !punct_cp(prev) && !digit_cp(prev) && !ws_cp(next) &&
          !punct_cp(next) && !digit_cp(next)) {
        append_utf8(cur, c);
        continue;
      }
      if (inner && (c == '.' || c == ',') && digit_cp(prev) && digit_cp(next)) {
        append_utf8(cur, c);
        continue;
      }
      flush();
      append_utf8(cur, c);
      flush();
      continue;
    }
    append_utf8(cur, lower_cp(c));
  }
  flush();
  return out;
}
}  // namespace

std::string join_tokens(const std::vector<std::string>& toks, TokenUnit u) {
  std::string out;
  if (u == TokenUnit::Char) {
    for (const auto& t : toks) out += t;
    return out;
  }
  if (u == TokenUnit::Word) {
    for (size_t i = 0; i < toks.size(); ++i) out += (i ? " " : "") + toks[i];
    return out;
  }
  // wordpunct: no space before closing punctuation, none after an opening bracket
  auto closing = [](const std::string& t) {
    static const char* const c[] = {".", ",", "!", "?", ";", ":", ")", "]", "}", "%",
                                    "\xE3\x80\x82", "\xEF\xBC\x8C", "\xEF\xBC\x81", "\xEF\xBC\x9F",
                                    "\xE2\x80\xA6"};
    for (const char* x : c)
      if (t == x) return true;
    return false;
  };
  auto opening = [](const std::string& t) { return t == "(" || t == "[" || t == "{"; };
  for (size_t i = 0; i < toks.size(); ++i) {
    if (i && !closing(toks[i]) && !opening(toks[i - 1])) out += ' ';
    out += toks[i];
  }
  return out;
}

std::vector<std::string> split_tokens(const std::string& text, TokenUnit u) {
  std::vector<std::string> out;
  if (u == TokenUnit::WordPunct) return split_wordpunct(text);
  if (u == TokenUnit::Word) return split_runs(text, is_space, [](std::string& w, char c) { w += c; });
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_seq_len(text, i);
    if (n == 0) not_utf8(text, i);
    out.push_back(text.substr(i, n));
    i += n;
  }
  return out;
}

TsvPairs parse_tsv_pairs(const std::string& text_in, const std::string& source, const TsvOptions& o) {
  TsvPairs r;
  size_t pos = 0;
  if (text_in.compare(0, 3, "\xEF\xBB\xBF") == 0) pos = 3;  // byte order mark
  size_t line_no = 0;
  auto bad = [&](const std::string& why) {
    if (!o.skip_bad)
      throw Error(source + ": line " + std::to_string(line_no) + ": " + why +
                  " (expected 'source<TAB>target' in UTF-8; --skip-bad skips such lines)");
    ++r.skipped;
    if (r.skipped_examples.size() < 5) r.skipped_examples.push_back("line " + std::to_string(line_no) + ": " + why);
  };
  std::string line;
  while (read_line(text_in, pos, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (blank(line)) continue;
    const size_t badbyte = utf8_invalid_at(line);
    if (badbyte != std::string::npos) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(line[badbyte])));
      bad("invalid UTF-8 (byte " + std::string(hex) + " at column " + std::to_string(badbyte + 1) + ")");
      continue;
    }
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      bad("no tab between source and target");
      continue;
    }
    const size_t tab2 = line.find('\t', tab + 1);
    if (tab2 != std::string::npos && !o.extra_columns) {
      bad("more than one tab (expected exactly 2 fields; keep the first two with 'cut -f1,2' or "
          "--extra-columns)");
      continue;
    }
    TextPair p{line.substr(0, tab), line.substr(tab + 1, tab2 == std::string::npos ? std::string::npos : tab2 - tab - 1),
               line_no};
    if (blank(p.src) || blank(p.tgt)) {
      bad(std::string("empty ") + (blank(p.src) ? "source" : "target"));
      continue;
    }
    r.pairs.push_back(std::move(p));
  }
  r.lines = line_no;
  return r;
}

TsvPairs load_tsv_pairs(const std::string& path, const TsvOptions& o) {
  const std::vector<uint8_t> b = io::read_bytes(path);
  return parse_tsv_pairs(std::string(b.begin(), b.end()), path, o);
}

Vocab build_token_vocab(const std::vector<std::vector<std::string>>& seqs, size_t min_count) {
  ATTNLAB_CHECK(min_count >= 1, "vocabulary: min_count must be >= 1, got ", min_count);
  std::map<std::string, size_t> counts;
  for (const auto& s : seqs)
    for (const auto& t : s) ++counts[t];
  for (const char* sp : {"<pad>", "<unk>", "<s>", "</s>"}) counts.erase(sp);  // ids 0..3 already
  return Vocab::from_counts(counts, min_count);
}

std::vector<int> encode_tokens(const Vocab& v, const std::vector<std::string>& toks) {
  std::vector<int> ids;
  ids.reserve(toks.size());
  for (const auto& t : toks) {
    const int id = v.id(t);
    ids.push_back(id < 4 ? Vocab::kUnk : id);  // a literal "<s>" in the text is not a special
  }
  return ids;
}

PairSplit split_pairs(const std::vector<TextPair>& pairs, uint64_t seed, const SplitFractions& f) {
  return split_items<PairSplit>(pairs, [](const TextPair& p) -> const std::string& { return p.src; }, seed, f);
}

SplitFractions parse_split_fractions(const std::string& s) {
  double v[3];
  size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    const size_t slash = i < 2 ? s.find('/', start) : s.size();
    ATTNLAB_CHECK(slash != std::string::npos, "split: expected TRAIN/VALID/TEST such as 90/5/5, got '", s, "'");
    const std::string part = s.substr(start, slash - start);
    char* end = nullptr;
    v[i] = part.empty() ? -1 : std::strtod(part.c_str(), &end);
    ATTNLAB_CHECK(!part.empty() && end && *end == 0 && v[i] >= 0 && std::isfinite(v[i]),
                  "split: expected TRAIN/VALID/TEST of numbers >= 0 such as 90/5/5, got '", s, "'");
    start = slash + 1;
  }
  ATTNLAB_CHECK(start >= s.size(), "split: expected three parts such as 90/5/5, got '", s, "'");
  const double sum = v[0] + v[1] + v[2];
  ATTNLAB_CHECK(sum > 0 && v[0] > 0, "split: the training part must be > 0, got '", s, "'");
  SplitFractions f;
  f.train = v[0] / sum;
  f.valid = v[1] / sum;
  f.test = 1.0 - f.train - f.valid;
  if (f.test < 0) f.test = 0;
  return f;
}

}  // namespace attnlab::data
