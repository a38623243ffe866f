// Embind glue for the layer-level API (al.layers, al.attention): layer files exported
// from PyTorch and functional attention on the caller's tensors. Marshalling only; the
// layouts, checks and math are in src/attnlab/models/layer_file.cpp.
//
// THE TRANSFER (few Embind value operations per call, whatever the number of tensors;
// bindings/js/layers.js is the other half):
//   1. inputBuffer(n) sizes a staging buffer owned here and returns a Float32Array view
//      of it; JS copies every tensor and mask into it at once (no wasm call in between).
//   2. forward*(meta[, lengths]): meta is a Float64Array: the call's flags (their number
//      first, then each: 0/1, or -1/0/1 for batchFirst, or a number for scale; JS checked
//      their types and the order is each entry point's, below), then records
//        [slot, kind (0 tensor, 1 bool mask, 2 additive mask), offset, count, rank, dims...]
//      checked here against the buffer (offset + count inside it, count = product of dims).
//   3. The result is { data: Float32Array (every output, one copy), meta: Float64Array
//      [rank, dims...] per output, rank 0 = absent }; JS cuts data into the outputs.
// The staging buffer is released after each call, so the heap in use is flat.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/attention/attend.hpp"
#include "attnlab/attention/transformer.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/models/layer_file.hpp"
#include "attnlab/nn/recurrent.hpp"
#include "common.hpp"
#include "model_class.hpp"

using namespace emscripten;
using namespace attnlab::bindings;
namespace m = attnlab::models;

namespace {

constexpr size_t kMaxRank = 4;

// Slots: the arguments a call may carry (names for the error messages).
enum Slot : int {
  kQuery, kKey, kValue, kKeyPaddingMask, kAttnMask,              // MultiheadAttention
  kInput, kH0, kC0,                                              // GRU / LSTM
  kX, kMemory, kSelfMask, kSelfKeyPadding, kMemoryMask, kMemoryKeyPadding,  // Transformer
  kQ, kK, kV, kMask, kWq, kWk, kVa,                              // functional
  kSlots
};
const char* slot_name(int s) {
  static const char* names[kSlots] = {"query", "key", "value", "keyPaddingMask", "attnMask",
                                      "input", "h0", "c0", "src/tgt", "memory", "selfMask",
                                      "selfKeyPaddingMask", "memoryMask", "memoryKeyPaddingMask",
                                      "q", "k", "v", "mask", "wq", "wk", "va"};
  return names[s];
}

// The staging buffer of the current call (plain storage: no per-element work on
// allocation or release; JS fills all of it).
struct Staging {
  std::unique_ptr<float[]> p;
  size_t n = 0;
};
Staging& staging() {
  static Staging buf;
  return buf;
}
struct ReleaseStaging {
  ~ReleaseStaging() {
    staging().p.reset();
    staging().n = 0;
  }
};

val input_buffer(val n) {
  return guard([&] {
    const size_t k = static_cast<size_t>(arg_whole(n, "input size", 0, attnlab::kMaxElements, 0));
    Staging& b = staging();
    b.p.reset(new float[k ? k : 1]);
    b.n = k;
    return val(typed_memory_view(k, b.p.get()));
  });
}

// Every value finite (one pass without branches; the index only on failure).
void check_finite(const float* p, size_t n, const char* what) {
  uint32_t bad = 0;  // exponent bits all set: NaN or infinite (integer ops, vectorized)
  for (size_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, p + i, sizeof u);
    bad |= static_cast<uint32_t>((u & 0x7f800000u) == 0x7f800000u);
  }
  if (!bad) return;
  for (size_t i = 0; i < n; ++i)
    ATTNLAB_CHECK(std::isfinite(p[i]), what, ": value ", p[i], " at index ", i,
                  " is not finite (expected finite numbers)");
}

struct Args {
  m::LayerArray t[kSlots];
  m::LayerMask mk[kSlots];
  std::vector<double> flags;
  bool flag(size_t i) const { return flags.at(i) != 0; }
  int batch_first(size_t i) const { return static_cast<int>(flags.at(i)); }
};

Args read_meta(const val& meta, size_t nflags) {
  const Staging& buf = staging();
  ATTNLAB_CHECK(meta.instanceof(val::global("Float64Array")), "layer call: internal: meta must be a Float64Array");
  const size_t n = static_cast<size_t>(attnlab::checked_whole("meta", meta["length"].as<double>(), 0, 4096));
  std::vector<double> md(n);
  if (n) val(typed_memory_view(n, md.data())).call<void>("set", meta);
  Args a;
  size_t i = 0;
  auto next = [&](const char* what) {
    ATTNLAB_CHECK(i < n, "layer call: internal: meta ends inside a record (", what, ")");
    return md[i++];
  };
  ATTNLAB_CHECK(n > nflags && md[0] == static_cast<double>(nflags), "layer call: internal: expected ",
                nflags, " flags");
  ++i;
  for (size_t f = 0; f < nflags; ++f) {
    const double x = next("flags");
    ATTNLAB_CHECK(std::isfinite(x) && x >= -1, "layer call: internal: flag ", f, " is ", x);
    a.flags.push_back(x);
  }
  while (i < n) {
    const int slot = static_cast<int>(attnlab::checked_whole("slot", next("slot"), 0, kSlots - 1));
    const int kind = static_cast<int>(attnlab::checked_whole("kind", next("kind"), 0, 2));
    const uint64_t off = attnlab::checked_whole("offset", next("offset"), 0, attnlab::kMaxElements);
    const uint64_t count = attnlab::checked_whole("count", next("count"), 0, attnlab::kMaxElements);
    const size_t rank = static_cast<size_t>(attnlab::checked_whole("rank", next("rank"), 0, 64));
    const char* name = slot_name(slot);
    ATTNLAB_CHECK(rank >= 1 && rank <= kMaxRank, name, ".shape: expected 1 to ", kMaxRank,
                  " dimensions, got ", rank);
    std::vector<size_t> shape(rank);
    const std::string sw = std::string(name) + ".shape";
    for (size_t d = 0; d < rank; ++d)
      shape[d] = static_cast<size_t>(attnlab::checked_whole(sw.c_str(), next("dims"), 0, attnlab::kMaxElements));
    const size_t want = attnlab::checked_product(sw.c_str(), shape);
    ATTNLAB_CHECK(want == count, name, ": shape ", [&] {
      std::string s = "(";
      for (size_t d = 0; d < rank; ++d) s += (d ? "," : "") + std::to_string(shape[d]);
      return s + ")";
    }(), " needs ", want, " values, got ", count);
    ATTNLAB_CHECK(attnlab::checked_sum("offset + count", off, count) <= buf.n,
                  "layer call: internal: ", name, " lies outside the input buffer");
    const float* p = buf.p.get() + off;
    if (kind == 0) {
      check_finite(p, count, name);
      a.t[slot].shape = std::move(shape);
      a.t[slot].data.assign(p, p + count);
    } else {
      a.mk[slot].shape = std::move(shape);
      a.mk[slot].data.assign(p, p + count);
      a.mk[slot].boolean = kind == 1;
    }
  }
  return a;
}

// outputs (empty = absent) -> { data, meta }
val result(std::initializer_list<const m::LayerArray*> outs) {
  size_t total = 0;
  std::vector<double> meta;
  for (const m::LayerArray* o : outs) {
    meta.push_back(static_cast<double>(o->shape.size()));
    for (size_t d : o->shape) meta.push_back(static_cast<double>(d));
    total += o->data.size();
  }
  std::unique_ptr<float[]> all(new float[total ? total : 1]);
  size_t off = 0;
  for (const m::LayerArray* o : outs) {
    if (!o->data.empty()) std::memcpy(all.get() + off, o->data.data(), o->data.size() * sizeof(float));
    off += o->data.size();
  }
  val r = val::object();
  r.set("data", from_floats(all.get(), total));
  r.set("meta", val::global("Float64Array").new_(typed_memory_view(meta.size(), meta.data())));
  return r;
}

class JsLayer {
 public:
  explicit JsLayer(std::unique_ptr<m::LayerModule> l) : layer_(std::move(l)) {}
  static JsLayer* from_bytes(val bytes) {
    return guard([&] {
      const std::vector<uint8_t> b = to_bytes(bytes, "layers.fromBytes");
      return new JsLayer(m::load_layer(b.data(), b.size(), "layers.fromBytes"));
    });
  }
  val kind() const {
    return guard([&] { return val(std::string(m::layer_kind_name(layer_->kind()))); });
  }
  val config() const {
    return guard([&] { return val(layer_->config().dump()); });
  }
  val param_count() const {
    return guard([&] { return val(static_cast<double>(layer_->params().count())); });
  }
  // flags: isCausal, needWeights, averageAttnWeights, batchFirst
  val forward_mha(val meta) {
    return guard([&] {
      ReleaseStaging release;
      Args a = read_meta(meta, 4);
      m::MhaCall c;
      c.query = std::move(a.t[kQuery]);
      c.key = std::move(a.t[kKey]);
      c.value = std::move(a.t[kValue]);
      c.key_padding_mask = std::move(a.mk[kKeyPaddingMask]);
      c.attn_mask = std::move(a.mk[kAttnMask]);
      c.is_causal = a.flag(0);
      c.need_weights = a.flag(1);
      c.average_attn_weights = a.flag(2);
      c.batch_first = a.batch_first(3);
      ATTNLAB_CHECK(!c.query.empty(), "MultiheadAttention.forward: query is required");
      const m::MhaReturn r = layer_->forward_mha(c);
      return result({&r.out, &r.weights});
    });
  }
  // flags: batchFirst; lengths: undefined or an array of whole numbers
  val forward_rnn(val meta, val lengths) {
    return guard([&] {
      ReleaseStaging release;
      Args a = read_meta(meta, 1);
      m::RnnCall c;
      c.x = std::move(a.t[kInput]);
      c.h0 = std::move(a.t[kH0]);
      c.c0 = std::move(a.t[kC0]);
      if (!lengths.isUndefined() && !lengths.isNull()) {
        const size_t n = js_length(lengths, "lengths", "an array of whole numbers");
        for (size_t i = 0; i < n; ++i)
          c.lengths.push_back(static_cast<size_t>(arg_whole(lengths[i], "lengths", 0, attnlab::kMaxElements, 0)));
      }
      c.batch_first = a.batch_first(0);
      ATTNLAB_CHECK(!c.x.empty(), "forward: input is required");
      const m::RnnReturn r = layer_->forward_rnn(c);
      return result({&r.out, &r.h_n, &r.c_n});
    });
  }
  // flags: selfCausal, batchFirst
  val forward_transformer(val meta) {
    return guard([&] {
      ReleaseStaging release;
      Args a = read_meta(meta, 2);
      m::TransformerCall c;
      c.x = std::move(a.t[kX]);
      c.memory = std::move(a.t[kMemory]);
      c.self_mask = std::move(a.mk[kSelfMask]);
      c.self_key_padding = std::move(a.mk[kSelfKeyPadding]);
      c.memory_mask = std::move(a.mk[kMemoryMask]);
      c.memory_key_padding = std::move(a.mk[kMemoryKeyPadding]);
      c.self_causal = a.flag(0);
      c.batch_first = a.batch_first(1);
      ATTNLAB_CHECK(!c.x.empty(), "forward: the input sequence is required");
      const m::LayerArray y = layer_->forward_transformer(c);
      return result({&y});
    });
  }

 private:
  std::unique_ptr<m::LayerModule> layer_;
};

// flags: causal, needWeights, scale (0 = 1/sqrt(D))
val attention_call(val meta, bool additive) {
  return guard([&] {
    ReleaseStaging release;
    Args a = read_meta(meta, 3);
    const bool causal = a.flag(0);
    m::FunctionalReturn r;
    if (!additive) {
      r = m::scaled_dot_attention(a.t[kQ], a.t[kK], a.t[kV], a.mk[kMask], causal,
                                  a.flags[2], a.flag(1));
    } else {
      for (int s : {kWq, kWk, kVa})
        ATTNLAB_CHECK(!a.t[s].empty(), "attention.additive: ", slot_name(s),
                      " is required ({ data: Float32Array, shape: number[] })");
      r = m::additive_attention(a.t[kQ], a.t[kK], a.t[kV], a.t[kWq], a.t[kWk], a.t[kVa], a.mk[kMask], causal);
    }
    return result({&r.out, &r.weights});
  });
}
val scaled_dot(val meta) { return attention_call(meta, false); }
val additive(val meta) { return attention_call(meta, true); }

// The benchmark's reference (bench/wasm/layers_overhead.mjs): n forwards of the same
// computation on the library's layers called directly, as our models call them (no
// marshalling). { op: 'mha' | 'sdpa' | 'gru' | 'encoder', B, T, D, heads, n } -> a sink value.
val bench_inside(val o) {
  namespace at = attnlab::attention;
  namespace nn = attnlab::nn;
  return guard([&] {
    check_options(o, "layersBenchInside options");
    const std::string op = opt_enum(o, "op", {"mha", "sdpa", "gru", "encoder"}, "mha");
    const size_t B = opt_size(o, "B", 1, 256, 1), T = opt_size(o, "T", 1, 4096, 128),
                 D = opt_size(o, "D", 1, 4096, 64), H = opt_size(o, "heads", 1, 64, 4),
                 n = opt_size(o, "n", 0, 1000000, 1);
    attnlab::checked_product("B x T x D", {B, T, D});
    attnlab::Rng rng(1);
    at::Tensor3 x = at::Tensor3::from_shape({B, T, D});
    for (size_t i = 0; i < x.size(); ++i) x.data()[i] = rng.normal(0.f, 1.f);
    double sink = 0;
    if (op == "sdpa") {
      for (size_t i = 0; i < n; ++i) sink += at::scaled_dot_attention(x, x, x, {}, false).out.data()[0];
    } else if (op == "mha") {
      ATTNLAB_CHECK(D % H == 0, "D must be divisible by heads");
      at::MultiheadAttention mha(D, H, rng);
      at::MhaOptions mo;
      mo.need_weights = false;
      for (size_t i = 0; i < n; ++i) sink += mha.forward(x, x, x, mo).out.data()[0];
    } else if (op == "gru") {
      nn::Recurrent gru(nn::Recurrent::Kind::GRU, false, D, D, rng);
      nn::Tensor xt = nn::empty({B, T, D});
      std::copy(x.begin(), x.end(), xt.begin());
      for (size_t i = 0; i < n; ++i) {
        nn::Tensor out;
        nn::RnnState sn;
        gru.forward(xt, {}, nullptr, out, sn, nullptr);
        sink += out.data()[0];
      }
    } else {
      at::TransformerLayerConfig c;
      c.d_model = D;
      c.nhead = H;
      c.dim_feedforward = 4 * D;
      c.dropout = 0.f;
      at::TransformerEncoderLayer enc(c, rng);
      at::MhaOptions mo;
      mo.need_weights = false;
      for (size_t i = 0; i < n; ++i) sink += enc.forward(x, mo).data()[0];
    }
    return val(sink);
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_layers) {
  function("layersBenchInside", &bench_inside);
  model_class<JsLayer>("LayerModule")
      .function("kind", &JsLayer::kind)
      .function("forwardMha", &JsLayer::forward_mha)
      .function("forwardRnn", &JsLayer::forward_rnn)
      .function("forwardTransformer", &JsLayer::forward_transformer);
  function("layerInputBuffer", &input_buffer);
  function("attentionScaledDot", &scaled_dot);
  function("attentionAdditive", &additive);
}
