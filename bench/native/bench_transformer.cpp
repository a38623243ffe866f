// Transformer decoding, one thread, G2P sizes (d_model 128, 4 heads, ff 512, 3+3 layers,
// CMUdict vocabularies, untrained weights, fixed output length): the KV-cached decoder
// (one new row per step) against recomputing the whole prefix at every step, greedy and
// beam 4, for outputs of 8 and 32 tokens. The ratio of the two rows at each length is the
// cache's gain; it grows with the length (the recomputation is quadratic in it).
//   build/native/bench_transformer
#include <benchmark/benchmark.h>

#include "attnlab/data/cmudict.hpp"
#include "attnlab/models/transformer.hpp"

using namespace attnlab;

namespace {
const models::TransformerSeq2Seq& model() {
  static const data::Vocab sv = data::grapheme_vocab(), tv = data::phoneme_vocab(false);
  static const models::TransformerSeq2Seq m(models::TransformerConfig(), sv, tv, 1);
  return m;
}

// args: output tokens, beam, kv cache (1) or full recomputation (0)
void BM_TransformerDecode(benchmark::State& st) {
  const auto& m = model();
  const std::vector<int> src = m.encode_input("ATTENTION");
  models::DecodeOptions o;
  o.max_len = size_t(st.range(0));
  o.beam = size_t(st.range(1));
  o.length_alpha = 0.f;
  o.head_maps = false;
  const bool kv = st.range(2) != 0;
  size_t steps = 0;
  for (auto _ : st) {
    const models::Translation t = m.decode(src, o, kv);
    steps += t.ids.size() + 1;
    benchmark::DoNotOptimize(t.logprob);
  }
  st.counters["steps"] = benchmark::Counter(double(steps) / double(st.iterations()));
  st.SetLabel(kv ? "kv-cache" : "full-recompute");
}
}  // namespace

BENCHMARK(BM_TransformerDecode)
    ->ArgNames({"len", "beam", "kv"})
    ->Args({8, 1, 1})
    ->Args({8, 1, 0})
    ->Args({32, 1, 1})
    ->Args({32, 1, 0})
    ->Args({8, 4, 1})
    ->Args({8, 4, 0})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
