// Native kernel benchmarks (Google Benchmark): every kernel of the kernel list
// at its benchmark shapes, SIMD and scalar twin side by side, plus the
// register-blocked micro-kernel peak that GEMM is measured against and the 16-bit
// multiply-add ceiling of the int8/int16 products (i16_madd_peak).
//   build/native/bench_kernels --benchmark_filter=gemm
#include <benchmark/benchmark.h>

#include <string>

#include "attnlab/kernels/bench.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/kernels/registry.hpp"

using namespace attnlab::kernels;

namespace {

std::string shape_name(const Shape& s) {
  std::string n = std::to_string(s[0]);
  if (s[1]) n += "x" + std::to_string(s[1]);
  if (s[2]) n += "x" + std::to_string(s[2]);
  return n;
}

void register_all() {
  for (const KernelCase& c : kernel_cases()) {
    for (const Shape& s : c.bench_shapes) {
      for (bool simd : {true, false}) {
        const std::string name = c.name + (simd ? "/simd/" : "/ref/") + shape_name(s);
        benchmark::RegisterBenchmark(name.c_str(), [&c, s, simd](benchmark::State& st) {
          auto run = c.make(s, 1);
          for (auto _ : st) {
            if (simd) run->run_simd();
            else run->run_ref();
            benchmark::ClobberMemory();
          }
          st.counters["GFLOPS"] = benchmark::Counter(run->flops() * st.iterations() / 1e9,
                                                     benchmark::Counter::kIsRate);
        });
      }
    }
  }
  benchmark::RegisterBenchmark("simd_peak_micro_kernel", [](benchmark::State& st) {
    double g = 0;
    for (auto _ : st) g = simd_peak_gflops(100);
    st.counters["GFLOPS"] = g;
  })->Iterations(3);
  benchmark::RegisterBenchmark("i16_madd_peak", [](benchmark::State& st) {
    double g = 0;
    for (auto _ : st) g = i16_madd_peak_gflops(100);
    st.counters["GFLOPS"] = g;
  })->Iterations(3);
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::printf("SIMD: %s, %zu lanes, GEMM tile %zux%zu\n", simd_arch_name(), simd_lanes(),
              gemm_tile_m(), gemm_tile_n());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
