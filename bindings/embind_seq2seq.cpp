// Embind glue for the seq2seq attention models (G2P, dates): marshalling only.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <chrono>
#include <memory>

#include <nlohmann/json.hpp>

#include "attnlab/models/seq2seq.hpp"
#include "common.hpp"

using namespace emscripten;
using attnlab::bindings::from_floats;
using attnlab::bindings::guard;
namespace m = attnlab::models;

namespace {

class JsSeq2Seq {
 public:
  explicit JsSeq2Seq(std::unique_ptr<m::Seq2Seq> model) : model_(std::move(model)) {}
  static JsSeq2Seq* from_bytes(val bytes) {
    return guard([&] {
      if (!bytes.instanceof(val::global("Uint8Array")))
        throw attnlab::Error("model bytes: expected a Uint8Array");
      const size_t n = bytes["length"].as<size_t>();
      std::vector<uint8_t> b(n);
      if (n) val(typed_memory_view(n, b.data())).call<void>("set", bytes);
      return new JsSeq2Seq(m::Seq2Seq::load(b.data(), b.size()));
    });
  }

  // {kind, config, srcVocab, tgtVocab} as JSON text
  std::string info() const {
    nlohmann::json j = {{"kind", "seq2seq"},
                        {"config", nlohmann::json::parse(model_->config().to_json())},
                        {"score", model_->config().score},
                        {"srcVocab", model_->src_vocab().tokens()},
                        {"tgtVocab", model_->tgt_vocab().tokens()}};
    return j.dump();
  }

  // text, beam, maxLen, alpha, precision ("int8" | "int16" | "f32") -> {tokens, text, probs, attention (rows*cols), rows, cols,
  // inputTokens, logprob, eosProb, ms}
  val translate(std::string text, double beam, double max_len, double alpha,
                std::string precision) const {
    return guard([&] {
      ATTNLAB_CHECK(beam >= 1 && beam <= 64 && beam == double(size_t(beam)),
                    "beam must be a whole number in [1, 64], got ", beam);
      ATTNLAB_CHECK(max_len >= 0 && max_len <= 100000 && max_len == double(size_t(max_len)),
                    "maxLen must be a whole number in [0, 100000] (0 = the model's limit), got ",
                    max_len);
      m::DecodeOptions o;
      o.beam = size_t(beam);
      o.max_len = size_t(max_len);
      o.length_alpha = float(alpha);
      ATTNLAB_CHECK(precision == "int8" || precision == "int16" || precision == "f32",
                    "precision must be 'int8', 'int16' or 'f32', got '", precision, "'");
      o.precision = precision == "f32"     ? m::DecodePrecision::F32
                    : precision == "int16" ? m::DecodePrecision::Int16
                                           : m::DecodePrecision::Int8;
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
      return out;
    });
  }

 private:
  std::unique_ptr<m::Seq2Seq> model_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_seq2seq) {
  class_<JsSeq2Seq>("Seq2SeqModel")
      .class_function("fromBytes", &JsSeq2Seq::from_bytes, allow_raw_pointers())
      .function("info", &JsSeq2Seq::info)
      .function("translate", &JsSeq2Seq::translate);
}
