#include "attnlab/models/registry.hpp"

#include "attnlab/core/error.hpp"
#include "attnlab/models/model_handles.hpp"

namespace attnlab::models {

const std::vector<ModelKind>& model_kinds() {
  static const std::vector<ModelKind> kinds = {
      {"toy-reverse", "toy reverse",
       "GRU encoder-decoder with dot attention that learns to reverse random symbol sequences; "
       "a built-in check of the engine.",
       "attnlab train toy-reverse", R"J({"tokens": ["s1", "s2", ...], "max_len": 64})J",
       load_toy_reverse_model},
      {"seq2seq", "RNN seq2seq with attention",
       "Encoder-decoder (GRU or LSTM, uni- or bidirectional) with additive, general, dot, "
       "scaled-dot or local-p attention: grapheme-to-phoneme on CMUdict, date normalization, "
       "or the user's own TSV pairs.",
       "attnlab train g2p | attnlab train dates | attnlab train seq2seq",
       R"J({"text": "...", "beam": 1, "max_len": 0, "alpha": 0.6, "precision": "int8|int16|f32"})J",
       load_seq2seq_model},
      {"transformer-seq2seq", "Transformer seq2seq",
       "Transformer encoder-decoder (Vaswani et al. 2017) with optional disagreement "
       "regularization of its heads (Li et al. 2018): grapheme-to-phoneme on CMUdict, or the "
       "user's own TSV pairs.",
       "attnlab train g2p --arch transformer | attnlab train seq2seq --arch transformer",
       R"J({"text": "...", "beam": 1, "max_len": 0, "alpha": 0.6})J",
       load_transformer_seq2seq_model},
      {"han", "hierarchical attention network",
       "Word and sentence bi-GRUs with context-vector attention over named classes: spam vs ham on "
       "SpamAssassin, or the labels of your documents (attnlab train han --train).",
       "attnlab train han", R"J({"text": "a document: an e-mail message (RFC 822, HTML) or plain text, as the model's format says"})J",
       load_han_model},
      {"mmoe", "multi-gate mixture of experts",
       "Multi-task model (shared-bottom, OMoE, MMoE with softmax or attention gates) on the "
       "MMoE paper's synthetic regression tasks.",
       "attnlab train mmoe", R"J({"x": [[input_dim numbers], ...]})J", load_mmoe_model},
      {"din", "Deep Interest Network",
       "Click-through model: the candidate item attends over the user's behaviour history "
       "(local activation unit) on synthetic behaviour data.",
       "attnlab train din",
       R"J({"history": [[item, category], ...], "candidate": [item, category]})J", load_din_model},
      {"autoint", "AutoInt",
       "Click-through model: multi-head self-attention over field embeddings on synthetic "
       "CTR data.",
       "attnlab train autoint", R"J({"ids": [[one id per field], ...]})J", load_autoint_model},
      {"char-lm", "character language model",
       "Transformer-XL (relative positions, segment memory) or its memory-less baseline, "
       "trained on the State of the Union addresses.",
       "attnlab train lm",
       R"J({"prompt": "...", "n": 200, "temperature": 1, "top_k": 0, "seed": 0})J",
       load_char_lm_model},
  };
  return kinds;
}

const ModelKind* find_model_kind(const std::string& name) {
  for (const auto& k : model_kinds())
    if (k.name == name) return &k;
  return nullptr;
}

std::string model_kind_names() {
  std::string s;
  for (const auto& k : model_kinds()) s += (s.empty() ? "" : ", ") + k.name;
  return s;
}

nlohmann::json model_kinds_json() {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& k : model_kinds())
    a.push_back({{"name", k.name},
                 {"title", k.title},
                 {"description", k.description},
                 {"train", k.train},
                 {"predict_input", k.predict_input}});
  return a;
}

ModelFile open_model_file(const uint8_t* bytes, size_t size, const std::string& source) {
  ModelFile f;
  f.source = source;
  try {
    f.tensors = io::decode(bytes, size);
    f.info = io::model_info(f.tensors);
  } catch (const Error& e) {
    throw Error(source + ": " + e.what());
  }
  f.kind = find_model_kind(f.info.kind);
  if (!f.kind)
    throw Error(source + ": unknown model kind '" + f.info.kind + "' (known: " + model_kind_names() +
                ")");
  return f;
}

ModelFile read_model_file(const std::string& path) {
  const std::vector<uint8_t> bytes = io::read_bytes(path);
  return open_model_file(bytes.data(), bytes.size(), path);
}

std::unique_ptr<Model> load_model(const ModelFile& f) {
  ATTNLAB_CHECK(f.kind != nullptr, f.source, ": not opened with open_model_file");
  try {
    return f.kind->load(f);
  } catch (const Error& e) {
    throw Error(f.source + ": " + e.what());
  }
}

nlohmann::json describe_model(const ModelFile& f) {
  size_t params = 0;
  for (const auto& t : f.tensors.tensors) params += t.data.size();
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(f.info.config);
  } catch (const std::exception&) {
    config = f.info.config;  // kept as text
  }
  const char* dtype = f.tensors.tensors.empty() ? "" : io::dtype_name(f.tensors.tensors[0].stored);
  nlohmann::json meta = nlohmann::json::object();
  for (const auto& [k, v] : f.info.extra) meta[k] = v;
  return {{"source", f.source},
          {"kind", f.info.kind},
          {"title", f.kind ? f.kind->title : ""},
          {"config", config},
          {"vocab_size", f.info.vocab.size()},
          {"parameters", params},
          {"tensors", f.tensors.tensors.size()},
          {"dtype", dtype},
          {"metadata", meta}};
}

}  // namespace attnlab::models
