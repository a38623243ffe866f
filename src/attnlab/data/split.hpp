// Seeded train/valid/test splits by key (a word, a date). A key's split is a
// pure function of (key, seed, fractions): it does not depend on the other
// keys, the order they come in, or the platform (64-bit integer hashing only),
// so one word can be looked up on its own (e.g. by the web page) and a
// dictionary parsed with or without stress gives the same split.
// Proportions are therefore statistical, not exact: for N keys the standard
// deviation of a fraction p is sqrt(p(1-p)/N) (0.06% for p=0.05, N=124k).
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"

namespace attnlab::data {

enum class Split { Train = 0, Valid = 1, Test = 2 };

inline const char* split_name(Split s) {
  switch (s) {
    case Split::Train: return "train";
    case Split::Valid: return "valid";
    default: return "test";
  }
}

struct SplitFractions {
  double train = 0.90, valid = 0.05, test = 0.05;
  void check() const {
    ATTNLAB_CHECK(train >= 0 && valid >= 0 && test >= 0 && std::isfinite(train) &&
                      std::isfinite(valid) && std::isfinite(test),
                  "split fractions: expected finite values >= 0, got train=", train,
                  " valid=", valid, " test=", test);
    ATTNLAB_CHECK(std::fabs(train + valid + test - 1.0) < 1e-9,
                  "split fractions: expected train+valid+test = 1, got ", train + valid + test);
  }
};

// The "split" object of a dataset's stats JSON: how it was split and the
// per-split stats (train, valid, test) the caller already turned into JSON.
inline nlohmann::json split_stats_json(const char* by, uint64_t seed, const SplitFractions& f,
                                       nlohmann::json train, nlohmann::json valid,
                                       nlohmann::json test) {
  return {{"by", by},
          {"seed", seed},
          {"fractions", {{"train", f.train}, {"valid", f.valid}, {"test", f.test}}},
          {"train", std::move(train)},
          {"valid", std::move(valid)},
          {"test", std::move(test)}};
}

// Uniform number in [0,1) from (key, seed): FNV-1a over the bytes, then the
// splitmix64 finalizer mixed with the seed.
inline double split_hash_unit(const std::string& key, uint64_t seed) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : key) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  uint64_t x = h ^ (seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);  // 53 bits
}

inline Split split_of(const std::string& key, uint64_t seed, const SplitFractions& f) {
  const double u = split_hash_unit(key, seed);
  // (a zero fraction is never chosen, whatever the rounding of the sums)
  if (u < f.train || (f.valid == 0 && f.test == 0)) return Split::Train;
  if (u < f.train + f.valid || f.test == 0) return Split::Valid;
  return Split::Test;
}

// The list of parts (its train, valid or test member) that key falls in by split_of.
template <class Parts>
auto& split_part(Parts& parts, const std::string& key, uint64_t seed, const SplitFractions& f) {
  switch (split_of(key, seed, f)) {
    case Split::Train: return parts.train;
    case Split::Valid: return parts.valid;
    default: return parts.test;
  }
}

// items split into Parts (train, valid, test lists of items) by the key of each (key(item)).
template <class Parts, class Items, class Key>
Parts split_items(const Items& items, Key&& key, uint64_t seed, const SplitFractions& f) {
  f.check();
  Parts parts;
  for (const auto& x : items) split_part(parts, key(x), seed, f).push_back(x);
  return parts;
}

}  // namespace attnlab::data
