// Benchmark entry points for the attention operations that bench/peers
// compares with tfjs and onnxruntime-web: inputs prepared once, the timing
// loop in C++ (no per-call marshalling), best of 5 batches.
#include <emscripten/bind.h>
#include <emscripten/val.h>

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
// op, {T, D, heads, minMs}
val bench_attention(val op_, val o) {
  namespace b = attnlab::bindings;
  return b::guard([&] {
    const std::string op = b::to_string(op_, "bench: op");
    ATTNLAB_CHECK(op == "sdpa" || op == "mha", "bench: op must be 'sdpa' or 'mha', got '", op, "'");
    b::check_options(o, "bench options");
    const size_t T = b::opt_size(o, "T", 1, 4096, 128), D = b::opt_size(o, "D", 1, 4096, 64);
    const size_t H = b::opt_size(o, "heads", 1, 64, 4);
    const double min_ms = b::opt_number(o, "minMs", 0, 60000, 300);
    attnlab::Rng rng(1);
    at::Tensor3 x = at::Tensor3::from_shape({1, T, D});
    for (size_t i = 0; i < x.size(); ++i) x.data()[i] = rng.normal(0.f, 1.f);
    if (op == "sdpa") {
      at::Tensor3 k = x, v = x;
      for (size_t i = 0; i < x.size(); ++i) k.data()[i] = rng.normal(0.f, 1.f);
      for (size_t i = 0; i < x.size(); ++i) v.data()[i] = rng.normal(0.f, 1.f);
      return val(attnlab::kernels::median_ms_per_call([&] { at::scaled_dot_attention(x, k, v, {}, false); }, min_ms));
    }
    ATTNLAB_CHECK(D % H == 0, "bench: D = ", D, " must be divisible by heads = ", H);
    at::MultiheadAttention mha(D, H, rng);
    at::MhaOptions mo;
    mo.need_weights = false;
    return val(attnlab::kernels::median_ms_per_call([&] { mha.forward(x, x, x, mo); }, min_ms));
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_bench) { function("benchAttention", &bench_attention); }
