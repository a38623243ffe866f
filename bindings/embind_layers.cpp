// Embind glue for the layer-level API (al.layers, al.attention): layer files exported
// from PyTorch and functional attention on the caller's tensors. Marshalling only; the
// layouts, checks and math are in src/attnlab/models/layer_file.cpp.
//
// THE TRANSFER (bindings/js/layers.js is the other half): no Embind value operation on
// the data and, once the buffers fit, no allocation for it, whatever the number of tensors:
//   1. layerInputBuffer(metaLen, floats) -> the byte address of the staging buffer, sized
//      for metaLen doubles (the call's description) then, from the first 64-byte boundary
//      after them (data_start), the floats of every tensor and mask, each starting on a
//      64-byte boundary. JS writes both in place through the module's HEAPF64 / HEAPF32
//      (no wasm call between). The buffer is kept for the next call up to kKeepBytes
//      (a larger one is freed when its call returns), so a call of the same size allocates
//      nothing.
//   2. forward*(metaLen[, lengths]): the description is the call's flags (their number
//      first, then each: 0/1, or -1/0/1 for batchFirst, or a number for scale; JS checked
//      their types and the order is each entry point's, below), then records
//        [slot, kind (0 tensor, 1 bool mask, 2 additive mask), offset, count, rank, dims...]
//      checked here against the buffer (offset + count inside the float part, count =
//      product of dims). The layers read the inputs in place.
//   3. It returns the byte address of the result's description, in doubles: [its length
//      in doubles, then per output: rank, dims..., the byte address of its floats] (rank 0
//      = absent). The floats are the layer's own result arrays (no copy), or, for
//      attention.scaledDot, an output buffer the kernels wrote into. JS copies them out,
//      then calls layerRelease(), which frees them (the output buffer is kept up to
//      kKeepBytes), so the heap in use is the same after every call of the same shapes,
//      rejected ones included.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <xsimd/memory/xsimd_aligned_allocator.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
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
// "<slot name>.shape", for the messages about a slot's dimensions (built once)
const char* slot_shape_name(int s) {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (int i = 0; i < kSlots; ++i) n.push_back(std::string(slot_name(i)) + ".shape");
    return n;
  }();
  return names[static_cast<size_t>(s)].c_str();
}

// A buffer of doubles seen by JS as floats: the staging buffer of the current call's
// inputs, and the output buffer attention.scaledDot writes into (plain storage: no
// per-element work on allocation or release). `used` doubles of `capacity` belong to the
// current call; the storage is kept across calls up to kKeepBytes (trim()).
// Its start is 64-byte aligned, and so is the data after the description (data_start) and
// every tensor in it (float offsets multiples of kFloatAlign): the kernels then read and
// write the caller's tensors in place as aligned as the library's own arrays (unaligned,
// the same scaled-dot call took up to 1.9x as long, depending on where malloc put it).
constexpr size_t kKeepBytes = size_t{1} << 20;
struct Buffer {
  struct Free {
    void operator()(double* q) const { xsimd::aligned_free(q); }
  };
  std::unique_ptr<double, Free> p;
  size_t capacity = 0, used = 0;
  void reset(size_t n) {
    if (!p || n > capacity) {
      release();
      const size_t bytes = attnlab::checked_product("layer call buffer bytes", {n ? n : 1, sizeof(double)});
      p.reset(static_cast<double*>(xsimd::aligned_malloc(bytes, 64)));
      if (!p) throw std::bad_alloc();
      capacity = n;
    }
    used = n;
  }
  void release() {
    p.reset();
    capacity = used = 0;
  }
  void trim() {
    if (capacity > kKeepBytes / sizeof(double)) release();
    used = 0;
  }
  float* floats() const { return reinterpret_cast<float*>(p.get()); }
};
constexpr size_t kFloatAlign = 16;  // floats: 64 bytes
// the first double after a description of `meta` doubles at which the data may start
size_t data_start(size_t meta) { return (meta + 7) / 8 * 8; }
size_t align_floats(size_t off) { return (off + kFloatAlign - 1) / kFloatAlign * kFloatAlign; }
double address(const void* p) { return static_cast<double>(reinterpret_cast<uintptr_t>(p)); }
Buffer& staging() {
  static Buffer buf;
  return buf;
}
// The last call's result: the output buffer, the layers' own result arrays, and the
// description JS reads (see THE TRANSFER).
struct Results {
  Buffer buffer;
  std::vector<m::LayerArray> held;
  std::vector<double> meta;
  void clear() {
    held.clear();
    buffer.trim();
    meta.clear();
  }
};
Results& results() {
  static Results r;
  return r;
}
// Ends every layer call: the staging buffer trimmed to what is kept, and the results
// released too when the call throws (JS releases them once copied out otherwise).
struct EndCall {
  int unwinding = std::uncaught_exceptions();
  EndCall() { results().clear(); }
  ~EndCall() {
    staging().trim();
    if (std::uncaught_exceptions() > unwinding) results().clear();
  }
};

double input_buffer(double meta_len, double floats) {
  return guard([&] {
    results().clear();
    const uint64_t m = attnlab::checked_whole("layer call: internal: description size", meta_len, 1, 4096);
    const uint64_t k = attnlab::checked_whole("input size", floats, 0, attnlab::kMaxElements);
    staging().reset(data_start(static_cast<size_t>(m)) + static_cast<size_t>((k + 1) / 2));
    return address(staging().p.get());
  });
}

void release_output() { results().clear(); }

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

// The call's arguments: a record per tensor or mask present (a call carries a few of the
// kSlots), its data seen in place in the staging buffer (checked finite for tensors). Each
// slot is read once per call: the readers below move the record's shape out (no copy).
struct Record {
  int slot = 0, kind = 0;
  std::vector<size_t> shape;
  const float* p = nullptr;
  size_t count = 0;
};
struct Args {
  std::vector<Record> recs;
  double flags[8] = {};
  bool flag(size_t i) const { return flags[i] != 0; }
  int batch_first(size_t i) const { return static_cast<int>(flags[i]); }
  const Record* find(int slot, bool is_mask) const {
    for (const Record& r : recs)
      if (r.slot == slot && (r.kind != 0) == is_mask) return &r;
    return nullptr;
  }
  Record* find(int slot, bool is_mask) {
    return const_cast<Record*>(static_cast<const Args*>(this)->find(slot, is_mask));
  }
  // the tensor in `slot`, copied (empty when the call has none)
  m::LayerArray tensor(int slot) {
    Record* r = find(slot, false);
    if (!r) return {};
    return m::LayerArray{std::move(r->shape), std::vector<float>(r->p, r->p + r->count)};
  }
  // the tensor in `slot` read in place (valid until the call returns)
  m::LayerArray in_place(int slot) {
    Record* r = find(slot, false);
    m::LayerArray a;
    if (!r) return a;
    a.shape = std::move(r->shape);
    a.view = r->p;
    a.view_size = r->count;
    return a;
  }
  m::ArrayView view(int slot) {
    Record* r = find(slot, false);
    if (!r) return {};
    return m::ArrayView{std::move(r->shape), r->p, r->count};
  }
  m::LayerMask mask(int slot) {
    Record* r = find(slot, true);
    m::LayerMask mk;
    if (!r) return mk;
    mk.shape = std::move(r->shape);
    mk.data.assign(r->p, r->p + r->count);
    mk.boolean = r->kind == 1;
    return mk;
  }
};

Args read_meta(double meta_len, size_t nflags) {
  const Buffer& buf = staging();
  const size_t n = static_cast<size_t>(attnlab::checked_whole("layer call: internal: description size", meta_len, 1, 4096));
  ATTNLAB_CHECK(buf.p && data_start(n) <= buf.used, "layer call: internal: no input buffer of ", n,
                " doubles (call layerInputBuffer first)");
  const double* md = buf.p.get();
  const float* data = buf.floats() + 2 * data_start(n);
  const size_t nfloats = 2 * (buf.used - data_start(n));
  Args a;
  a.recs.reserve(4);
  size_t i = 0;
  auto next = [&](const char* what) {
    ATTNLAB_CHECK(i < n, "layer call: internal: meta ends inside a record (", what, ")");
    return md[i++];
  };
  ATTNLAB_CHECK(nflags <= 8 && n > nflags && md[0] == static_cast<double>(nflags),
                "layer call: internal: expected ", nflags, " flags");
  ++i;
  for (size_t f = 0; f < nflags; ++f) {
    const double x = next("flags");
    ATTNLAB_CHECK(std::isfinite(x) && x >= -1, "layer call: internal: flag ", f, " is ", x);
    a.flags[f] = x;
  }
  while (i < n) {
    Record r;
    r.slot = static_cast<int>(attnlab::checked_whole("slot", next("slot"), 0, kSlots - 1));
    r.kind = static_cast<int>(attnlab::checked_whole("kind", next("kind"), 0, 2));
    const uint64_t off = attnlab::checked_whole("offset", next("offset"), 0, attnlab::kMaxElements);
    r.count = static_cast<size_t>(attnlab::checked_whole("count", next("count"), 0, attnlab::kMaxElements));
    const size_t rank = static_cast<size_t>(attnlab::checked_whole("rank", next("rank"), 0, 64));
    const char* name = slot_name(r.slot);
    ATTNLAB_CHECK(rank >= 1 && rank <= kMaxRank, name, ".shape: expected 1 to ", kMaxRank,
                  " dimensions, got ", rank);
    ATTNLAB_CHECK(!a.find(r.slot, r.kind != 0), "layer call: internal: ", name, " given twice");
    const char* sw = slot_shape_name(r.slot);
    r.shape.resize(rank);
    for (size_t d = 0; d < rank; ++d)
      r.shape[d] = static_cast<size_t>(attnlab::checked_whole(sw, next("dims"), 0, attnlab::kMaxElements));
    const size_t want = attnlab::checked_product(sw, r.shape);
    ATTNLAB_CHECK(want == r.count, name, ": shape ", [&] {
      std::string t = "(";
      for (size_t d = 0; d < rank; ++d) t += (d ? "," : "") + std::to_string(r.shape[d]);
      return t + ")";
    }(), " needs ", want, " values, got ", r.count);
    ATTNLAB_CHECK(attnlab::checked_sum("offset + count", off, r.count) <= nfloats,
                  "layer call: internal: ", name, " lies outside the input buffer");
    r.p = data + off;
    // checked once per array (JS stages an array given for several arguments once)
    bool seen = false;
    for (const Record& q : a.recs) seen = seen || (q.kind == 0 && q.p == r.p && q.count == r.count);
    if (r.kind == 0 && !seen) check_finite(r.p, r.count, name);
    a.recs.push_back(std::move(r));
  }
  return a;
}

// The result's description (see THE TRANSFER) for outputs of these shapes at these
// addresses (shape empty = absent) -> its byte address, JS's to read.
double describe(std::initializer_list<std::pair<const std::vector<size_t>*, const float*>> outs) {
  std::vector<double>& md = results().meta;
  md.clear();
  md.push_back(0);
  for (const auto& o : outs) {
    md.push_back(static_cast<double>(o.first->size()));
    if (o.first->empty()) continue;
    for (size_t d : *o.first) md.push_back(static_cast<double>(d));
    md.push_back(address(o.second));
  }
  md[0] = static_cast<double>(md.size());
  return address(md.data());
}

// The output buffer for attention.scaledDot's outputs (shape empty = absent): a float
// pointer per output, each on a 64-byte boundary (nullptr where absent).
std::pair<float*, float*> output_for(const std::vector<size_t>& out, const std::vector<size_t>& weights) {
  const size_t n_out = attnlab::checked_product("output", out);
  const size_t at_w = align_floats(n_out);
  const size_t total = weights.empty() ? n_out
                                       : attnlab::checked_sum("output size", at_w, attnlab::checked_product("output", weights));
  Buffer& b = results().buffer;
  b.reset((total + 1) / 2);
  return {b.floats(), weights.empty() ? nullptr : b.floats() + at_w};
}

// the layer's result arrays (empty = absent), held without a copy -> their description
double result(std::initializer_list<m::LayerArray*> outs) {
  std::vector<m::LayerArray>& held = results().held;
  held.reserve(outs.size());
  for (m::LayerArray* o : outs) held.push_back(std::move(*o));
  // one record per output; held does not reallocate after reserve, so addresses are stable
  switch (held.size()) {
    case 1: return describe({{&held[0].shape, held[0].values()}});
    case 2: return describe({{&held[0].shape, held[0].values()}, {&held[1].shape, held[1].values()}});
    default:
      return describe({{&held[0].shape, held[0].values()},
                       {&held[1].shape, held[1].values()},
                       {&held[2].shape, held[2].values()}});
  }
}

// One call on the staging buffer: its description and tensors read (`nflags` flags), then
// body(args) under guard, ended by EndCall (see there).
template <class Body>
double staged_call(double meta, size_t nflags, Body body) {
  return guard([&] {
    EndCall end;
    Args a = read_meta(meta, nflags);
    return body(a);
  });
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
  double forward_mha(double meta) {
    return staged_call(meta, 4, [&](Args& a) {
      const m::MhaCall c{a.in_place(kQuery),        a.in_place(kKey),  a.in_place(kValue),
                         a.mask(kKeyPaddingMask),   a.mask(kAttnMask), a.flag(0) /* is_causal */,
                         a.flag(1) /* need_weights */, a.flag(2) /* average_attn_weights */,
                         a.batch_first(3)};
      ATTNLAB_CHECK(!c.query.empty(), "MultiheadAttention.forward: query is required");
      m::MhaReturn r = layer_->forward_mha(c);
      return result({&r.out, &r.weights});
    });
  }
  // flags: batchFirst; lengths: undefined or an array of whole numbers
  double forward_rnn(double meta, val lengths) {
    return staged_call(meta, 1, [&](Args& a) {
      m::RnnCall c;
      c.x = a.in_place(kInput);
      c.h0 = a.in_place(kH0);
      c.c0 = a.in_place(kC0);
      if (!lengths.isUndefined() && !lengths.isNull()) {
        const size_t n = js_length(lengths, "lengths", "an array of whole numbers");
        for (size_t i = 0; i < n; ++i)
          c.lengths.push_back(static_cast<size_t>(arg_whole(lengths[i], "lengths", 0, attnlab::kMaxElements, 0)));
      }
      c.batch_first = a.batch_first(0);
      ATTNLAB_CHECK(!c.x.empty(), "forward: input is required");
      m::RnnReturn r = layer_->forward_rnn(c);
      return result({&r.out, &r.h_n, &r.c_n});
    });
  }
  // flags: selfCausal, batchFirst
  double forward_transformer(double meta) {
    return staged_call(meta, 2, [&](Args& a) {
      const m::TransformerCall c{a.in_place(kX),      a.in_place(kMemory),
                                 a.mask(kSelfMask),   a.mask(kSelfKeyPadding),
                                 a.flag(0) /* self_causal */, a.mask(kMemoryMask),
                                 a.mask(kMemoryKeyPadding), a.batch_first(1)};
      ATTNLAB_CHECK(!c.x.empty(), "forward: the input sequence is required");
      m::LayerArray y = layer_->forward_transformer(c);
      return result({&y});
    });
  }

 private:
  std::unique_ptr<m::LayerModule> layer_;
};

// flags: causal, needWeights, scale (0 = 1/sqrt(D))
double attention_call(double meta, bool additive) {
  return staged_call(meta, 3, [&](Args& a) {
    const bool causal = a.flag(0);
    const char* who = additive ? "attention.additive: " : "attention.scaledDot: ";
    const int required[] = {kQ, kK, kV, kWq, kWk, kVa};  // the last three: additive only
    for (size_t i = 0; i < (additive ? 6 : 3); ++i)
      ATTNLAB_CHECK(a.find(required[i], false), who, slot_name(required[i]),
                    " is required ({ data: Float32Array, shape: number[] })");
    if (!additive) {  // in place: the inputs from the staging buffer, the outputs into the result
      double at = 0;
      m::scaled_dot_attention(
          m::ScaledDotCall{a.view(kQ), a.view(kK), a.view(kV), a.mask(kMask), causal, a.flags[2], a.flag(1)},
          [&at](const m::FunctionalShapes& sh) {
            const std::pair<float*, float*> p = output_for(sh.out, sh.weights);
            at = describe({{&sh.out, p.first}, {&sh.weights, p.second}});
            return p;
          });
      return at;
    }
    m::FunctionalReturn r = m::additive_attention(a.tensor(kQ), a.tensor(kK), a.tensor(kV), a.tensor(kWq),
                                                  a.tensor(kWk), a.tensor(kVa), a.mask(kMask), causal);
    return result({&r.out, &r.weights});
  });
}
double scaled_dot(double meta) { return attention_call(meta, false); }
double additive(double meta) { return attention_call(meta, true); }

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
  function("layerRelease", &release_output);
  function("attentionScaledDot", &scaled_dot);
  function("attentionAdditive", &additive);
}
