// Training utilities: batching (seeded shuffle, bucketing, padding), the
// progress bar, checkpoint save/resume equal to an uninterrupted run, an
// end-to-end gradient check of the toy GRU encoder-decoder with attention,
// and a tiny model that learns the toy task.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <sstream>

#include "attnlab/data/batching.hpp"
#include "attnlab/nn/layers.hpp"
#include "attnlab/nn/loss.hpp"
#include "attnlab/models/toy_seq2seq.hpp"
#include "attnlab/nn/train.hpp"
#include "model_test_util.hpp"
#include "nn_test_util.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using namespace attnlab::models;
using namespace attnlab::testutil;
using attnlab::testing::toy_config;

TEST(TrainBatching, SeededShuffleCoversEverySampleOnce) {
  std::vector<size_t> lens(103);
  for (size_t i = 0; i < lens.size(); ++i) lens[i] = 1 + (i * 7) % 13;
  data::Batcher a(lens, 10, 42), b(lens, 10, 42), c(lens, 10, 43);
  EXPECT_EQ(a.num_batches(), 11u);
  const auto e0 = a.epoch(0);
  EXPECT_EQ(e0, b.epoch(0));  // same seed, same epoch: same batches
  EXPECT_NE(e0, a.epoch(1));  // a new order each epoch
  EXPECT_NE(e0, c.epoch(0));  // another seed
  std::set<size_t> seen;
  for (auto& bt : e0) seen.insert(bt.begin(), bt.end());
  EXPECT_EQ(seen.size(), 103u);
  EXPECT_EQ(e0.back().size(), 3u);
  data::Batcher dl(lens, 10, 42, true, false, true);
  EXPECT_EQ(dl.num_batches(), 10u);
  EXPECT_EQ(dl.epoch(0).size(), 10u);
  // no shuffle: identity order
  data::Batcher ns(lens, 10, 1, false);
  EXPECT_EQ(ns.epoch(3)[0][0], 0u);
}

TEST(TrainBatching, BucketingReducesPadding) {
  Rng rng(5);
  std::vector<size_t> lens(640);
  for (auto& l : lens) l = 1 + rng.below(50);
  auto padding = [&](const data::Batcher& bt) {
    size_t pad = 0;
    for (auto& b : bt.epoch(0)) {
      size_t mx = 0;
      for (size_t i : b) mx = std::max(mx, lens[i]);
      for (size_t i : b) pad += mx - lens[i];
    }
    return pad;
  };
  const size_t plain = padding(data::Batcher(lens, 16, 9));
  const size_t bucketed = padding(data::Batcher(lens, 16, 9, true, true));
  EXPECT_LT(bucketed * 4, plain) << "bucketed " << bucketed << " plain " << plain;
  std::set<size_t> seen;
  for (auto& b : data::Batcher(lens, 16, 9, true, true).epoch(2)) seen.insert(b.begin(), b.end());
  EXPECT_EQ(seen.size(), lens.size());
}

TEST(TrainBatching, PadBatch) {
  const std::vector<std::vector<int>> seqs = {{5, 6, 7}, {8}, {9, 10}};
  const data::Padded p = data::pad_batch(seqs, {1, 0}, -1);
  EXPECT_EQ(p.B, 2u);
  EXPECT_EQ(p.T, 3u);
  EXPECT_EQ(p.ids, (std::vector<int>{8, -1, -1, 5, 6, 7}));
  EXPECT_EQ(p.lengths, (std::vector<size_t>{1, 3}));
  EXPECT_THROW(data::pad_batch(seqs, {4}, 0), Error);
}

TEST(TrainProgress, QuietAndVerbose) {
  std::ostringstream os;
  ProgressBar on(&os, true, 10);
  on.update(5, 1.25, 320);
  on.finish();
  const std::string s = os.str();
  EXPECT_NE(s.find("5/10"), std::string::npos) << s;
  EXPECT_NE(s.find("loss 1.2500"), std::string::npos) << s;
  EXPECT_NE(s.find("samples/s"), std::string::npos) << s;
  EXPECT_NE(s.find("ETA"), std::string::npos) << s;
  std::ostringstream q;
  ProgressBar off(&q, false, 10);
  off.update(5, 1.0, 10);
  off.finish();
  EXPECT_TRUE(q.str().empty());
}

TEST(TrainToy, EndToEndGradientCheck) {
  const ToyConfig cfg = toy_config(7, 4, 5, 1, 4);
  ToySeq2Seq m(cfg, 3);
  ParamList ps;
  m.collect(ps);
  const ToyData d = make_toy_reverse(4, cfg, 8);
  const ToyBatch b = make_toy_batch(d, {0, 1, 2, 3});
  ps.zero_grad();
  m.train_step(b);
  std::vector<GradTarget> tg;
  for (auto& it : ps.items()) {
    GradTarget t = param_target(it.first, *it.second);
    if (it.first.find("emb.") != std::string::npos) {  // skip the padding row (row 0)
      const size_t dim = cfg.emb;
      t.x += dim;
      t.n -= dim;
      t.analytic.erase(t.analytic.begin(), t.analytic.begin() + dim);
    }
    tg.push_back(std::move(t));
  }
  const double e = check_grads([&]() { return static_cast<double>(m.loss(b)); }, tg, 1e-2f, 2e-2);
  std::printf("[grad] toy GRU encoder-decoder + attention worst relative error %.3g\n", e);
}

namespace {
// A small regression net with dropout: its step consumes the trainer's Rng,
// so resuming must restore the RNG state as well as params and Adam moments.
struct DropNet {
  MLP mlp;
  Tensor x, y;
  explicit DropNet(uint64_t init_seed) {
    Rng init(init_seed), rng(1);
    mlp = MLP({4, 16, 1}, Act::Tanh, init, 0.3f);
    x = random_tensor({40, 4}, rng);
    y = empty({40, 1});
    for (size_t i = 0; i < 40; ++i) y(i, 0) = std::sin(x(i, 0)) + 0.5f * x(i, 1) * x(i, 2);
  }
  double step(const std::vector<size_t>& idx, Rng& rng) {
    Tensor xb = empty({idx.size(), 4}), yb = empty({idx.size(), 1});
    for (size_t r = 0; r < idx.size(); ++r) {
      for (size_t j = 0; j < 4; ++j) xb(r, j) = x(idx[r], j);
      yb(r, 0) = y(idx[r], 0);
    }
    MLP::Cache c;
    const Tensor p = mlp.forward(xb, &c, &rng, true);
    Tensor dp;
    const float l = mse(p, yb, &dp);
    mlp.backward(dp, c);
    return l;
  }
};
}  // namespace

TEST(TrainCheckpoint, ResumeEqualsUninterruptedRun) {
  const size_t N = 37;  // steps; 40 samples / batch 6 = 7 batches per epoch
  LrSchedule sched;
  sched.base_lr = 0.02f;
  sched.warmup = 5;
  sched.total = N;
  sched.decay = LrSchedule::Decay::Cosine;
  TrainOptions opt;
  opt.epochs = 10;
  opt.max_steps = N;
  opt.clip_norm = 1.f;
  opt.seed = 77;
  data::Batcher batcher(std::vector<size_t>(40, 1), 6, 123);

  // uninterrupted
  DropNet a(1);
  ParamList pa;
  a.mlp.collect(pa, "mlp.");
  AdamW oa(pa, sched.base_lr);
  Trainer ta(pa, oa, sched, batcher, opt);
  ta.run({[&](const std::vector<size_t>& b, Rng& r) { return a.step(b, r); }, {}, {}, {}});
  EXPECT_EQ(ta.step(), N);

  // interrupted at step 16 (mid-epoch), checkpoint bytes, resumed in fresh objects
  std::vector<uint8_t> bytes;
  {
    DropNet b(1);
    ParamList pb;
    b.mlp.collect(pb, "mlp.");
    AdamW ob(pb, sched.base_lr);
    Trainer tb(pb, ob, sched, batcher, opt);
    tb.run({[&](const std::vector<size_t>& bt, Rng& r) { return b.step(bt, r); }, {}, {}, {}},
           nullptr, 16);
    EXPECT_EQ(tb.step(), 16u);
    bytes = tb.checkpoint({{"note", "test"}});
  }
  DropNet c(999);  // different init: everything must come from the checkpoint
  ParamList pc;
  c.mlp.collect(pc, "mlp.");
  AdamW oc(pc, sched.base_lr);
  Trainer tc(pc, oc, sched, batcher, opt);
  const io::SafeTensors ck = io::decode(bytes);
  EXPECT_EQ(ck.meta("note"), "test");
  tc.restore(ck);
  EXPECT_EQ(tc.step(), 16u);
  tc.run({[&](const std::vector<size_t>& bt, Rng& r) { return c.step(bt, r); }, {}, {}, {}});
  EXPECT_EQ(tc.step(), N);
  for (size_t i = 0; i < pa.items().size(); ++i) {
    const auto& va = pa.items()[i].second->value;
    const auto& vc = pc.items()[i].second->value;
    for (size_t j = 0; j < va.size(); ++j)
      ASSERT_EQ(va.data()[j], vc.data()[j]) << pa.items()[i].first << " differs at " << j;
  }
  EXPECT_EQ(rng_to_hex(ta.rng()), rng_to_hex(tc.rng()));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(ta.rng().normal(), tc.rng().normal());

  // a model file is not a checkpoint; a checkpoint of another optimizer is refused
  EXPECT_THROW(tc.restore(io::decode(io::save_model({"x", "{}", {}, {}}, pc))), Error);
  SGD os(pc, 0.1f);
  Trainer ts(pc, os, sched, batcher, opt);
  try {
    ts.restore(ck);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("optimizer 'adamw'"), std::string::npos) << e.what();
  }
}

TEST(TrainToy, TinyModelLearnsReverse) {
  const ToyConfig cfg = toy_config(8, 16, 32, 2, 5);  // 5 symbols
  const ToyData train = make_toy_reverse(1024, cfg, 1);
  const ToyData val = make_toy_reverse(128, cfg, 2);
  ToySeq2Seq m(cfg, 7);
  ParamList ps;
  m.collect(ps);
  std::vector<size_t> all(val.src.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  const ToyBatch vb = make_toy_batch(val, all);
  const float untrained = m.loss(vb);
  std::vector<size_t> lens;
  for (auto& s : train.src) lens.push_back(s.size());
  data::Batcher batcher(lens, 32, 3, true, true);
  LrSchedule sched;
  sched.base_lr = 0.01f;
  sched.warmup = 10;
  sched.total = 12 * batcher.num_batches();
  sched.decay = LrSchedule::Decay::Cosine;
  TrainOptions opt;
  opt.epochs = 12;
  opt.clip_norm = 5.f;
  Adam adam(ps, sched.base_lr);
  Trainer tr(ps, adam, sched, batcher, opt);
  tr.run({[&](const std::vector<size_t>& b, Rng&) {
            return static_cast<double>(m.train_step(make_toy_batch(train, b)));
          },
          [&]() { return static_cast<double>(m.loss(vb)); }, {}, {}});
  const float trained = m.loss(vb);
  size_t exact = 0;
  for (size_t i = 0; i < val.src.size(); ++i) exact += m.greedy(val.src[i], 12) == val.tgt[i];
  std::printf("[learn] toy-reverse val loss %.3f -> %.3f, exact-match %zu/%zu\n", untrained,
              trained, exact, val.src.size());
  // an untrained model sits near ln(vocab) = 2.08; uniform guessing of the
  // symbols alone costs ln(5) = 1.61 per token
  EXPECT_GT(untrained, 1.5f);
  EXPECT_LT(trained, 0.3f);
  EXPECT_GT(exact, val.src.size() / 2);
  EXPECT_EQ(tr.history.size(), 12u);  // one evaluation per epoch
}
