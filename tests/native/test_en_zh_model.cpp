// English -> Chinese on the own-data path: a 3-column TSV (attribution column) read with
// --extra-columns, wordpunct source words and character targets through train / eval / predict;
// and each shipped English -> Chinese model (models/en-zh-tatoeba, the Transformer chosen on
// validation, and models/en-zh-tatoeba-gru beside it) re-scored on its test split against its CARD.md.
#include <gtest/gtest.h>

#include <regex>

#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"

using attnlab::testing::CliRun;
using attnlab::testing::CliTest;
using attnlab::testing::slurp;
using nlohmann::json;

namespace {
class EnZhCli : public CliTest {
 protected:
  // `attnlab <args>` run in the source tree (the shipped model records its data file relative to it)
  CliRun run_in_source(const std::string& args) { return run(args, ATTNLAB_SOURCE_DIR); }
};
const char* const kShipped[] = {"en-zh-tatoeba", "en-zh-tatoeba-gru"};
}  // namespace

TEST_F(EnZhCli, ThreeColumnPairsWithWordpunctSourceAndCharTarget) {
  std::string tsv;
  const char* en[] = {"I am Chinese.", "I am a student.", "You are Chinese.", "He is a student.", "I am here!",
                      "You are here.", "He is Chinese.", "She is here."};
  const char* zh[] = {"我是华人。", "我是学生。", "你是华人。", "他是学生。", "我在这里！", "你在这里。", "他是华人。",
                      "她在这里。"};
  for (int rep = 0; rep < 3; ++rep)
    for (int i = 0; i < 8; ++i) tsv += std::string(en[i]) + "\t" + zh[i] + "\tCC-BY 2.0 (France) #" + std::to_string(i) + "\n";
  write("pairs.tsv", tsv);
  // three columns without --extra-columns: the line is named
  expect_error("train seq2seq --train pairs.tsv --split 80/10/10 --max-steps 2 --quiet", 1,
               {"line 1: more than one tab", "--extra-columns"});
  CliRun r = run("train seq2seq --train pairs.tsv --extra-columns --split 100/0/0 --src-tokens wordpunct "
          "--emb 16 --hidden 16 --combine 16 --epochs 2 --batch-size 8 --out m.safetensors --json");
  ASSERT_EQ(r.code, 0) << r.err;
  // the vocabulary holds lowercased words with the punctuation split off
  r = run("predict --model m.safetensors --json I am Chinese.");
  ASSERT_EQ(r.code, 0) << r.err;
  const json p = json::parse(r.out);
  EXPECT_EQ(p["input"], json::array({"i", "am", "chinese", "."}));
  EXPECT_EQ(p["cols"], 4);
  EXPECT_EQ(p["text"].get<std::string>().find(' '), std::string::npos);  // characters joined with ''
  // an unseen word is <unk>, not an error
  r = run("predict --model m.safetensors --json I am Martian!");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["input"], json::array({"i", "am", "<unk>", "!"}));
  // eval on a 3-column test file: the model records --extra-columns
  r = run("eval --model m.safetensors --test pairs.tsv --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json e = json::parse(r.out);
  EXPECT_EQ(e["greedy"]["pairs"], 24);
  for (const char* k : {"bleu", "bleu_zh", "chrf", "exact_match"}) EXPECT_TRUE(e["greedy"].contains(k)) << k;
}

TEST_F(EnZhCli, ShippedModelsReproduceTheirCards) {
  for (const char* name : kShipped) {
    SCOPED_TRACE(name);
    const std::string dir = std::string("models/") + name;
    const std::string model = std::string(ATTNLAB_SOURCE_DIR) + "/" + dir + "/model.safetensors";
    if (access(model.c_str(), R_OK) != 0) GTEST_SKIP() << "no shipped model at " << model;
    const std::string card = slurp(std::string(ATTNLAB_SOURCE_DIR) + "/" + dir + "/CARD.md");
    // the card's line: "Test split (1,483 pairs, greedy, int8 decoder): BLEU-zh 27.31, chrF2 25.40, exact match 12.34%"
    std::smatch m;
    const std::regex line(R"(Test split \(([0-9,]+) pairs, greedy, int8 decoder\): BLEU-zh ([0-9.]+), chrF2 ([0-9.]+), exact match ([0-9.]+)%)");
    ASSERT_TRUE(std::regex_search(card, m, line)) << "CARD.md has no test-score line";
    const CliRun r = run_in_source("eval --model " + dir + "/model.safetensors --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const json g = json::parse(r.out)["greedy"];
    std::string pairs = m[1];
    pairs.erase(std::remove(pairs.begin(), pairs.end(), ','), pairs.end());
    EXPECT_EQ(g["pairs"].get<size_t>(), std::stoul(pairs));
    EXPECT_NEAR(g["bleu_zh"].get<double>(), std::stod(m[2]), 0.006);
    EXPECT_NEAR(g["chrf"].get<double>(), std::stod(m[3]), 0.006);
    EXPECT_NEAR(100 * g["exact_match"].get<double>(), std::stod(m[4]), 0.006);
  }
}
