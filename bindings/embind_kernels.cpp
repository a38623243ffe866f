// Embind glue for the kernel layer: the self-test (the native kernel checks,
// run inside wasm) and the kernel benchmarks. Marshalling only.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "attnlab/kernels/bench.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/kernels/registry.hpp"
#include "common.hpp"

using namespace emscripten;
namespace b = attnlab::bindings;
namespace k = attnlab::kernels;

namespace {

val selftest(val seed) {
  return b::guard([&] {
    const auto s = static_cast<uint32_t>(b::arg_whole(seed, "seed", 0, 0xffffffffu, 1));
    return val(k::run_kernel_selftest(s));
  });
}

// name, [a, b, c], {minMs, withRef} -> {ns, gflops, refNs, refGflops}
val bench_kernel(val name, val shape, val opts) {
  return b::guard([&] {
    const std::string n = b::to_string(name, "kernel name");
    ATTNLAB_CHECK(shape.isArray(), "shape: expected an array [a, b, c], got ", b::js_type(shape));
    const size_t len = b::js_length(shape, "shape", "an array [a, b, c]");
    ATTNLAB_CHECK(len >= 1 && len <= 3, "shape: expected 1 to 3 sizes, got ", len);
    k::Shape s{0, 0, 0};  // 0 = a size the kernel does not use
    for (size_t i = 0; i < len; ++i)
      s[i] = static_cast<size_t>(b::arg_whole(shape[i], "shape", 0, uint64_t{1} << 24, 0));
    b::check_options(opts, "kernels.bench options");
    const double min_ms = b::opt_number(opts, "minMs", 0, 60000, 200);
    const bool with_ref = b::opt_bool(opts, "withRef", false);
    const k::BenchResult r = k::bench_kernel(n, s, min_ms, with_ref);
    val out = val::object();
    out.set("ns", r.ns);
    out.set("gflops", r.gflops);
    out.set("refNs", r.ref_ns);
    out.set("refGflops", r.ref_gflops);
    return out;
  });
}

val peak_gflops(val min_ms) {
  return b::guard([&] {
    return val(k::simd_peak_gflops(b::arg_number(min_ms, "minMs", 0, 60000, 200)));
  });
}

val kernel_names() {
  return b::guard([&] {
    val arr = val::array();
    for (const auto& c : k::kernel_cases()) {
      val o = val::object();
      o.set("name", c.name);
      o.set("tile", c.tile);
      arr.call<void>("push", o);
    }
    return arr;
  });
}

val simd_info() {
  return b::guard([&] {
    val o = val::object();
    o.set("arch", std::string(k::simd_arch_name()));
    o.set("lanes", k::simd_lanes());
    // not chosen here: the choice times every tile (tens of ms on fresh baseline code), which
    // a caller asking what the build runs on should not pay; "auto" until a large GEMM chose
    o.set("gemmTile", k::gemm_tile_chosen()
                          ? std::to_string(k::gemm_tile_m()) + "x" + std::to_string(k::gemm_tile_n())
                          : std::string("auto"));
    return o;
  });
}

// softmax of one row of finite logits: Float32Array in, Float32Array out
val softmax(val logits) {
  return b::guard([&] {
    std::vector<float> x = b::to_floats(logits, "logits", /*finite=*/true);
    ATTNLAB_CHECK(!x.empty(), "logits: expected at least one number, got an empty array");
    std::vector<float> y(x.size());
    k::softmax_rows(1, x.size(), x.data(), x.size(), nullptr, 0, y.data(), y.size());
    return b::from_floats(y);
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_kernels) {
  function("kernelSelftest", &selftest);
  function("benchKernel", &bench_kernel);
  function("simdPeakGflops", &peak_gflops);
  function("kernelList", &kernel_names);
  function("simdInfo", &simd_info);
  function("softmax", &softmax);
}
