// The score table drives everything: names and aliases parse back to their
// row, every score's one-query path (prepared keys, as the decoders use it)
// equals its batched forward, and a seq2seq model decodes with every score.
#include <gtest/gtest.h>

#include <cmath>

#include "attnlab/attention/score.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/models/seq2seq.hpp"

using namespace attnlab;
using namespace attnlab::attention;

class EveryScore : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryScore, NameParsesBackToItsRow) {
  const ScoreKind k = parse_score_kind(GetParam());
  EXPECT_EQ(score_kind_name(k), GetParam());
  EXPECT_EQ(score_spec(k).kind, k);
  for (const std::string& a : score_spec(k).aliases) EXPECT_EQ(parse_score_kind(a), k) << a;
  EXPECT_NE(std::string(score_spec(k).formula), "");
}

TEST_P(EveryScore, OneQueryPathEqualsForward) {
  Rng rng(7);
  const size_t Tq = 3, S = 5, D = 6;
  ScoreConfig cfg;
  cfg.kind = parse_score_kind(GetParam());
  cfg.query_dim = D;
  cfg.key_dim = D;
  cfg.attn_dim = 4;
  cfg.max_keys = 8;
  const Score sc(cfg, rng);
  Tensor3 q = Tensor3::from_shape({1, Tq, D}), kk = Tensor3::from_shape({1, S, D});
  for (float& v : q) v = rng.normal(0.f, 1.f);
  for (float& v : kk) v = rng.normal(0.f, 1.f);
  const Tensor3 ref = sc.forward(q, kk, nullptr);
  std::vector<float> prepared(S * sc.prepared_width()), scratch(sc.scratch_size(S)), out(S);
  sc.prepare_keys(S, kk.data(), prepared.data());
  for (size_t t = 0; t < Tq; ++t) {
    sc.score_query(S, q.data() + t * D, nullptr, kk.data(), prepared.data(), out.data(), scratch.data());
    for (size_t j = 0; j < S; ++j) EXPECT_NEAR(out[j], ref(0, t, j), 1e-5f) << "query " << t << " key " << j;
  }
}

TEST_P(EveryScore, Seq2SeqDecodesWithIt) {
  data::Vocab src, tgt;
  for (char c : std::string("ABCDEF")) src.add(std::string(1, c));
  for (char c : std::string("xyz")) tgt.add(std::string(1, c));
  models::Seq2SeqConfig c;
  c.rnn = "gru";
  c.score = GetParam();
  c.emb = 4;
  c.enc_hidden = 6;  // dec_hidden == enc_out, so the same-size scores apply
  c.attn_dim = 3;
  c.combine = 5;
  c.max_src_len = 8;
  c.max_tgt_len = 6;
  const models::Seq2Seq m(c, src, tgt, 3);
  for (auto p : {models::DecodePrecision::F32, models::DecodePrecision::Int16, models::DecodePrecision::Int8}) {
    models::DecodeOptions o;
    o.precision = p;
    o.max_len = 4;
    const models::Translation t = m.translate("abcf", o);
    ASSERT_EQ(t.cols, 4u);
    for (size_t r = 0; r < t.rows; ++r) {
      float s = 0;
      for (size_t j = 0; j < t.cols; ++j) s += t.attention[r * t.cols + j];
      EXPECT_NEAR(s, 1.f, 1e-4f) << GetParam() << " row " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Table, EveryScore, ::testing::ValuesIn(score_names()),
                         [](const auto& p) { return p.param; });

TEST(ScoreTable, UnknownNamesListTheTable) {
  try {
    parse_score_kind("nope");
    FAIL();
  } catch (const Error& e) {
    for (const std::string& n : score_names()) EXPECT_NE(std::string(e.what()).find(n), std::string::npos);
  }
}
