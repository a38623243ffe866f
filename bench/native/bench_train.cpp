// Training throughput of a GRU encoder-decoder with dot-product attention
// (embedding 64, GRU 128, batch 64, T=12, vocab 40): forward, backward and an
// Adam step per iteration, one thread. Counter "samples/s" is what
// scripts/bench_torch_train.py compares with PyTorch on the same shapes.
// Also the pieces: GRU forward+backward alone.
#include <benchmark/benchmark.h>

#include "attnlab/nn/optim.hpp"
#include "attnlab/nn/rnn.hpp"
#include "attnlab/models/toy_seq2seq.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using namespace attnlab::models;

namespace {
constexpr size_t kB = 64, kT = 12, kV = 40, kE = 64, kH = 128;

ToyBatch fixed_batch(const ToyConfig& cfg) {
  ToyData d = make_toy_reverse(kB, cfg, 1);
  for (auto& t : d.tgt) t.pop_back();  // target steps = T (T-1 symbols + <eos>)
  std::vector<size_t> idx(kB);
  for (size_t i = 0; i < kB; ++i) idx[i] = i;
  return make_toy_batch(d, idx);
}
}  // namespace

static void BM_TrainSeq2SeqAttn(benchmark::State& st) {
  ToyConfig cfg;
  cfg.vocab = kV;
  cfg.emb = kE;
  cfg.hidden = kH;
  cfg.min_len = cfg.max_len = kT;
  const ToyBatch b = fixed_batch(cfg);
  ToySeq2Seq m(cfg, 1);
  ParamList ps;
  m.collect(ps);
  Adam adam(ps, 1e-3f);
  float loss = 0;
  for (auto _ : st) {
    ps.zero_grad();
    loss = m.train_step(b);
    adam.step();
    benchmark::DoNotOptimize(loss);
  }
  st.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(st.iterations() * kB), benchmark::Counter::kIsRate);
  st.counters["loss"] = loss;
}
BENCHMARK(BM_TrainSeq2SeqAttn)->Unit(benchmark::kMillisecond)->MinTime(2.0);

static void BM_GRUForwardBackward(benchmark::State& st) {
  Rng rng(1);
  GRU gru(kE, kH, rng);
  ParamList ps;
  gru.collect(ps, "");
  Tensor x = zeros({kB, kT, kE});
  for (size_t i = 0; i < x.size(); ++i) x.data()[i] = rng.normal(0.f, 1.f);
  Tensor dout = zeros({kB, kT, kH});
  for (size_t i = 0; i < dout.size(); ++i) dout.data()[i] = rng.normal(0.f, 1.f);
  for (auto _ : st) {
    GRU::Cache c;
    Tensor out, dx;
    RnnState sn, ds0;
    gru.forward(x, {}, nullptr, out, sn, &c);
    gru.backward(dout, RnnState(), c, dx, ds0);
    benchmark::DoNotOptimize(dx.data());
  }
  st.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(st.iterations() * kB), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_GRUForwardBackward)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
