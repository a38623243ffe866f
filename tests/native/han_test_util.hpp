// HAN test data: numbered word vocabularies and the keyword task (documents of filler
// words; the positive ones hold one keyword somewhere), with a tiny HAN trained on it.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/core/rng.hpp"
#include "attnlab/data/vocab.hpp"
#include "attnlab/models/han.hpp"
#include "attnlab/nn/optim.hpp"
#include "model_test_util.hpp"

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

// the tiny HAN over 12 numbered words, its weights scaled by 1.5 (larger than the torch
// initialization) so that every path carries signal and attention is away from uniform
inline std::unique_ptr<models::HAN> scaled_tiny_han(uint64_t seed) {
  auto m = std::make_unique<models::HAN>(tiny_han_config(), numbered_vocab(12), seed);
  for (auto& it : m->params().items())
    for (size_t i = 0; i < it.second->size(); ++i) it.second->data()[i] *= 1.5f;
  return m;
}

// Every parameter entry of m: its gradient (already in m) against central differences of f()
// with eps 2e-3, relative error |num - ana| / max(1e-2, |num| + |ana|) below 2e-2. Returns
// {the largest relative error, the entries checked}.
template <class F>
std::pair<double, size_t> check_param_grads(models::HAN& m, F f) {
  const float eps = 2e-3f;
  double max_rel = 0;
  size_t checked = 0;
  for (auto& it : m.params().items()) {
    Param& p = *it.second;
    for (size_t i = 0; i < p.size(); ++i) {
      const float v = p.data()[i];
      p.data()[i] = v + eps;
      const double fp = f();
      p.data()[i] = v - eps;
      const double fm = f();
      p.data()[i] = v;
      const double num = (fp - fm) / (2.0 * eps), ana = p.grad.data()[i];
      const double err = std::fabs(num - ana) / std::max(1e-2, std::fabs(num) + std::fabs(ana));
      max_rel = std::max(max_rel, err);
      EXPECT_LT(err, 2e-2) << it.first << "[" << i << "] numeric " << num << " analytic " << ana;
      ++checked;
    }
  }
  return {max_rel, checked};
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

// The keyword task as the tests run it: the keyword is "w0" (id 4) among 60 numbered words;
// a HAN (emb 16, GRUs of 12, contexts of 16; seed 31) trained by train_han on 400 documents,
// and n_test held-out documents drawn after them (Rng(32)).
struct KeywordTask {
  std::unique_ptr<models::HAN> model;
  KeywordDocs train, test;
};
inline KeywordTask trained_keyword_han(size_t n_test) {
  const size_t V = 60;
  const int keyword = 4;
  KeywordTask k;
  k.model = std::make_unique<models::HAN>(keyword_han_config(), numbered_vocab(V), 31);
  Rng rng(32);
  k.train = keyword_docs(rng, 400, V, keyword);
  k.test = keyword_docs(rng, n_test, V, keyword);
  train_han(*k.model, k.train);
  return k;
}

}  // namespace attnlab::testing
