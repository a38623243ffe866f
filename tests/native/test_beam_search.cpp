// beam_search on a toy decoder whose next-token log-probabilities depend only on the
// previous token: with a beam wider than every path, the search is exhaustive, so its
// ranked list must be every output (ended with </s> or cut at max_len) sorted by the
// GNMT score, each score recomputed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "attnlab/models/beam_search.hpp"

namespace m = attnlab::models;

namespace {
// vocab: 0..2 specials, 3 = </s>, 4 and 5; rows: previous token (2 = <s>)
constexpr size_t V = 6;
float table(int prev, int tok) {
  static const std::map<int, std::vector<float>> p = {
      {2, {0, 0, 0, 0.1f, 0.6f, 0.3f}}, {4, {0, 0, 0, 0.5f, 0.2f, 0.3f}}, {5, {0, 0, 0, 0.2f, 0.4f, 0.4f}}};
  const float v = p.at(prev)[size_t(tok)];
  return v > 0 ? std::log(v) : -1e9f;
}
m::BeamStepper toy() {
  m::BeamStepper s;
  s.vocab = V;
  s.width = 1;
  s.step = [](size_t n, const int* prev, float* w, float* lp) {
    for (size_t i = 0; i < n; ++i) {
      w[i] = 1;
      for (size_t v = 0; v < V; ++v) lp[i * V + v] = table(prev[i], int(v));
    }
  };
  s.reorder = [](const std::vector<size_t>&) {};
  return s;
}
double gnmt(double logp, size_t len, float alpha) {
  return alpha > 0 ? logp / std::pow((5.0 + double(len)) / 6.0, double(alpha)) : logp;
}
}  // namespace

TEST(BeamSearch, RankedListIsEveryOutputSortedByScore) {
  for (float alpha : {0.f, 0.6f, 1.f}) {
    const size_t max_len = 3;
    const std::vector<m::BeamHyp> r = m::beam_search(toy(), 64, max_len, alpha);
    ASSERT_FALSE(r.empty());
    // exhaustive: sequences over {4, 5} of length 0..3 ending with </s> (15), and the 8 cut at 3
    EXPECT_EQ(r.size(), 15u + 8u);
    for (size_t k = 0; k < r.size(); ++k) {
      const m::BeamHyp& h = r[k];
      double logp = 0;
      int prev = 2;
      for (size_t i = 0; i < h.ids.size(); ++i) {
        EXPECT_NEAR(h.probs[i], std::exp(table(prev, h.ids[i])), 1e-6);
        logp += double(table(prev, h.ids[i]));
        prev = h.ids[i];
      }
      if (h.done) logp += double(table(prev, 3));
      EXPECT_NEAR(h.logp, logp, 1e-5);
      EXPECT_NEAR(h.score, gnmt(logp, h.ids.size() + (h.done ? 1 : 0), alpha), 1e-5);
      EXPECT_EQ(h.attn.size(), h.ids.size());
      if (k) {
        EXPECT_GE(r[k - 1].score, h.score) << "alpha " << alpha << " rank " << k;
      }
    }
  }
}

TEST(BeamSearch, NarrowBeamKeepsAtMostBeamFinishedAndTheBestFirst) {
  const std::vector<m::BeamHyp> r = m::beam_search(toy(), 2, 10, 0.f);
  ASSERT_GE(r.size(), 1u);
  EXPECT_LE(r.size(), 2u);
  // </s> first is 0.1; 4 </s> is 0.6 * 0.5 = 0.3: the best
  EXPECT_EQ(r[0].ids, std::vector<int>({4}));
  EXPECT_TRUE(r[0].done);
  EXPECT_NEAR(r[0].logp, std::log(0.3), 1e-5);
}

TEST(BeamSearch, GreedyIsOneHypothesis) {
  const std::vector<m::BeamHyp> r = m::beam_search(toy(), 1, 10, 0.6f);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].ids, std::vector<int>({4}));
}
