// The inputs of the attention benchmarks, shared by the native benchmarks
// (bench/native/bench_attention.cpp) and the standalone wasm timing
// (bench/wasm/attention_standalone.cpp), so both time the same tensors.
#pragma once
#include <cstddef>

#include "attnlab/attention/common.hpp"
#include "attnlab/core/rng.hpp"

namespace attnlab::bench {

// a (a, b, c) tensor of normal(0, 1) values from rng
inline attention::Tensor3 randn3(size_t a, size_t b, size_t c, Rng& rng) {
  attention::Tensor3 t = attention::Tensor3::from_shape({a, b, c});
  for (auto& x : t) x = rng.normal(0.f, 1.f);
  return t;
}

// The scaled-dot attention shape T = 128, d = 64 (B = 1): query, key and value drawn in that
// order from Rng(1); rng goes on from there for what the benchmark builds next.
struct SdpaInputs {
  Rng rng{1};
  size_t T = 128, D = 64;
  attention::Tensor3 q = randn3(1, T, D, rng), k = randn3(1, T, D, rng), v = randn3(1, T, D, rng);
};

}  // namespace attnlab::bench
