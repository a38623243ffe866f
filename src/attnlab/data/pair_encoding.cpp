#include "attnlab/data/pair_encoding.hpp"

#include <algorithm>

#include "attnlab/core/error.hpp"

namespace attnlab::data {

EncodedPairs encode_training_pairs(const std::vector<TextPair>& train, const PairEncodingOptions& o) {
  ATTNLAB_CHECK(!train.empty(), "no training pairs");
  std::vector<std::vector<std::string>> st, tt;
  st.reserve(train.size());
  tt.reserve(train.size());
  size_t ls = 0, lt = 0;
  for (const auto& p : train) {
    st.push_back(split_tokens(p.src, o.src));
    tt.push_back(split_tokens(p.tgt, o.tgt));
    ls = std::max(ls, st.back().size());
    lt = std::max(lt, tt.back().size());
  }
  EncodedPairs e;
  e.sv = build_token_vocab(st, o.min_count);
  e.tv = build_token_vocab(tt, o.min_count);
  e.max_src_len = o.max_src_len ? o.max_src_len : std::min<size_t>(100000, ls + (ls + 3) / 4);
  e.max_tgt_len = o.max_tgt_len ? o.max_tgt_len : std::min<size_t>(100000, lt + (lt + 3) / 4);
  for (size_t i = 0; i < train.size(); ++i) {
    if (st[i].size() > e.max_src_len || tt[i].size() > e.max_tgt_len) {
      ++e.too_long;
      continue;
    }
    e.src.push_back(encode_tokens(e.sv, st[i]));
    e.tgt.push_back(encode_tokens(e.tv, tt[i]));
  }
  return e;
}

}  // namespace attnlab::data
