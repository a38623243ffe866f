// Benchmark entry points for the attention operations that bench/peers
// compares with tfjs and onnxruntime-web: inputs prepared once, the timing
// loop in C++ (no per-call marshalling), best of 5 batches.
#include <emscripten/bind.h>

#include <string>

#include "attnlab/attention/attention.hpp"
#include "attnlab/kernels/timing.hpp"
#include "common.hpp"

using namespace emscripten;
namespace at = attnlab::attention;

namespace {

// "sdpa": softmax(q k^T / sqrt(D)) v, q,k,v (1,T,D), fused path, no weights.
// "mha":  multi-head self-attention (1,T,E), H heads, projections, no weights.
// Returns milliseconds per forward.
double bench_attention(std::string op, double T_, double D_, double H_, double min_ms) {
  return attnlab::bindings::guard([&] {
    const size_t T = static_cast<size_t>(T_), D = static_cast<size_t>(D_), H = static_cast<size_t>(H_);
    ATTNLAB_CHECK(T >= 1 && T <= 4096 && D >= 1 && D <= 4096, "bench: T and D must be in [1, 4096]");
    attnlab::Rng rng(1);
    at::Tensor3 x = at::Tensor3::from_shape({1, T, D});
    for (size_t i = 0; i < x.size(); ++i) x.data()[i] = rng.normal(0.f, 1.f);
    if (op == "sdpa") {
      at::Tensor3 k = x, v = x;
      for (size_t i = 0; i < x.size(); ++i) k.data()[i] = rng.normal(0.f, 1.f);
      for (size_t i = 0; i < x.size(); ++i) v.data()[i] = rng.normal(0.f, 1.f);
      return attnlab::kernels::best_ms_per_call([&] { at::scaled_dot_attention(x, k, v, {}, false); }, min_ms);
    }
    ATTNLAB_CHECK(op == "mha", "bench: op must be 'sdpa' or 'mha', got '", op, "'");
    at::MultiheadAttention mha(D, H, rng);
    at::MhaOptions o;
    o.need_weights = false;
    return attnlab::kernels::best_ms_per_call([&] { mha.forward(x, x, x, o); }, min_ms);
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_bench) { function("benchAttention", &bench_attention); }
