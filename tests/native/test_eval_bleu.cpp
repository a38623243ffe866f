// Corpus BLEU against the expected scores of sacreBLEU's own tests
// (tests/fixtures/bleu/sacrebleu_cases.json names the source of each number).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/eval/bleu.hpp"

using attnlab::eval::BleuOptions;
using attnlab::eval::BleuStats;
using attnlab::eval::split_spaces;
using nlohmann::json;

namespace {
json cases() {
  std::ifstream f(std::string(ATTNLAB_FIXTURES_DIR) + "/bleu/sacrebleu_cases.json");
  std::stringstream ss;
  ss << f.rdbuf();
  return json::parse(ss.str());
}
BleuOptions opts(const json& c) {
  BleuOptions o;
  o.smooth = c["smooth"].get<std::string>();
  o.smooth_value = c["smooth_value"].get<double>();
  o.effective_order = c.value("effective_order", false);
  return o;
}
}  // namespace

TEST(Bleu, CorpusScoresEqualSacreBleu) {
  const json all = cases();
  ASSERT_GE(all["corpus"].size(), 10u);
  for (const auto& c : all["corpus"]) {
    BleuStats st;
    for (size_t i = 0; i < c["hyps"].size(); ++i) {
      std::vector<std::vector<std::string>> refs;
      for (const auto& r : c["refs"][i]) refs.push_back(split_spaces(r.get<std::string>()));
      st.add(split_spaces(c["hyps"][i].get<std::string>()), refs);
    }
    EXPECT_NEAR(st.result(opts(c)).score, c["score"].get<double>(), 1e-6) << c["what"];
  }
}

TEST(Bleu, StatisticsEqualSacreBleu) {
  const json all = cases();  // named: a range-for over a temporary's member would dangle
  for (const auto& c : all["statistics"]) {
    BleuStats st;
    st.add(split_spaces(c["hyp"].get<std::string>()), split_spaces(c["ref"].get<std::string>()));
    for (size_t n = 0; n < 4; ++n) {
      EXPECT_EQ(st.correct[n], c["correct"][n].get<size_t>()) << n;
      EXPECT_EQ(st.total[n], c["total"][n].get<size_t>()) << n;
    }
    EXPECT_EQ(st.sys_len, 6u);
    EXPECT_EQ(st.ref_len, 8u);
  }
}

TEST(Bleu, ScoringFromStatisticsEqualsSacreBleu) {
  const json all = cases();  // named: a range-for over a temporary's member would dangle
  for (const auto& c : all["scoring"]) {
    std::array<size_t, 4> cor{}, tot{};
    for (size_t n = 0; n < 4; ++n) {
      cor[n] = c["correct"][n].get<size_t>();
      tot[n] = c["total"][n].get<size_t>();
    }
    const auto r = attnlab::eval::compute_bleu(cor, tot, c["sys_len"].get<size_t>(),
                                               c["ref_len"].get<size_t>(), opts(c));
    EXPECT_NEAR(r.score, c["score"].get<double>(), 1e-6) << c["what"];
  }
}

TEST(Bleu, ClosestReferenceLengthTiesGoToTheShorter) {
  BleuStats st;  // hypothesis of 3 tokens, references of 2 and 4: both 1 away -> 2
  st.add({"a", "b", "c"}, std::vector<std::vector<std::string>>{{"a", "b", "c", "d"}, {"a", "b"}});
  EXPECT_EQ(st.ref_len, 2u);
  BleuStats st2;
  st2.add({"a", "b", "c"}, std::vector<std::vector<std::string>>{{"x", "y", "z", "w"}, {"a", "b", "c", "d", "e"}});
  EXPECT_EQ(st2.ref_len, 4u);
}

TEST(Bleu, ClipsRepeatedNgramsByTheReference) {
  BleuStats st;  // "the the the" vs "the cat": one 'the' counts
  st.add({"the", "the", "the"}, std::vector<std::string>{"the", "cat"});
  EXPECT_EQ(st.correct[0], 1u);
  EXPECT_EQ(st.total[0], 3u);
}

TEST(Bleu, ExpSmoothingHalvesEachZeroPrecision) {
  // precisions 3/4, 0/3 -> 1/(2*3), 0/2 -> 1/(4*2), 0/1 -> 1/(8*1) (sacreBLEU's 'exp')
  const auto r = attnlab::eval::compute_bleu({3, 0, 0, 0}, {4, 3, 2, 1}, 4, 4);
  EXPECT_NEAR(r.precisions[1], 100.0 / 6, 1e-9);
  EXPECT_NEAR(r.precisions[2], 100.0 / 8, 1e-9);
  EXPECT_NEAR(r.precisions[3], 100.0 / 8, 1e-9);
  EXPECT_NEAR(r.score, std::exp((std::log(75.0) + std::log(100.0 / 6) + 2 * std::log(12.5)) / 4), 1e-9);
}

TEST(Bleu, RejectsUnknownSmoothing) {
  BleuOptions o;
  o.smooth = "add-one";
  EXPECT_THROW(attnlab::eval::compute_bleu({1, 1, 1, 1}, {1, 1, 1, 1}, 1, 1, o), attnlab::Error);
}

TEST(Bleu, SplitSpacesDropsEmptyRuns) {
  EXPECT_EQ(split_spaces("  a  b c "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_spaces("").empty());
}
