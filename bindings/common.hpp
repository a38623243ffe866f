// Marshalling helpers shared by the Embind files: typed arrays in and out with
// one bulk copy (no per-element conversion), and C++ errors turned into JS
// Error objects so the module stays usable after a bad call.
#pragma once
#include <emscripten/val.h>

#include <cmath>
#include <exception>
#include <string>
#include <vector>

#include "attnlab/core/error.hpp"

namespace attnlab::bindings {

[[noreturn]] inline void throw_js(const std::string& msg) {
  emscripten::val::global("Error").new_(emscripten::val(msg)).throw_();
  __builtin_unreachable();
}

// Runs f; any C++ exception becomes a thrown JS Error carrying its message.
// The JS throw skips C++ destructors of the frames it unwinds, so the message
// lives in a static string and the exception object is gone before it.
template <class F>
auto guard(F&& f) -> decltype(f()) {
  static std::string msg;
  try {
    return f();
  } catch (const attnlab::Error& e) {
    msg = std::string("attnlab: ") + e.what();
  } catch (const std::bad_alloc&) {
    msg = "attnlab: out of memory (the input is too large for the wasm heap)";
  } catch (const std::exception& e) {
    msg = std::string("attnlab: internal error: ") + e.what();
  }
  throw_js(msg);
}

// Float32Array / Array / ArrayLike -> std::vector<float>, one bulk copy.
inline std::vector<float> to_floats(const emscripten::val& v, const char* what) {
  using emscripten::val;
  if (v.isUndefined() || v.isNull())
    throw attnlab::Error(std::string(what) + ": expected a Float32Array, got " +
                         (v.isNull() ? "null" : "undefined"));
  const val len = v["length"];
  if (!len.isNumber())
    throw attnlab::Error(std::string(what) + ": expected a Float32Array or array of numbers");
  const size_t n = len.as<size_t>();
  std::vector<float> out(n);
  if (n == 0) return out;
  val view(emscripten::typed_memory_view(n, out.data()));
  if (v.instanceof(val::global("Float32Array"))) {
    view.call<void>("set", v);
  } else {
    view.call<void>("set", val::global("Float32Array").call<val>("from", v));
  }
  return out;
}

// std::vector<float> -> a fresh Float32Array owned by JS (survives memory growth).
inline emscripten::val from_floats(const float* p, size_t n) {
  using emscripten::val;
  return val::global("Float32Array").new_(emscripten::typed_memory_view(n, p));
}
inline emscripten::val from_floats(const std::vector<float>& v) {
  return from_floats(v.data(), v.size());
}

// Options objects: o[key] checked and converted; `def` when o or o[key] is
// undefined. Errors name the key and the accepted range.
inline bool has_opt(const emscripten::val& o, const char* key) {
  return !(o.isUndefined() || o.isNull() || o[key].isUndefined());
}
inline double opt_number(const emscripten::val& o, const char* key, double lo, double hi, double def) {
  if (!has_opt(o, key)) return def;
  const emscripten::val v = o[key];
  ATTNLAB_CHECK(v.isNumber(), key, ": expected a number");
  const double x = v.as<double>();
  ATTNLAB_CHECK(std::isfinite(x) && x >= lo && x <= hi, key, ": expected a number in [", lo, ", ",
                hi, "], got ", x);
  return x;
}
inline size_t opt_size(const emscripten::val& o, const char* key, size_t lo, size_t hi, size_t def) {
  if (!has_opt(o, key)) return def;
  const emscripten::val v = o[key];
  ATTNLAB_CHECK(v.isNumber(), key, ": expected a number");
  const double d = v.as<double>();
  ATTNLAB_CHECK(d >= static_cast<double>(lo) && d <= static_cast<double>(hi) && d == std::floor(d),
                key, ": expected a whole number in [", lo, ", ", hi, "], got ", d);
  return static_cast<size_t>(d);
}
inline std::string opt_string(const emscripten::val& o, const char* key, const std::string& def) {
  if (!has_opt(o, key)) return def;
  ATTNLAB_CHECK(o[key].isString(), key, ": expected a string");
  return o[key].as<std::string>();
}
inline bool opt_bool(const emscripten::val& o, const char* key, bool def) {
  if (!has_opt(o, key)) return def;
  ATTNLAB_CHECK(o[key].isTrue() || o[key].isFalse(), key, ": expected true or false");
  return o[key].isTrue();
}

}  // namespace attnlab::bindings
