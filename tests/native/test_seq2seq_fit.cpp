// Training a seq2seq model on pairs in memory (PairsTrainer: what the JS package's
// Seq2Seq.create/fit run): it learns, it resumes exactly, it saves a loadable model,
// and bad options are Errors.
#include <gtest/gtest.h>

#include "attnlab/core/error.hpp"
#include "attnlab/data/number_words.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/attention/score.hpp"
#include "attnlab/models/seq2seq_fit.hpp"

using namespace attnlab;
using namespace attnlab::models;

namespace {
Seq2SeqConfig small_config() {
  Seq2SeqConfig c;
  c.emb = 16;
  c.enc_hidden = 32;
  c.attn_dim = 32;
  c.combine = 48;
  return c;
}
PairsTrainOptions word_options() {
  PairsTrainOptions o;
  o.tokens.src = data::TokenUnit::Word;
  o.tokens.tgt = data::TokenUnit::Char;
  o.batch = 16;
  o.lr = 5e-3f;
  o.warmup = 20;
  return o;
}
}  // namespace

TEST(PairsTrainer, LearnsNumbersInWordsToDigits) {
  const auto pairs = data::number_pairs(1200, 999, 3, "en", "words-digits");
  PairsTrainer t(small_config(), pairs, word_options());
  EXPECT_GT(t.valid_pairs(), 60u);
  EXPECT_EQ(t.train_pairs() + t.valid_pairs(), pairs.size());
  const PairsEval before = t.evaluate();
  double first_loss = 0, last_loss = 0;
  for (int epoch = 0; epoch < 12; ++epoch) {
    PairsStep s;
    do s = t.run(25);
    while (!s.epoch_end);
    if (epoch == 0) first_loss = s.loss;
    last_loss = s.loss;
    EXPECT_EQ(s.epoch, size_t(epoch + 1));
  }
  const PairsEval after = t.evaluate();
  EXPECT_LT(last_loss, first_loss * 0.3);
  EXPECT_LT(before.exact_match(), 0.05);
  EXPECT_GT(after.exact_match(), 0.8) << "token error rate " << after.token_error_rate();
  EXPECT_EQ(t.model().translate("forty two", {}).text, "42");
}

TEST(PairsTrainer, StoppedAndResumedEqualsOneRun) {
  const auto pairs = data::number_pairs(300, 999, 5, "en", "words-digits");
  PairsTrainer a(small_config(), pairs, word_options()), b(small_config(), pairs, word_options());
  // a: in pieces of 7 steps across an epoch boundary; b: in pieces of 40
  size_t na = 0, nb = 0;
  while (na < 30) na += a.run(7).steps;
  while (nb < na) nb += b.run(std::min<size_t>(40, na - nb)).steps;
  ASSERT_EQ(a.step(), b.step());
  EXPECT_EQ(a.save(), b.save());
}

TEST(PairsTrainer, SavesAModelThatLoadsAndTranslatesTheSame) {
  const auto pairs = data::number_pairs(200, 99, 7, "en", "words-digits");
  PairsTrainer t(small_config(), pairs, word_options());
  t.run(20);
  const auto m = load_translator(io::decode(t.save()));
  for (const char* s : {"seven", "ninety nine", "twelve"}) {
    const Translation x = t.model().translate(s, {}), y = m->translate(s, {});
    EXPECT_EQ(x.tokens, y.tokens) << s;
  }
  EXPECT_EQ(m->translate("zebra seven", {}).input_tokens[0], "<unk>");  // unseen word -> <unk>
}

TEST(PairsTrainer, BadOptionsAndDataAreErrors) {
  const auto pairs = data::number_pairs(50, 99, 1, "en", "words-digits");
  auto error_of = [&](auto&& make) {
    try {
      make();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  PairsTrainOptions o = word_options();
  o.valid_fraction = 0.7;
  EXPECT_NE(error_of([&] { PairsTrainer(small_config(), pairs, o); }).find("validationSplit"), std::string::npos);
  o = word_options();
  o.lr = std::nanf("");
  EXPECT_NE(error_of([&] { PairsTrainer(small_config(), pairs, o); }).find("lr: expected"), std::string::npos);
  EXPECT_NE(error_of([&] { PairsTrainer(small_config(), {}, word_options()); }).find("no pairs"), std::string::npos);
  Seq2SeqConfig bad = small_config();
  bad.score = "no-such-score";
  EXPECT_NE(error_of([&] { PairsTrainer(bad, pairs, word_options()); }).find("score must be one of"), std::string::npos);
  EXPECT_NE(error_of([&] { PairsTrainer(bad, {}, word_options()); }).find("score must be one of"), std::string::npos)
      << "the architecture is judged before the pairs";
  Seq2SeqConfig huge = small_config();
  huge.emb = huge.enc_hidden = 4096;
  huge.combine = 8192;
  EXPECT_NE(error_of([&] { PairsTrainer(huge, pairs, word_options()); }).find("limit of training in memory"),
            std::string::npos);
}

// The limit is checked on Seq2Seq::param_count before anything is built; that count must be
// what the constructor builds, for every recurrent kind, direction, score and input feeding.
TEST(PairsTrainer, ParamCountIsWhatTheConstructorBuilds) {
  data::Vocab src, tgt;
  for (const char* t : {"a", "b", "c"}) src.add(t);
  for (const char* t : {"x", "y"}) tgt.add(t);
  std::vector<std::string> scores = attention::score_names();
  scores.push_back("local_p");
  size_t checked = 0;
  for (const char* rnn : {"gru", "lstm"})
    for (bool bi : {false, true})
      for (bool feed : {false, true})
        for (const std::string& score : scores) {
          Seq2SeqConfig c = small_config();
          c.rnn = rnn;
          c.bidirectional = bi;
          c.input_feed = feed;
          c.score = score;
          c.attn_dim = 24;  // differs from every other width, so a wrong term shows
          c.max_src_len = 11;
          Seq2Seq m(c, src, tgt, 7);
          ParamList ps;
          m.collect(ps);
          EXPECT_EQ(Seq2Seq::param_count(c, src.size(), tgt.size()), ps.count())
              << rnn << (bi ? " bidirectional" : "") << (feed ? " input-feed " : " ") << score;
          ++checked;
        }
  EXPECT_EQ(checked, 2u * 2 * 2 * scores.size());
}
