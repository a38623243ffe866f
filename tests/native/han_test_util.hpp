// HAN test data: numbered word vocabularies and the keyword task (documents of filler
// words; the positive ones hold one keyword somewhere), with a tiny HAN trained on it.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/core/rng.hpp"
#include "attnlab/data/vocab.hpp"
#include "attnlab/models/han.hpp"
#include "attnlab/nn/optim.hpp"

namespace attnlab::testing {

// the special tokens, then "w0", "w1", ... up to n tokens in all
inline data::Vocab numbered_vocab(size_t n) {
  data::Vocab v;
  for (size_t i = 0; v.size() < n; ++i) v.add("w" + std::to_string(i));
  return v;
}

inline std::vector<const models::HANDoc*> doc_ptrs(const std::vector<models::HANDoc>& v) {
  std::vector<const models::HANDoc*> p;
  for (const auto& d : v) p.push_back(&d);
  return p;
}

struct KeywordDocs {
  std::vector<models::HANDoc> docs;
  std::vector<int> labels;                          // every second document is positive
  std::vector<std::pair<size_t, size_t>> keyword_at;  // (sentence, word); SIZE_MAX for negatives
};

// n documents of 2-5 sentences of 3-8 filler words (ids 5..V-1); positives get `keyword` once
inline KeywordDocs keyword_docs(Rng& rng, size_t n, size_t V, int keyword) {
  KeywordDocs k;
  for (size_t i = 0; i < n; ++i) {
    models::HANDoc d(2 + static_cast<size_t>(rng.uniform(0.f, 4.f)) % 4);
    for (auto& s : d) {
      s.resize(3 + static_cast<size_t>(rng.uniform(0.f, 6.f)) % 6);
      for (auto& id : s) id = 5 + static_cast<int>(rng.uniform(0.f, float(V - 5))) % int(V - 5);
    }
    const int label = static_cast<int>(i % 2);
    std::pair<size_t, size_t> at{SIZE_MAX, SIZE_MAX};
    if (label) {
      const size_t s = static_cast<size_t>(rng.uniform(0.f, float(d.size()))) % d.size();
      const size_t t = static_cast<size_t>(rng.uniform(0.f, float(d[s].size()))) % d[s].size();
      d[s][t] = keyword;
      at = {s, t};
    }
    k.docs.push_back(std::move(d));
    k.labels.push_back(label);
    k.keyword_at.push_back(at);
  }
  return k;
}

// a HAN small enough for finite differences (every width different, so a swapped
// dimension shows)
inline models::HANConfig tiny_han_config() {
  models::HANConfig c;
  c.emb = 4;
  c.word_hidden = 3;
  c.sent_hidden = 3;
  c.word_ctx = 5;
  c.sent_ctx = 4;
  return c;
}

// the keyword task's model size
inline models::HANConfig keyword_han_config() {
  models::HANConfig c;
  c.emb = 16;
  c.word_hidden = 12;
  c.sent_hidden = 12;
  c.word_ctx = 16;
  c.sent_ctx = 16;
  return c;
}

// Adam (lr 1e-2), batches of 20, `epochs` passes over the training documents
inline void train_han(models::HAN& m, const KeywordDocs& train, int epochs = 6) {
  nn::Adam opt(m.params(), 1e-2f);
  for (int epoch = 0; epoch < epochs; ++epoch)
    for (size_t s = 0; s + 20 <= train.docs.size(); s += 20) {
      std::vector<const models::HANDoc*> bd;
      std::vector<int> by;
      for (size_t i = s; i < s + 20; ++i) bd.push_back(&train.docs[i]), by.push_back(train.labels[i]);
      m.params().zero_grad();
      m.loss_and_grad(bd, by);
      opt.step();
    }
}

}  // namespace attnlab::testing
