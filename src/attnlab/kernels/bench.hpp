// Timing helpers shared by the native and wasm benchmarks (not used by tests).
#pragma once
#include <cstdint>
#include <string>

#include "attnlab/kernels/kernels.hpp"
#include "attnlab/kernels/registry.hpp"

namespace attnlab::kernels {

struct BenchResult {
  double ns = 0, gflops = 0;          // SIMD kernel, per call
  double ref_ns = 0, ref_gflops = 0;  // scalar twin (0 if not timed)
};

// Times case `name` of the kernel registry (registry.hpp) at `shape` for at least min_ms
// (after a warm-up), median of 5 batches. Sizes (0 = unused), the product of any two at
// most kMaxBenchElements (the largest buffer), of all three at most 2^31;
// min_ms in [0, 60000]; anything else is an Error.
inline constexpr uint64_t kMaxBenchElements = uint64_t{1} << 24;
BenchResult bench_kernel(const std::string& name, Shape shape, double min_ms, bool with_ref);

// simd_peak_gflops() (the micro-kernel ceiling) is declared in kernels.hpp.

}  // namespace attnlab::kernels
