#include "attnlab/kernels/bench.hpp"

#include <algorithm>

#include "attnlab/core/checked.hpp"
#include "attnlab/kernels/timing.hpp"

namespace attnlab::kernels {
BenchResult bench_kernel(const std::string& name, Shape shape, double min_ms, bool with_ref) {
  const KernelCase& c = kernel_case(name);
  // every buffer a kernel case allocates is at most the product of two of the
  // three sizes (GEMM: M*K, K*N, M*N); 0 marks a size the kernel does not use
  const uint64_t s0 = std::max<size_t>(shape[0], 1), s1 = std::max<size_t>(shape[1], 1),
                 s2 = std::max<size_t>(shape[2], 1);
  checked_product("bench: shape (a x b)", {s0, s1}, kMaxBenchElements);
  checked_product("bench: shape (b x c)", {s1, s2}, kMaxBenchElements);
  checked_product("bench: shape (a x c)", {s0, s2}, kMaxBenchElements);
  checked_product("bench: shape", {s0, s1, s2}, uint64_t{1} << 31);
  ATTNLAB_CHECK(min_ms >= 0 && min_ms <= 60000, "bench: minMs must be in [0, 60000], got ", min_ms);
  auto run = c.make(shape, 1);
  BenchResult r;
  r.ns = 1e6 * median_ms_per_call([&] { run->run_simd(); }, min_ms);
  r.gflops = run->flops() / r.ns;
  if (with_ref) {
    r.ref_ns = 1e6 * median_ms_per_call([&] { run->run_ref(); }, min_ms);
    r.ref_gflops = run->flops() / r.ref_ns;
  }
  return r;
}

}  // namespace attnlab::kernels
