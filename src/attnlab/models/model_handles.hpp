// Model adapters: each kind's load function for its row in model_kinds().
#pragma once
#include <memory>

#include "attnlab/models/registry.hpp"

namespace attnlab::models {

std::unique_ptr<Model> load_toy_reverse_model(const ModelFile& f);
std::unique_ptr<Model> load_seq2seq_model(const ModelFile& f);
std::unique_ptr<Model> load_transformer_seq2seq_model(const ModelFile& f);
std::unique_ptr<Model> load_han_model(const ModelFile& f);
std::unique_ptr<Model> load_mmoe_model(const ModelFile& f);
std::unique_ptr<Model> load_din_model(const ModelFile& f);
std::unique_ptr<Model> load_autoint_model(const ModelFile& f);
std::unique_ptr<Model> load_char_lm_model(const ModelFile& f);

}  // namespace attnlab::models
