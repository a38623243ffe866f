// Generated pairs for trying seq2seq on "your own data" without having any: numbers written
// out in words and as digits, in English and in Chinese numerals. Deterministic (seeded);
// used by the tests, the README's worked example (examples/seq2seq/) and, later, the page.
//   english_number(3412)  = "three thousand four hundred twelve"  (0..999,999; no "and",
//                            no hyphens, so words are whitespace-separated tokens)
//   chinese_number(1010)  = "一千零一十"  (0..99,999,999: 万 groups, 零 for a gap, 十 alone
//                            for 10..19 at the start; 2 as 二)
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/data/tsv_pairs.hpp"

namespace attnlab::data {

std::string english_number(uint64_t n);
std::string chinese_number(uint64_t n);

// `count` distinct numbers drawn from [0, max] with `seed` (all of them when count > max),
// in drawn order; each as "<words>\t<digits>" (direction "words-digits") or the reverse
// ("digits-words"); language "en" or "zh". Throws on other names.
std::vector<TextPair> number_pairs(size_t count, uint64_t max, uint64_t seed,
                                   const std::string& language, const std::string& direction);
// The pairs as TSV text (one line each, "\n" ends).
std::string pairs_tsv(const std::vector<TextPair>& pairs);

}  // namespace attnlab::data
