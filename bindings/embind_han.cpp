// Embind glue for the Hierarchical Attention Network: marshalling only. The
// classification crosses as one JSON string (one copy instead of an Embind
// call per word); bindings/js/han.js parses it.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "attnlab/models/han.hpp"
#include "common.hpp"
#include "model_class.hpp"
#include "explain_options.hpp"

using namespace emscripten;
using namespace attnlab::bindings;
namespace m = attnlab::models;

namespace {

class JsHAN {
 public:
  explicit JsHAN(std::unique_ptr<m::HAN> model) : model_(std::move(model)) {}
  static JsHAN* from_bytes(val bytes) {
    return guard([&] { return new JsHAN(m::HAN::load(to_bytes(bytes, "HAN model bytes"))); });
  }
  val config() const {
    return guard([&] { return val(model_->config().to_json().dump()); });
  }
  val param_count() const {
    return guard([&] { return val(static_cast<double>(model_->params().count())); });
  }
  // text (UTF-8) -> JSON {label, label_id, probs, truncated, empty, sentences: [{text, weight, words}]}
  val classify(val text) const {
    return guard([&] {
      return val(model_->classify(to_string(text, "HAN.classify: text")).to_json_string());
    });
  }
  // text, {attribution: 'grad' | 'ig', steps, topk} -> the classification's JSON with per word
  // attribution and attention, and "explain" (tau, removal, ...): explain::HANExplained
  val classify_explained(val text, val opts) {
    return guard([&] {
      const attnlab::explain::Options o = explain_options(opts, "HAN.classify options");
      const std::string t = to_string(text, "HAN.classify: text");
      return val(attnlab::explain::classify_explained(*model_, t, o).to_json_string());
    });
  }

 private:
  std::unique_ptr<m::HAN> model_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_han) {
  model_class<JsHAN>("HANModel")
      .function("classify", &JsHAN::classify)
      .function("classifyExplained", &JsHAN::classify_explained);
}
