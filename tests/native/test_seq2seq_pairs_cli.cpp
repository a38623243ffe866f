// `attnlab train seq2seq` on the user's own TSV pairs, run as a user would: help, the order
// of errors, bad lines, empty splits, a short training on generated pairs (numbers written in
// words -> digits) that reaches a stated exact match, eval / predict / describe of the file,
// the Transformer on the same path, and the README's worked example.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/data/number_words.hpp"
#include "attnlab/io/safetensors.hpp"
#include "cli_test_util.hpp"

using attnlab::testing::CliRun;
using attnlab::testing::CliTest;
using nlohmann::json;

using PairsCli = CliTest;

// small RNN: the generated number pairs are learned in a few seconds
const std::string kSmallRnn = " --emb 32 --hidden 64 --combine 64 --epochs 8 --batch-size 32 --lr 0.005 --warmup 50";

TEST_F(PairsCli, HelpListsTheCommandAndItsFlags) {
  expect_output("help", {"seq2seq with attention (RNN or Transformer) on your own TSV pairs", "example-pairs"});
  expect_output("train seq2seq --help", {"--train", "--valid", "--test", "--split", "--src-tokens", "--tgt-tokens",
                                         "--min-count", "--skip-bad", "--rnn", "--score", "--no-input-feed",
                                         "--window", "--arch"});
  expect_output("train seq2seq --arch transformer --help",
                {"--train", "--src-tokens", "--d-model", "--heads", "--disagree-output"});
  expect_output("eval --help", {"--test"});
}

TEST_F(PairsCli, ErrorsComeInOrderAndSayWhatToDo) {
  expect_error("train seq2seq", 2, {"needs --train FILE"});
  // a missing file is reported before the model flags are judged
  const CliRun r = run("train seq2seq --train missing.tsv --rnn bogus");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("missing.tsv"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("bogus"), std::string::npos) << r.err;
  write("bad.tsv", "one\t1\ntwo 2\nthree\t3\n");
  write("ok.tsv", "one\t1\n");
  // (arguments, exit code, what stderr says); flags of another task are refused, not ignored
  const std::tuple<std::string, int, std::vector<std::string>> cases[] = {
      {"train seq2seq --train bad.tsv", 1, {"bad.tsv: line 2: no tab", "--skip-bad"}},
      {"train seq2seq --train ok.tsv --split 90/5/5 --valid ok.tsv", 2, {"either --split or --valid/--test"}},
      {"train seq2seq --train ok.tsv --src-tokens bpe", 2, {"'char', 'word' or 'wordpunct'"}},
      {"train seq2seq --train ok.tsv --split 90/10", 2, {"--split"}},
      {"train dates --data pairs.tsv", 2, {"takes no --data", "train seq2seq --train FILE"}},
      {"train g2p --train ok.tsv", 2, {"takes no --train"}},
      {"train dates --arch transformer", 2, {}},
  };
  for (const auto& [args, code, parts] : cases) expect_error(args, code, parts);
}

TEST_F(PairsCli, NumbersInWordsToDigitsReachStatedExactMatch) {
  using namespace attnlab::data;
  write("numbers.tsv", pairs_tsv(number_pairs(2000, 9999, 1, "en", "words-digits")));
  CliRun r = run("train seq2seq --train numbers.tsv --src-tokens word --tgt-tokens char" + kSmallRnn +
                 " --seed 3 --json --out n.safetensors");
  ASSERT_EQ(r.code, 0) << r.err;
  const json done = event(r.out, "done");
  ASSERT_TRUE(done.contains("scores")) << r.out;
  EXPECT_EQ(done["scores"]["split"], "test");
  EXPECT_GT(done["scores"]["pairs"].get<size_t>(), 60u);  // ~5% of 2000
  // measured 100% (109 test pairs) with this seed; stated: at least 95%
  EXPECT_GE(done["scores"]["exact_match"].get<double>(), 0.95) << done.dump();
  EXPECT_GE(done["scores"]["bleu"].get<double>(), 90.0);
  EXPECT_LE(done["scores"]["token_error_rate"].get<double>(), 0.03);
  const json ev = event(r.out, "eval");
  EXPECT_LE(ev["val_exact_err"].get<double>(), 0.05) << ev.dump();
  // eval re-reads the recorded split and gives the same greedy scores
  r = run("eval --model n.safetensors --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json ej = json::parse(r.out);
  EXPECT_EQ(ej["greedy"]["pairs"], done["scores"]["pairs"]);
  EXPECT_DOUBLE_EQ(ej["greedy"]["exact_match"].get<double>(), done["scores"]["exact_match"].get<double>());
  // another test file, beam too
  write("more.tsv", "forty two\t42\nnine thousand nine\t9009\n");
  r = run("eval --model n.safetensors --test more.tsv --beam 3 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["beam"]["pairs"], 2);
  // the validation part of the recorded split; not together with --test
  r = run("eval --model n.safetensors --split valid --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json vj = json::parse(r.out);
  EXPECT_NE(vj["test"].get<std::string>().find("the validation part"), std::string::npos) << r.out;
  EXPECT_GT(vj["greedy"]["pairs"].get<size_t>(), 0u);
  expect_error("eval --model n.safetensors --split valid --test more.tsv", 2, {"either --split"});
  // flags of the other seq2seq evaluations are refused, not ignored
  expect_error("eval --model n.safetensors --heads", 2, {"--heads applies to G2P and dates"});
  // predict: words in, digits out joined with ''; an unseen word becomes <unk>, no error
  r = run("predict --model n.safetensors seven thousand twelve");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "7012\n");
  r = run("predict --model n.safetensors --json seven zillion twelve");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"<unk>\""), std::string::npos) << r.out;
  // the vocabularies and tokens are in the file
  const attnlab::io::SafeTensors st = attnlab::io::read_file(dir_ + "/n.safetensors");
  const json cfg = json::parse(attnlab::io::model_info(st).config);
  EXPECT_EQ(cfg["src_tokens"], "word");
  EXPECT_EQ(cfg["tgt_tokens"], "char");
  EXPECT_EQ(st.meta("data"), "tsv");
  EXPECT_NE(st.meta("tgt_vocab").find("\"7\""), std::string::npos);
}

TEST_F(PairsCli, ChineseCharactersAndWordOutputs) {
  using namespace attnlab::data;
  // digits -> English words: char source, word target (joined with ' ')
  write("en.tsv", pairs_tsv(number_pairs(2000, 9999, 2, "en", "digits-words")));
  CliRun r = run("train seq2seq --train en.tsv --tgt-tokens word" + kSmallRnn + " --json --out w.safetensors");
  ASSERT_EQ(r.code, 0) << r.err;
  // measured 91.58% exact match (95 test pairs); stated: at least 80%
  EXPECT_GE(event(r.out, "done")["scores"]["exact_match"].get<double>(), 0.8) << r.out;
  r = run("predict --model w.safetensors 4012");
  EXPECT_EQ(r.out, "four thousand twelve\n") << r.err;
  // Chinese numerals -> digits: code points as tokens
  write("zh.tsv", pairs_tsv(number_pairs(2000, 9999, 3, "zh", "words-digits")));
  r = run("train seq2seq --train zh.tsv" + kSmallRnn + " --json --out zh.safetensors");
  ASSERT_EQ(r.code, 0) << r.err;
  // measured 100% exact match (93 test pairs); stated: at least 80%
  EXPECT_GE(event(r.out, "done")["scores"]["exact_match"].get<double>(), 0.8) << r.out;
  r = run("predict --model zh.safetensors --json 一千零一十");
  ASSERT_EQ(r.code, 0) << r.err;
  const json p = json::parse(r.out);
  EXPECT_EQ(p["text"], "1010") << r.out;
}

TEST_F(PairsCli, BadLinesSkippedAndEmptyValidationIsNotAScore) {
  std::string text;
  for (int i = 0; i < 60; ++i) text += attnlab::data::english_number(uint64_t(i)) + "\t" + std::to_string(i) + "\n";
  write("pairs.tsv", "\xEF\xBB\xBF" + text + "no tab\r\n\t5\r\nbad \xFF\t1\n");
  write("empty.tsv", "\n\n");
  CliRun r = run("train seq2seq --train pairs.tsv --skip-bad --valid empty.tsv --src-tokens word --epochs 1 "
                 "--emb 8 --hidden 8 --combine 8 --out s.safetensors");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("--train: skipped 3 malformed line(s) of 63"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 61: no tab"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no validation pairs"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("val_exact_err n/a"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("valid (greedy): n/a (no pairs to score)"), std::string::npos) << r.err;
  r = run("describe --model s.safetensors");
  EXPECT_NE(r.out.find("skipped_lines"), std::string::npos) << r.out;
  r = run("train seq2seq --train pairs.tsv --skip-bad --valid empty.tsv --src-tokens word --epochs 1 "
          "--emb 8 --hidden 8 --combine 8 --json --out s.safetensors");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(event(r.out, "eval")["val_exact_err"].is_null()) << r.out;
  EXPECT_EQ(event(r.out, "done")["scores"]["pairs"], 0);
  EXPECT_FALSE(event(r.out, "done")["scores"].contains("exact_match"));
  // eval without any test pairs recorded asks for them
  expect_error("eval --model s.safetensors", 2, {"give --test FILE"});
}

TEST_F(PairsCli, TransformerOnThePairsPath) {
  using namespace attnlab::data;
  write("numbers.tsv", pairs_tsv(number_pairs(600, 999, 4, "en", "words-digits")));
  CliRun r = run("train seq2seq --arch transformer --train numbers.tsv --src-tokens word --d-model 16 --heads 2 "
                 "--ff 32 --enc-layers 1 --dec-layers 1 --epochs 2 --batch-size 32 --warmup 5 --json --out t.safetensors");
  ASSERT_EQ(r.code, 0) << r.err;
  const json done = event(r.out, "done");
  ASSERT_TRUE(done.contains("scores")) << r.out;
  EXPECT_GT(done["scores"]["pairs"].get<size_t>(), 0u);
  const attnlab::io::SafeTensors st = attnlab::io::read_file(dir_ + "/t.safetensors");
  EXPECT_EQ(attnlab::io::model_info(st).kind, "transformer-seq2seq");
  EXPECT_EQ(json::parse(attnlab::io::model_info(st).config)["src_tokens"], "word");
  r = run("eval --model t.safetensors --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["greedy"]["pairs"], done["scores"]["pairs"]);
  r = run("predict --model t.safetensors seven hundred zillion");  // <unk> accepted
  EXPECT_EQ(r.code, 0) << r.err;
  // as a teacher (token-level distillation) of a run on the same pairs; not of a run on others
  const std::string small = "--src-tokens word --d-model 16 --heads 2 --ff 32 --enc-layers 1 --dec-layers 1 "
                            "--epochs 1 --batch-size 32 --max-steps 2 --teacher t.safetensors";
  r = run("train seq2seq --arch transformer --train numbers.tsv " + small + " --out k.safetensors");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(attnlab::io::read_file(dir_ + "/k.safetensors").meta("teacher"), "t.safetensors");
  write("other.tsv", pairs_tsv(number_pairs(600, 999, 5, "en", "words-digits")));
  expect_error("train seq2seq --arch transformer --train other.tsv " + small + " --out o.safetensors", 2,
               {"--teacher t.safetensors: trained on other pairs"});
}

// The README's "train on your own data" commands, run as written but on less data and fewer
// epochs (the substitutions below), so the example stays true.
TEST_F(PairsCli, ReadmeExampleRuns) {
  EXPECT_GE(run_readme_example("own-data-example"), 4u);
}

// A tiny custom dictionary: no word falls in the validation or test split. Validation is n/a,
// never a perfect score, and eval says there is nothing to score.
TEST_F(PairsCli, TinyG2PDictionaryHasNoValidationScore) {
  write("tiny.dict", "CAT  K AE1 T\nDOG  D AO1 G\nBIRD  B ER1 D\nFISH  F IH1 SH\nCOW  K AW1\n");
  CliRun r = run("train g2p --data tiny.dict --split-seed 1 --epochs 1 --emb 8 --hidden 8 --combine 8 --json "
                 "--out tiny.safetensors");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(event(r.out, "eval")["val_wer"].is_null()) << r.out;
  r = run("train g2p --data tiny.dict --split-seed 1 --epochs 1 --emb 8 --hidden 8 --combine 8 --out tiny.safetensors");
  EXPECT_NE(r.out.find("val_wer n/a"), std::string::npos) << r.out;
  expect_error("eval --model tiny.safetensors --data tiny.dict --split valid", 1, {"holds no words"});
}

// A stopped run on the user's pairs resumes from its checkpoint and gives the same model as an
// uninterrupted run; a resumption on other data is refused.
TEST_F(PairsCli, StoppedRunResumesToTheSameModel) {
  using namespace attnlab::data;
  write("p.tsv", pairs_tsv(number_pairs(400, 999, 9, "en", "words-digits")));
  const std::string flags = "train seq2seq --train p.tsv --src-tokens word --emb 8 --hidden 8 --combine 8 --epochs 2 "
                            "--batch-size 16 --checkpoint-every 5 --dtype f32 --quiet --json";
  ASSERT_EQ(run(flags + " --out a.safetensors --checkpoint a.ckpt").code, 0);
  const CliRun stop = run(flags + " --max-steps 10 --out b.safetensors --checkpoint b.ckpt");
  ASSERT_EQ(stop.code, 0) << stop.err;
  EXPECT_EQ(event(stop.out, "done")["data"]["skipped_lines"], 0) << stop.out;
  ASSERT_EQ(run(flags + " --out c.safetensors --checkpoint c.ckpt --resume b.ckpt").code, 0);
  const auto a = attnlab::io::read_file(dir_ + "/a.safetensors"), c = attnlab::io::read_file(dir_ + "/c.safetensors");
  ASSERT_EQ(a.tensors.size(), c.tensors.size());
  for (const auto& t : a.tensors) EXPECT_EQ(t.data, c.get(t.name).data) << t.name;
  write("q.tsv", pairs_tsv(number_pairs(400, 999, 10, "en", "words-digits")));
  const std::string other = "train seq2seq --train q.tsv --src-tokens word --emb 8 --hidden 8 --combine 8 --epochs 2 "
                            "--batch-size 16 --checkpoint-every 5 --dtype f32 --quiet --json";
  const CliRun r = run(other + " --out d.safetensors --resume b.ckpt");
  EXPECT_EQ(r.code, 1) << r.err;
}

TEST_F(PairsCli, ResumeRefusesAnEditedFileOfTheSameName) {
  using namespace attnlab::data;
  const auto pairs = number_pairs(200, 999, 9, "en", "words-digits");
  write("p.tsv", pairs_tsv(pairs));
  const std::string flags = "train seq2seq --train p.tsv --src-tokens word --emb 8 --hidden 8 --combine 8 --epochs 2 "
                            "--batch-size 16 --checkpoint-every 5 --quiet";
  ASSERT_EQ(run(flags + " --max-steps 5 --out b.safetensors --checkpoint b.ckpt").code, 0);
  // the same pairs in another order: same vocabularies, lengths and config, other batches
  write("p.tsv", pairs_tsv(std::vector<TextPair>(pairs.rbegin(), pairs.rend())));
  const CliRun r = run(flags + " --out c.safetensors --resume b.ckpt");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("different run"), std::string::npos) << r.err;
}
