// The attribution options of HAN.classify and Seq2Seq.translate ({ attribution, steps, topk }),
// read and range-checked before any work: marshalling only (explain/attribution.hpp computes).
#pragma once
#include <emscripten/val.h>

#include "attnlab/explain/attribution.hpp"
#include "common.hpp"

namespace attnlab::bindings {

inline explain::Options explain_options(const emscripten::val& opts, const char* what) {
  check_options(opts, what);
  explain::Options o;
  o.method = explain::parse_method(opt_enum(opts, "attribution", {"grad", "ig"}, ""));
  o.steps = opt_size(opts, "steps", 1, explain::Options::kMaxSteps, 32);
  o.topk = opt_size(opts, "topk", 0, 100000, 0);
  return o;
}

}  // namespace attnlab::bindings
