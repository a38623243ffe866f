// Embind glue for the kernel layer: the self-test (the native kernel checks,
// run inside wasm) and the kernel benchmarks. Marshalling only.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <malloc.h>

#include <string>

#include "attnlab/kernels/bench.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/kernels/registry.hpp"
#include "common.hpp"

using namespace emscripten;
namespace k = attnlab::kernels;

namespace {

std::string selftest(uint32_t seed) {
  return attnlab::bindings::guard([&] { return k::run_kernel_selftest(seed); });
}

// Time one kernel of the list at shape (a, b, c) for at least min_ms.
// Returns {ns, gflops, ref_ns, ref_gflops}.
val bench_kernel(std::string name, size_t a, size_t b, size_t c, double min_ms, bool with_ref) {
  return attnlab::bindings::guard([&] {
    const k::BenchResult r = k::bench_kernel(name, {a, b, c}, min_ms, with_ref);
    val out = val::object();
    out.set("ns", r.ns);
    out.set("gflops", r.gflops);
    out.set("refNs", r.ref_ns);
    out.set("refGflops", r.ref_gflops);
    return out;
  });
}

val kernel_names() {
  val arr = val::array();
  for (const auto& c : k::kernel_cases()) {
    val o = val::object();
    o.set("name", c.name);
    o.set("tile", c.tile);
    arr.call<void>("push", o);
  }
  return arr;
}

val simd_info() {
  val o = val::object();
  o.set("arch", std::string(k::simd_arch_name()));
  o.set("lanes", k::simd_lanes());
  o.set("gemmTile", std::to_string(k::gemm_tile_m()) + "x" + std::to_string(k::gemm_tile_n()));
  return o;
}

// softmax of one row, for demos and the browser test: Float32Array in, Float32Array out
val softmax(val logits) {
  return attnlab::bindings::guard([&] {
    std::vector<float> x = attnlab::bindings::to_floats(logits, "logits");
    std::vector<float> y(x.size());
    k::softmax_rows(1, x.size(), x.data(), x.size(), nullptr, 0, y.data(), y.size());
    return attnlab::bindings::from_floats(y);
  });
}

// Bytes the allocator has handed out and not yet received back: flat across
// repeated calls means no leak.
double heap_used() { return static_cast<double>(mallinfo().uordblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_kernels) {
  function("heapUsed", &heap_used);
  function("kernelSelftest", &selftest);
  function("benchKernel", &bench_kernel);
  function("simdPeakGflops", &k::simd_peak_gflops);
  function("kernelList", &kernel_names);
  function("simdInfo", &simd_info);
  function("softmax", &softmax);
}
