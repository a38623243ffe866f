#include "attnlab/kernels/bench.hpp"

#include <algorithm>
#include <chrono>

#include "attnlab/kernels/simd_math.hpp"

namespace attnlab::kernels {
namespace {

double now_ns() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::nano>(clock::now().time_since_epoch()).count();
}

template <class F>
double time_per_call(F&& f, double min_ms) {
  f();  // warm-up
  double best = 1e300;
  for (int rep = 0; rep < 5; ++rep) {
    size_t iters = 0;
    const double t0 = now_ns();
    double t1 = t0;
    do {
      f();
      ++iters;
      t1 = now_ns();
    } while (t1 - t0 < min_ms * 1e6 / 5);
    best = std::min(best, (t1 - t0) / iters);
  }
  return best;
}

}  // namespace

BenchResult bench_kernel(const std::string& name, Shape shape, double min_ms, bool with_ref) {
  const KernelCase& c = kernel_case(name);
  auto run = c.make(shape, 1);
  BenchResult r;
  r.ns = time_per_call([&] { run->run_simd(); }, min_ms);
  r.gflops = run->flops() / r.ns;
  if (with_ref) {
    r.ref_ns = time_per_call([&] { run->run_ref(); }, min_ms);
    r.ref_gflops = run->flops() / r.ref_ns;
  }
  return r;
}

}  // namespace attnlab::kernels
