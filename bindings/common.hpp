// Marshalling helpers shared by the Embind files.
//
// THE ERROR PATH. Nothing is ever thrown across the wasm/JS boundary: a JS
// exception thrown from inside wasm unwinds wasm frames without restoring the
// stack pointer, without running C++ destructors (heap) and without releasing
// the val handles of those frames. Instead every entry point runs in guard():
// a C++ exception is caught inside wasm, the frames unwind normally (every
// destructor runs), the message goes to one error slot and the entry point
// returns an empty value (undefined, null, 0, ""). The JS package wraps every
// Embind function and method (bindings/js/core.js) to check the slot after
// each call and throw a JS Error carrying the message. So a rejected call
// leaves the stack pointer, the heap and the handle count as they were.
//
// ARGUMENTS. Entry points take `emscripten::val` (never std::string or
// numbers): converting a val never throws in JS, so no argument conversion
// can fail halfway after an earlier argument was copied into the heap. The
// readers below check type, finiteness, integrality and range and name the
// option in their errors.
#pragma once
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "attnlab/core/checked.hpp"
#include "attnlab/core/error.hpp"

namespace attnlab::bindings {

// The one error slot (wasm runs one thread per module instance).
inline std::string& error_slot() {
  static std::string msg;
  return msg;
}
inline bool& error_flag() {
  static bool pending = false;
  return pending;
}
inline void set_error(std::string msg) {
  error_slot() = std::move(msg);
  error_flag() = true;
}

template <class R>
R failed_value() {
  if constexpr (std::is_void_v<R>) return;
  else if constexpr (std::is_same_v<R, emscripten::val>) return emscripten::val::undefined();
  else if constexpr (std::is_floating_point_v<R>) return std::nan("");
  else return R{};
}

// Runs f; a C++ exception becomes the pending error and an empty result.
template <class F>
auto guard(F&& f) noexcept -> decltype(f()) {
  using R = decltype(f());
  try {
    return f();
  } catch (const attnlab::Error& e) {
    set_error(std::string("attnlab: ") + e.what());
  } catch (const std::bad_alloc&) {
    set_error("attnlab: out of memory (the input is too large for the wasm heap)");
  } catch (const std::exception& e) {
    set_error(std::string("attnlab: internal error: ") + e.what());
  } catch (...) {
    set_error("attnlab: internal error (unknown exception)");
  }
  return failed_value<R>();
}

inline const char* js_type(const emscripten::val& v) {
  if (v.isNull()) return "null";
  if (v.isUndefined()) return "undefined";
  if (v.isArray()) return "an array";
  static std::string t;  // the wasm module is single-threaded
  t = v.typeOf().as<std::string>();
  return t.c_str();
}

// A JS string (UTF-8 in C++); anything else is an Error naming `what`. Its length in
// UTF-16 code units is checked against `max_units` before it is copied into the heap,
// so an oversized string costs one property read, not a conversion.
inline std::string to_string(const emscripten::val& v, const char* what,
                             uint64_t max_units = kMaxElements) {
  ATTNLAB_CHECK(v.isString(), what, " expects a string, got ", js_type(v));
  const double units = v["length"].as<double>();
  ATTNLAB_CHECK(units <= double(max_units), what, ": too long: ", uint64_t(units),
                " characters, at most ", max_units, " accepted");
  return v.as<std::string>();
}

// The length of a typed array or array-like, checked against the element cap.
inline size_t js_length(const emscripten::val& v, const char* what, const char* expected) {
  ATTNLAB_CHECK(!v.isUndefined() && !v.isNull() && (v.typeOf().as<std::string>() == "object"),
                what, ": expected ", expected, ", got ", js_type(v));
  const emscripten::val len = v["length"];
  ATTNLAB_CHECK(len.isNumber(), what, ": expected ", expected, ", got an object without a length");
  return static_cast<size_t>(checked_whole(what, len.as<double>(), 0, kMaxElements));
}

// Float32Array / Array / ArrayLike -> std::vector<float>, one bulk copy.
// With finite = true, NaN and infinities are rejected (with their index).
inline std::vector<float> to_floats(const emscripten::val& v, const char* what, bool finite = false) {
  using emscripten::val;
  const size_t n = js_length(v, what, "a Float32Array or an array of numbers");
  std::vector<float> out(n);
  if (n == 0) return out;
  val view(emscripten::typed_memory_view(n, out.data()));
  if (v.instanceof(val::global("Float32Array"))) {
    view.call<void>("set", v);
  } else {
    view.call<void>("set", val::global("Float32Array").call<val>("from", v));
  }
  if (finite)
    for (size_t i = 0; i < n; ++i)
      ATTNLAB_CHECK(std::isfinite(out[i]), what, ": value ", out[i], " at index ", i,
                    " is not finite (expected finite numbers)");
  return out;
}

// Uint8Array / ArrayBuffer -> bytes, one bulk copy.
inline std::vector<uint8_t> to_bytes(const emscripten::val& v, const char* what) {
  using emscripten::val;
  val u8 = v;
  if (!v.isUndefined() && !v.isNull() && v.instanceof(val::global("ArrayBuffer")))
    u8 = val::global("Uint8Array").new_(v);
  ATTNLAB_CHECK(!u8.isUndefined() && !u8.isNull() && u8.instanceof(val::global("Uint8Array")),
                what, ": expected a Uint8Array or ArrayBuffer, got ", js_type(v));
  const size_t n = static_cast<size_t>(
      checked_whole(what, u8["length"].as<double>(), 0, uint64_t{1} << 31));
  std::vector<uint8_t> out(n);
  if (n) val(emscripten::typed_memory_view(n, out.data())).call<void>("set", u8);
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
inline emscripten::val to_uint8array(const std::vector<uint8_t>& b) {
  return emscripten::val::global("Uint8Array").new_(emscripten::typed_memory_view(b.size(), b.data()));
}
template <class T>
emscripten::val int32s(const std::vector<T>& v) {
  std::vector<int32_t> t(v.begin(), v.end());
  return emscripten::val::global("Int32Array").new_(emscripten::typed_memory_view(t.size(), t.data()));
}

// Options objects: o[key] checked and converted; `def` when o or o[key] is
// undefined. Errors name the key and say what was expected.
inline void check_options(const emscripten::val& o, const char* what) {
  ATTNLAB_CHECK(o.isUndefined() || o.isNull() || o.typeOf().as<std::string>() == "object", what,
                ": expected an options object, got ", js_type(o));
}
inline bool has_opt(const emscripten::val& o, const char* key) {
  return !(o.isUndefined() || o.isNull() || o[key].isUndefined());
}
// Positional arguments: type, finiteness, whole numbers and range checked; `def`
// when undefined. The option readers below use the same two.
inline double arg_number(const emscripten::val& v, const char* what, double lo, double hi, double def) {
  if (v.isUndefined()) return def;
  ATTNLAB_CHECK(v.isNumber(), what, ": expected a number in [", lo, ", ", hi, "], got ", js_type(v));
  const double x = v.as<double>();
  ATTNLAB_CHECK(std::isfinite(x) && x >= lo && x <= hi, what, ": expected a number in [", lo, ", ",
                hi, "], got ", x);
  return x;
}
inline uint64_t arg_whole(const emscripten::val& v, const char* what, uint64_t lo, uint64_t hi,
                          uint64_t def) {
  if (v.isUndefined()) return def;
  ATTNLAB_CHECK(v.isNumber(), what, ": expected a whole number in [", lo, ", ", hi, "], got ",
                js_type(v));
  return checked_whole(what, v.as<double>(), lo, hi);
}
inline double opt_number(const emscripten::val& o, const char* key, double lo, double hi, double def) {
  return has_opt(o, key) ? arg_number(o[key], key, lo, hi, def) : def;
}
inline uint64_t opt_whole(const emscripten::val& o, const char* key, uint64_t lo, uint64_t hi,
                          uint64_t def) {
  return has_opt(o, key) ? arg_whole(o[key], key, lo, hi, def) : def;
}
inline size_t opt_size(const emscripten::val& o, const char* key, size_t lo, size_t hi, size_t def) {
  return static_cast<size_t>(opt_whole(o, key, lo, hi, def));
}
// Seeds: whole numbers in [0, 2^53) (exactly representable in JS).
inline uint64_t opt_seed(const emscripten::val& o, const char* key, uint64_t def) {
  return opt_whole(o, key, 0, (uint64_t{1} << 53) - 1, def);
}
inline std::string opt_string(const emscripten::val& o, const char* key, const std::string& def) {
  if (!has_opt(o, key)) return def;
  ATTNLAB_CHECK(o[key].isString(), key, ": expected a string, got ", js_type(o[key]));
  return o[key].as<std::string>();
}
// A string that must be one of `allowed`.
inline std::string opt_enum(const emscripten::val& o, const char* key,
                            std::initializer_list<const char*> allowed, const std::string& def) {
  const std::string s = opt_string(o, key, def);
  std::string list;
  size_t i = 0;
  for (const char* a : allowed) {
    if (s == a) return s;
    list += (i == 0 ? "'" : i + 1 == allowed.size() ? " or '" : ", '") + std::string(a) + "'";
    ++i;
  }
  throw attnlab::Error(std::string(key) + ": expected " + list + ", got '" + s + "'");
}
inline bool opt_bool(const emscripten::val& o, const char* key, bool def) {
  if (!has_opt(o, key)) return def;
  ATTNLAB_CHECK(o[key].isTrue() || o[key].isFalse(), key, ": expected true or false, got ",
                js_type(o[key]));
  return o[key].isTrue();
}

}  // namespace attnlab::bindings
