// sacreBLEU's zh tokenization, BLEU on it, and chrF2, against the hand-worked cases of
// tests/fixtures/mt_metrics/cases.json (each case says how its number was derived).
#include <gtest/gtest.h>

#include "attnlab/core/error.hpp"
#include "attnlab/eval/bleu.hpp"
#include "attnlab/eval/mt_metrics.hpp"
#include "fixture_util.hpp"

using namespace attnlab::eval;
using nlohmann::json;

namespace {

// one section of the hand-worked cases
json mt_cases(const char* section) { return attnlab::testing::load_fixture("mt_metrics/cases.json")[section]; }

// the corpus statistics of a case's (hypothesis, reference) pairs, each text as prep gives it
template <class Stats, class Prep>
Stats corpus_stats(const json& c, Prep prep) {
  Stats st;
  for (size_t i = 0; i < c["hyps"].size(); ++i)
    st.add(prep(c["hyps"][i].get<std::string>()), prep(c["refs"][i].get<std::string>()));
  return st;
}

}  // namespace

TEST(TokenizeZh, MatchesHandWorkedCases) {
  const json cases = mt_cases("tokenize_zh");
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
  const json cases = mt_cases("bleu_zh");
  ASSERT_GE(cases.size(), 3u);
  for (const auto& c : cases) {
    const BleuStats st = corpus_stats<BleuStats>(c, [](const std::string& s) { return tokenize_zh(s); });
    EXPECT_NEAR(st.result().score, c["bleu"].get<double>(), 1e-9) << c["how"];
  }
}

TEST(Chrf, MatchesHandWorkedCases) {
  const json cases = mt_cases("chrf");
  ASSERT_GE(cases.size(), 6u);
  for (const auto& c : cases) {
    const ChrfStats st = corpus_stats<ChrfStats>(c, [](const std::string& s) { return s; });
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
