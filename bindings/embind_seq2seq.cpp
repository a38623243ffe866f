// Embind glue for the seq2seq attention models (G2P, dates): marshalling only.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <chrono>
#include <memory>

#include <nlohmann/json.hpp>

#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "common.hpp"
#include "explain_options.hpp"

using namespace emscripten;
using namespace attnlab::bindings;
namespace m = attnlab::models;

namespace {

class JsSeq2Seq {
 public:
  explicit JsSeq2Seq(std::unique_ptr<m::Translator> model) : model_(std::move(model)) {}
  // any seq2seq kind of the model list (RNN "seq2seq", "transformer-seq2seq")
  static JsSeq2Seq* from_bytes(val bytes) {
    return guard([&] {
      const std::vector<uint8_t> b = to_bytes(bytes, "Seq2Seq model bytes");
      return new JsSeq2Seq(m::load_translator(attnlab::io::decode(b)));
    });
  }

  // {kind, config, srcVocab, tgtVocab} as JSON text
  val info() const {
    return guard([&] {
      const nlohmann::json cfg = nlohmann::json::parse(model_->config_json());
      nlohmann::json j = {{"kind", model_->kind()},
                          {"config", cfg},
                          {"score", cfg.value("score", std::string("multihead"))},
                          {"srcVocab", model_->src_vocab().tokens()},
                          {"tgtVocab", model_->tgt_vocab().tokens()}};
      return val(j.dump());
    });
  }

  // text, {beam, maxLen, alpha, precision: "int8" | "int16" | "f32"} -> {tokens, text, probs,
  // attention (rows*cols), rows, cols, inputTokens, logprob, eosProb, ms}
  val translate(val text_, val opts) const {
    return guard([&] {
      const std::string text = to_string(text_, "translate: text");
      check_options(opts, "translate options");
      m::DecodeOptions o;
      o.beam = opt_size(opts, "beam", 1, 64, 1);
      o.max_len = opt_size(opts, "maxLen", 0, 100000, 0);
      o.length_alpha = static_cast<float>(opt_number(opts, "alpha", 0, 10, 0.6));
      o.precision = m::parse_decode_precision(opt_string(opts, "precision", "int8"));
      o.head_maps = opt_bool(opts, "heads", true);
      const auto t0 = std::chrono::steady_clock::now();
      const m::Translation t = model_->translate(text, o);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      val out = val::object();
      val toks = val::array(), ins = val::array();
      for (size_t i = 0; i < t.tokens.size(); ++i) toks.set(i, t.tokens[i]);
      for (size_t i = 0; i < t.input_tokens.size(); ++i) ins.set(i, t.input_tokens[i]);
      out.set("tokens", toks);
      out.set("text", t.text);
      out.set("probs", from_floats(t.probs));
      out.set("attention", from_floats(t.attention));
      out.set("rows", t.rows);
      out.set("cols", t.cols);
      out.set("inputTokens", ins);
      out.set("logprob", t.logprob);
      out.set("eosProb", t.eos_prob);
      out.set("ms", ms);
      // Transformer models: every layer's and head's attention, (layers, heads, rows, cols)
      if (!t.cross.empty()) {
        val heads = val::object();
        auto maps = [](const m::HeadMaps& h) {
          val o = val::object();
          o.set("layers", h.layers);
          o.set("heads", h.heads);
          o.set("rows", h.rows);
          o.set("cols", h.cols);
          o.set("data", from_floats(h.data));
          return o;
        };
        heads.set("cross", maps(t.cross));
        heads.set("encSelf", maps(t.enc_self));
        heads.set("decSelf", maps(t.dec_self));
        out.set("heads", heads);
      }
      return out;
    });
  }
  // text, {attribution: 'grad' | 'ig', steps, topk, and the decode options of translate} ->
  // JSON of explain::Seq2SeqAttribution for the output translate gives with those options
  val explain(val text_, val opts) {
    return guard([&] {
      const attnlab::explain::Options eo = explain_options(opts, "translate options");
      const std::string text = to_string(text_, "translate: text");
      m::DecodeOptions o;
      o.beam = opt_size(opts, "beam", 1, 64, 1);
      o.max_len = opt_size(opts, "maxLen", 0, 100000, 0);
      o.length_alpha = static_cast<float>(opt_number(opts, "alpha", 0, 10, 0.6));
      o.precision = m::parse_decode_precision(opt_string(opts, "precision", "int8"));
      o.head_maps = false;
      const attnlab::explain::TranslationExplained r =
          attnlab::explain::translate_explained(*model_, text, o, eo);
      nlohmann::json j = r.attribution.to_json();
      j["ids"] = r.translation.ids;
      return val(j.dump());
    });
  }
  // encoder self-attention maps (layers, heads, n, n) -> rollout (n, n) (Abnar & Zuidema 2020)
  val rollout(val maps, val layers, val heads, val n) const {
    return guard([&] {
      const size_t L = static_cast<size_t>(arg_whole(layers, "rollout: layers", 1, 64, 1));
      const size_t H = static_cast<size_t>(arg_whole(heads, "rollout: heads", 1, 64, 1));
      const size_t N = static_cast<size_t>(arg_whole(n, "rollout: n", 1, 4096, 1));
      const std::vector<float> x = emscripten::convertJSArrayToNumberVector<float>(maps);
      return from_floats(attnlab::explain::attention_rollout(x, L, H, N));
    });
  }

 private:
  std::unique_ptr<m::Translator> model_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_seq2seq) {
  class_<JsSeq2Seq>("Seq2SeqModel")
      .class_function("fromBytes", &JsSeq2Seq::from_bytes, allow_raw_pointers())
      .function("info", &JsSeq2Seq::info)
      .function("translate", &JsSeq2Seq::translate)
      .function("explain", &JsSeq2Seq::explain)
      .function("rollout", &JsSeq2Seq::rollout);
}
