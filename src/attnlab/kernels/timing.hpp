// The one timing loop of the benchmarks: warm up once, then best of 5
// batches of calls, each batch at least min_ms / 5 long.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstddef>

namespace attnlab::kernels {

inline double now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

// Milliseconds per call of f (the best batch).
template <class F>
double best_ms_per_call(F&& f, double min_ms) {
  f();
  double best = 1e300;
  for (int rep = 0; rep < 5; ++rep) {
    size_t calls = 0;
    const double t0 = now_ms();
    double t1 = t0;
    do {
      f();
      ++calls;
      t1 = now_ms();
    } while (t1 - t0 < min_ms / 5);
    best = std::min(best, (t1 - t0) / static_cast<double>(calls));
  }
  return best;
}

}  // namespace attnlab::kernels
