// Embind glue for the character language model (Transformer-XL or its
// baseline): marshalling only. Generation runs models::generate; each new
// character is handed to the JS callback as it comes.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "attnlab/models/xl_lm.hpp"
#include "common.hpp"
#include "model_class.hpp"

using namespace emscripten;
using attnlab::bindings::guard;
using attnlab::bindings::model_class;
using attnlab::bindings::opt_number;
using attnlab::bindings::opt_size;
namespace m = attnlab::models;

namespace {

std::vector<uint8_t> lm_bytes(const val& v) {
  if (!v.instanceof(val::global("Uint8Array")))
    throw attnlab::Error("language model bytes: expected a Uint8Array");
  const size_t n = v["length"].as<size_t>();
  std::vector<uint8_t> out(n);
  if (n) val(typed_memory_view(n, out.data())).call<void>("set", v);
  return out;
}

class JsLM {
 public:
  explicit JsLM(std::unique_ptr<m::CharLM> model) : model_(std::move(model)) {}
  static JsLM* from_bytes(val bytes) {
    return guard([&] { return new JsLM(m::CharLM::load(lm_bytes(bytes))); });
  }
  std::string config() const {
    return guard([&] { return model_->config().to_json().dump(); });
  }
  double param_count() const { return static_cast<double>(model_->params().count()); }
  // options {n, temperature, topK, seed, memLen, attention}; on_token(text, index) -> false
  // stops -> {text, promptChars, attention?: [{query, keys, memory, weights: Float32Array}]}
  val generate(val prompt_, val opts, val on_token) {
    return guard([&] {
      const std::string prompt = attnlab::bindings::to_string(prompt_, "LanguageModel.generate: prompt");
      m::GenerateOptions o;
      o.n = opt_size(opts, "n", 0, 100000, 200);  // 100,000 characters: about 20 s in wasm
      o.temperature = static_cast<float>(opt_number(opts, "temperature", 0, 100, 1));
      o.top_k = opt_size(opts, "topK", 0, 1 << 20, 0);
      o.seed = attnlab::bindings::opt_seed(opts, "seed", 0);
      o.mem_len = opt_size(opts, "memLen", 0, 65536, 0);
      o.attention = attnlab::bindings::opt_bool(opts, "attention", false);
      if (!on_token.isUndefined() && !on_token.isNull()) {
        size_t i = 0;
        o.on_token = [&](int, const std::string& s) {
          const val r = on_token(val(s), val(static_cast<double>(i++)));
          return !r.isFalse();
        };
      }
      const m::Generation g = m::generate(*model_, prompt, o);
      val r = val::object();
      r.set("text", g.text);
      r.set("promptChars", static_cast<double>(g.prompt_ids.size()));
      if (o.attention) {
        val list = val::array();
        for (const m::GenAttention& a : g.attention) {
          val e = val::object();
          e.set("query", static_cast<double>(a.query));
          e.set("keys", static_cast<double>(a.keys));
          e.set("memory", static_cast<double>(a.memory));
          e.set("weights", attnlab::bindings::from_floats(a.weights));
          list.call<void>("push", e);
        }
        r.set("attention", list);
      }
      return r;
    });
  }

 private:
  std::unique_ptr<m::CharLM> model_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_lm) {
  model_class<JsLM>("CharLMModel")
      .function("generate", &JsLM::generate);
}
