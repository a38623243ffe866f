// Embind glue for the layer-level API (al.layers, al.attention): layer files exported
// from PyTorch and functional attention on the caller's tensors. Marshalling only: a
// tensor crosses as { data: Float32Array, shape: number[] } (a mask adds bool: true|false,
// set by bindings/js/layers.js); the layouts, checks and math are in
// src/attnlab/models/layer_file.cpp.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "attnlab/models/layer_file.hpp"
#include "common.hpp"

using namespace emscripten;
using namespace attnlab::bindings;
namespace m = attnlab::models;

namespace {

constexpr size_t kMaxRank = 4;

std::vector<size_t> read_shape(const val& s, const std::string& what) {
  const std::string w = what + ".shape";
  ATTNLAB_CHECK(s.isArray(), w, ": expected an array of whole numbers, got ", js_type(s));
  const size_t n = js_length(s, w.c_str(), "an array of whole numbers");
  ATTNLAB_CHECK(n >= 1 && n <= kMaxRank, w, ": expected 1 to ", kMaxRank, " dimensions, got ", n);
  std::vector<size_t> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = static_cast<size_t>(arg_whole(s[i], w.c_str(), 0, attnlab::kMaxElements, 0));
  attnlab::checked_product(w.c_str(), out);
  return out;
}

// { data, shape } -> LayerArray; undefined/null -> empty
m::LayerArray read_tensor(const val& t, const std::string& what, bool required) {
  m::LayerArray a;
  if (t.isUndefined() || t.isNull()) {
    ATTNLAB_CHECK(!required, what, " is required ({ data: Float32Array, shape: number[] })");
    return a;
  }
  ATTNLAB_CHECK(t.typeOf().as<std::string>() == "object", what,
                ": expected { data: Float32Array, shape: number[] }, got ", js_type(t));
  a.shape = read_shape(t["shape"], what);
  a.data = to_floats(t["data"], (what + ".data").c_str(), /*finite=*/true);
  return a;
}

m::LayerMask read_mask(const val& o, const char* key) {
  m::LayerMask mk;
  if (!has_opt(o, key) || o[key].isNull()) return mk;
  const val t = o[key];
  ATTNLAB_CHECK(t.typeOf().as<std::string>() == "object", key,
                ": expected { data, shape } (bool or additive mask), got ", js_type(t));
  mk.shape = read_shape(t["shape"], key);
  mk.data = to_floats(t["data"], key);  // -Infinity allowed; NaN / +Infinity checked by the layer
  mk.boolean = opt_bool(t, "bool", true);
  return mk;
}

val tensor(const m::LayerArray& a) {
  val o = val::object();
  o.set("data", from_floats(a.data));
  val s = val::array();
  for (size_t i = 0; i < a.shape.size(); ++i) s.call<void>("push", static_cast<double>(a.shape[i]));
  o.set("shape", s);
  return o;
}

int batch_first(const val& o) {
  if (!has_opt(o, "batchFirst")) return -1;
  return opt_bool(o, "batchFirst", false) ? 1 : 0;
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
  // { query, key?, value?, keyPaddingMask?, attnMask?, isCausal, needWeights, averageAttnWeights, batchFirst }
  val forward_mha(val o) {
    return guard([&] {
      check_options(o, "MultiheadAttention.forward");
      m::MhaCall c;
      c.query = read_tensor(o["query"], "query", true);
      c.key = read_tensor(o["key"], "key", false);
      c.value = read_tensor(o["value"], "value", false);
      c.key_padding_mask = read_mask(o, "keyPaddingMask");
      c.attn_mask = read_mask(o, "attnMask");
      c.is_causal = opt_bool(o, "isCausal", false);
      c.need_weights = opt_bool(o, "needWeights", true);
      c.average_attn_weights = opt_bool(o, "averageAttnWeights", true);
      c.batch_first = batch_first(o);
      const m::MhaReturn r = layer_->forward_mha(c);
      val out = val::object();
      out.set("out", tensor(r.out));
      out.set("weights", r.weights.empty() ? val::null() : tensor(r.weights));
      return out;
    });
  }
  // { input, h0?, c0?, lengths?, batchFirst }
  val forward_rnn(val o) {
    return guard([&] {
      check_options(o, "forward");
      m::RnnCall c;
      c.x = read_tensor(o["input"], "input", true);
      c.h0 = read_tensor(o["h0"], "h0", false);
      c.c0 = read_tensor(o["c0"], "c0", false);
      if (has_opt(o, "lengths") && !o["lengths"].isNull()) {
        const size_t n = js_length(o["lengths"], "lengths", "an array of whole numbers");
        for (size_t i = 0; i < n; ++i)
          c.lengths.push_back(static_cast<size_t>(arg_whole(o["lengths"][i], "lengths", 0, attnlab::kMaxElements, 0)));
      }
      c.batch_first = batch_first(o);
      const m::RnnReturn r = layer_->forward_rnn(c);
      val out = val::object();
      out.set("out", tensor(r.out));
      out.set("hN", tensor(r.h_n));
      if (!r.c_n.empty()) out.set("cN", tensor(r.c_n));
      return out;
    });
  }
  // { x, memory?, selfMask?, selfKeyPaddingMask?, selfCausal, memoryMask?, memoryKeyPaddingMask?, batchFirst }
  val forward_transformer(val o) {
    return guard([&] {
      check_options(o, "forward");
      m::TransformerCall c;
      c.x = read_tensor(o["x"], o["memory"].isUndefined() ? "src" : "tgt", true);
      c.memory = read_tensor(o["memory"], "memory", false);
      c.self_mask = read_mask(o, "selfMask");
      c.self_key_padding = read_mask(o, "selfKeyPaddingMask");
      c.self_causal = opt_bool(o, "selfCausal", false);
      c.memory_mask = read_mask(o, "memoryMask");
      c.memory_key_padding = read_mask(o, "memoryKeyPaddingMask");
      c.batch_first = batch_first(o);
      return tensor(layer_->forward_transformer(c));
    });
  }

 private:
  std::unique_ptr<m::LayerModule> layer_;
};

m::FunctionalReturn functional(const val& o, bool additive) {
  check_options(o, additive ? "attention.additive" : "attention.scaledDot");
  const m::LayerArray q = read_tensor(o["q"], "q", true), k = read_tensor(o["k"], "k", true),
                      v = read_tensor(o["v"], "v", true);
  const m::LayerMask mk = read_mask(o, "mask");
  const bool causal = opt_bool(o, "causal", false);
  if (!additive)
    return m::scaled_dot_attention(q, k, v, mk, causal, opt_number(o, "scale", 0, 1e30, 0),
                                   opt_bool(o, "needWeights", true));
  return m::additive_attention(q, k, v, read_tensor(o["wq"], "wq", true), read_tensor(o["wk"], "wk", true),
                               read_tensor(o["va"], "va", true), mk, causal);
}

val attention_call(val o, bool additive) {
  return guard([&] {
    const m::FunctionalReturn r = functional(o, additive);
    val out = val::object();
    out.set("out", tensor(r.out));
    out.set("weights", r.weights.empty() ? val::null() : tensor(r.weights));
    return out;
  });
}
val scaled_dot(val o) { return attention_call(o, false); }
val additive(val o) { return attention_call(o, true); }

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_layers) {
  class_<JsLayer>("LayerModule")
      .class_function("fromBytes", &JsLayer::from_bytes, allow_raw_pointers())
      .function("kind", &JsLayer::kind)
      .function("config", &JsLayer::config)
      .function("paramCount", &JsLayer::param_count)
      .function("forwardMha", &JsLayer::forward_mha)
      .function("forwardRnn", &JsLayer::forward_rnn)
      .function("forwardTransformer", &JsLayer::forward_transformer);
  function("attentionScaledDot", &scaled_dot);
  function("attentionAdditive", &additive);
}
