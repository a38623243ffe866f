// The one list of model kinds. A model file (safetensors with kind, config and
// vocab in __metadata__) is read and its header parsed once (ModelFile); its
// kind picks a row of model_kinds(), whose `load` gives a Model: the interface
// every kind shares (parameters, config as JSON, save with io::SaveOptions,
// predict on one JSON input). The CLI's eval / predict / describe dispatch,
// its help, and (later) the JS package and the page's model index read this list.
//
// Adding a kind: write its model (with save(io::SaveOptions) and
// load(const io::SafeTensors&)), a Model adapter and its load function
// (see model_handles.cpp), and one row in model_kinds() (registry.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/param.hpp"
#include "attnlab/io/safetensors.hpp"

namespace attnlab::models {

// A loaded model of any kind.
class Model {
 public:
  virtual ~Model() = default;
  virtual const ParamList& params() const = 0;
  virtual nlohmann::json config() const = 0;
  virtual std::vector<uint8_t> save(const io::SaveOptions& o) const = 0;
  // One input in the form its kind's `predict_input` describes -> the output as JSON.
  // Throws attnlab::Error for input of the wrong form, saying what was expected.
  virtual nlohmann::json predict(const nlohmann::json& input) const = 0;
};

struct ModelFile;

struct ModelKind {
  std::string name;           // the "kind" in __metadata__
  std::string title;          // a few words
  std::string description;    // one or two sentences
  std::string train;          // the CLI command that trains it ("" if none)
  std::string predict_input;  // the JSON input Model::predict takes, e.g. {"text": "..."}
  std::function<std::unique_ptr<Model>(const ModelFile&)> load;
};

// Every kind, in a fixed order.
const std::vector<ModelKind>& model_kinds();
const ModelKind* find_model_kind(const std::string& name);  // nullptr if unknown
std::string model_kind_names();                             // "toy-reverse, seq2seq, ..."
// name, title, description, train, predict_input of every kind.
nlohmann::json model_kinds_json();

// A model file read once: bytes decoded and validated, metadata parsed, kind looked up.
struct ModelFile {
  std::string source;       // the path (or a caller's label) used in error messages
  io::SafeTensors tensors;
  io::ModelInfo info;
  const ModelKind* kind = nullptr;  // never null after open_model_file / read_model_file
};
// Throws attnlab::Error (prefixed with source) for a damaged file, a file without
// kind/config (e.g. a checkpoint), or an unknown kind (naming the known ones).
ModelFile open_model_file(const uint8_t* bytes, size_t size, const std::string& source = "model");
ModelFile read_model_file(const std::string& path);
std::unique_ptr<Model> load_model(const ModelFile& f);  // errors prefixed with f.source
// Without loading: kind, title, config, vocabulary size, parameter count, tensor
// count, storage dtype and the remaining metadata.
nlohmann::json describe_model(const ModelFile& f);

}  // namespace attnlab::models
