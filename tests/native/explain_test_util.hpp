// Shared checks of the seq2seq attribution tests (RNN and Transformer): the gradient of one
// teacher-forced log-probability w.r.t. the source embedding rows against central
// differences, and parameter gradients left zero afterwards.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "attnlab/core/param.hpp"
#include "attnlab/data/vocab.hpp"
#include "attnlab/models/seq2seq.hpp"

namespace attnlab::explain_test {

// m: a model with source_embeddings and source_logp_grad (Seq2Seq, TransformerSeq2Seq). Scores
// only output step `row` of out, checks d log p / d x element by element (relative error < 2e-2
// with eps 2e-3) and returns {the largest relative error, the largest |gradient|}.
template <class Model>
std::pair<double, double> check_source_gradient(Model& m, const std::vector<int>& src,
                                                const std::vector<int>& out, size_t row) {
  models::Seq2SeqBatch b = models::make_seq2seq_batch({src}, {out}, {0});
  for (size_t t = 0; t < b.T; ++t)
    if (t != row) b.tgt_out[t] = data::Vocab::kPad;
  std::vector<float> x = m.source_embeddings(src), logp, attn, g;
  m.source_logp_grad(b, x, logp, attn, g);
  EXPECT_EQ(g.size(), x.size());
  if (g.size() != x.size()) return {1.0, 0.0};
  auto f = [&](const std::vector<float>& e) {
    std::vector<float> lp, at, gg;
    m.source_logp_grad(b, e, lp, at, gg);
    return double(lp[row]);
  };
  EXPECT_NEAR(f(x), logp[row], 1e-6);
  const float eps = 2e-3f;
  double max_rel = 0, gmax = 0;
  for (size_t j = 0; j < x.size(); ++j) {
    const float v = x[j];
    x[j] = v + eps;
    const double fp = f(x);
    x[j] = v - eps;
    const double fm = f(x);
    x[j] = v;
    const double num = (fp - fm) / (2.0 * eps);
    const double err = std::fabs(num - g[j]) / std::max(1e-2, std::fabs(num) + std::fabs(g[j]));
    max_rel = std::max(max_rel, err);
    gmax = std::max(gmax, double(std::fabs(g[j])));
    EXPECT_LT(err, 2e-2) << j << " numeric " << num << " analytic " << g[j];
  }
  return {max_rel, gmax};
}

// every parameter gradient of m is exactly zero
template <class Model>
void expect_zero_grads(Model& m) {
  ParamList ps;
  m.collect(ps);
  for (auto& it : ps.items())
    for (size_t i = 0; i < it.second->size(); ++i) ASSERT_EQ(it.second->grad.data()[i], 0.f) << it.first;
}

}  // namespace attnlab::explain_test
