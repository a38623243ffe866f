// One Model adapter per kind: it owns the concrete model and answers the shared
// interface (params, config as JSON, save, predict on JSON input).
#include "attnlab/models/model_handles.hpp"

#include "attnlab/core/error.hpp"
#include "attnlab/models/autoint.hpp"
#include "attnlab/models/din.hpp"
#include "attnlab/models/han.hpp"
#include "attnlab/models/mmoe.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/models/transformer.hpp"
#include "attnlab/models/xl_lm.hpp"
#include "attnlab/models/toy_seq2seq.hpp"

namespace attnlab::models {

namespace {
using json = nlohmann::json;

// The value of `key` in a predict input, checked: what was expected, what came.
const json& field(const json& in, const char* key, const char* kind, const std::string& form) {
  ATTNLAB_CHECK(in.is_object() && in.contains(key), kind, " predict: expected ", form, ", got ",
                in.dump());
  return in[key];
}
size_t opt_size(const json& in, const char* key, size_t def, size_t hi, const char* kind) {
  if (!in.contains(key)) return def;
  const json& v = in[key];
  ATTNLAB_CHECK(v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<uint64_t>() <= hi, kind,
                " predict: '", key, "' must be a whole number in [0, ", hi, "], got ", v.dump());
  return v.get<size_t>();
}
// A list of rows of numbers, or one row; each row must have `width` entries.
template <class T>
std::vector<T> rows_of(const json& v, size_t width, size_t* rows, const char* what) {
  const bool one = v.is_array() && !v.empty() && v[0].is_number();
  const json list = one ? json::array({v}) : v;
  ATTNLAB_CHECK(list.is_array() && !list.empty(), what, ": expected a non-empty list of rows");
  std::vector<T> out;
  for (const auto& r : list) {
    ATTNLAB_CHECK(r.is_array() && r.size() == width, what, ": expected rows of ", width,
                  " numbers, got ", r.dump());
    for (const auto& x : r) {
      ATTNLAB_CHECK(x.is_number(), what, ": expected numbers, got ", x.dump());
      out.push_back(x.get<T>());
    }
  }
  *rows = list.size();
  return out;
}
// The rows under `key` of a predict input (rows_of): the values, row after row, and how many;
// `form` is the input's expected form (default {"key": [[...], ...]}).
template <class T>
struct Rows {
  std::vector<T> values;
  size_t n = 0;
};
template <class T>
Rows<T> input_rows(const json& in, const char* key, const char* kind, size_t width,
                   const std::string& form = "") {
  const std::string what = std::string(kind) + " predict: '" + key + "'";
  const std::string expected = form.empty() ? "{\"" + std::string(key) + "\": [[...], ...]}" : form;
  Rows<T> r;
  r.values = rows_of<T>(field(in, key, kind, expected), width, &r.n, what.c_str());
  return r;
}

// Common part of every adapter: owns the model and its parameter list.
template <class M>
class Handle : public Model {
 public:
  explicit Handle(std::unique_ptr<M> m) : m_(std::move(m)) {}
  std::vector<uint8_t> save(const io::SaveOptions& o) const override { return m_->save(o); }

 protected:
  std::unique_ptr<M> m_;
};

class ToyHandle : public Handle<models::ToySeq2Seq> {
 public:
  ToyHandle(std::unique_ptr<models::ToySeq2Seq> m, std::vector<std::string> vocab)
      : Handle(std::move(m)), vocab_(std::move(vocab)) {
    m_->collect(ps_);
  }
  const ParamList& params() const override { return ps_; }
  json config() const override { return json::parse(m_->cfg.to_json()); }
  json predict(const json& in) const override {
    const json& toks = field(in, "tokens", "toy-reverse", R"({"tokens": ["s1", ...]})");
    ATTNLAB_CHECK(toks.is_array() && !toks.empty(), "toy-reverse predict: 'tokens' must be a non-empty list");
    std::vector<int> ids;
    std::vector<std::string> words;
    for (const auto& t : toks) {
      int id = -1;
      for (size_t i = 3; i < vocab_.size(); ++i)
        if (t.is_string() && vocab_[i] == t.get<std::string>()) id = static_cast<int>(i);
      ATTNLAB_CHECK(id >= 0, "toy-reverse predict: unknown token ", t.dump());
      ids.push_back(id);
      words.push_back(t.get<std::string>());
    }
    std::vector<float> attn;
    const std::vector<int> out = m_->greedy(ids, opt_size(in, "max_len", 64, 100000, "toy-reverse"), &attn);
    std::vector<std::string> outw;
    for (int id : out) outw.push_back(vocab_.at(static_cast<size_t>(id)));
    return {{"input", words}, {"output", outw}, {"attention", attn},
            {"rows", attn.size() / ids.size()}, {"cols", ids.size()}};
  }

 private:
  std::vector<std::string> vocab_;
  ParamList ps_;
};

// Models that own their parameter list and whose config has to_json() (JSON or its text).
inline json as_json(const json& j) { return j; }
inline json as_json(const std::string& s) { return json::parse(s); }
template <class M>
class ParamHandle : public Handle<M> {
 public:
  using Handle<M>::Handle;
  const ParamList& params() const override { return this->m_->params(); }
  json config() const override { return as_json(this->m_->config().to_json()); }
};

// Any seq2seq kind (models::Translator): RNN Seq2Seq, TransformerSeq2Seq.
template <class M>
class Seq2SeqHandle : public Handle<M> {
 public:
  explicit Seq2SeqHandle(std::unique_ptr<M> m) : Handle<M>(std::move(m)) { this->m_->collect(ps_); }
  const ParamList& params() const override { return ps_; }
  json config() const override { return json::parse(this->m_->config_json()); }
  json predict(const json& in) const override {
    const json& text = field(in, "text", "seq2seq", R"({"text": "..."})");
    ATTNLAB_CHECK(text.is_string(), "seq2seq predict: 'text' must be a string, got ", text.dump());
    DecodeOptions o;
    o.beam = opt_size(in, "beam", 1, 64, "seq2seq");
    ATTNLAB_CHECK(o.beam >= 1, "seq2seq predict: 'beam' must be at least 1");
    o.max_len = opt_size(in, "max_len", 0, 100000, "seq2seq");
    if (in.contains("alpha")) {
      ATTNLAB_CHECK(in["alpha"].is_number(), "seq2seq predict: 'alpha' must be a number");
      o.length_alpha = in["alpha"].get<float>();
    }
    if (in.contains("precision"))
      o.precision = parse_decode_precision(in["precision"].get<std::string>());
    const Translation t = this->m_->translate(text.get<std::string>(), o);
    return {{"input", t.input_tokens}, {"output", t.tokens}, {"text", t.text},
            {"probs", t.probs},        {"attention", t.attention}, {"rows", t.rows},
            {"cols", t.cols},          {"logprob", t.logprob}};
  }

 private:
  ParamList ps_;
};

class HANHandle : public ParamHandle<HAN> {
 public:
  using ParamHandle::ParamHandle;
  json predict(const json& in) const override {
    const json& text = field(in, "text", "han", R"({"text": "..."})");
    ATTNLAB_CHECK(text.is_string(), "han predict: 'text' must be a string, got ", text.dump());
    return m_->classify(text.get<std::string>()).to_json();
  }
};

class MMoEHandle : public ParamHandle<MMoE> {
 public:
  using ParamHandle::ParamHandle;
  json predict(const json& in) const override {
    const Rows<float> x = input_rows<float>(in, "x", "mmoe", m_->config().input_dim);
    const MMoE::Output o = m_->forward(x.values.data(), x.n);
    const size_t K = m_->config().tasks;
    json pred = json::array();
    for (size_t b = 0; b < x.n; ++b)
      pred.push_back(std::vector<float>(o.pred.begin() + long(b * K), o.pred.begin() + long((b + 1) * K)));
    return {{"pred", pred}, {"tasks", K}, {"gates", o.gates}};
  }
};

class DINHandle : public ParamHandle<DIN> {
 public:
  using ParamHandle::ParamHandle;
  json predict(const json& in) const override {
    const char* form = R"({"history": [[item, category], ...], "candidate": [item, category]})";
    const Rows<int> h = input_rows<int>(in, "history", "din", 2, form);
    const Rows<int> c = input_rows<int>(in, "candidate", "din", 2, form);
    ATTNLAB_CHECK(c.n == 1, "din predict: expected one candidate [item, category]");
    const size_t T = h.n;
    DINBatch b;
    b.B = 1;
    b.T = T;
    for (size_t t = 0; t < T; ++t)
      b.hist_items.push_back(h.values[2 * t]), b.hist_cats.push_back(h.values[2 * t + 1]);
    b.hist_len = {T};
    b.cand_item = {c.values[0]};
    b.cand_cat = {c.values[1]};
    const DINOutput o = m_->forward(b);
    return {{"p_click", o.probs[0]},
            {"logit", o.logits[0]},
            {"weights", std::vector<float>(o.weights.data(), o.weights.data() + T)}};
  }
};

class AutoIntHandle : public ParamHandle<AutoInt> {
 public:
  using ParamHandle::ParamHandle;
  json predict(const json& in) const override {
    const AutoInt::Output o = m_->forward(input_rows<int>(in, "ids", "autoint", m_->fields()).values);
    return {{"p_click", o.prob}, {"logit", o.logit}};
  }
};

class CharLMHandle : public Model {
 public:
  explicit CharLMHandle(std::unique_ptr<CharLM> m) : m_(std::move(m)) {}
  const ParamList& params() const override { return m_->params(); }
  json config() const override { return m_->config().to_json(); }
  std::vector<uint8_t> save(const io::SaveOptions& o) const override { return m_->save(o.dtype, o.meta); }
  json predict(const json& in) const override {
    GenerateOptions g;
    g.n = opt_size(in, "n", 200, 100000, "char-lm");
    g.top_k = opt_size(in, "top_k", 0, 100000, "char-lm");
    g.seed = opt_size(in, "seed", 0, size_t{1} << 30, "char-lm");
    if (in.contains("temperature")) {
      ATTNLAB_CHECK(in["temperature"].is_number() && in["temperature"].get<double>() >= 0 &&
                        in["temperature"].get<double>() <= 100,
                    "char-lm predict: 'temperature' must be a number in [0, 100]");
      g.temperature = in["temperature"].get<float>();
    }
    const json& p = field(in, "prompt", "char-lm", R"({"prompt": "...", "n": 200})");
    ATTNLAB_CHECK(p.is_string(), "char-lm predict: 'prompt' must be a string (\"\" = an address start)");
    const std::string prompt = p.get<std::string>();
    m_->reset_memory();
    const Generation r = generate(*m_, prompt, g);
    return {{"prompt", prompt}, {"text", r.text}, {"n", r.ids.size()}};
  }

 private:
  std::unique_ptr<CharLM> m_;
};

}  // namespace

std::unique_ptr<Model> load_toy_reverse_model(const ModelFile& f) {
  return std::make_unique<ToyHandle>(models::ToySeq2Seq::load(f.tensors), f.info.vocab);
}
std::unique_ptr<Model> load_seq2seq_model(const ModelFile& f) {
  return std::make_unique<Seq2SeqHandle<Seq2Seq>>(Seq2Seq::load(f.tensors));
}
std::unique_ptr<Model> load_transformer_seq2seq_model(const ModelFile& f) {
  return std::make_unique<Seq2SeqHandle<TransformerSeq2Seq>>(TransformerSeq2Seq::load(f.tensors));
}
std::unique_ptr<Model> load_han_model(const ModelFile& f) {
  return std::make_unique<HANHandle>(HAN::load(f.tensors));
}
std::unique_ptr<Model> load_mmoe_model(const ModelFile& f) {
  return std::make_unique<MMoEHandle>(MMoE::load(f.tensors));
}
std::unique_ptr<Model> load_din_model(const ModelFile& f) {
  return std::make_unique<DINHandle>(DIN::load(f.tensors));
}
std::unique_ptr<Model> load_autoint_model(const ModelFile& f) {
  return std::make_unique<AutoIntHandle>(AutoInt::load(f.tensors));
}

std::unique_ptr<Model> load_char_lm_model(const ModelFile& f) {
  return std::make_unique<CharLMHandle>(CharLM::load(f.tensors));
}

}  // namespace attnlab::models
