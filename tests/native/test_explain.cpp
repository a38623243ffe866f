// Attribution beside attention (explain/): Kendall tau-b on hand cases with ties, attention
// rollout on a hand case, embedding gradients of HAN and the RNN seq2seq against finite
// differences, integrated gradients' completeness at 64 steps, and a synthetic keyword task
// where attribution must rank the keyword first and its removal must flip the decision.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/explain/attribution.hpp"
#include "attnlab/models/han.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/nn/optim.hpp"
#include "explain_test_util.hpp"
#include "han_test_util.hpp"
#include "vocab_test_util.hpp"

using namespace attnlab;
using explain::Method;
using models::HAN;
using models::HANConfig;
using models::HANDoc;
using attnlab::testing::scaled_tiny_han;

namespace {

// log p(y) of one document from given embeddings
double han_logp(const HAN& m, const HANDoc& d, const std::vector<float>& emb, size_t y) {
  HAN::Cache c;
  return std::log(double(m.forward_embedded({&d}, emb, c).probs[y]));
}

}  // namespace

TEST(Explain, KendallTauHandCases) {
  EXPECT_DOUBLE_EQ(explain::kendall_tau_b({1, 2, 3}, {10, 20, 30}), 1.0);
  EXPECT_DOUBLE_EQ(explain::kendall_tau_b({1, 2, 3}, {3, 2, 1}), -1.0);
  // 7 concordant, 3 discordant pairs, no ties
  EXPECT_NEAR(explain::kendall_tau_b({1, 2, 3, 4, 5}, {3, 1, 2, 5, 4}), 0.4, 1e-12);
  // one tie in the first ranking: 5 / sqrt(5 * 6) (scipy.stats.kendalltau: 0.9128709)
  EXPECT_NEAR(explain::kendall_tau_b({1, 2, 2, 3}, {1, 3, 2, 4}), 5 / std::sqrt(30.0), 1e-12);
  // ties in both: 1 concordant, 1 discordant, 2 ties each -> 0
  EXPECT_NEAR(explain::kendall_tau_b({1, 1, 2, 2}, {1, 2, 1, 2}), 0.0, 1e-12);
  // ties in both with a non-zero result: a=(1,1,2,3), b=(1,2,2,3):
  // pairs 01 tie_a, 02 C, 03 C, 12 tie_b, 13 C, 23 C -> 4 / sqrt(5 * 5)
  EXPECT_NEAR(explain::kendall_tau_b({1, 1, 2, 3}, {1, 2, 2, 3}), 0.8, 1e-12);
  EXPECT_TRUE(std::isnan(explain::kendall_tau_b({1, 1, 1}, {1, 2, 3})));  // a constant ranking
  EXPECT_TRUE(std::isnan(explain::kendall_tau_b({1}, {1})));
  EXPECT_THROW(explain::kendall_tau_b({1, 2}, {1}), Error);
}

// the definition, pair by pair: the oracle of the O(n log n) implementation
double kendall_tau_b_pairs(const std::vector<float>& a, const std::vector<float>& b) {
  const size_t n = a.size();
  double conc = 0, disc = 0, ties_a = 0, ties_b = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      const double da = double(a[i]) - double(a[j]), db = double(b[i]) - double(b[j]);
      ties_a += da == 0;
      ties_b += db == 0;
      if (da != 0 && db != 0) ((da > 0) == (db > 0) ? conc : disc) += 1;
    }
  const double n0 = double(n) * double(n - 1) / 2;
  return (conc - disc) / std::sqrt((n0 - ties_a) * (n0 - ties_b));
}

TEST(Explain, KendallTauMatchesPairwiseDefinition) {
  // random rankings of 2..300 values, from few distinct values (many ties, some joint) to
  // all distinct; every result equals the pairwise count's
  Rng rng(7);
  int compared = 0;
  for (size_t n : {2, 3, 5, 8, 17, 64, 100, 257, 300})
    for (int levels : {2, 3, 10, 1000000}) {
      std::vector<float> a(n), b(n);
      for (size_t i = 0; i < n; ++i) {
        a[i] = float(rng.next_u32() % uint32_t(levels));
        b[i] = i % 3 == 0 ? a[i] : float(rng.next_u32() % uint32_t(levels));  // correlated
      }
      const double want = kendall_tau_b_pairs(a, b), got = explain::kendall_tau_b(a, b);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << "n=" << n << " levels=" << levels;
        continue;
      }
      EXPECT_NEAR(got, want, 1e-12) << "n=" << n << " levels=" << levels;
      ++compared;
    }
  EXPECT_GE(compared, 30);
  EXPECT_TRUE(std::isnan(explain::kendall_tau_b({1, std::nanf(""), 3}, {1, 2, 3})));
}

TEST(Explain, TopKAndRemovalCount) {
  EXPECT_EQ(explain::top_k({0.1f, 0.5f, 0.5f, 0.2f}, 2), (std::vector<size_t>{1, 2}));
  EXPECT_EQ(explain::top_k({3, 1}, 5), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(explain::removal_count(0, 1), 0u);   // never the whole input
  EXPECT_EQ(explain::removal_count(0, 8), 1u);   // 10%, at least 1
  EXPECT_EQ(explain::removal_count(0, 150), 15u);
  EXPECT_EQ(explain::removal_count(3, 2), 1u);
  EXPECT_EQ(explain::removal_count(3, 20), 3u);
}

TEST(Explain, ParseMethodAndOptions) {
  EXPECT_EQ(explain::parse_method("grad"), Method::Grad);
  EXPECT_EQ(explain::parse_method("ig"), Method::IG);
  EXPECT_THROW(explain::parse_method("shap"), Error);
  explain::Options o;
  o.steps = 0;
  EXPECT_THROW(o.check(4), Error);
  o.steps = 2000;
  EXPECT_THROW(o.check(4), Error);
  o.steps = 8;
  o.baseline = {1, 2, 3};
  EXPECT_THROW(o.check(4), Error);
  o.baseline = {1, 2, 3, NAN};
  EXPECT_THROW(o.check(4), Error);
  o.baseline = {1, 2, 3, 4};
  EXPECT_NO_THROW(o.check(4));
}

TEST(Explain, RolloutHandCase) {
  // one layer, one head, n = 2: 0.5 A + 0.5 I, rows already sum to 1
  const std::vector<float> a = {1, 0, 0.5f, 0.5f};
  std::vector<float> r = explain::attention_rollout(a, 1, 1, 2);
  EXPECT_NEAR(r[0], 1.0, 1e-6);
  EXPECT_NEAR(r[1], 0.0, 1e-6);
  EXPECT_NEAR(r[2], 0.25, 1e-6);
  EXPECT_NEAR(r[3], 0.75, 1e-6);
  // two layers of it: the matrix squared; two heads averaged: (A + I)/2 per layer as the mean
  r = explain::attention_rollout({1, 0, 0.5f, 0.5f, 1, 0, 0.5f, 0.5f}, 2, 1, 2);
  EXPECT_NEAR(r[2], 0.25 + 0.75 * 0.25, 1e-6);
  EXPECT_NEAR(r[3], 0.75 * 0.75, 1e-6);
  r = explain::attention_rollout({0, 1, 0, 1, 1, 0, 1, 0}, 1, 2, 2);  // heads average to 0.5 each
  EXPECT_NEAR(r[0], 0.75, 1e-6);
  EXPECT_NEAR(r[1], 0.25, 1e-6);
  EXPECT_THROW(explain::attention_rollout({1, 0, 0}, 1, 1, 2), Error);
}

// d log p(y) / d embeddings from backward_embedded and from backward_input (no parameter
// grads) against central differences.
TEST(Explain, HANEmbeddingGradientMatchesFiniteDifferences) {
  const std::unique_ptr<HAN> hm = scaled_tiny_han(3);
  HAN& m = *hm;
  const HANDoc d = {{4, 5, 6}, {7}, {8, 9, 10, 11, 5}};
  std::vector<float> x = m.word_embeddings({&d});
  ASSERT_EQ(x.size(), 3u * 5u * 4u);
  HAN::Cache cache;
  const models::HANOutput o = m.forward_embedded({&d}, x, cache);
  const models::HANOutput ref = m.forward({&d});  // the looked-up embeddings give the same output
  for (size_t j = 0; j < 2; ++j) EXPECT_EQ(o.probs[j], ref.probs[j]);
  const size_t y = 1;
  const std::vector<float> dl = {-o.probs[0], 1 - o.probs[1]};
  const std::vector<float> g = m.backward_embedded(dl, cache);
  ASSERT_EQ(g.size(), x.size());
  // the input-gradient-only backward (what attribution runs) gives the same values, bit for
  // bit, from the same cache, and accumulates no parameter grad
  std::vector<float> grads_before;
  for (auto& it : m.params().items())
    grads_before.insert(grads_before.end(), it.second->gdata(), it.second->gdata() + it.second->size());
  const HAN& cm = m;
  const std::vector<float> gi = cm.backward_input(dl, cache);
  ASSERT_EQ(gi.size(), g.size());
  for (size_t j = 0; j < g.size(); ++j) ASSERT_EQ(gi[j], g[j]) << "at " << j;
  std::vector<float> grads_after;
  for (auto& it : m.params().items())
    grads_after.insert(grads_after.end(), it.second->gdata(), it.second->gdata() + it.second->size());
  EXPECT_EQ(grads_after, grads_before);
  const float eps = 2e-3f;
  double max_rel = 0;
  size_t checked = 0;
  for (size_t s = 0; s < d.size(); ++s)
    for (size_t t = 0; t < 5; ++t)
      for (size_t e = 0; e < 4; ++e) {
        const size_t j = (s * 5 + t) * 4 + e;
        if (t >= d[s].size()) {  // padding: no gradient
          EXPECT_EQ(g[j], 0.f);
          continue;
        }
        const float v = x[j];
        x[j] = v + eps;
        const double fp = han_logp(m, d, x, y);
        x[j] = v - eps;
        const double fm = han_logp(m, d, x, y);
        x[j] = v;
        const double num = (fp - fm) / (2.0 * eps);
        const double err = std::fabs(num - g[j]) / std::max(1e-2, std::fabs(num) + std::fabs(g[j]));
        const double err_in = std::fabs(num - gi[j]) / std::max(1e-2, std::fabs(num) + std::fabs(gi[j]));
        max_rel = std::max({max_rel, err, err_in});
        EXPECT_LT(err, 2e-2) << "s" << s << " t" << t << " e" << e << " numeric " << num << " analytic " << g[j];
        EXPECT_LT(err_in, 2e-2) << "backward_input s" << s << " t" << t << " e" << e;
        ++checked;
      }
  std::printf("[explain han grad] %zu values checked, max relative error %.2e\n", checked, max_rel);
}

// IG by linearity (HAN::Path): forward_path at each point gives forward_embedded's output at
// base + alpha (x - base); path_input_grad after backward_path is the sum of backward_input's
// embedding gradients over the points (one gemm instead of one per point), over several passes;
// attribute_han's IG equals the point-by-point integrated gradients.
TEST(Explain, HANPathMatchesPointByPoint) {
  const std::unique_ptr<HAN> hm = scaled_tiny_han(7);
  HAN& m = *hm;
  const HANConfig& c = m.config();
  const HANDoc d = {{4, 5, 6}, {7}, {8, 9, 10, 11, 5}};
  const std::vector<float> x = m.word_embeddings({&d});
  std::vector<float> base(x.size());
  Rng rng(3);
  for (size_t s = 0; s < d.size(); ++s)  // a random baseline at the words, zeros at padding
    for (size_t t = 0; t < d[s].size(); ++t)
      for (size_t e = 0; e < c.emb; ++e) base[(s * 5 + t) * c.emb + e] = rng.uniform(-1.f, 1.f);
  const size_t y = 1;
  const std::vector<std::vector<float>> passes = {{0.1f, 0.5f, 0.9f}, {0.3f}, {1.0f, 0.0f}};
  std::vector<double> ref(x.size(), 0.0);
  HAN::Path path = m.begin_path(d, x, base);
  double worst_p = 0, worst_g = 0;
  for (const auto& alphas : passes) {
    HAN::Cache pc;
    const models::HANOutput po = m.forward_path(path, alphas, pc);
    std::vector<float> dl(alphas.size() * 2);
    for (size_t i = 0; i < alphas.size(); ++i) {
      std::vector<float> e(x.size());
      for (size_t j = 0; j < x.size(); ++j) e[j] = base[j] + alphas[i] * (x[j] - base[j]);
      HAN::Cache ec;
      const models::HANOutput eo = m.forward_embedded({&d}, e, ec);
      for (size_t k = 0; k < 2; ++k) {
        worst_p = std::max(worst_p, double(std::fabs(po.probs[i * 2 + k] - eo.probs[k])));
        dl[i * 2 + k] = (k == y ? 1.f : 0.f) - po.probs[i * 2 + k];
      }
      for (size_t s = 0; s < d.size(); ++s)
        for (size_t t = 0; t < d[s].size(); ++t)
          EXPECT_NEAR(po.word_weights[i][s][t], eo.word_weights[0][s][t], 1e-5);
      const std::vector<float> g = m.backward_input({dl[i * 2], dl[i * 2 + 1]}, ec);
      for (size_t j = 0; j < x.size(); ++j) ref[j] += g[j];
    }
    m.backward_path(dl, pc, path);
  }
  EXPECT_LT(worst_p, 1e-5);
  const std::vector<float> g = m.path_input_grad(path);
  ASSERT_EQ(g.size(), x.size());
  for (size_t j = 0; j < x.size(); ++j) {
    worst_g = std::max(worst_g, std::fabs(g[j] - ref[j]) / (1e-3 + std::fabs(ref[j])));
    EXPECT_NEAR(g[j], ref[j], 1e-5 * (1 + std::fabs(ref[j]))) << "at " << j;
  }
  std::printf("[explain han path] worst |dp| %.2e, worst relative gradient error %.2e\n", worst_p,
              worst_g);
  // a forward_path cache has input gradients only
  HAN::Cache pc;
  m.forward_path(path, {0.5f}, pc);
  EXPECT_THROW(m.backward({0.5f, -0.5f}, pc), Error);
  // attribute_han's IG (the path) against the point-by-point integral, 16 midpoints
  explain::Options o;
  o.method = Method::IG;
  o.steps = 16;
  std::vector<float> bw;  // the baseline in reading order
  for (size_t s = 0; s < d.size(); ++s)
    for (size_t t = 0; t < d[s].size(); ++t)
      bw.insert(bw.end(), base.begin() + long((s * 5 + t) * c.emb),
                base.begin() + long((s * 5 + t + 1) * c.emb));
  o.baseline = bw;
  const explain::HANAttribution r = explain::attribute_han(m, d, o);
  std::vector<double> gs(x.size(), 0.0);
  for (size_t k = 0; k < o.steps; ++k) {
    const float a = float((double(k) + 0.5) / double(o.steps));
    std::vector<float> e(x.size());
    for (size_t j = 0; j < x.size(); ++j) e[j] = base[j] + a * (x[j] - base[j]);
    HAN::Cache ec;
    const models::HANOutput eo = m.forward_embedded({&d}, e, ec);
    const size_t yy = size_t(r.target);
    const std::vector<float> g1 =
        m.backward_input({(yy == 0 ? 1.f : 0.f) - eo.probs[0], (yy == 1 ? 1.f : 0.f) - eo.probs[1]}, ec);
    for (size_t j = 0; j < x.size(); ++j) gs[j] += g1[j];
  }
  for (size_t s = 0; s < d.size(); ++s)
    for (size_t t = 0; t < d[s].size(); ++t) {
      double v = 0;
      for (size_t e = 0; e < c.emb; ++e) {
        const size_t j = (s * 5 + t) * c.emb + e;
        v += (double(x[j]) - base[j]) * gs[j] / double(o.steps);
      }
      EXPECT_NEAR(r.attribution[s][t], v, 1e-5 * (1 + std::fabs(v))) << "s" << s << " t" << t;
    }
}

// The removal check reuses the sentence vectors of sentences with no removed word
// (HAN::forward_given): its probabilities equal a full forward of the reduced documents, for
// both methods, also when removal empties a sentence; forward_given equals forward.
TEST(Explain, HANRemovalReusesUntouchedSentences) {
  const std::unique_ptr<HAN> hm = scaled_tiny_han(11);
  HAN& m = *hm;
  const HANConfig& c = m.config();
  const HANDoc d = {{4, 5, 6}, {7}, {8, 9, 10, 11, 5}, {6, 4}};
  HAN::Cache cache;
  const models::HANOutput full = m.forward({&d}, &cache);
  ASSERT_EQ(cache.sv.size(), d.size() * 2 * c.word_hidden);
  std::vector<const float*> given(d.size(), nullptr);
  given[1] = cache.sv.data() + 1 * 2 * c.word_hidden;
  given[3] = cache.sv.data() + 3 * 2 * c.word_hidden;
  const models::HANOutput g = m.forward_given({&d}, given);
  for (size_t j = 0; j < 2; ++j) EXPECT_NEAR(g.probs[j], full.probs[j], 1e-6);
  EXPECT_TRUE(g.word_weights[0][1].empty());
  EXPECT_EQ(g.word_weights[0][0].size(), 3u);
  EXPECT_THROW(m.forward_given({&d}, {given[0]}), Error);  // one per sentence
  for (Method meth : {Method::Grad, Method::IG})
    for (size_t k : {size_t(1), size_t(3), size_t(8)}) {  // 8 of 11 words empties sentences
      explain::Options o;
      o.method = meth;
      o.steps = 8;
      o.topk = k;
      const explain::HANAttribution r = explain::attribute_han(m, d, o);
      EXPECT_NEAR(r.prob_without_attention,
                  explain::han_prob_without(m, d, r.removed_attention, r.target), 1e-6);
      EXPECT_NEAR(r.prob_without_attribution,
                  explain::han_prob_without(m, d, r.removed_attribution, r.target), 1e-6);
    }
}

// Every word's input projections in one gemm (inference without a cache, and a cache with
// input_grads_only for backward_input) give the per-chunk path's outputs and input gradients:
// a document of 9 sentences of 1-17 words (several chunks, more than 16 words in all, so both
// gemm paths run), and a batch of two documents.
TEST(Explain, HANBatchedProjectionsMatchPerChunk) {
  const std::unique_ptr<HAN> hm = scaled_tiny_han(5);
  HAN& m = *hm;
  Rng rng(7);
  HANDoc d(9), d2 = {{4, 5}, {6, 7, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11, 4, 5, 6, 7}};
  const size_t lens[9] = {1, 17, 3, 9, 2, 12, 5, 1, 7};
  for (size_t s = 0; s < d.size(); ++s)
    for (size_t t = 0; t < lens[s]; ++t) d[s].push_back(4 + int(rng.uniform(0.f, 8.f)) % 8);
  const std::vector<const HANDoc*> docs = {&d, &d2};
  HAN::Cache per_chunk;
  const models::HANOutput ref = m.forward(docs, &per_chunk);
  const models::HANOutput inf = m.forward(docs);  // no cache: batched
  ASSERT_EQ(inf.probs.size(), ref.probs.size());
  for (size_t j = 0; j < ref.probs.size(); ++j) EXPECT_NEAR(inf.probs[j], ref.probs[j], 1e-5);
  for (size_t b = 0; b < 2; ++b)
    for (size_t s = 0; s < docs[b]->size(); ++s) {
      ASSERT_EQ(inf.word_weights[b][s].size(), (*docs[b])[s].size());
      for (size_t t = 0; t < (*docs[b])[s].size(); ++t)
        EXPECT_NEAR(inf.word_weights[b][s][t], ref.word_weights[b][s][t], 1e-5);
    }
  const std::vector<float> x = m.word_embeddings(docs);
  HAN::Cache a, bt;
  bt.input_grads_only = true;
  const models::HANOutput oa = m.forward_embedded(docs, x, a);
  const models::HANOutput ob = m.forward_embedded(docs, x, bt);
  for (size_t j = 0; j < oa.probs.size(); ++j) EXPECT_NEAR(ob.probs[j], oa.probs[j], 1e-5);
  const std::vector<float> dl = {0.3f, -0.3f, -0.7f, 0.7f};
  const std::vector<float> ga = m.backward_input(dl, a), gb = m.backward_input(dl, bt);
  ASSERT_EQ(gb.size(), ga.size());
  float gmax = 0;
  for (float v : ga) gmax = std::max(gmax, std::fabs(v));
  ASSERT_GT(gmax, 0.f);
  for (size_t j = 0; j < ga.size(); ++j) ASSERT_NEAR(gb[j], ga[j], 1e-5f * gmax) << "at " << j;
  EXPECT_THROW(m.backward(dl, bt), Error);  // no layer inputs kept: no parameter grads
}

// The IG baseline: by name, the <unk> embedding at every word is what f_baseline is computed
// at (a document of <unk> words); given per word, the input's own embeddings as the baseline
// leave nothing to attribute; one embedding given once equals it given at every word; bad
// sizes are Errors naming both accepted sizes.
TEST(Explain, HANIntegratedGradientsBaselines) {
  const HANConfig c = attnlab::testing::tiny_han_config();
  HAN m(c, attnlab::testing::numbered_vocab(12), 5);
  const HANDoc d = {{4, 5, 6}, {7}, {8, 9, 10, 11, 5}};
  explain::Options o;
  o.method = Method::IG;
  o.steps = 16;
  o.baseline_kind = explain::Baseline::Unk;
  const explain::HANAttribution unk = explain::attribute_han(m, d, o);
  const HANDoc all_unk = {{1, 1, 1}, {1}, {1, 1, 1, 1, 1}};
  const double f_unk = std::log(double(m.forward({&all_unk}).probs[size_t(unk.target)]));
  EXPECT_NEAR(unk.f_baseline, f_unk, 1e-5);
  double sum = 0;
  for (const auto& s : unk.attribution)
    for (float v : s) sum += v;
  EXPECT_NEAR(sum, unk.f - unk.f_baseline, 0.05 * std::fabs(unk.f - unk.f_baseline) + 1e-4);
  // the pad embedding is the zero row at init: the same as the zero baseline
  o.baseline_kind = explain::Baseline::Pad;
  const explain::HANAttribution pad = explain::attribute_han(m, d, o);
  o.baseline_kind = explain::Baseline::Zero;
  const explain::HANAttribution zero = explain::attribute_han(m, d, o);
  EXPECT_EQ(pad.f_baseline, zero.f_baseline);
  EXPECT_NE(unk.f_baseline, zero.f_baseline);
  // per word: the input itself (words in reading order, E values each)
  std::vector<float> own;
  for (const auto& s : d) {
    const HANDoc one = {s};
    const std::vector<float> e = m.word_embeddings({&one});
    own.insert(own.end(), e.begin(), e.end());
  }
  o.baseline = own;
  const explain::HANAttribution self = explain::attribute_han(m, d, o);
  EXPECT_NEAR(self.f_baseline, self.f, 1e-6);
  for (const auto& s : self.attribution)
    for (float v : s) EXPECT_EQ(v, 0.f);
  // one embedding, given once or at each of the 9 words
  o.baseline = {0.3f, -0.2f, 0.1f, 0.5f};
  const explain::HANAttribution once = explain::attribute_han(m, d, o);
  std::vector<float> each;
  for (int i = 0; i < 9; ++i) each.insert(each.end(), o.baseline.begin(), o.baseline.end());
  o.baseline = each;
  const explain::HANAttribution every = explain::attribute_han(m, d, o);
  EXPECT_EQ(once.f_baseline, every.f_baseline);
  EXPECT_EQ(once.attribution, every.attribution);
  o.baseline.resize(8);  // two words' worth: neither E nor 9 x E
  try {
    explain::attribute_han(m, d, o);
    ADD_FAILURE() << "a baseline of 8 values was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected a baseline of 4 values"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("36 (9 tokens x 4)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(explain::parse_baseline("unk"), explain::Baseline::Unk);
  EXPECT_THROW(explain::parse_baseline("mean"), Error);
}

namespace {
using attnlab::testing::letters;
std::unique_ptr<models::Seq2Seq> small_seq2seq(const std::string& rnn, bool feed) {
  models::Seq2SeqConfig c = attnlab::testing::tiny_seq2seq_config(4, 3, 5);
  c.rnn = rnn;
  c.input_feed = feed;
  c.max_src_len = 10;
  c.max_tgt_len = 8;
  c.output_sep = "";
  auto m = std::make_unique<models::Seq2Seq>(c, letters("ABCDEFGH"), letters("abcdefgh"), 5);
  attnlab::testing::perturb_params(*m, 9, 0.8f);
  return m;
}
}  // namespace

TEST(Explain, Seq2SeqEmbeddingGradientMatchesFiniteDifferences) {
  for (const char* rnn : {"gru", "lstm"}) {
    SCOPED_TRACE(rnn);
    auto m = small_seq2seq(rnn, true);
    const std::vector<int> src = {4, 6, 5, 9, 7}, out = {5, 8, 4};
    // one target (step 1) scored: its log p's gradient w.r.t. the source embeddings
    const auto [max_rel, gmax] = explain_test::check_source_gradient(*m, src, out, 1);
    EXPECT_GT(gmax, 1e-2);  // the check compared gradients that are not all ~0
    std::printf("[explain seq2seq grad %s] %zu values checked, max relative error %.2e\n", rnn,
                src.size() * m->config().emb, max_rel);
    explain_test::expect_zero_grads(*m);  // parameter gradients are left zero
  }
}

TEST(Explain, Seq2SeqIntegratedGradientsCompleteness) {
  auto m = small_seq2seq("gru", true);
  const std::vector<int> src = {4, 6, 5, 9, 7, 11};
  const models::Translation t = m->decode(src, {});
  ASSERT_FALSE(t.ids.empty());
  explain::Options o;
  o.method = Method::IG;
  o.steps = 64;
  const explain::Seq2SeqAttribution r = explain::attribute_seq2seq(*m, src, t.ids, o);
  ASSERT_EQ(r.rows, t.ids.size());
  ASSERT_EQ(r.cols, src.size());
  double worst = 0;
  for (size_t row = 0; row < r.rows; ++row) {
    double sum = 0;
    for (size_t s = 0; s < r.cols; ++s) sum += r.attribution[row * r.cols + s];
    const double delta = r.f[row] - r.f_baseline[row];
    const double rel = std::fabs(sum - delta) / std::max(std::fabs(delta), 1e-3);
    worst = std::max(worst, rel);
    EXPECT_LT(rel, 0.01) << "row " << row << " sum " << sum << " f(x)-f(b) " << delta;
  }
  std::printf("[explain seq2seq ig] %zu rows, worst completeness error %.3f%% at 64 steps\n", r.rows,
              100 * worst);
  // attention rows: the teacher-forced cross-attention sums to 1
  for (size_t row = 0; row < r.rows; ++row) {
    double s = 0;
    for (size_t c = 0; c < r.cols; ++c) s += r.attention[row * r.cols + c];
    EXPECT_NEAR(s, 1.0, 1e-4);
  }
  EXPECT_EQ(r.k, 1u);
  EXPECT_GT(r.prob, 0.0);
}

// Documents of filler words; positive ones hold the keyword once. After a short training,
// IG and gradient x input must rank the keyword first in most positive documents, IG's
// completeness must hold within 1% at 64 steps, and removing the top word by attribution must
// lower p(positive) at least as much as removing the top word by attention does, on average
// (within float rounding).
TEST(Explain, KeywordRankedFirstByAttributionAndItsRemovalFlipsTheDecision) {
  const attnlab::testing::KeywordTask task = attnlab::testing::trained_keyword_han(40);
  HAN& m = *task.model;
  const auto& [te, yte, wte] = task.test;
  m.params().zero_grad();
  explain::Options ig;
  ig.method = Method::IG;
  ig.steps = 64;
  ig.topk = 1;
  explain::Options grad;
  grad.topk = 1;
  size_t pos = 0, first_ig = 0, first_grad = 0, flipped = 0;
  double worst = 0, drop_attr = 0, drop_att = 0;
  for (size_t b = 0; b < te.size(); ++b) {
    if (!yte[b]) continue;
    ++pos;
    const explain::HANAttribution a = explain::attribute_han(m, te[b], ig);
    const explain::HANAttribution g = explain::attribute_han(m, te[b], grad);
    ASSERT_EQ(a.target, 1) << "doc " << b;  // the model gets the positives right
    double sum = 0;
    for (const auto& s : a.attribution)
      for (float v : s) sum += v;
    const double delta = a.f - a.f_baseline;
    worst = std::max(worst, std::fabs(sum - delta) / std::max(std::fabs(delta), 1e-3));
    first_ig += a.removed_attribution.at(0) == wte[b];
    first_grad += g.removed_attribution.at(0) == wte[b];
    flipped += a.prob_without_attribution < 0.5;
    drop_attr += a.prob - a.prob_without_attribution;
    drop_att += a.prob - a.prob_without_attention;
  }
  std::printf("[explain keyword] %zu positive docs: keyword ranked first by IG %zu, by grad x input %zu; "
              "IG completeness worst %.3f%%; top-1 removal: by attribution p drops %.3f on average "
              "(decision flipped in %zu), by attention %.3f\n",
              pos, first_ig, first_grad, 100 * worst, drop_attr / pos, flipped, drop_att / pos);
  EXPECT_LT(worst, 0.01);
  EXPECT_GE(double(first_ig) / pos, 0.9);
  EXPECT_GE(double(first_grad) / pos, 0.8);
  EXPECT_GE(double(flipped) / pos, 0.8);
  // both drops can saturate at ~1 per document; their sums then differ only by float rounding
  EXPECT_GE(drop_attr, drop_att - 1e-4 * double(pos)) << "difference " << drop_attr - drop_att;
  for (auto& it : m.params().items())
    for (size_t i = 0; i < it.second->size(); ++i) ASSERT_EQ(it.second->grad.data()[i], 0.f);
}

TEST(Explain, RemoveWords) {
  const HANDoc d = {{4, 5}, {6}, {7, 8, 9}};
  EXPECT_EQ(explain::remove_words(d, {{1, 0}, {2, 1}}), (HANDoc{{4, 5}, {7, 9}}));
  EXPECT_EQ(explain::remove_words({{4}}, {{0, 0}}), (HANDoc{{data::Vocab::kUnk}}));
}

TEST(Explain, RandomWordsAreDistinctSeededAndLeaveOneWord) {
  const HANDoc d = {{4, 5, 6}, {7}, {8, 9}};
  const auto a = explain::random_words(d, 3, 7), b = explain::random_words(d, 3, 7);
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), 3u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_LT(a[i].first, d.size());
    EXPECT_LT(a[i].second, d[a[i].first].size());
    for (size_t j = 0; j < i; ++j) EXPECT_NE(a[i], a[j]);
  }
  EXPECT_EQ(explain::random_words(d, 10, 1).size(), 5u);  // never all 6 words
  bool differs = false;
  for (uint64_t s = 0; s < 10 && !differs; ++s) differs = explain::random_words(d, 3, s) != a;
  EXPECT_TRUE(differs);
}
