// Attention forward benchmarks (the issue-3 shapes), one thread:
//   scaled-dot attention T=128 d=64 (B=1), multi-head self-attention T=128
//   d_model=256 h=4 (B=1, with projections). Compare with
//   scripts/bench_torch_attention.py (PyTorch, torch.set_num_threads(1)).
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "attnlab/attention/attend.hpp"
#include "attnlab/attention/multihead.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "../attention_inputs.hpp"

using namespace attnlab;
using namespace attnlab::attention;

using attnlab::bench::randn3;
using attnlab::bench::SdpaInputs;

namespace {
void set_flops(benchmark::State& st, double flops) {
  st.counters["GFLOPS"] =
      benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  st.SetLabel(kernels::simd_arch_name());
}
}  // namespace

// The tensor API (allocates its output each call).
static void BM_ScaledDotAttention_T128_d64(benchmark::State& st) {
  SdpaInputs in;
  const size_t T = in.T, D = in.D;
  for (auto _ : st) {
    AttendResult r = scaled_dot_attention(in.q, in.k, in.v, {}, false);
    benchmark::DoNotOptimize(r.out.data());
  }
  set_flops(st, 4.0 * T * T * D);
}
BENCHMARK(BM_ScaledDotAttention_T128_d64);

// The raw fused kernel with preallocated buffers (what MHA calls per head).
static void BM_ScaledDotAttentionRaw_T128_d64(benchmark::State& st) {
  SdpaInputs in;
  const size_t T = in.T, D = in.D;
  std::vector<float> out(T * D), work(sdpa_workspace_size(T));
  const float scale = 1.f / std::sqrt(float(D));
  for (auto _ : st) {
    sdpa_raw(T, T, D, D, scale, in.q.data(), D, in.k.data(), D, in.v.data(), D, nullptr, 0, out.data(), D,
             nullptr, T, work.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_flops(st, 4.0 * T * T * D);
}
BENCHMARK(BM_ScaledDotAttentionRaw_T128_d64);

// Composed path: Score(scaled_dot) -> softmax -> gemm, with the weights tensor.
static void BM_ScaledDotAttentionComposed_T128_d64(benchmark::State& st) {
  SdpaInputs in;
  const size_t T = in.T, D = in.D;
  Attention att({ScoreKind::ScaledDot, D, D}, in.rng);
  for (auto _ : st) {
    AttendResult r = att.forward(in.q, in.k, in.v);
    benchmark::DoNotOptimize(r.out.data());
  }
  set_flops(st, 4.0 * T * T * D);
}
BENCHMARK(BM_ScaledDotAttentionComposed_T128_d64);

static void mha_bench(benchmark::State& st, bool need_weights, bool causal) {
  Rng rng(2);
  const size_t T = 128, E = 256, H = 4;
  MultiheadAttention mha(E, H, rng);
  Tensor3 x = randn3(1, T, E, rng);
  MhaOptions opt;
  opt.need_weights = need_weights;
  opt.is_causal = causal;
  for (auto _ : st) {
    MhaResult r = mha.forward(x, x, x, opt);
    benchmark::DoNotOptimize(r.out.data());
  }
  set_flops(st, 4.0 * 2.0 * T * E * E + 4.0 * T * T * E);
}
static void BM_MHA_T128_E256_h4(benchmark::State& st) { mha_bench(st, false, false); }
static void BM_MHA_T128_E256_h4_weights(benchmark::State& st) { mha_bench(st, true, false); }
static void BM_MHA_T128_E256_h4_causal(benchmark::State& st) { mha_bench(st, false, true); }
BENCHMARK(BM_MHA_T128_E256_h4);
BENCHMARK(BM_MHA_T128_E256_h4_weights);
BENCHMARK(BM_MHA_T128_E256_h4_causal);

BENCHMARK_MAIN();
