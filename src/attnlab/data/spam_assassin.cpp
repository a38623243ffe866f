#include "attnlab/data/spam_assassin.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/data/json_file.hpp"

namespace attnlab::data {

int spam_label_of_group(const std::string& group) {
  if (group.rfind("spam", 0) == 0) return 1;
  if (group.find("ham") != std::string::npos) return 0;
  throw Error("spam-assassin: unknown message group '" + group +
              "' (expected easy-ham-1, easy-ham-2, hard-ham-1, spam-1 or spam-2)");
}

std::vector<EmailRecord> load_spam_assassin(const std::string& data_dir) {
  const std::string dir = data_dir.empty() || data_dir.back() == '/' ? data_dir : data_dir + "/";
  const nlohmann::json list = read_json_file(dir + "file_list.json", "spam-assassin");
  ATTNLAB_CHECK(list.is_array() && !list.empty(), "spam-assassin: '", dir,
                "file_list.json' should be a non-empty JSON array of file names");
  std::vector<EmailRecord> out;
  out.reserve(list.size());
  for (const auto& item : list) {
    ATTNLAB_CHECK(item.is_string(), "spam-assassin: file_list.json holds a non-string entry");
    std::string rel = item.get<std::string>();
    const size_t dot = rel.rfind('.');
    if (dot != std::string::npos && rel.compare(dot, std::string::npos, ".txt") == 0)
      rel = rel.substr(0, dot);
    const std::string path = dir + rel + ".json";
    const nlohmann::json j = read_json_file(path, "spam-assassin");
    ATTNLAB_CHECK(j.is_object() && j.contains("text") && j["text"].is_string() &&
                      j.contains("group") && j["group"].is_string(),
                  "spam-assassin: '", path, "' should be an object with string fields text and group");
    EmailRecord r;
    r.group = j["group"].get<std::string>();
    r.id = j.contains("id") && j["id"].is_string() ? j["id"].get<std::string>() : rel;
    r.text = j["text"].get<std::string>();
    r.label = spam_label_of_group(r.group);
    out.push_back(std::move(r));
  }
  return out;
}

StratifiedSplit stratified_split(const std::vector<int>& labels,
                                 const std::vector<std::string>& keys, uint64_t seed,
                                 double train_frac, double valid_frac) {
  ATTNLAB_CHECK(keys.empty() || keys.size() == labels.size(), "stratified_split: expected ",
                labels.size(), " keys (one per label) or none, got ", keys.size());
  ATTNLAB_CHECK(train_frac >= 0 && valid_frac >= 0 && train_frac + valid_frac <= 1.0 + 1e-12,
                "stratified_split: expected fractions >= 0 with train+valid <= 1, got ",
                train_frac, " and ", valid_frac);
  StratifiedSplit sp;
  std::vector<size_t> by_label[2];
  std::unordered_map<std::string, int> seen;  // key -> label of its first message
  for (size_t i = 0; i < labels.size(); ++i) {
    ATTNLAB_CHECK(labels[i] == 0 || labels[i] == 1, "stratified_split: expected labels 0/1, got ",
                  labels[i], " at ", i);
    if (!keys.empty()) {
      auto [it, fresh] = seen.emplace(keys[i], labels[i]);
      if (!fresh) {
        ++sp.duplicates;
        if (it->second != labels[i]) ++sp.duplicate_label_conflicts;
        continue;
      }
    }
    by_label[labels[i]].push_back(i);
  }
  for (int lab = 0; lab < 2; ++lab) {
    std::vector<size_t>& v = by_label[lab];
    Rng rng(seed ^ (0xA5A5A5A5ull * static_cast<uint64_t>(lab + 1)));
    rng.shuffle(v);
    const size_t n = v.size();
    const size_t ntr = std::min(n, static_cast<size_t>(std::llround(train_frac * static_cast<double>(n))));
    const size_t nva = std::min(n - ntr, static_cast<size_t>(std::llround(valid_frac * static_cast<double>(n))));
    sp.train.insert(sp.train.end(), v.begin(), v.begin() + static_cast<std::ptrdiff_t>(ntr));
    sp.valid.insert(sp.valid.end(), v.begin() + static_cast<std::ptrdiff_t>(ntr),
                    v.begin() + static_cast<std::ptrdiff_t>(ntr + nva));
    sp.test.insert(sp.test.end(), v.begin() + static_cast<std::ptrdiff_t>(ntr + nva), v.end());
  }
  std::sort(sp.train.begin(), sp.train.end());
  std::sort(sp.valid.begin(), sp.valid.end());
  std::sort(sp.test.begin(), sp.test.end());
  return sp;
}

Vocab build_email_vocab(const std::vector<EmailDoc>& docs, const std::vector<size_t>& idx,
                        size_t min_count, size_t max_size) {
  std::unordered_map<std::string, size_t> counts;
  for (size_t i : idx) {
    ATTNLAB_CHECK(i < docs.size(), "build_email_vocab: index ", i, " out of range [0, ",
                  docs.size(), ")");
    for (const Sentence& s : docs[i].sentences)
      for (const std::string& t : s.tokens) ++counts[t];
  }
  std::map<std::string, size_t> sorted(counts.begin(), counts.end());
  return Vocab::from_counts(sorted, std::max<size_t>(min_count, 1), max_size);
}

std::vector<std::vector<int>> encode_email(const EmailDoc& doc, const Vocab& vocab) {
  std::vector<std::vector<int>> out(doc.sentences.size());
  for (size_t s = 0; s < doc.sentences.size(); ++s) {
    out[s].reserve(doc.sentences[s].tokens.size());
    for (const std::string& t : doc.sentences[s].tokens) out[s].push_back(vocab.id(t));
  }
  return out;
}

size_t SpamCorpus::count(const std::vector<size_t>& idx, int label) const {
  size_t n = 0;
  for (size_t i : idx) n += records[i].label == label;
  return n;
}
size_t SpamCorpus::count_group(const std::vector<size_t>& idx, const std::string& group) const {
  size_t n = 0;
  for (size_t i : idx) n += records[i].group == group;
  return n;
}

SpamCorpus load_spam_corpus(const std::string& data_dir, uint64_t seed, const EmailOptions& options) {
  SpamCorpus c;
  c.options = options;
  c.seed = seed;
  c.records = load_spam_assassin(data_dir);
  c.docs.reserve(c.records.size());
  std::vector<int> labels;
  std::vector<std::string> keys;
  labels.reserve(c.records.size());
  keys.reserve(c.records.size());
  for (const EmailRecord& r : c.records) {
    c.docs.push_back(tokenize_email(r.text, options));
    const EmailText t = extract_email_text(r.text, options.max_input_bytes);
    labels.push_back(r.label);
    keys.push_back(t.subject + '\n' + t.body);
  }
  c.split = stratified_split(labels, keys, seed);
  return c;
}

}  // namespace attnlab::data
