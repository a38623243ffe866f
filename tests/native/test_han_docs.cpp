// HAN on the user's own labelled documents: JSONL / CSV / folder parsing (bad lines named by
// line, Unicode, empty text, one-class data, tiny and empty splits), the K-class metrics,
// plain-text tokenizing, the config's format, K-class files, and `attnlab train han --train`
// run as a user would: a short training on generated 3-topic documents that reaches a stated
// accuracy, eval / predict / describe of the file, errors, --max-steps, and the README example.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/data/email.hpp"
#include "attnlab/data/labeled_docs.hpp"
#include "attnlab/data/tsv_pairs.hpp"
#include "attnlab/eval/class_metrics.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/han.hpp"
#include "cli_test_util.hpp"
#include "error_test_util.hpp"

using namespace attnlab;
using attnlab::testing::CliRun;
using attnlab::testing::CliTest;
using attnlab::testing::error_of;
using nlohmann::json;

namespace {
// The documents read, one "text | label | line" row each, so that a test compares a whole
// parse at once
std::vector<std::string> rows(const data::LabeledDocs& d) {
  std::vector<std::string> r;
  for (const data::LabeledDoc& doc : d.docs)
    r.push_back(doc.text + " | " + doc.label + " | " + std::to_string(doc.line));
  return r;
}
using Rows = std::vector<std::string>;
}  // namespace

TEST(DocsJsonl, ReadsObjectsBomCrlfBlankLinesUnicodeAndIntegerLabels) {
  const std::string t = "\xEF\xBB\xBF{\"text\": \"Hello world.\", \"label\": \"a\"}\r\n"
                        "\n   \n"
                        "{\"label\": 2, \"text\": \"你好，世界。 Ça va?\", \"extra\": [1]}\n"
                        "{\"text\":\"last line without end\",\"label\":\"b\"}";
  const data::LabeledDocs d = data::parse_jsonl_docs(t, "d.jsonl");
  EXPECT_EQ(rows(d), (Rows{"Hello world. | a | 1", "你好，世界。 Ça va? | 2 | 4", "last line without end | b | 5"}));
  EXPECT_EQ(d.skipped, 0u);
}

TEST(DocsJsonl, BadLinesAreNamedByLineOrSkippedAndCounted) {
  const std::string good = "{\"text\": \"x y\", \"label\": \"a\"}\n";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"{\"text\": \"x\", \"label\": \"a\"", "expected one JSON object"},  // cut
      {"[1, 2]", "expected a JSON object"},
      {"{\"label\": \"a\"}", "no \"text\" key"},
      {"{\"text\": 3, \"label\": \"a\"}", "expected a string \"text\""},
      {"{\"text\": \"x\"}", "no \"label\" key"},
      {"{\"text\": \"x\", \"label\": 1.5}", "expected a \"label\""},
      {"{\"text\": \"x\", \"label\": \"  \"}", "non-empty label"},
      {"{\"text\": \"\", \"label\": \"a\"}", "empty text"},
      {"{\"text\": \" \\n \", \"label\": \"a\"}", "empty text"},
  };
  for (const auto& [line, why] : bad) {
    const std::string msg = error_of([&] { data::parse_jsonl_docs(good + good + line + "\n" + good, "d.jsonl"); });
    EXPECT_NE(msg.find("d.jsonl line 3"), std::string::npos) << line << " -> " << msg;
    EXPECT_NE(msg.find(why), std::string::npos) << line << " -> " << msg;
    data::DocReadOptions o;
    o.skip_bad = true;
    const data::LabeledDocs d = data::parse_jsonl_docs(good + good + line + "\n" + good, "d.jsonl", o);
    EXPECT_EQ(d.docs.size(), 3u) << line;
    EXPECT_EQ(d.skipped, 1u) << line;
    ASSERT_EQ(d.skipped_examples.size(), 1u);
    EXPECT_EQ(d.skipped_examples[0].rfind("line 3: ", 0), 0u) << d.skipped_examples[0];
  }
}

TEST(DocsCsv, Rfc4180QuotingAndLineNumbers) {
  const std::string t = "id,Text , LABEL\r\n"
                        "1,plain text,a\r\n"
                        "2,\"with, comma and \"\"quotes\"\"\",b\r\n"
                        "\r\n"
                        "3,\"two\nlines\",a\n"
                        "4,\"日本語のテキスト\",c";
  const data::LabeledDocs d = data::parse_csv_docs(t, "d.csv");
  EXPECT_EQ(rows(d), (Rows{"plain text | a | 2", "with, comma and \"quotes\" | b | 3", "two\nlines | a | 5",
                           "日本語のテキスト | c | 7"}));
  // an empty last field and quoted empty fields are fields
  const auto recs = data::parse_csv("a,\"\",\n", "x.csv");
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].fields, (std::vector<std::string>{"a", "", ""}));
}

TEST(DocsCsv, ErrorsNameTheLine) {
  // (file text, the parts its error message must hold)
  const std::pair<std::string, std::vector<std::string>> cases[] = {
      {"text,label\nok,a\n\"never closed,b\nx,y\n", {"d.csv line 3", "never closes"}},
      {"text,label\n\"a\nb\",x\nthree,fields,here\n", {"d.csv line 4: expected 2 fields as in the header, got 3"}},
      {"text,label\nab\"c,x\n", {"line 2"}},
      {"body,class\nx,y\n", {"header row naming a 'text' and a 'label' column"}},
      {"", {"empty file"}},
      {"text,label\n\"\",a\n", {"line 2"}},
      {"text,label\n\xff\xfe,a\n", {"line 2: expected UTF-8"}},
  };
  for (const auto& c : cases) {
    const std::string msg = error_of([&] { data::parse_csv_docs(c.first, "d.csv"); });
    for (const std::string& part : c.second) EXPECT_NE(msg.find(part), std::string::npos) << msg;
  }
}

TEST(DocsFolder, OneSubfolderPerLabel) {
  const std::string dir = "/tmp/attnlab_docs_folder_" + std::to_string(getpid());
  ASSERT_EQ(std::system(("rm -rf " + dir + " && mkdir -p " + dir + "/pos " + dir + "/neg " + dir + "/.hidden").c_str()), 0);
  std::ofstream(dir + "/pos/b.txt") << "Great film.";
  std::ofstream(dir + "/pos/a.txt") << "Loved it.";
  std::ofstream(dir + "/pos/.DS_Store") << "junk";
  std::ofstream(dir + "/neg/x.txt") << "Dull.";
  std::ofstream(dir + "/.hidden/y.txt") << "never read";
  const data::LabeledDocs d = data::load_labeled_docs(dir);
  EXPECT_EQ(rows(d), (Rows{"Dull. | neg | 0", "Loved it. | pos | 0", "Great film. | pos | 0"}));  // files in name order
  std::ofstream(dir + "/neg/empty.txt") << "  \n";
  EXPECT_NE(error_of([&] { data::load_doc_folder(dir); }).find("empty.txt"), std::string::npos);
  (void)std::system(("rm -rf " + dir).c_str());
}

TEST(DocsClasses, OneClassIsAnErrorAndLabelsAreSorted) {
  std::vector<data::LabeledDoc> docs = {{"x", "b", 1}, {"y", "b", 2}};
  std::string msg = error_of([&] { data::class_names(docs, "d.jsonl"); });
  EXPECT_NE(msg.find("at least 2 labels"), std::string::npos) << msg;
  EXPECT_NE(msg.find("only the label 'b'"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { data::class_names({}, "d.jsonl"); }).find("no documents"), std::string::npos);
  docs.push_back({"z", "a", 3});
  docs.push_back({"w", "Ä", 4});
  EXPECT_EQ(data::class_names(docs, "d"), (std::vector<std::string>{"a", "b", "Ä"}));
  EXPECT_EQ(data::label_ids(docs, {"a", "b", "Ä"}, "d"), (std::vector<int>{1, 1, 0, 2}));
  msg = error_of([&] { data::label_ids(docs, {"a", "b"}, "t.jsonl"); });
  EXPECT_NE(msg.find("t.jsonl line 4: label 'Ä' is not one the model knows (a, b)"), std::string::npos) << msg;
}

TEST(DocsSplit, SeededByTextTinyAndEmptyParts) {
  const std::vector<data::LabeledDoc> docs = data::topic_docs(500, 3);
  const data::SplitFractions f = data::parse_split_fractions("80/10/10");
  const data::DocSplit a = data::split_docs(docs, 7, f), b = data::split_docs(docs, 7, f);
  EXPECT_EQ(a.train.size() + a.valid.size() + a.test.size(), 500u);
  EXPECT_EQ(a.test.size(), b.test.size());
  EXPECT_GT(a.valid.size(), 20u);
  EXPECT_GT(a.test.size(), 20u);
  // one document: all of it in one part, the others empty
  const data::DocSplit one = data::split_docs({docs[0]}, 7, f);
  EXPECT_EQ(one.train.size() + one.valid.size() + one.test.size(), 1u);
  const data::DocSplit all = data::split_docs(docs, 7, data::parse_split_fractions("100/0/0"));
  EXPECT_EQ(all.train.size(), 500u);
  EXPECT_TRUE(all.valid.empty() && all.test.empty());
  // the generator is seeded and gives 3 labels
  EXPECT_EQ(data::docs_jsonl(data::topic_docs(20, 3)), data::docs_jsonl(data::topic_docs(20, 3)));
  EXPECT_NE(data::docs_jsonl(data::topic_docs(20, 3)), data::docs_jsonl(data::topic_docs(20, 4)));
  EXPECT_EQ(data::class_names(docs, "gen").size(), 3u);
  EXPECT_EQ(data::parse_jsonl_docs(data::docs_jsonl(docs), "gen").docs.size(), 500u);
}

TEST(ClassMetrics, PerClassAndConfusion) {
  // true:      a a a b b c
  // predicted: a a b b c c
  const eval::MulticlassMetrics m =
      eval::multiclass_metrics({0, 0, 0, 1, 1, 2}, {0, 0, 1, 1, 2, 2}, {"a", "b", "c"});
  EXPECT_EQ(m.confusion, (std::vector<std::vector<size_t>>{{2, 1, 0}, {0, 1, 1}, {0, 0, 1}}));
  EXPECT_DOUBLE_EQ(m.accuracy, 4.0 / 6.0);
  EXPECT_DOUBLE_EQ(m.precision[0], 1.0);
  EXPECT_DOUBLE_EQ(m.recall[0], 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.precision[1], 0.5);
  EXPECT_DOUBLE_EQ(m.recall[1], 0.5);
  EXPECT_DOUBLE_EQ(m.precision[2], 0.5);
  EXPECT_DOUBLE_EQ(m.f1[2], 2 * 0.5 * 1.0 / 1.5);
  EXPECT_EQ(m.support, (std::vector<size_t>{3, 2, 1}));
  EXPECT_DOUBLE_EQ(m.macro_f1, (0.8 + 0.5 + 2.0 / 3.0) / 3.0);
  // a class never predicted and never true: zeros, no NaN
  const eval::MulticlassMetrics z = eval::multiclass_metrics({0, 1}, {0, 1}, {"a", "b", "c"});
  EXPECT_EQ(z.f1[2], 0.0);
  EXPECT_EQ(z.to_json()["classes"]["c"]["support"], 0);
  EXPECT_THROW(eval::multiclass_metrics({0, 3}, {0, 1}, {"a", "b", "c"}), Error);
  EXPECT_NE(m.table().find("confusion"), std::string::npos);
}

TEST(PlainText, HeadersAreTextAndSentencesSplitAsForEmail) {
  data::EmailOptions o;
  o.plain_text = true;
  const data::EmailDoc d = data::tokenize_email("Subject: hello there\n\nThe rocket launched. It <b>flew</b>!", o);
  ASSERT_EQ(d.sentences.size(), 3u) << d.sentences.size();  // "Subject: hello there", "The rocket launched.", "It flew!"
  EXPECT_EQ(d.sentences[2].text, "It <b>flew</b>!");  // no HTML step either
  EXPECT_EQ(d.sentences[0].tokens[0], "subject");  // not read as a header
  const data::EmailDoc e = data::tokenize_email("Subject: hello there\n\nThe rocket launched.");
  EXPECT_EQ(e.sentences[0].tokens, (std::vector<std::string>{"hello", "there"}));
  // invalid bytes are repaired, not an error
  EXPECT_NO_THROW(data::tokenize_email("caf\xe9 au lait.", o));
}

TEST(HanConfigFormat, EmailConfigsKeepTheirJsonAndKClassFilesRoundTrip) {
  models::HANConfig c;
  EXPECT_FALSE(c.to_json().contains("format"));  // a 2-class email config is written as before
  const std::string old_config =
      "{\"classes\":2,\"dropout\":0.0,\"emb\":8,\"labels\":[\"ham\",\"spam\"],\"max_sentences\":30,"
      "\"max_words\":40,\"sent_ctx\":8,\"sent_hidden\":8,\"vocab\":20,\"word_ctx\":8,\"word_hidden\":8}";
  const models::HANConfig o = models::HANConfig::from_json(old_config);
  EXPECT_EQ(o.format, "email");
  EXPECT_EQ(o.to_json().dump(), old_config);
  EXPECT_FALSE(o.email_options().plain_text);
  models::HANConfig k;
  k.emb = k.word_hidden = k.sent_hidden = k.word_ctx = k.sent_ctx = 6;
  k.classes = 3;
  k.labels = {"sport", "cooking", "space"};
  k.format = "text";
  std::vector<std::string> toks = {"<pad>", "<unk>", "<s>", "</s>", "rocket", "soup", "goal"};
  data::Vocab v = data::Vocab::from_json(json(toks).dump());
  models::HAN m(k, v, 5);
  const auto m2 = models::HAN::load(m.save(io::DType::F32));
  EXPECT_EQ(m2->config().labels, k.labels);
  EXPECT_EQ(m2->config().format, "text");
  const models::HANClassification a = m.classify("Subject: rocket soup. goal"), b = m2->classify("Subject: rocket soup. goal");
  ASSERT_EQ(a.probs.size(), 3u);
  EXPECT_EQ(a.probs, b.probs);
  EXPECT_NEAR(a.probs[0] + a.probs[1] + a.probs[2], 1.0, 1e-5);
  EXPECT_EQ(a.sentences.size(), 2u);  // text format: "Subject: rocket soup." is a sentence
  k.vocab = toks.size();
  auto bad = k;
  bad.format = "pdf";
  EXPECT_NE(error_of([&] { bad.check(); }).find("format 'email' or 'text'"), std::string::npos);
  bad = k;
  bad.labels = {"a", "a", "b"};
  EXPECT_NE(error_of([&] { bad.check(); }).find("distinct"), std::string::npos);
}

// The shipped spam model: its config is unchanged by the K-class path (no "format" key).
TEST(HanConfigFormat, ShippedSpamModelConfigUnchanged) {
  const std::string path = std::string(ATTNLAB_SOURCE_DIR) + "/models/han-spam/model.safetensors";
  std::ifstream f(path);
  if (!f) GTEST_SKIP() << "no " << path;
  const io::SafeTensors st = io::read_file(path);
  const std::string cfg = io::model_info(st).config;
  const auto m = models::HAN::load(st);
  EXPECT_EQ(json::parse(cfg), m->config().to_json());
  EXPECT_EQ(m->config().format, "email");
  EXPECT_EQ(m->config().labels, (std::vector<std::string>{"ham", "spam"}));
}

// ---------------------------------------------------------------- the CLI
namespace {

class DocsCli : public CliTest {
 protected:
  const std::string small_ = " --emb 16 --word-hidden 16 --sent-hidden 16 --word-ctx 16 --sent-ctx 16 --min-count 1";
};

}  // namespace

TEST_F(DocsCli, HelpListsTheFlags) {
  expect_output("train han --help",
                {"--train", "--train-dir", "--valid", "--test", "--split", "--format", "--skip-bad", "--data-dir"});
  expect_output("help", {"example-docs"});
}

// Generated documents about 3 topics: 3 epochs of a small HAN reach >= 90% test accuracy
// (measured: test accuracy 0.9806, macro F1 0.9802, in 0.6 s).
TEST_F(DocsCli, ThreeTopicsTrainAndEvaluate) {
  CliRun r = run("example-docs --count 1500 --seed 2 --out docs.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  r = run("train han --train docs.jsonl --epochs 3 --json --out t.safetensors" + small_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json done = event(r.out, "done");
  ASSERT_TRUE(done["test"].is_object()) << r.out;
  EXPECT_EQ(done["test"]["labels"], json({"cooking", "space", "sport"}));
  EXPECT_GE(done["test"]["accuracy"].get<double>(), 0.90) << done.dump();
  EXPECT_EQ(done["model"], "t.safetensors");
  // eval re-reads the test part of the split recorded in the model: the same numbers
  r = run("eval --model t.safetensors --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json ev = json::parse(r.out);
  EXPECT_EQ(ev["confusion"], done["test"]["confusion"]);
  EXPECT_EQ(ev["accuracy"], done["test"]["accuracy"]);
  // text output: the per-class table and the confusion matrix
  r = run("eval --model t.safetensors");
  EXPECT_NE(r.out.find("precision"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("confusion (rows: true, columns: predicted)"), std::string::npos) << r.out;
  // predict: probabilities per label and the attention summary
  r = run("predict --model t.safetensors 'The rocket reached orbit. The crew observed a distant star.'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("space  (cooking ", 0), 0u) << r.out;
  r = run("predict --model t.safetensors --json --input 'A hot soup was served.'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["label"], "cooking");
  EXPECT_EQ(json::parse(r.out)["probs"].size(), 3u);
  // a test file of other labels, and SpamAssassin flags on this model
  write("other.jsonl", "{\"text\": \"x\", \"label\": \"politics\"}\n");
  expect_error("eval --model t.safetensors --test other.jsonl", 1, {"label 'politics' is not one the model knows"});
  expect_error("eval --model t.safetensors --no-baseline", 2, {});
  // CSV with the same documents gives the same split and the same model
  std::string csv = "label,text\n";
  for (const auto& d : data::topic_docs(1500, 2)) csv += d.label + ",\"" + d.text + "\"\n";
  write("docs.csv", csv);
  r = run("train han --train docs.csv --epochs 3 --json --out c.safetensors" + small_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(event(r.out, "done")["test"], done["test"]);
  // the training file edited after training: eval refuses to re-split it
  write("docs.jsonl", data::docs_jsonl(data::topic_docs(1500, 9)));
  expect_error("eval --model t.safetensors", 1, {"is not the file this model was trained on"});
  write("docs.jsonl", "");
  ASSERT_EQ(std::system(("rm " + dir_ + "/docs.jsonl").c_str()), 0);
  expect_error("eval --model t.safetensors", 1, {"give the documents to score with --test PATH"});
}

TEST_F(DocsCli, FolderValidAndTestFiles) {
  const auto docs = data::topic_docs(300, 4);
  ASSERT_EQ(std::system(("mkdir -p " + dir_ + "/d/sport " + dir_ + "/d/cooking " + dir_ + "/d/space").c_str()), 0);
  for (size_t i = 0; i < 200; ++i) write("d/" + docs[i].label + "/" + std::to_string(i) + ".txt", docs[i].text);
  write("valid.jsonl", data::docs_jsonl({docs.begin() + 200, docs.begin() + 250}));
  write("test.jsonl", data::docs_jsonl({docs.begin() + 250, docs.end()}));
  CliRun r = run("train han --train-dir d --valid valid.jsonl --test test.jsonl --epochs 1 --json --out f.safetensors" + small_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json done = event(r.out, "done");
  EXPECT_EQ(done["data"]["train"], 200);
  EXPECT_EQ(done["data"]["valid"], 50);
  EXPECT_EQ(done["test"]["n"], 50);
  r = run("eval --model f.safetensors --json");  // the test file recorded in the model
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["confusion"], done["test"]["confusion"]);
}

TEST_F(DocsCli, ErrorsComeBeforeTrainingAndSayWhatToDo) {
  write("one.jsonl", "{\"text\": \"a b\", \"label\": \"x\"}\n{\"text\": \"c d\", \"label\": \"x\"}\n");
  CliRun r = run("train han --train one.jsonl --out o.safetensors" + small_);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("at least 2 labels"), std::string::npos) << r.err;
  write("bad.jsonl", data::docs_jsonl(data::topic_docs(20, 1)) + "{\"text\": \"x\"\n");
  expect_error("train han --train bad.jsonl --out o.safetensors" + small_, 1, {"bad.jsonl line 21"});
  r = run("train han --train bad.jsonl --skip-bad --split 100/0/0 --epochs 1 --json --out o.safetensors" + small_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json done = event(r.out, "done");
  EXPECT_EQ(done["data"]["skipped_lines"], 1);
  EXPECT_TRUE(done["best_val_loss"].is_null()) << done.dump();  // no validation: n/a, never a score
  EXPECT_TRUE(done["test"].is_null()) << done.dump();
  expect_error("train han --train missing.jsonl --emb nonsense", 1, {"missing.jsonl: cannot open it"});
  expect_error("train han --test t.jsonl", 2, {"--train PATH"});
  expect_error("train han --train one.jsonl --format pdf", 2, {});
  expect_error("eval --model o.safetensors --test nothing-here.jsonl", 1, {});
}

// Stopped by --max-steps before an epoch ends: the run validates and writes the model it
// reports (it used to name a file it never wrote).
TEST_F(DocsCli, MaxStepsWritesTheModelItReports) {
  ASSERT_EQ(run("example-docs --count 600 --out docs.jsonl").code, 0);
  CliRun r = run("train han --train docs.jsonl --max-steps 3 --json --out m.safetensors" + small_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json done = event(r.out, "done");
  EXPECT_EQ(done["model"], "m.safetensors");
  EXPECT_EQ(done["steps"], 3);
  const io::SafeTensors st = io::read_file(dir_ + "/m.safetensors");
  EXPECT_EQ(st.meta("trained_steps"), "3");
  r = run("train han --train docs.jsonl --max-steps 3 --out n.safetensors" + small_);
  EXPECT_NE(r.out.find("stopped by --max-steps"), std::string::npos) << r.out;
}

// The README's HAN example, run as written but on fewer documents and one epoch.
TEST_F(DocsCli, ReadmeExampleRuns) {
  EXPECT_GE(run_readme_example("own-docs-example"), 4u);
}

// eval / predict --kind KIND --help: the flags of every kind's command without a model file.
TEST_F(DocsCli, EvalAndPredictHelpOfEveryKind) {
  CliRun r = run("models --json");
  ASSERT_EQ(r.code, 0) << r.err;
  size_t kinds = 0;
  for (const auto& k : json::parse(r.out)) {
    const std::string name = k["name"];
    for (const char* cmd : {"eval", "predict"}) {
      r = run(std::string(cmd) + " --kind " + name + " --help");
      EXPECT_EQ(r.code, 0) << cmd << " " << name << ": " << r.err;
      EXPECT_EQ(r.out.rfind(std::string("usage: attnlab ") + cmd + " --model", 0), 0u) << cmd << " " << name << r.out;
      EXPECT_NE(r.out.find("--model"), std::string::npos);
    }
    ++kinds;
  }
  EXPECT_GE(kinds, 8u);
  expect_output("eval --kind han --help", {"--test", "--data-dir", "--no-baseline", "--skip-bad"});
  expect_output("eval --help", {"--kind KIND --help"});
  EXPECT_EQ(run("eval --kind nope --help").code, 2);
  EXPECT_EQ(run("eval --kind han").code, 2);
}

// predict in text mode: the output alone on stdout; on stderr the sequence probability and per
// output token its probability and most attended input token (a seq2seq fixture model).
TEST_F(DocsCli, Seq2SeqPredictTextShowsProbabilitiesAndAttention) {
  const std::string model = std::string(ATTNLAB_FIXTURES_DIR) + "/seq2seq_pairs/words.safetensors";
  const CliRun r = run("predict --model " + model + " forty two");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.err.find("p(output) "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" <- forty ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" <- two ("), std::string::npos) << r.err;
}
