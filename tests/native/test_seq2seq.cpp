// Seq2seq with attention: gradients (finite differences, every score kind, GRU and LSTM),
// decoding invariants, file round trip, the input error contract, and (when the shipped
// model files exist) the model cards' metrics on fixed samples.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "attnlab/core/error.hpp"
#include "attnlab/data/cmudict.hpp"
#include "attnlab/data/dates.hpp"
#include "attnlab/data/seq_metrics.hpp"
#include "attnlab/models/seq2seq.hpp"

using namespace attnlab;
using models::Seq2Seq;
using models::Seq2SeqConfig;

namespace {

data::Vocab letters(const std::string& s) {
  data::Vocab v;
  for (char c : s) v.add(std::string(1, c));
  return v;
}

Seq2SeqConfig small_config(const std::string& score, const std::string& rnn, bool bi, bool feed) {
  Seq2SeqConfig c;
  c.rnn = rnn;
  c.bidirectional = bi;
  c.input_feed = feed;
  c.score = score;
  c.emb = 3;
  c.enc_hidden = bi ? 2 : 4;
  c.attn_dim = 3;
  c.local_window = 1;
  c.combine = 3;
  c.max_src_len = 10;
  c.max_tgt_len = 8;
  return c;
}

// random batch: B sequences with given source / target lengths
models::Seq2SeqBatch random_batch(const std::vector<size_t>& slen, const std::vector<size_t>& tlen,
                                  size_t vs, size_t vt, uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<int>> src, tgt;
  std::vector<size_t> idx;
  for (size_t i = 0; i < slen.size(); ++i) {
    std::vector<int> s(slen[i]), t(tlen[i]);
    for (auto& x : s) x = 4 + int(rng.below(uint32_t(vs - 4)));
    for (auto& x : t) x = 4 + int(rng.below(uint32_t(vt - 4)));
    src.push_back(s);
    tgt.push_back(t);
    idx.push_back(i);
  }
  return models::make_seq2seq_batch(src, tgt, idx);
}

struct GradCase {
  std::string score, rnn;
  bool bi, feed;
};

void grad_check(const GradCase& gc) {
  SCOPED_TRACE(gc.score + " " + gc.rnn + (gc.bi ? " bi" : " uni") + (gc.feed ? " feed" : ""));
  const data::Vocab src = letters("ABCDE"), tgt = letters("xyz");
  Seq2Seq m(small_config(gc.score, gc.rnn, gc.bi, gc.feed), src, tgt, 7);
  ParamList ps;
  m.collect(ps);
  // perturb zero-initialised or tiny parameters so every path carries signal
  Rng r(3);
  for (auto& it : ps.items())
    for (size_t i = 0; i < it.second->size(); ++i) it.second->data()[i] += 0.3f * (r.uniform() - 0.5f);
  const std::vector<std::pair<std::vector<size_t>, std::vector<size_t>>> shapes = {
      {{1}, {1}}, {{4, 2, 3}, {2, 3, 1}}, {{5, 5}, {4, 2}}};
  for (size_t si = 0; si < shapes.size(); ++si) {
    const auto b = random_batch(shapes[si].first, shapes[si].second, src.size(), tgt.size(), 11 + si);
    ps.zero_grad();
    m.train_step(b);
    const double eps = 1e-2;
    size_t checked = 0;
    double worst = 0;
    for (auto& it : ps.items()) {
      Param& p = *it.second;
      for (size_t i = 0; i < p.size(); ++i) {
        const float orig = p.data()[i];
        p.data()[i] = orig + float(eps);
        const double lp = m.loss(b);
        p.data()[i] = orig - float(eps);
        const double lm = m.loss(b);
        p.data()[i] = orig;
        const double num = (lp - lm) / (2 * eps);
        const double ana = p.grad.data()[i];
        const double err = std::fabs(num - ana) / std::max(1.0, std::fabs(num) + std::fabs(ana));
        worst = std::max(worst, err);
        EXPECT_NEAR(ana, num, 3e-3 + 2e-2 * std::fabs(num))
            << it.first << "[" << i << "] shape " << si;
        ++checked;
      }
    }
    EXPECT_GT(checked, 50u);
    std::printf("[grad %s %s%s%s shape %zu] %zu params, worst rel err %.2e\n", gc.score.c_str(),
                gc.rnn.c_str(), gc.bi ? " bi" : "", gc.feed ? " feed" : "", si, checked, worst);
  }
}

}  // namespace

TEST(Seq2SeqGrad, AdditiveGruBiFeed) { grad_check({"additive", "gru", true, true}); }
TEST(Seq2SeqGrad, GeneralGruBiFeed) { grad_check({"general", "gru", true, true}); }
TEST(Seq2SeqGrad, DotGruBiFeed) { grad_check({"dot", "gru", true, true}); }
TEST(Seq2SeqGrad, ScaledDotLstmBiFeed) { grad_check({"scaled_dot", "lstm", true, true}); }
TEST(Seq2SeqGrad, LocalPGruBiFeed) { grad_check({"local_p", "gru", true, true}); }
TEST(Seq2SeqGrad, TfjsLikeLstmUniDotNoFeed) { grad_check({"dot", "lstm", false, false}); }
TEST(Seq2SeqGrad, AdditiveLstmUniFeed) { grad_check({"additive", "lstm", false, true}); }
