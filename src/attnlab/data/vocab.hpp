// A vocabulary: tokens <-> ids, with the special tokens every model here uses.
// Ids 0..3 are always <pad>, <unk>, <s>, </s>; the others follow in the order
// they were added (build_from_counts sorts by count, then alphabetically, so
// the same corpus always gives the same ids). Serialized as a JSON array of
// tokens, which is what a model file's __metadata__ "vocab" entries hold.
#pragma once
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"

namespace attnlab::data {

class Vocab {
 public:
  static constexpr int kPad = 0, kUnk = 1, kBos = 2, kEos = 3;

  Vocab() { for (const char* s : {"<pad>", "<unk>", "<s>", "</s>"}) add(s); }

  // Adds a token if new; returns its id.
  int add(const std::string& tok) {
    auto it = index_.find(tok);
    if (it != index_.end()) return it->second;
    const int id = static_cast<int>(tokens_.size());
    tokens_.push_back(tok);
    index_.emplace(tok, id);
    return id;
  }
  // Id of a token, or kUnk if unknown.
  int id(const std::string& tok) const {
    auto it = index_.find(tok);
    return it == index_.end() ? kUnk : it->second;
  }
  bool contains(const std::string& tok) const { return index_.count(tok) != 0; }
  // Id of a token; throws attnlab::Error naming the token if unknown.
  int id_strict(const std::string& tok, const char* what = "token") const {
    auto it = index_.find(tok);
    ATTNLAB_CHECK(it != index_.end(), what, " '", tok, "' is not in the vocabulary (",
                  tokens_.size(), " entries)");
    return it->second;
  }
  const std::string& token(int id) const {
    ATTNLAB_CHECK(id >= 0 && static_cast<size_t>(id) < tokens_.size(), "token id ", id,
                  " out of range [0, ", tokens_.size(), ")");
    return tokens_[static_cast<size_t>(id)];
  }
  size_t size() const { return tokens_.size(); }
  const std::vector<std::string>& tokens() const { return tokens_; }

  // Tokens seen at least min_count times, most frequent first (ties alphabetical),
  // at most max_size entries in all (0 = no limit), specials included.
  static Vocab from_counts(const std::map<std::string, size_t>& counts, size_t min_count,
                           size_t max_size = 0) {
    std::vector<std::pair<std::string, size_t>> v(counts.begin(), counts.end());
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    Vocab voc;
    for (const auto& [tok, n] : v) {
      if (n < min_count) break;
      if (max_size && voc.size() >= max_size) break;
      voc.add(tok);
    }
    return voc;
  }

  std::string to_json() const { return nlohmann::json(tokens_).dump(); }
  static Vocab from_json(const std::string& s) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(s);
    } catch (const std::exception& e) {
      throw Error(std::string("vocabulary: invalid JSON: ") + e.what());
    }
    ATTNLAB_CHECK(j.is_array() && j.size() >= 4, "vocabulary: expected a JSON array of at least 4 tokens");
    const char* specials[] = {"<pad>", "<unk>", "<s>", "</s>"};
    for (int i = 0; i < 4; ++i)
      ATTNLAB_CHECK(j[static_cast<size_t>(i)] == specials[i], "vocabulary: entry ", i,
                    " must be ", specials[i]);
    Vocab v;
    for (size_t i = 4; i < j.size(); ++i) {
      ATTNLAB_CHECK(j[i].is_string(), "vocabulary: entry ", i, " is not a string");
      const std::string t = j[i].get<std::string>();
      ATTNLAB_CHECK(!v.contains(t), "vocabulary: duplicate token '", t, "'");
      v.add(t);
    }
    return v;
  }

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int> index_;
};

}  // namespace attnlab::data
