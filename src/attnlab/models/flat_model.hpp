// The files of the models whose whole state is a flat config and their parameters
// (MMoE, DIN, AutoInt): one way to save them and one to load them.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/core/error.hpp"
#include "attnlab/core/param.hpp"
#include "attnlab/io/safetensors.hpp"

namespace attnlab::models {

// kind and config in the file's metadata (with o.meta), the parameters as o.dtype
inline std::vector<uint8_t> save_flat_model(const char* kind, const std::string& config_json,
                                            const ParamList& params, const io::SaveOptions& o) {
  io::ModelInfo info;
  info.kind = kind;
  info.config = config_json;
  info.extra = o.meta;
  return io::save_model(info, params, o.dtype);
}

// Expects a file of `kind` (a_title names it in the error: "an MMoE"), checks the config
// against the values the file stores before building Model(Config, seed 0), then loads
// the parameters.
template <class Model, class Config>
std::unique_ptr<Model> load_flat_model(const io::SafeTensors& st, const char* kind,
                                       const char* a_title) {
  const io::ModelInfo info = io::model_info(st);
  ATTNLAB_CHECK(info.kind == kind, "expected ", a_title, " model file (kind '", kind,
                "'), got kind '", info.kind, "'");
  const ParamBudget budget(st.total_elements());  // config checked against the file first
  auto m = std::make_unique<Model>(Config::from_json(info.config), 0);
  io::load_params(st, m->params());
  return m;
}

}  // namespace attnlab::models
