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

// volatile sink keeps the optimizer (and binaryen) from deleting the work
static volatile float g_sink;

namespace {
// The GEMM micro-kernel shape on L1-resident packed panels: MR x NV vector
// accumulators, each k step broadcasts MR values of A and loads NV vectors of B.
template <size_t MR, size_t NV>
float micro_tile(size_t kc, const float* __restrict a, const float* __restrict b) {
  using simd::fbatch;
  constexpr size_t W = simd::W, NR = NV * W;
  fbatch acc[MR][NV];
  for (size_t i = 0; i < MR; ++i)
    for (size_t v = 0; v < NV; ++v) acc[i][v] = fbatch(0.f);
  for (size_t k = 0; k < kc; ++k) {
    fbatch bv[NV];
    for (size_t v = 0; v < NV; ++v) bv[v] = fbatch::load_aligned(b + k * NR + v * W);
    for (size_t i = 0; i < MR; ++i) {
      const fbatch av(a[k * MR + i]);
      for (size_t v = 0; v < NV; ++v) acc[i][v] += av * bv[v];
    }
  }
  fbatch s(0.f);
  for (size_t i = 0; i < MR; ++i)
    for (size_t v = 0; v < NV; ++v) s += acc[i][v];
  return xsimd::hadd(s);
}

template <size_t MR, size_t NV>
double micro_peak(double min_ms) {
  constexpr size_t NR = NV * simd::W, KC = 256;
  alignas(64) static float a[KC * MR], b[KC * NR];
  for (size_t i = 0; i < KC * MR; ++i) a[i] = 1e-3f * static_cast<float>(i % 7);
  for (size_t i = 0; i < KC * NR; ++i) b[i] = 1e-3f * static_cast<float>(i % 5);
  // called through a volatile pointer so the optimizer can't specialize the trip count
  float (*volatile fn)(size_t, const float*, const float*) = &micro_tile<MR, NV>;
  const size_t reps = 8;
  const double ns = time_per_call(
      [&] {
        float s = 0.f;
        for (size_t r = 0; r < reps; ++r) s += fn(KC, a, b);
        g_sink = s;
      },
      min_ms);
  return 2.0 * MR * NR * KC * reps / ns;
}
}  // namespace

double simd_peak_gflops(double min_ms) {
  // the best of the usual register tiles (rows x vectors): which one wins
  // depends on the engine (Node liked 4x2, Chromium 3x4 on this machine)
  const double each = min_ms / 4;
  return std::max(std::max(micro_peak<4, 2>(each), micro_peak<3, 4>(each)),
                  std::max(micro_peak<6, 2>(each), micro_peak<2, 4>(each)));
}

}  // namespace attnlab::kernels
