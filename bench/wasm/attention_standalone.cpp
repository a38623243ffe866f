// Standalone wasm timing of the issue-3 attention shapes, without Embind: built by
// scripts/bench_wasm_attention.sh with em++ (-msimd128 -msse4.1) and run in Node.
// Best of 7 batches of >= 30 ms each, results kept alive through a volatile sink.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "attnlab/attention/attend.hpp"
#include "attnlab/attention/multihead.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "../attention_inputs.hpp"

using namespace attnlab;
using namespace attnlab::attention;

using attnlab::bench::randn3;

namespace {
volatile float g_sink;
template <class F>
double best_us(F f) {
  for (int i = 0; i < 5; ++i) f();
  int n = 1;
  double best = 1e30;
  for (int rep = 0; rep < 7;) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) f();
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (us < 30000) {
      n *= 2;
      continue;
    }
    best = std::min(best, us / n);
    ++rep;
  }
  return best;
}
}  // namespace

int main() {
  attnlab::bench::SdpaInputs in;
  Rng& rng = in.rng;
  std::printf("attnlab attention, wasm (%s, %zu lanes), 1 thread\n", kernels::simd_arch_name(),
              kernels::simd_lanes());
  std::printf("scaled-dot attention T=128 d=64        %9.1f us\n", best_us([&] {
                AttendResult r = scaled_dot_attention(in.q, in.k, in.v, {}, false);
                g_sink = r.out(0, 0, 0);
              }));
  MultiheadAttention mha(256, 4, rng);
  Tensor3 x = randn3(1, 128, 256, rng);
  MhaOptions o;
  o.need_weights = false;
  std::printf("MHA T=128 E=256 h=4 (self, no weights) %9.1f us\n", best_us([&] {
                MhaResult r = mha.forward(x, x, x, o);
                g_sink = r.out(0, 0, 0);
              }));
  o.need_weights = true;
  std::printf("MHA T=128 E=256 h=4 (+ avg weights)    %9.1f us\n", best_us([&] {
                MhaResult r = mha.forward(x, x, x, o);
                g_sink = r.out(0, 0, 0);
              }));
  return 0;
}
