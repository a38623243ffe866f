// Embind glue for the seq2seq attention models (G2P, dates): marshalling only.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <chrono>
#include <memory>

#include <nlohmann/json.hpp>

#include "attnlab/data/number_words.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/models/seq2seq_fit.hpp"
#include "common.hpp"
#include "explain_options.hpp"

using namespace emscripten;
using namespace attnlab::bindings;
namespace m = attnlab::models;

namespace {

// one decoded output: {tokens, text, probs, attention (rows*cols), rows, cols, logprob, score, eosProb}
val hypothesis(const m::Translation& h) {
  val e = val::object(), toks = val::array();
  for (size_t i = 0; i < h.tokens.size(); ++i) toks.set(i, h.tokens[i]);
  e.set("tokens", toks);
  e.set("text", h.text);
  e.set("probs", from_floats(h.probs));
  e.set("attention", from_floats(h.attention));
  e.set("rows", h.rows);
  e.set("cols", h.cols);
  e.set("logprob", h.logprob);
  e.set("score", h.score);
  e.set("eosProb", h.eos_prob);
  return e;
}

// the options translate and explain read alike: {beam, maxLen, alpha, precision}
m::DecodeOptions decode_options(const val& opts) {
  m::DecodeOptions o;
  o.beam = opt_size(opts, "beam", 1, 64, 1);
  o.max_len = opt_size(opts, "maxLen", 0, 100000, 0);
  o.length_alpha = static_cast<float>(opt_number(opts, "alpha", 0, 10, 0.6));
  o.precision = m::parse_decode_precision(opt_string(opts, "precision", "int8"));
  return o;
}

class JsSeq2Seq {
 public:
  explicit JsSeq2Seq(std::shared_ptr<m::Translator> model) : model_(std::move(model)) {}
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

  // text, {beam, maxLen, alpha, precision: "int8" | "int16" | "f32", heads, nBest} -> {tokens, text,
  // probs, attention (rows*cols), rows, cols, inputTokens, logprob, score, eosProb, ms, nBest?,
  // heads?, headsMs?}
  val translate(val text_, val opts) const {
    return guard([&] {
      // a word-token model's words can be long: 64 code units a token before the copy;
      // the model's own check then counts its tokens exactly
      const std::string text = to_string(text_, "translate: text", 64 * uint64_t(model_->max_src_len()));
      check_options(opts, "translate options");
      m::DecodeOptions o = decode_options(opts);
      o.head_maps = opt_bool(opts, "heads", true);
      o.n_best = opt_bool(opts, "nBest", false);
      const auto t0 = std::chrono::steady_clock::now();
      const m::Translation t = model_->translate(text, o);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      val out = hypothesis(t);
      val ins = val::array();
      for (size_t i = 0; i < t.input_tokens.size(); ++i) ins.set(i, t.input_tokens[i]);
      out.set("inputTokens", ins);
      // the decode's own time; the head maps' pass (Transformer, heads: true) apart
      out.set("ms", ms - t.head_maps_ms);
      // nBest: every finished hypothesis of the beam, best first
      if (o.n_best) {
        val list = val::array();
        for (size_t k = 0; k < t.n_best.size(); ++k) list.set(k, hypothesis(t.n_best[k]));
        out.set("nBest", list);
      }
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
        out.set("headsMs", t.head_maps_ms);
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
      m::DecodeOptions o = decode_options(opts);
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
  std::shared_ptr<m::Translator> model_;
};

// The pairs of Seq2Seq.fit: an array of [source, target] string pairs, or TSV text.
std::vector<attnlab::data::TextPair> to_pairs(const val& v) {
  if (v.isString()) return attnlab::data::parse_tsv_pairs(to_string(v, "fit: pairs"), "the TSV text").pairs;
  const size_t n = js_length(v, "fit: pairs", "an array of [source, target] pairs or TSV text");
  std::vector<attnlab::data::TextPair> out(n);
  for (size_t i = 0; i < n; ++i) {
    const val p = v[i];
    ATTNLAB_CHECK(p.isArray() && p["length"].as<double>() == 2, "fit: pair ", i,
                  ": expected [source, target], got ", js_type(p));
    out[i].src = to_string(p[0], "fit: a pair's source");
    out[i].tgt = to_string(p[1], "fit: a pair's target");
    ATTNLAB_CHECK(!out[i].src.empty() && !out[i].tgt.empty(), "fit: pair ", i, " has an empty side");
    out[i].line = i + 1;
  }
  return out;
}

// Seq2Seq.create(config) + fit(pairs, options): an RNN seq2seq trained on pairs in memory.
class JsSeq2SeqTrainer {
 public:
  // config {rnn, bidirectional, inputFeed, score, emb, hidden, attnDim, combine, window,
  // srcTokens, tgtTokens, minCount, maxSrcLen, maxTgtLen}, pairs, options {validationSplit,
  // batchSize, lr, warmup, clip, labelSmoothing, seed}
  static JsSeq2SeqTrainer* create(val c, val pairs, val o) {
    return guard([&] {
      check_options(c, "Seq2Seq.create config");
      check_options(o, "fit options");
      constexpr size_t kAny = size_t{1} << 16;
      m::Seq2SeqConfig cfg;
      cfg.rnn = opt_enum(c, "rnn", {"gru", "lstm"}, cfg.rnn);
      cfg.bidirectional = opt_bool(c, "bidirectional", cfg.bidirectional);
      cfg.input_feed = opt_bool(c, "inputFeed", cfg.input_feed);
      cfg.score = opt_string(c, "score", cfg.score);
      cfg.emb = opt_size(c, "emb", 1, kAny, cfg.emb);
      cfg.enc_hidden = opt_size(c, "hidden", 1, kAny, cfg.enc_hidden);
      cfg.attn_dim = opt_size(c, "attnDim", 1, kAny, std::max<size_t>(1, cfg.dec_hidden() / 2));
      cfg.combine = opt_size(c, "combine", 1, kAny, cfg.combine);
      cfg.local_window = opt_size(c, "window", 1, 1000, cfg.local_window);
      m::PairsTrainOptions t;
      t.tokens.src = attnlab::data::parse_token_unit(opt_enum(c, "srcTokens", {"char", "word", "wordpunct"}, "char"));
      t.tokens.tgt = attnlab::data::parse_token_unit(opt_enum(c, "tgtTokens", {"char", "word", "wordpunct"}, "char"));
      t.tokens.min_count = opt_size(c, "minCount", 1, size_t{1} << 30, 1);
      t.tokens.max_src_len = opt_size(c, "maxSrcLen", 0, 100000, 0);
      t.tokens.max_tgt_len = opt_size(c, "maxTgtLen", 0, 100000, 0);
      t.valid_fraction = opt_number(o, "validationSplit", 0, 0.5, t.valid_fraction);
      t.batch = opt_size(o, "batchSize", 1, 4096, t.batch);
      t.lr = static_cast<float>(opt_number(o, "lr", 1e-6, 1, t.lr));
      t.warmup = opt_size(o, "warmup", 0, size_t{1} << 30, t.warmup);
      t.clip = static_cast<float>(opt_number(o, "clip", 0, 1e6, t.clip));
      t.label_smoothing = static_cast<float>(opt_number(o, "labelSmoothing", 0, 0.99, 0));
      t.seed = opt_seed(o, "seed", t.seed);
      return new JsSeq2SeqTrainer(std::make_shared<m::PairsTrainer>(cfg, to_pairs(pairs), t));
    });
  }
  // steps -> {steps, step, epoch, stepsPerEpoch, epochEnd, loss}
  val run(val steps) {
    return guard([&] {
      const m::PairsStep r = t_->run(arg_whole(steps, "steps", 1, 1 << 20, 1));
      val o = val::object();
      o.set("steps", r.steps);
      o.set("step", r.step);
      o.set("epoch", r.epoch);
      o.set("stepsPerEpoch", r.steps_per_epoch);
      o.set("epochEnd", r.epoch_end);
      o.set("loss", r.loss);
      return o;
    });
  }
  // limit (0 = all) -> {pairs, exactMatch, tokenErrorRate} on the held-out pairs
  val evaluate(val limit) const {
    return guard([&] {
      const m::PairsEval e = t_->evaluate(arg_whole(limit, "limit", 0, 1 << 30, 0));
      val o = val::object();
      o.set("pairs", e.pairs);
      o.set("exactMatch", e.exact_match());
      o.set("tokenErrorRate", e.token_error_rate());
      return o;
    });
  }
  // {trainPairs, validPairs, tooLong, params, step}
  val stats() const {
    return guard([&] {
      val o = val::object();
      o.set("trainPairs", t_->train_pairs());
      o.set("validPairs", t_->valid_pairs());
      o.set("tooLong", t_->too_long());
      o.set("params", t_->params());
      o.set("step", t_->step());
      return o;
    });
  }
  // a Seq2Seq handle on the model being trained (it sees every later step)
  JsSeq2Seq* model() {
    return guard([&] {
      return new JsSeq2Seq(std::shared_ptr<m::Translator>(t_, &t_->model()));
    });
  }
  // dtype 'f32' (default) or 'f16' -> the model file's bytes
  val save(val dtype) const {
    return guard([&] {
      const std::string d = dtype.isUndefined() ? "f32" : to_string(dtype, "save: dtype", 8);
      ATTNLAB_CHECK(d == "f32" || d == "f16", "save: dtype: expected 'f32' or 'f16', got '", d, "'");
      return to_uint8array(t_->save(d == "f16" ? attnlab::io::DType::F16 : attnlab::io::DType::F32));
    });
  }

 private:
  explicit JsSeq2SeqTrainer(std::shared_ptr<m::PairsTrainer> t) : t_(std::move(t)) {}
  std::shared_ptr<m::PairsTrainer> t_;
};

// {count, max, seed, language: 'en' | 'zh', direction: 'words-digits' | 'digits-words'} ->
// [[source, target], ...]: numbers written out in words and as digits (the example data of
// Seq2Seq.fit and of `attnlab example-pairs`)
val number_pairs(val o) {
  return guard([&] {
    check_options(o, "numberPairs options");
    const size_t count = opt_size(o, "count", 1, 1000000, 5000);
    const uint64_t max = opt_whole(o, "max", 0, 99999999, 999999);
    const uint64_t seed = opt_seed(o, "seed", 1);
    const std::string lang = opt_enum(o, "language", {"en", "zh"}, "en");
    const std::string dir = opt_enum(o, "direction", {"words-digits", "digits-words"}, "words-digits");
    ATTNLAB_CHECK(lang == "zh" || max <= 999999, "max: English numbers go up to 999999, got ", max);
    const auto pairs = attnlab::data::number_pairs(count, max, seed, lang, dir);
    val out = val::array();
    for (size_t i = 0; i < pairs.size(); ++i) {
      val p = val::array();
      p.set(0, pairs[i].src);
      p.set(1, pairs[i].tgt);
      out.set(i, p);
    }
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_seq2seq) {
  function("numberPairs", &number_pairs);
  class_<JsSeq2Seq>("Seq2SeqModel")
      .class_function("fromBytes", &JsSeq2Seq::from_bytes, allow_raw_pointers())
      .function("info", &JsSeq2Seq::info)
      .function("translate", &JsSeq2Seq::translate)
      .function("explain", &JsSeq2Seq::explain)
      .function("rollout", &JsSeq2Seq::rollout);
  class_<JsSeq2SeqTrainer>("Seq2SeqTrainer")
      .class_function("create", &JsSeq2SeqTrainer::create, allow_raw_pointers())
      .function("run", &JsSeq2SeqTrainer::run)
      .function("evaluate", &JsSeq2SeqTrainer::evaluate)
      .function("stats", &JsSeq2SeqTrainer::stats)
      .function("model", &JsSeq2SeqTrainer::model, allow_raw_pointers())
      .function("save", &JsSeq2SeqTrainer::save);
}
