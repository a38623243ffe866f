// The seq2seq model kinds behind one Translator API, chosen by the model file's kind.
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/models/transformer.hpp"

namespace attnlab::models {

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
