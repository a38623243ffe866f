// sacreBLEU's zh tokenization, BLEU on it, and chrF2, against the hand-worked cases of
// tests/fixtures/mt_metrics/cases.json (each case says how its number was derived).
#include <gtest/gtest.h>

#include "attnlab/core/error.hpp"
#include "attnlab/eval/bleu.hpp"
#include "attnlab/eval/mt_metrics.hpp"
#include "fixture_util.hpp"

using namespace attnlab::eval;
using nlohmann::json;

TEST(TokenizeZh, MatchesHandWorkedCases) {
  const json all = attnlab::testing::load_fixture("mt_metrics/cases.json");
  const json cases = all["tokenize_zh"];
  ASSERT_GE(cases.size(), 8u);
  for (const auto& c : cases)
    EXPECT_EQ(tokenize_zh(c["text"].get<std::string>()), c["tokens"].get<std::vector<std::string>>())
        << c["text"] << ": " << c["how"];
}

TEST(TokenizeZh, RegexpPartAloneKeepsCjkRuns) {
  EXPECT_EQ(tokenize_13a_regexp("我是华人。Hi, you."), (std::vector<std::string>{"我是华人。Hi", ",", "you", "."}));
  EXPECT_THROW(tokenize_zh("ok \xFF"), attnlab::Error);
}

TEST(BleuZh, MatchesHandWorkedCases) {
  const json all = attnlab::testing::load_fixture("mt_metrics/cases.json");
  const json cases = all["bleu_zh"];
  ASSERT_GE(cases.size(), 3u);
  for (const auto& c : cases) {
    BleuStats st;
    for (size_t i = 0; i < c["hyps"].size(); ++i)
      st.add(tokenize_zh(c["hyps"][i].get<std::string>()), tokenize_zh(c["refs"][i].get<std::string>()));
    EXPECT_NEAR(st.result().score, c["bleu"].get<double>(), 1e-9) << c["how"];
  }
}

TEST(Chrf, MatchesHandWorkedCases) {
  const json all = attnlab::testing::load_fixture("mt_metrics/cases.json");
  const json cases = all["chrf"];
  ASSERT_GE(cases.size(), 6u);
  for (const auto& c : cases) {
    ChrfStats st;
    for (size_t i = 0; i < c["hyps"].size(); ++i)
      st.add(c["hyps"][i].get<std::string>(), c["refs"][i].get<std::string>());
    EXPECT_NEAR(st.score(), c["chrf"].get<double>(), 1e-9) << c["how"];
  }
}

TEST(Chrf, OrderStatisticsAndAstralCharacters) {
  ChrfStats st;
  st.add("abcdefgh", "ab");
  EXPECT_EQ(st.hyp[0], 8u);
  EXPECT_EQ(st.hyp[1], 7u);
  EXPECT_EQ(st.hyp[2], 0u);  // the reference has no trigram: the hypothesis' trigrams do not count
  EXPECT_EQ(st.ref[2], 0u);
  EXPECT_EQ(st.match[1], 1u);
  ChrfStats e;  // code points, not bytes: an emoji is one character
  e.add("\xF0\x9F\x98\x80x", "\xF0\x9F\x98\x80y");
  EXPECT_EQ(e.hyp[0], 2u);
  EXPECT_EQ(e.match[0], 1u);
  EXPECT_EQ(e.hyp[1], 1u);
  EXPECT_EQ(e.match[1], 0u);
  EXPECT_DOUBLE_EQ(ChrfStats().score(), 0.0);
  EXPECT_THROW(e.add("\xC3", "x"), attnlab::Error);
}
