// safetensors read/write: 8-byte little-endian header length N, N bytes of
// JSON {"name": {"dtype", "shape", "data_offsets": [begin, end]}, ...,
// "__metadata__": {string: string}}, then the data region (offsets are
// relative to its start). Storage F32 or F16 (converted to F32 on load;
// compute is always F32). Loading validates everything and throws
// attnlab::Error naming the tensor, what was expected and what came.
// Model files carry kind, config (JSON string) and vocab (JSON array string)
// in __metadata__, so one file is one model.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attnlab/core/param.hpp"

namespace attnlab::io {

enum class DType { F32, F16 };
const char* dtype_name(DType d);
DType dtype_from_string(const std::string& s);  // "f32"/"F32", "f16"/"F16"

// IEEE binary16 <-> binary32, round-to-nearest-even, with subnormals, inf, NaN.
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);

constexpr size_t kMaxHeaderBytes = 100u << 20;  // 100 MB

struct TensorView {  // for writing: borrowed data
  std::string name;
  std::vector<size_t> shape;
  const float* data;
};

struct TensorData {  // after reading: owned F32 data
  std::string name;
  std::vector<size_t> shape;
  std::vector<float> data;
  DType stored = DType::F32;
};

struct SafeTensors {
  std::map<std::string, std::string> metadata;
  std::vector<TensorData> tensors;  // in data-offset order
  const TensorData* find(const std::string& name) const;
  const TensorData& get(const std::string& name) const;  // throws if absent
  std::string meta(const std::string& key, const std::string& fallback = "") const;
  // Values stored in all tensors: the most a model loaded from this file may
  // allocate for its parameters (model loaders open a ParamBudget with it).
  uint64_t total_elements() const;
};

// Encode tensors (in the given order) with the given storage dtype.
std::vector<uint8_t> encode(const std::vector<TensorView>& tensors,
                            const std::map<std::string, std::string>& metadata,
                            DType dtype = DType::F32);
// Decode and validate (header bound, JSON, dtypes, shapes vs bytes, offsets
// inside the data, in order, non-overlapping and covering it, finite values).
SafeTensors decode(const uint8_t* bytes, size_t size);
inline SafeTensors decode(const std::vector<uint8_t>& b) { return decode(b.data(), b.size()); }

// Plain file helpers (the only file I/O of the library). read_bytes accepts
// regular files of at most kMaxFileBytes; directories, devices, FIFOs and
// sockets are an Error (checked before opening, so nothing blocks).
constexpr uint64_t kMaxFileBytes = uint64_t{1} << 31;
std::vector<uint8_t> read_bytes(const std::string& path);
// write_bytes / write_text are atomic: the bytes go to a temporary file in the same directory
// that is then renamed over `path`, so `path` holds either its old or its new content, never a
// part; on failure the temporary file is removed and attnlab::Error names `path`.
void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);
void write_text(const std::string& path, const std::string& text);
SafeTensors read_file(const std::string& path);

// ParamList glue: views of every parameter value (names are the keys).
std::vector<TensorView> param_views(const ParamList& params, const std::string& prefix = "");
// Copies tensors into the parameters: every parameter must be present as
// prefix+name with exactly its shape. strict: tensors under the prefix that
// are not parameters are an error too.
void load_params(const SafeTensors& st, const ParamList& params, const std::string& prefix = "",
                 bool strict = true);

// ---------------------------------------------------------------- model files
struct ModelInfo {
  std::string kind;                 // e.g. "toy-reverse", "seq2seq"
  std::string config;               // JSON object as a string
  std::vector<std::string> vocab;   // token strings (may be empty)
  std::map<std::string, std::string> extra;  // any other metadata
};
std::vector<uint8_t> save_model(const ModelInfo& info, const ParamList& params,
                                DType dtype = DType::F32);

// The options every model's save() takes: the storage type and extra __metadata__ entries
// (provenance such as "run", "trained_steps"; the model writes kind, config and vocab itself).
struct SaveOptions {
  DType dtype = DType::F32;
  std::map<std::string, std::string> meta;
};
// Reads kind/config/vocab from __metadata__ (kind and config are required).
ModelInfo model_info(const SafeTensors& st);

}  // namespace attnlab::io
