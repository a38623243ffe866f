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
