// The registration every model handle shares: a class with fromBytes (a static
// factory on a Uint8Array), config and paramCount. The files add their own
// members to the class_ this returns.
#pragma once
#include <emscripten/bind.h>

namespace attnlab::bindings {

template <class Handle>
emscripten::class_<Handle> model_class(const char* js_name) {
  emscripten::class_<Handle> c(js_name);
  c.class_function("fromBytes", &Handle::from_bytes, emscripten::allow_raw_pointers())
      .function("config", &Handle::config)
      .function("paramCount", &Handle::param_count);
  return c;
}

}  // namespace attnlab::bindings
