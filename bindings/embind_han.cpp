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

using namespace emscripten;
using attnlab::bindings::guard;
namespace m = attnlab::models;

namespace {

std::vector<uint8_t> han_bytes(const val& v) {
  if (!v.instanceof(val::global("Uint8Array")))
    throw attnlab::Error("HAN model bytes: expected a Uint8Array");
  const size_t n = v["length"].as<size_t>();
  std::vector<uint8_t> out(n);
  if (n) val(typed_memory_view(n, out.data())).call<void>("set", v);
  return out;
}

class JsHAN {
 public:
  explicit JsHAN(std::unique_ptr<m::HAN> model) : model_(std::move(model)) {}
  static JsHAN* from_bytes(val bytes) {
    return guard([&] { return new JsHAN(m::HAN::load(han_bytes(bytes))); });
  }
  std::string config() const {
    return guard([&] { return model_->config().to_json().dump(); });
  }
  double param_count() const { return static_cast<double>(model_->params().count()); }
  // text (UTF-8) -> JSON {label, label_id, probs, truncated, sentences: [{text, weight, words}]}
  std::string classify(std::string text) const {
    return guard([&] { return model_->classify(text).to_json_string(); });
  }

 private:
  std::unique_ptr<m::HAN> model_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_han) {
  class_<JsHAN>("HANModel")
      .class_function("fromBytes", &JsHAN::from_bytes, allow_raw_pointers())
      .function("config", &JsHAN::config)
      .function("paramCount", &JsHAN::param_count)
      .function("classify", &JsHAN::classify);
}
