// The one list of kernels. Tests (native and wasm) and benchmarks iterate it,
// so adding a kernel here gets it tested at the tile edges and benchmarked.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attnlab::kernels {

// A shape whose meaning depends on the kernel: {n} for vector kernels,
// {rows, cols} for row kernels, {M, N, K} for GEMM, {M, N} for GEMV.
using Shape = std::array<size_t, 3>;

struct CheckResult {
  double max_abs_err = 0;   // max |simd - ref|
  double worst_ratio = 0;   // max |simd - ref| / (atol + rtol * |ref|); passes if <= 1
  bool all_finite = true;   // no NaN/inf where the reference is finite
  bool passed() const { return all_finite && worst_ratio <= 1.0; }
};

// One prepared instance: buffers filled from a seed, ready to run either twin.
class KernelRun {
 public:
  virtual ~KernelRun() = default;
  virtual void run_ref() = 0;
  virtual void run_simd() = 0;
  // Runs both twins on identical inputs (in place if asked and allowed), compares.
  virtual CheckResult check(bool in_place) = 0;
  virtual double flops() const = 0;  // useful float ops of one run (for GFLOPS)
};

struct KernelCase {
  std::string name;
  size_t tile;                 // elements per SIMD step (GEMM: NR; rows: lanes)
  double atol, rtol;           // this kernel's own tolerance
  bool in_place;               // whether an in-place call is allowed and checked
  std::vector<Shape> test_shapes;   // below, equal, above and multiples of the tile
  std::vector<Shape> bench_shapes;  // what the benchmarks time
  std::function<std::unique_ptr<KernelRun>(Shape, uint32_t seed)> make;
};

const std::vector<KernelCase>& kernel_cases();
const KernelCase& kernel_case(const std::string& name);  // throws attnlab::Error

// Runs every case at every test shape; returns a JSON report
// {"arch": ..., "cases": [{"name","shape","in_place","max_abs_err","worst_ratio","passed"}...], "failed": n}.
std::string run_kernel_selftest(uint32_t seed);

}  // namespace attnlab::kernels
