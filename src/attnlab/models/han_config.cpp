// HAN's configuration (checks, JSON) and the JSON of a classification (han.hpp).
#include <cmath>
#include <cstdio>

#include "attnlab/core/error.hpp"
#include "attnlab/io/config_fields.hpp"
#include "attnlab/models/han.hpp"

namespace attnlab::models {

namespace {
constexpr size_t kMaxDim = 4096;  // the largest width of any HAN layer
}  // namespace

// ---------------------------------------------------------------- config
void HANConfig::check() const {
  auto dim = [](const char* name, size_t v, size_t lo, size_t hi) {
    ATTNLAB_CHECK(v >= lo && v <= hi, "HAN config: expected ", name, " in [", lo, ", ", hi,
                  "], got ", v);
  };
  dim("vocab", vocab, 5, 10000000);
  dim("emb", emb, 1, kMaxDim);
  dim("word_hidden", word_hidden, 1, kMaxDim);
  dim("sent_hidden", sent_hidden, 1, kMaxDim);
  dim("word_ctx", word_ctx, 1, kMaxDim);
  dim("sent_ctx", sent_ctx, 1, kMaxDim);
  dim("classes", classes, 2, 1000);
  dim("max_sentences", max_sentences, 1, 100000);
  dim("max_words", max_words, 1, 100000);
  ATTNLAB_CHECK(dropout >= 0.f && dropout < 1.f, "HAN config: expected dropout in [0, 1), got ",
                dropout);
  ATTNLAB_CHECK(labels.size() == classes, "HAN config: expected ", classes,
                " label names (one per class), got ", labels.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    ATTNLAB_CHECK(!labels[i].empty(), "HAN config: expected non-empty label names, label ", i,
                  " is empty");
    for (size_t k = 0; k < i; ++k)
      ATTNLAB_CHECK(labels[k] != labels[i], "HAN config: expected distinct label names, '",
                    labels[i], "' appears twice");
  }
  ATTNLAB_CHECK(format == "email" || format == "text",
                "HAN config: expected format 'email' or 'text', got '", format, "'");
}

namespace {
// the config's keys, each once (io/config_fields.hpp); check() has the ranges. "format" is
// written only when it is not "email", so files of the email kind keep their config as before.
using Cfg = HANConfig;
constexpr auto kFields = std::make_tuple(
    io::field("vocab", &Cfg::vocab).required(), io::field("emb", &Cfg::emb).required(),
    io::field("word_hidden", &Cfg::word_hidden).required(),
    io::field("sent_hidden", &Cfg::sent_hidden).required(),
    io::field("word_ctx", &Cfg::word_ctx).required(), io::field("sent_ctx", &Cfg::sent_ctx).required(),
    io::field("classes", &Cfg::classes).required(),
    io::field("max_sentences", &Cfg::max_sentences).required(),
    io::field("max_words", &Cfg::max_words).required(), io::field("dropout", &Cfg::dropout).in(0, 1),
    io::field("labels", &Cfg::labels), io::field("format", &Cfg::format).omit_if("email"));
}  // namespace

nlohmann::json HANConfig::to_json() const { return io::fields_json(*this, kFields); }

HANConfig HANConfig::from_json(const std::string& s) {
  return io::read_config(s, "HAN", kFields, &HANConfig::check);
}

data::EmailOptions HANConfig::email_options() const {
  data::EmailOptions o;
  o.max_sentences = max_sentences;
  o.max_words = max_words;
  o.plain_text = format == "text";
  return o;
}

nlohmann::json HANClassification::to_json() const {
  nlohmann::json ss = nlohmann::json::array();
  for (const HANSentence& s : sentences) {
    nlohmann::json ws = nlohmann::json::array();
    for (const HANWord& w : s.words)
      ws.push_back({{"text", w.text}, {"token", w.token}, {"weight", w.weight}, {"score", w.score}});
    ss.push_back({{"text", s.text}, {"weight", s.weight}, {"words", ws}});
  }
  return {{"label", label_name}, {"label_id", label}, {"probs", probs},
          {"truncated", truncated}, {"empty", empty}, {"sentences", ss}};
}

namespace {
void json_escape(std::string& out, const std::string& s) {
  out += '"';
  for (const char ch : s) {
    const unsigned char u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (u < 0x20) {
      static const char* hex = "0123456789abcdef";
      out += "\\u00";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += ch;
    }
  }
  out += '"';
}
void json_float(std::string& out, float v) {
  char buf[32];
  const int n = std::snprintf(buf, sizeof buf, "%.7g", static_cast<double>(std::isfinite(v) ? v : 0.f));
  out.append(buf, static_cast<size_t>(n));
}
}  // namespace

std::string HANClassification::to_json_string(const WordExtra& word_extra, std::string_view tail) const {
  std::string o;
  o.reserve(256 + 96 * sentences.size() * 8);
  o += "{\"label\":";
  json_escape(o, label_name);
  o += ",\"label_id\":" + std::to_string(label) + ",\"probs\":[";
  for (size_t i = 0; i < probs.size(); ++i) {
    if (i) o += ',';
    json_float(o, probs[i]);
  }
  o += "],\"truncated\":";
  o += truncated ? "true" : "false";
  o += ",\"empty\":";
  o += empty ? "true" : "false";
  o += ",\"sentences\":[";
  for (size_t s = 0; s < sentences.size(); ++s) {
    const HANSentence& st = sentences[s];
    o += s ? ",{\"text\":" : "{\"text\":";
    json_escape(o, st.text);
    o += ",\"weight\":";
    json_float(o, st.weight);
    o += ",\"words\":[";
    for (size_t w = 0; w < st.words.size(); ++w) {
      const HANWord& wd = st.words[w];
      o += w ? ",{\"text\":" : "{\"text\":";
      json_escape(o, wd.text);
      o += ",\"token\":";
      json_escape(o, wd.token);
      o += ",\"weight\":";
      json_float(o, wd.weight);
      o += ",\"score\":";
      json_float(o, wd.score);
      if (word_extra) word_extra(o, s, w);
      o += '}';
    }
    o += "]}";
  }
  o += ']';
  o += tail;
  o += '}';
  return o;
}

}  // namespace attnlab::models
