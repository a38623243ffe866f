// The layer-level API (models/layer_file.hpp: caller tensors in, layout checks and copies)
// against the same layer called directly, as our models call it. Pairs of rows:
//   BM_Direct_<kind> / BM_LayerApi_<kind>   (the ratio of their times is the API's cost)
// and then a table of the ratios (CPU time, the best repetition of each):
//   build/native/bench_layer_file --benchmark_min_time=0.3 --benchmark_repetitions=3
// (the table needs the single runs: do not pass --benchmark_report_aggregates_only)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "attnlab/attention/multihead.hpp"
#include "attnlab/attention/transformer.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/models/layer_file.hpp"
#include "attnlab/nn/recurrent.hpp"

using namespace attnlab;
namespace at = attnlab::attention;
using models::LayerArray;

namespace {

constexpr size_t B = 8, T = 32;

LayerArray input(size_t b, size_t t, size_t d) {
  LayerArray a;
  a.shape = {b, t, d};
  Rng rng(3);
  for (size_t i = 0; i < b * t * d; ++i) a.data.push_back(rng.normal(0.f, 1.f));
  return a;
}
template <class T3>
T3 as_tensor(const LayerArray& a) {
  T3 t = T3::from_shape({a.shape[0], a.shape[1], a.shape[2]});
  std::copy(a.data.begin(), a.data.end(), t.data());
  return t;
}

void BM_Direct_GRU(benchmark::State& st) {
  const size_t I = 64, H = 128;
  Rng rng(1);
  nn::Recurrent gru(nn::Recurrent::Kind::GRU, true, I, H, rng);
  const nn::Tensor x = as_tensor<nn::Tensor>(input(B, T, I));
  for (auto _ : st) {
    nn::Tensor out;
    nn::RnnState sn;
    gru.forward(x, {}, nullptr, out, sn, nullptr);
    benchmark::DoNotOptimize(out.data());
  }
}
void BM_LayerApi_GRU(benchmark::State& st) {
  auto l = models::make_layer(models::LayerKind::GRU,
                              {{"input_size", 64u}, {"hidden_size", 128u}, {"bidirectional", true},
                               {"batch_first", true}}, 1);
  models::RnnCall c;
  c.x = input(B, T, 64);
  for (auto _ : st) {
    auto r = l->forward_rnn(c);
    benchmark::DoNotOptimize(r.out.values());
  }
}

void BM_Direct_MHA(benchmark::State& st) {
  const size_t E = 256, H = 4;
  Rng rng(1);
  at::MultiheadAttention mha(E, H, rng);
  const at::Tensor3 x = as_tensor<at::Tensor3>(input(1, 128, E));
  at::MhaOptions o;
  o.need_weights = false;
  for (auto _ : st) {
    auto r = mha.forward(x, x, x, o);
    benchmark::DoNotOptimize(r.out.data());
  }
}
void BM_LayerApi_MHA(benchmark::State& st) {
  auto l = models::make_layer(models::LayerKind::MultiheadAttention,
                              {{"embed_dim", 256u}, {"num_heads", 4u}, {"batch_first", true}}, 1);
  models::MhaCall c;
  c.query = input(1, 128, 256);
  c.need_weights = false;
  for (auto _ : st) {
    auto r = l->forward_mha(c);
    benchmark::DoNotOptimize(r.out.values());
  }
}

at::TransformerLayerConfig enc_cfg() {
  at::TransformerLayerConfig c;
  c.d_model = 128;
  c.nhead = 4;
  c.dim_feedforward = 512;
  c.dropout = 0.f;
  return c;
}
void BM_Direct_TransformerEncoderLayer(benchmark::State& st) {
  Rng rng(1);
  at::TransformerEncoderLayer enc(enc_cfg(), rng);
  const at::Tensor3 x = as_tensor<at::Tensor3>(input(B, T, 128));
  at::MhaOptions o;
  o.need_weights = false;  // as the layer API (a Transformer layer returns no weights)
  for (auto _ : st) {
    auto y = enc.forward(x, o);
    benchmark::DoNotOptimize(y.data());
  }
}
void BM_LayerApi_TransformerEncoderLayer(benchmark::State& st) {
  auto l = models::make_layer(models::LayerKind::TransformerEncoderLayer,
                              {{"d_model", 128u}, {"nhead", 4u}, {"dim_feedforward", 512u}, {"batch_first", true}}, 1);
  models::TransformerCall c;
  c.x = input(B, T, 128);
  for (auto _ : st) {
    auto y = l->forward_transformer(c);
    benchmark::DoNotOptimize(y.values());
  }
}

}  // namespace

BENCHMARK(BM_Direct_GRU)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LayerApi_GRU)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Direct_MHA)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LayerApi_MHA)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Direct_TransformerEncoderLayer)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LayerApi_TransformerEncoderLayer)->Unit(benchmark::kMicrosecond);
namespace {
// the console output, plus the best CPU time of each benchmark
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> best;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration) continue;
      const std::string name = r.run_name.function_name;
      const double t = r.GetAdjustedCPUTime();
      best[name] = best.count(name) ? std::min(best[name], t) : t;
    }
    ConsoleReporter::ReportRuns(runs);
  }
};
}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  std::printf("\n| layer | direct us (CPU) | layer API us (CPU) | ratio |\n|---|---:|---:|---:|\n");
  for (const char* k : {"GRU", "MHA", "TransformerEncoderLayer"}) {
    const std::string d = std::string("BM_Direct_") + k, a = std::string("BM_LayerApi_") + k;
    if (!rep.best.count(d) || !rep.best.count(a)) continue;
    std::printf("| %s | %.1f | %.1f | %.3f |\n", k, rep.best[d], rep.best[a], rep.best[a] / rep.best[d]);
  }
  return 0;
}
