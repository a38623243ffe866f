// Seq2seq with attention: gradients (finite differences, every score kind, GRU and LSTM),
// decoding invariants, file round trip, the input error contract, and (when the shipped
// model files exist) the model cards' metrics on fixed samples.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "attnlab/core/error.hpp"
#include "attnlab/data/cmudict.hpp"
#include "attnlab/data/dates.hpp"
#include "attnlab/eval/seq_metrics.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/nn/optim.hpp"
#include "model_test_util.hpp"
#include "vocab_test_util.hpp"

using namespace attnlab;
using attnlab::testing::letters;
using models::Seq2Seq;
using models::Seq2SeqConfig;

namespace {

Seq2SeqConfig small_config(const std::string& score, const std::string& rnn, bool bi, bool feed) {
  Seq2SeqConfig c = attnlab::testing::tiny_seq2seq_config(3, bi ? 2 : 4);
  c.rnn = rnn;
  c.bidirectional = bi;
  c.input_feed = feed;
  c.score = score;
  c.local_window = 1;
  c.max_src_len = 10;
  c.max_tgt_len = 8;
  return c;
}

// random batch: B sequences with given source / target lengths
models::Seq2SeqBatch random_batch(const std::vector<size_t>& slen, const std::vector<size_t>& tlen,
                                  size_t vs, size_t vt, uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<int>> src, tgt;
  std::vector<size_t> idx;
  for (size_t i = 0; i < slen.size(); ++i) {
    std::vector<int> s(slen[i]), t(tlen[i]);
    for (auto& x : s) x = 4 + int(rng.below(uint32_t(vs - 4)));
    for (auto& x : t) x = 4 + int(rng.below(uint32_t(vt - 4)));
    src.push_back(s);
    tgt.push_back(t);
    idx.push_back(i);
  }
  return models::make_seq2seq_batch(src, tgt, idx);
}

struct GradCase {
  std::string score, rnn;
  bool bi, feed;
};

void grad_check(const GradCase& gc) {
  SCOPED_TRACE(gc.score + " " + gc.rnn + (gc.bi ? " bi" : " uni") + (gc.feed ? " feed" : ""));
  const data::Vocab src = letters("ABCDE"), tgt = letters("xyz");
  Seq2Seq m(small_config(gc.score, gc.rnn, gc.bi, gc.feed), src, tgt, 7);
  ParamList ps;
  m.collect(ps);
  // perturb zero-initialised or tiny parameters so every path carries signal
  Rng r(3);
  for (auto& it : ps.items())
    for (size_t i = 0; i < it.second->size(); ++i) it.second->data()[i] += 0.3f * (r.uniform() - 0.5f);
  const std::vector<std::pair<std::vector<size_t>, std::vector<size_t>>> shapes = {
      {{1}, {1}}, {{4, 2, 3}, {2, 3, 1}}, {{5, 5}, {4, 2}}};
  for (size_t si = 0; si < shapes.size(); ++si) {
    const auto b = random_batch(shapes[si].first, shapes[si].second, src.size(), tgt.size(), 11 + si);
    ps.zero_grad();
    m.train_step(b);
    const double eps = 1e-2;
    size_t checked = 0;
    double worst = 0;
    for (auto& it : ps.items()) {
      Param& p = *it.second;
      for (size_t i = 0; i < p.size(); ++i) {
        const float orig = p.data()[i];
        p.data()[i] = orig + float(eps);
        const double lp = m.loss(b);
        p.data()[i] = orig - float(eps);
        const double lm = m.loss(b);
        p.data()[i] = orig;
        const double num = (lp - lm) / (2 * eps);
        const double ana = p.grad.data()[i];
        const double err = std::fabs(num - ana) / std::max(1.0, std::fabs(num) + std::fabs(ana));
        worst = std::max(worst, err);
        EXPECT_NEAR(ana, num, 3e-3 + 2e-2 * std::fabs(num))
            << it.first << "[" << i << "] shape " << si;
        ++checked;
      }
    }
    EXPECT_GT(checked, 50u);
    std::printf("[grad %s %s%s%s shape %zu] %zu params, worst rel err %.2e\n", gc.score.c_str(),
                gc.rnn.c_str(), gc.bi ? " bi" : "", gc.feed ? " feed" : "", si, checked, worst);
  }
}

}  // namespace

TEST(Seq2SeqGrad, AdditiveGruBiFeed) { grad_check({"additive", "gru", true, true}); }
TEST(Seq2SeqGrad, GeneralGruBiFeed) { grad_check({"general", "gru", true, true}); }
TEST(Seq2SeqGrad, DotGruBiFeed) { grad_check({"dot", "gru", true, true}); }
TEST(Seq2SeqGrad, ScaledDotLstmBiFeed) { grad_check({"scaled_dot", "lstm", true, true}); }
TEST(Seq2SeqGrad, LocalPGruBiFeed) { grad_check({"local_p", "gru", true, true}); }
TEST(Seq2SeqGrad, TfjsLikeLstmUniDotNoFeed) { grad_check({"dot", "lstm", false, false}); }
TEST(Seq2SeqGrad, AdditiveLstmUniFeed) { grad_check({"additive", "lstm", false, true}); }

// ---------------------------------------------------------------- decoding and files
namespace {

// A small model trained for a few steps on a toy task, so decoding is not degenerate.
std::unique_ptr<Seq2Seq> toy_model(const std::string& score, const std::string& rnn = "gru",
                                   bool bi = true, bool feed = true) {
  const data::Vocab src = letters("ABCDEFGH"), tgt = letters("abcdefgh");
  Seq2SeqConfig c = small_config(score, rnn, bi, feed);
  c.emb = 8;
  c.enc_hidden = bi ? 8 : 16;
  c.combine = 16;
  c.attn_dim = 8;
  c.local_window = 2;
  c.output_sep = "";
  auto m = std::make_unique<Seq2Seq>(c, src, tgt, 5);
  ParamList ps;
  m->collect(ps);
  Rng r(9);
  for (auto& it : ps.items())  // larger weights: peaked attention and outputs
    for (size_t i = 0; i < it.second->size(); ++i) it.second->data()[i] += 0.6f * (r.uniform() - 0.5f);
  return m;
}

const char* kScores[] = {"additive", "general", "dot", "scaled_dot", "local_p"};

}  // namespace

TEST(Seq2SeqDecode, AttentionRowsSumToOneAndShapes) {
  for (const char* s : kScores) {
    SCOPED_TRACE(s);
    auto m = toy_model(s);
    for (const char* in : {"A", "ABCDEFGH", "hgfed"}) {
      const models::Translation t = m->translate(in, {});
      ASSERT_EQ(t.cols, std::string(in).size());
      ASSERT_EQ(t.rows, t.ids.size());
      ASSERT_EQ(t.attention.size(), t.rows * t.cols);
      ASSERT_EQ(t.probs.size(), t.ids.size());
      ASSERT_EQ(t.input_tokens.size(), t.cols);
      for (size_t r = 0; r < t.rows; ++r) {
        double sum = 0;
        for (size_t c = 0; c < t.cols; ++c) {
          const float w = t.attention[r * t.cols + c];
          EXPECT_GE(w, 0.f);
          sum += w;
        }
        if (std::string(s) == "local_p") {  // softmax x Gaussian: at most 1
          EXPECT_LE(sum, 1.0 + 1e-5);
          EXPECT_GT(sum, 0.0);
        } else {
          EXPECT_NEAR(sum, 1.0, 1e-5);
        }
      }
      for (float p : t.probs) EXPECT_TRUE(p > 0.f && p <= 1.f);
    }
  }
}

TEST(Seq2SeqDecode, BeamOneEqualsGreedyAndBeamNotWorse) {
  for (const char* s : kScores) {
    SCOPED_TRACE(s);
    auto m = toy_model(s);
    for (const char* in : {"ABC", "HHHA", "CAFEBABE", "D"}) {
      models::DecodeOptions g;
      g.beam = 1;
      const auto a = m->translate(in, g);
      // greedy by hand: argmax of the teacher-forced distribution at each step
      models::DecodeOptions b1 = g;
      b1.length_alpha = 0;
      const auto b = m->translate(in, b1);
      EXPECT_EQ(a.ids, b.ids);
      EXPECT_EQ(a.probs, b.probs);
      EXPECT_EQ(a.attention, b.attention);
      models::DecodeOptions b4;
      b4.beam = 4;
      b4.length_alpha = 0;  // pure log-probability: beam must find at least greedy's score
      const auto c = m->translate(in, b4);
      if (a.eos_prob > 0 && c.eos_prob > 0) {
        EXPECT_GE(c.logprob, a.logprob - 1e-4);
      }
    }
  }
}

TEST(Seq2SeqDecode, DecodedProbabilitiesMatchTeacherForcing) {
  // The step-by-step decoder and the batched teacher-forced pass are separate code paths
  // (different batch sizes, caches); the probabilities and attention of the greedy output
  // must agree.
  for (const char* s : kScores) {
    for (const char* rnn : {"gru", "lstm"}) {
      SCOPED_TRACE(std::string(s) + " " + rnn);
      auto m = toy_model(s, rnn, std::string(rnn) == "gru", std::string(s) != "dot");
      const std::string in = "BADCAFE";
      models::DecodeOptions f32;  // the float decoder; quantized ones: Int8/Int16MatchesF32
      f32.precision = models::DecodePrecision::F32;
      const auto t = m->translate(in, f32);
      if (t.eos_prob == 0) continue;  // cut at max_len: no </s> to compare
      const std::vector<int> src = m->encode_input(in);
      // two items in the batch (the second longer) to exercise padding and masks
      const std::vector<int> other = m->encode_input("ABCDEFGHAB");
      const auto b = models::make_seq2seq_batch({src, other}, {t.ids, {4, 5, 6, 7, 8, 9, 10, 11}},
                                                {0, 1});
      std::vector<float> logp, attn;
      m->score_batch(b, logp, attn);
      for (size_t j = 0; j < t.ids.size(); ++j) {
        EXPECT_NEAR(std::exp(logp[j]), t.probs[j], 1e-4) << "token " << j;
        for (size_t c = 0; c < src.size(); ++c)
          EXPECT_NEAR(attn[j * b.S + c], t.attention[j * src.size() + c], 1e-4);
        for (size_t c = src.size(); c < b.S; ++c) EXPECT_EQ(attn[j * b.S + c], 0.f);
      }
      EXPECT_NEAR(std::exp(logp[t.ids.size()]), t.eos_prob, 1e-4);
    }
  }
}

static void quantized_matches_f32(models::DecodePrecision precision, float tol) {
  // The quantized paths rearrange the step (stacked products, per-symbol input tables) and
  // quantize the matrices: along the common prefix of the two outputs, probabilities and
  // attention must agree closely, for every score, cell, direction and feeding choice.
  models::DecodeOptions f32, i16;
  f32.precision = models::DecodePrecision::F32;
  i16.precision = precision;
  size_t compared = 0, same_outputs = 0, runs = 0;
  for (const char* s : kScores)
    for (const char* rnn : {"gru", "lstm"})
      for (bool bi : {true, false})
        for (bool feed : {true, false}) {
          SCOPED_TRACE(std::string(s) + " " + rnn + (bi ? " bi" : " uni") + (feed ? " feed" : ""));
          auto m = toy_model(s, rnn, bi, feed);
          for (const char* in : {"BADCAFE", "H", "ABCDEFGHAB"})
            for (size_t beam : {size_t{1}, size_t{3}}) {
              f32.beam = i16.beam = beam;
              const auto a = m->translate(in, f32), b = m->translate(in, i16);
              ++runs;
              same_outputs += a.ids == b.ids;
              for (size_t j = 0; j < std::min(a.ids.size(), b.ids.size()); ++j) {
                EXPECT_NEAR(a.probs[j], b.probs[j], tol) << in << " token " << j;
                for (size_t c = 0; c < a.cols; ++c)
                  EXPECT_NEAR(a.attention[j * a.cols + c], b.attention[j * b.cols + c], tol);
                ++compared;
                if (a.ids[j] != b.ids[j]) break;
              }
            }
        }
  EXPECT_GT(compared, 200u);
  EXPECT_GE(same_outputs, runs * 9 / 10) << same_outputs << " of " << runs << " outputs identical";
}
TEST(Seq2SeqDecode, Int16MatchesF32) { quantized_matches_f32(models::DecodePrecision::Int16, 2e-3f); }
TEST(Seq2SeqDecode, Int8MatchesF32) { quantized_matches_f32(models::DecodePrecision::Int8, 2e-2f); }

TEST(Seq2SeqDecode, Int16PlanFollowsParameterChanges) {
  // the int16 plan is built on first decode; changing parameters through collect() must
  // not leave a stale plan behind
  auto m = toy_model("additive");
  const std::string before = m->translate("BADCAFE").text;
  ParamList ps;
  m->collect(ps);
  for (auto& it : ps.items())
    if (it.first == "out.bias") it.second->data()[m->tgt_vocab().id("h")] += 100.f;
  const auto after = m->translate("BADCAFE");
  ASSERT_FALSE(after.ids.empty());
  EXPECT_EQ(after.tokens[0], "h");
  EXPECT_NE(after.text, before);
  models::DecodeOptions f32;
  f32.precision = models::DecodePrecision::F32;
  EXPECT_EQ(m->translate("BADCAFE", f32).text, after.text);
}

TEST(Seq2SeqFile, SaveLoadRoundTripIdenticalOutputs) {
  for (const char* s : kScores) {
    SCOPED_TRACE(s);
    auto m = toy_model(s, std::string(s) == "general" ? "lstm" : "gru");
    const std::vector<uint8_t> bytes = m->save(io::DType::F32, {{"note", "x"}});
    auto l = Seq2Seq::load(bytes.data(), bytes.size());
    EXPECT_EQ(l->config().to_json(), m->config().to_json());
    EXPECT_EQ(l->src_vocab().tokens(), m->src_vocab().tokens());
    EXPECT_EQ(l->tgt_vocab().tokens(), m->tgt_vocab().tokens());
    models::DecodeOptions o;
    o.beam = 3;
    for (const char* in : {"ABC", "HGFEDCBA"}) {
      const auto a = m->translate(in, o), b = l->translate(in, o);
      EXPECT_EQ(a.ids, b.ids);
      EXPECT_EQ(a.probs, b.probs);
      EXPECT_EQ(a.attention, b.attention);
    }
    // F16 storage: same structure, outputs close
    const std::vector<uint8_t> half = m->save(io::DType::F16);
    EXPECT_LT(half.size(), bytes.size());
    auto h = Seq2Seq::load(half.data(), half.size());
    const auto a = m->translate("ABC"), c = h->translate("ABC");
    ASSERT_EQ(a.probs.size() > 0, c.probs.size() > 0);
  }
}

TEST(Seq2SeqFile, RejectsWrongKindAndMissingVocab) {
  auto m = toy_model("dot");
  ParamList ps;
  m->collect(ps);
  io::ModelInfo info{"toy-reverse", m->config().to_json(), m->src_vocab().tokens(), {}};
  const auto bytes = io::save_model(info, ps);
  EXPECT_THROW(Seq2Seq::load(bytes.data(), bytes.size()), Error);
  info.kind = "seq2seq";  // no tgt_vocab
  const auto b2 = io::save_model(info, ps);
  EXPECT_THROW(Seq2Seq::load(b2.data(), b2.size()), Error);
}

TEST(Seq2SeqInput, UnknownEmptyAndTooLongAreErrors) {
  auto m = toy_model("additive");  // knows A..H, max_src_len 10
  try {
    m->translate("AB3D");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("'3'"), std::string::npos) << w;
    EXPECT_NE(w.find("position 2"), std::string::npos) << w;
  }
  try {
    m->translate("A\x01");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("\\x01"), std::string::npos) << e.what();
  }
  try {
    m->translate("");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
  }
  try {
    m->translate(std::string(100, 'A'));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("100"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("at most 10"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(m->translate(std::string(10, 'A')));  // exactly the limit
  EXPECT_NO_THROW(m->translate("abc"));                   // lower case is upper-cased
  EXPECT_THROW(m->decode({}), Error);
  EXPECT_THROW(m->decode({2, 5}), Error);  // <s> is not an input symbol
  models::DecodeOptions o;
  o.beam = 0;
  EXPECT_THROW(m->translate("A", o), Error);
  // the model is still usable after errors
  EXPECT_EQ(m->translate("ABC").cols, 3u);
}

TEST(Seq2SeqTrain, LossDecreasesOnCopyTask) {
  // learn to copy letters (lower-cased): a few hundred Adam steps must cut the loss a lot
  const data::Vocab src = letters("ABCDEF"), tgt = letters("abcdef");
  Seq2SeqConfig c = small_config("additive", "gru", true, true);
  c.emb = 16;
  c.enc_hidden = 16;
  c.combine = 32;
  c.attn_dim = 16;
  Seq2Seq m(c, src, tgt, 1);
  ParamList ps;
  m.collect(ps);
  nn::Adam opt(ps, 0.01f);
  Rng r(2);
  std::vector<std::vector<int>> xs, ys;
  for (int i = 0; i < 256; ++i) {
    std::vector<int> s(1 + r.below(6));
    for (auto& x : s) x = 4 + int(r.below(6));
    xs.push_back(s);
    ys.push_back(s);
  }
  std::vector<size_t> all(xs.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  const auto full = models::make_seq2seq_batch(xs, ys, all);
  const float before = m.loss(full);
  for (int step = 0; step < 300; ++step) {
    std::vector<size_t> idx;
    for (int j = 0; j < 32; ++j) idx.push_back((step * 32 + j) % xs.size());
    ps.zero_grad();
    m.train_step(models::make_seq2seq_batch(xs, ys, idx));
    opt.step();
  }
  const float after = m.loss(full);
  EXPECT_LT(after, 0.25f * before) << before << " -> " << after;
  EXPECT_EQ(m.translate("ABC").text, "a b c");
  EXPECT_EQ(m.translate("FED").text, "f e d");
}

// ---------------------------------------------------------------- shipped models
// The model cards' metrics, reproduced on fixed samples of the test split (within 2 points).
// Card numbers for the same samples (models/*/CARD.md, measured with `attnlab eval --limit`):
//   g2p-cmudict, first 500 test words: greedy WER, PER, beam-4 WER, PER (percent)
constexpr double kG2PCard500[4] = {35.80, 9.16, 35.00, 8.86};
constexpr double kDatesAdditiveCardExact = 100.0;
//   g2p-cmudict-dot, same sample
constexpr double kG2PDotCard500[4] = {42.80, 10.52, 43.40, 10.59};
namespace {

std::string repo_path(const std::string& rel) { return std::string(ATTNLAB_SOURCE_DIR) + "/" + rel; }
bool exists(const std::string& p) { return std::ifstream(p).good(); }

void check_dates_model(const std::string& rel, double card_exact) {
  const std::string path = repo_path(rel);
  if (!exists(path)) GTEST_SKIP() << "no shipped model at " << path;
  auto m = Seq2Seq::load(io::read_file(path));
  const data::DateSplit ds = data::split_dates(data::all_dates(), 1234);
  std::vector<data::Date> dates(ds.test.begin(), ds.test.begin() + 100);
  eval::ExactMatch em;
  for (const auto& p : data::make_date_pairs(dates)) em.add(m->translate(p.input).text, p.output, size_t(p.format));
  EXPECT_EQ(em.num_total(), 2000u);
  EXPECT_GE(100 * em.accuracy(), card_exact - 2.0);
  for (int f = 0; f < data::kNumDateFormats; ++f) EXPECT_GE(em.accuracy(size_t(f)), 0.9) << "format " << f;
  // a few by hand
  EXPECT_EQ(m->translate("23JAN2015").text, "2015-01-23");
  EXPECT_EQ(m->translate("JAN 23, 15").text, "2015-01-23");
  EXPECT_EQ(m->translate("1.2.1999").text, "1999-02-01");
}

}  // namespace

TEST(Seq2SeqShipped, DatesCardMetricsOnFirst100TestDates) {
  check_dates_model("models/dates/model.safetensors", 100.0);
}
TEST(Seq2SeqShipped, DatesAdditiveCardMetricsOnFirst100TestDates) {
  check_dates_model("models/dates-additive/model.safetensors", kDatesAdditiveCardExact);
}

namespace {
void check_g2p_model(const std::string& rel, const char* score, const double card[4]) {
  const std::string path = repo_path(rel);
  const std::string dict_path = repo_path(data::kCmudictRelPath);
  if (!exists(path)) GTEST_SKIP() << "no shipped model at " << path;
  if (!exists(dict_path)) GTEST_SKIP() << "no CMUdict at " << dict_path << " (npm install)";
  const io::SafeTensors st = io::read_file(path);
  EXPECT_LE(io::read_bytes(path).size(), 4u << 20) << "the shipped G2P model must stay <= 4 MB";
  // any seq2seq kind through the one Translator API; score: the RNN models' attention score
  // (nullptr for a Transformer)
  auto m = models::load_translator(st);
  if (score) {
    const auto* rnn = dynamic_cast<const Seq2Seq*>(m.get());
    ASSERT_NE(rnn, nullptr) << rel << " is a " << m->kind() << ", expected an RNN seq2seq";
    EXPECT_EQ(rnn->config().score, score);
  }
  data::CmuOptions opt;
  opt.keep_stress = st.meta("stress", "0") == "1";
  const data::CmuDict dict = data::load_cmudict(dict_path, opt);
  const data::CmuSplit split = data::split_cmudict(dict, std::stoull(st.meta("split_seed")));
  eval::G2PScore greedy, beam, greedy_f32;
  models::DecodeOptions b4, f32;
  b4.beam = 4;
  f32.precision = models::DecodePrecision::F32;
  size_t same = 0;
  for (size_t i = 0; i < 500; ++i) {
    const data::CmuEntry& e = dict.entries[split.test[i]];
    const auto g = m->translate(e.word), gf = m->translate(e.word, f32);
    greedy.add(g.tokens, e.prons);
    greedy_f32.add(gf.tokens, e.prons);
    same += g.ids == gf.ids;
    beam.add(m->translate(e.word, b4).tokens, e.prons);
  }
  // the default (int8) decoder against float32 on the same words
  EXPECT_NEAR(100 * greedy.wer(), 100 * greedy_f32.wer(), 0.61) << "more than 3 of 500 words moved";
  EXPECT_GE(same, 490u) << "int8 and f32 greedy outputs differ on " << 500 - same << " words";
  std::printf("[%s, first 500 test words] greedy WER %.2f%% PER %.2f%%, beam 4 WER %.2f%% PER %.2f%%\n",
              rel.c_str(), 100 * greedy.wer(), 100 * greedy.per(), 100 * beam.wer(), 100 * beam.per());
  EXPECT_NEAR(100 * greedy.wer(), card[0], 2.0);
  EXPECT_NEAR(100 * greedy.per(), card[1], 2.0);
  EXPECT_NEAR(100 * beam.wer(), card[2], 2.0);
  EXPECT_NEAR(100 * beam.per(), card[3], 2.0);
  const bool stress = st.meta("stress", "0") == "1";
  EXPECT_EQ(m->translate("cat").text, stress ? "K AE1 T" : "K AE T");
}
}  // namespace

TEST(Seq2SeqShipped, G2PCardMetricsOnFirst500TestWords) {
  check_g2p_model("models/g2p-cmudict/model.safetensors", "additive", kG2PCard500);
}
TEST(Seq2SeqShipped, G2PStressCardMetricsOnFirst500TestWords) {
  // models/g2p-cmudict-stress/CARD.md: first 500 test words, with stress, int8 decoder
  const double card[4] = {43.80, 12.31, 43.00, 12.06};
  check_g2p_model("models/g2p-cmudict-stress/model.safetensors", "additive", card);
}
TEST(Seq2SeqShipped, G2PFastCardMetricsOnFirst500TestWords) {
  // models/g2p-cmudict-fast/CARD.md: first 500 test words, int8 decoder
  const double card[4] = {37.00, 8.92, 37.00, 8.89};
  check_g2p_model("models/g2p-cmudict-fast/model.safetensors", "additive", card);
}
TEST(TransformerShipped, G2PCardMetricsOnFirst500TestWords) {
  // models/g2p-transformer/CARD.md: first 500 test words, int8 decoder
  const double card[4] = {35.40, 9.19, 34.80, 8.85};
  check_g2p_model("models/g2p-transformer/model.safetensors", nullptr, card);
}
TEST(Seq2SeqShipped, G2PDotCardMetricsOnFirst500TestWords) {
  check_g2p_model("models/g2p-cmudict-dot/model.safetensors", "dot", kG2PDotCard500);
}
