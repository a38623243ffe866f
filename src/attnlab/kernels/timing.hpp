// The timing loops of the benchmarks: warm up once, then 5 batches of calls, each
// batch at least min_ms / 5 long. median_ms_per_call is the benchmark suite's one
// statistic (bench/suite.mjs times every contender that way); best_ms_per_call (the
// fastest batch) is for choosing between code paths (the GEMM tile), not for reports.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstddef>

namespace attnlab::kernels {

inline double now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

// Milliseconds per call of f over one batch: calls repeated until batch_ms have passed.
template <class F>
double batch_ms_per_call(F& f, double batch_ms) {
  size_t calls = 0;
  const double t0 = now_ms();
  double t1 = t0;
  do {
    f();
    ++calls;
    t1 = now_ms();
  } while (t1 - t0 < batch_ms);
  return (t1 - t0) / static_cast<double>(calls);
}

// Milliseconds per call of f (the best of 5 batches).
template <class F>
double best_ms_per_call(F&& f, double min_ms) {
  f();
  double best = 1e300;
  for (int rep = 0; rep < 5; ++rep) best = std::min(best, batch_ms_per_call(f, min_ms / 5));
  return best;
}

// Milliseconds per call of f (the median of 5 batches).
template <class F>
double median_ms_per_call(F&& f, double min_ms) {
  f();
  double t[5];
  for (double& ti : t) ti = batch_ms_per_call(f, min_ms / 5);
  std::sort(t, t + 5);
  return t[2];
}

}  // namespace attnlab::kernels
