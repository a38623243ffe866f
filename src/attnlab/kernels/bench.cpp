#include "attnlab/kernels/bench.hpp"


#include "attnlab/kernels/timing.hpp"

namespace attnlab::kernels {
BenchResult bench_kernel(const std::string& name, Shape shape, double min_ms, bool with_ref) {
  const KernelCase& c = kernel_case(name);
  auto run = c.make(shape, 1);
  BenchResult r;
  r.ns = 1e6 * best_ms_per_call([&] { run->run_simd(); }, min_ms);
  r.gflops = run->flops() / r.ns;
  if (with_ref) {
    r.ref_ns = 1e6 * best_ms_per_call([&] { run->run_ref(); }, min_ms);
    r.ref_gflops = run->flops() / r.ref_ns;
  }
  return r;
}

}  // namespace attnlab::kernels
