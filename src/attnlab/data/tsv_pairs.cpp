#include "attnlab/data/tsv_pairs.hpp"

#include <cstdlib>
#include <map>
#include <sstream>

#include "attnlab/io/safetensors.hpp"

namespace attnlab::data {

TokenUnit parse_token_unit(const std::string& s) {
  if (s == "char") return TokenUnit::Char;
  if (s == "word") return TokenUnit::Word;
  throw Error("tokens: expected 'char' or 'word', got '" + s + "'");
}
const char* token_unit_name(TokenUnit u) { return u == TokenUnit::Char ? "char" : "word"; }

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

std::vector<std::string> split_tokens(const std::string& text, TokenUnit u) {
  std::vector<std::string> out;
  if (u == TokenUnit::Word) {
    std::string cur;
    for (char c : text) {
      if (is_space(c)) {
        if (!cur.empty()) out.push_back(std::move(cur));
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (!cur.empty()) out.push_back(std::move(cur));
    return out;
  }
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_seq_len(text, i);
    if (n == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[i])));
      throw Error("text is not UTF-8: byte " + std::string(hex) + " at offset " + std::to_string(i));
    }
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
  while (pos < text_in.size()) {
    size_t end = text_in.find('\n', pos);
    if (end == std::string::npos) end = text_in.size();
    std::string line = text_in.substr(pos, end - pos);
    pos = end + 1;
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
    if (line.find('\t', tab + 1) != std::string::npos) {
      bad("more than one tab (expected exactly 2 fields; keep the first two with 'cut -f1,2')");
      continue;
    }
    TextPair p{line.substr(0, tab), line.substr(tab + 1), line_no};
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
  f.check();
  PairSplit s;
  for (const auto& p : pairs) {
    switch (split_of(p.src, seed, f)) {
      case Split::Train: s.train.push_back(p); break;
      case Split::Valid: s.valid.push_back(p); break;
      default: s.test.push_back(p); break;
    }
  }
  return s;
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
