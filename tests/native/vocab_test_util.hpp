// Small vocabularies for model tests.
#pragma once
#include <string>

#include "attnlab/data/vocab.hpp"

namespace attnlab::testing {

// the special tokens, then one token per character of chars
inline data::Vocab letters(const std::string& chars) {
  data::Vocab v;
  for (char c : chars) v.add(std::string(1, c));
  return v;
}

}  // namespace attnlab::testing
