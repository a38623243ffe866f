// Text pairs -> the id sequences a seq2seq model trains on: vocabularies counted from the
// training pairs, length limits, and the pairs encoded with them. One path for the CLI's
// `attnlab train seq2seq` (a file) and the JS package's Seq2Seq.create/fit (pairs in memory).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "attnlab/data/tsv_pairs.hpp"
#include "attnlab/data/vocab.hpp"

namespace attnlab::data {

struct PairEncodingOptions {
  TokenUnit src = TokenUnit::Char, tgt = TokenUnit::Char;
  size_t min_count = 1;    // rarer tokens become <unk>
  size_t max_src_len = 0;  // in tokens; 0 = the longest training source + 25%
  size_t max_tgt_len = 0;  // in tokens; 0 = the longest training target + 25%
};

struct EncodedPairs {
  Vocab sv, tv;
  std::vector<std::vector<int>> src, tgt;  // training pairs within the limits, as ids
  size_t max_src_len = 0, max_tgt_len = 0;
  size_t too_long = 0;  // training pairs over a limit, left out
};

// Counts the vocabularies over `train` (an Error if it is empty) and encodes every pair that
// fits the limits.
EncodedPairs encode_training_pairs(const std::vector<TextPair>& train, const PairEncodingOptions& o);

}  // namespace attnlab::data
