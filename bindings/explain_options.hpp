// The attribution options of HAN.classify and Seq2Seq.translate ({ attribution, steps, baseline,
// topk }), read and range-checked before any work: marshalling only (explain/attribution.hpp
// computes; the baseline's size against the input is checked there).
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
  if (has_opt(opts, "baseline")) {
    // 'zero' | 'unk' | 'pad', or the values: E (one embedding for every token) or tokens x E
    const emscripten::val b = opts["baseline"];
    ATTNLAB_CHECK(o.method == explain::Method::IG, "baseline: only with attribution 'ig' (gradient x "
                  "input has no baseline), got attribution '", explain::method_name(o.method), "'");
    if (b.isString()) {
      o.baseline_kind = explain::parse_baseline(opt_enum(opts, "baseline", {"zero", "unk", "pad"}, ""));
    } else {
      ATTNLAB_CHECK(b.instanceof(emscripten::val::global("Float32Array")) || b.isArray(),
                    "baseline: expected 'zero', 'unk', 'pad' or a Float32Array, got ", js_type(b));
      o.baseline = to_floats(b, "baseline", true);
      ATTNLAB_CHECK(!o.baseline.empty(), "baseline: expected 'zero', 'unk', 'pad' or a Float32Array of "
                    "embedding values, got an empty array");
    }
  }
  return o;
}

}  // namespace attnlab::bindings
