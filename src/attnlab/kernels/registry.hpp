// The kernel registry: the cases (inputs, tolerance, shapes) each kernel of the
// kernel list (kernel_list.def) is checked and timed with. The native tests, the
// wasm self-test and the benchmarks all iterate kernel_cases(), and registry.cpp
// does not compile while a kernel of the list has no cases.
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

// An output passes if |simd - ref| <= atol + rtol * |ref|.
struct Tolerance {
  double atol = 0, rtol = 0;
};

struct CheckResult {
  double max_abs_err = 0;   // max |simd - ref|
  double worst_ratio = 0;   // max |simd - ref| / (atol + rtol * |ref|); passes if <= 1
  bool all_finite = true;   // no NaN/inf where the reference is finite
  bool passed() const { return all_finite && worst_ratio <= 1.0; }
};

// Compares the twins' outputs element by element (equal values, and NaN against NaN, pass).
CheckResult compare_outputs(const std::vector<float>& ref, const std::vector<float>& simd,
                            Tolerance tol);

// One prepared instance: buffers filled from a seed, ready to run either twin.
class KernelRun {
 public:
  virtual ~KernelRun() = default;
  virtual void run_ref() = 0;
  virtual void run_simd() = 0;
  // Runs both twins on identical inputs (in place if asked and allowed) and
  // returns their outputs: {ref, simd}.
  virtual std::array<std::vector<float>, 2> outputs(bool in_place) = 0;
  virtual double flops() const = 0;  // useful float ops of one run (for GFLOPS)
};

struct KernelCase {
  std::string name;            // the kernel's name, or name_variant (gemm_nn, exp_small)
  std::string kernel;          // the kernel of kernel_list.def it checks
  size_t tile;                 // elements per SIMD step (GEMM: NR; rows: lanes)
  Tolerance tol;               // this case's tolerance (the only place it is written)
  bool in_place;               // whether an in-place call is allowed and checked
  bool every_gemm_tile;        // checked once per compiled GEMM register tile
  std::vector<Shape> test_shapes;   // below, equal, above and multiples of the tile
  std::vector<Shape> bench_shapes;  // what the benchmarks time
  std::function<std::unique_ptr<KernelRun>(Shape, uint32_t seed)> make;
};

// The names of kernel_list.def, in its order.
const std::vector<std::string>& kernel_names();
const std::vector<KernelCase>& kernel_cases();
const KernelCase& kernel_case(const std::string& name);  // throws attnlab::Error

// One check: a case at one shape, seed and (GEMM) register tile, in place or not.
struct CheckRecord {
  std::string label;  // the case name, with "@MRxNR" for GEMM tiles
  Shape shape;
  uint32_t seed;
  bool in_place;
  CheckResult result;
};
// Checks case c at every test shape for every seed, in place where allowed and,
// for GEMM cases, with every compiled register tile (the autotuned tile is restored
// afterwards); calls report once per check. Shared by the native tests and the self-test.
void check_case(const KernelCase& c, const std::vector<uint32_t>& seeds,
                const std::function<void(const CheckRecord&)>& report);

// Runs every case at every test shape; returns a JSON report
// {"arch": ..., "cases": [{"name","shape","in_place","max_abs_err","worst_ratio","passed"}...], "failed": n}.
std::string run_kernel_selftest(uint32_t seed);

}  // namespace attnlab::kernels
