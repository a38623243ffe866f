// The seq2seq model kinds behind one Translator API, chosen by the model file's kind.
#include <optional>

#include <nlohmann/json.hpp>

#include "attnlab/models/seq2seq.hpp"
#include "attnlab/models/transformer.hpp"

namespace attnlab::models {

template <class Config>
template <class Model>
std::vector<uint8_t> TranslatorOf<Config>::save_as(const io::SaveOptions& o) const {
  ParamList ps;
  const_cast<Model*>(static_cast<const Model*>(this))->collect(ps);
  io::ModelInfo info;
  info.kind = kind();
  info.config = cfg_.to_json();
  info.vocab = src_.tokens();
  info.extra = o.meta;
  info.extra["tgt_vocab"] = tgt_.to_json();
  return io::save_model(info, ps, o.dtype);
}

template <class Config>
template <class Model>
std::unique_ptr<Model> TranslatorOf<Config>::load_as(const io::SafeTensors& st, const char* kind,
                                                     bool budget) {
  const io::ModelInfo info = io::model_info(st);
  ATTNLAB_CHECK(info.kind == kind, "model file: expected kind '", kind, "', got '", info.kind, "'");
  const Config cfg = Config::from_json(info.config);
  const data::Vocab src = data::Vocab::from_json(nlohmann::json(info.vocab).dump());
  auto it = info.extra.find("tgt_vocab");
  ATTNLAB_CHECK(it != info.extra.end(), "model file: ", kind, " needs 'tgt_vocab' in __metadata__");
  const data::Vocab tgt = data::Vocab::from_json(it->second);
  ATTNLAB_CHECK(cfg.src_vocab == 0 || cfg.src_vocab == src.size(),
                "model file: config says ", cfg.src_vocab, " source tokens, vocab has ", src.size());
  ATTNLAB_CHECK(cfg.tgt_vocab == 0 || cfg.tgt_vocab == tgt.size(),
                "model file: config says ", cfg.tgt_vocab, " target tokens, vocab has ", tgt.size());
  std::optional<ParamBudget> held;  // config checked against the file first
  if (budget) held.emplace(st.total_elements());
  auto m = std::make_unique<Model>(cfg, src, tgt, 0);
  ParamList ps;
  m->collect(ps);
  io::load_params(st, ps);
  return m;
}

template std::vector<uint8_t> TranslatorOf<Seq2SeqConfig>::save_as<Seq2Seq>(const io::SaveOptions&) const;
template std::vector<uint8_t> TranslatorOf<TransformerConfig>::save_as<TransformerSeq2Seq>(
    const io::SaveOptions&) const;
template std::unique_ptr<Seq2Seq> TranslatorOf<Seq2SeqConfig>::load_as<Seq2Seq>(const io::SafeTensors&,
                                                                                const char*, bool);
template std::unique_ptr<TransformerSeq2Seq> TranslatorOf<TransformerConfig>::load_as<TransformerSeq2Seq>(
    const io::SafeTensors&, const char*, bool);

namespace {
struct Kind {
  const char* name;
  std::unique_ptr<Translator> (*load)(const io::SafeTensors&);
};
const Kind kKinds[] = {
    {"seq2seq", [](const io::SafeTensors& st) -> std::unique_ptr<Translator> { return Seq2Seq::load(st); }},
    {"transformer-seq2seq",
     [](const io::SafeTensors& st) -> std::unique_ptr<Translator> { return TransformerSeq2Seq::load(st); }},
};
}  // namespace

std::vector<int> Translator::encode_input(const std::string& text) const {
  const TextSides& s = sides();
  return encode_text(text, src_vocab(), s.src_tokens, s.uppercase, s.max_src_len);
}

void Translator::collect(ParamList& ps) {
  reset_decode_plan();
  add_params(ps);
}

Translation Translator::translate(const std::string& text, const DecodeOptions& o) const {
  return decode(encode_input(text), o);
}

void Translator::source_logp_grad(const Seq2SeqBatch& b, const std::vector<float>& es,
                                  std::vector<float>& logp, std::vector<float>& attn,
                                  std::vector<float>& des) {
  // b: (B,S) sources, (B,T) targets, es: (B,S,E) -> logp (B,T), attn (B,T,S), des (B,S,E)
  size_t count = 0;
  for (int y : b.tgt_out) count += y != data::Vocab::kPad;
  ATTNLAB_CHECK(count > 0, kind(), " attribution: expected at least one target token");
  struct Hooks {  // reset on every exit
    Translator& m;
    ~Hooks() { m.emb_in_ = nullptr; m.demb_out_ = nullptr; }
  } hooks{*this};
  emb_in_ = &es;
  demb_out_ = &des;
  attribution_pass(b, logp, attn);  // mean cross-entropy = -sum(logp) / count
  for (float& g : des) g *= -static_cast<float>(count);
  ParamList ps;
  add_params(ps);  // not collect(): the decode plans stay valid, the parameters did not change
  ps.zero_grad();
}

bool is_translator_kind(const std::string& kind) {
  for (const Kind& k : kKinds)
    if (kind == k.name) return true;
  return false;
}

std::unique_ptr<Translator> load_translator(const io::SafeTensors& st) {
  const std::string kind = st.meta("kind");
  std::string known;
  for (const Kind& k : kKinds) {
    if (kind == k.name) return k.load(st);
    known += std::string(known.empty() ? "" : ", ") + k.name;
  }
  throw Error("model file: kind '" + kind + "' is not a seq2seq model (expected one of: " + known + ")");
}

}  // namespace attnlab::models
