// attnlab::Error: the one exception type the library throws.
// Messages say what was expected and what came, so a caller (or a JS user,
// via the bindings) can fix the call without reading the source.
#pragma once
#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace attnlab {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

// The failure path of a check is cold: kept out of line and compiled for size (each
// check site is then a compare and a call, which keeps hot code small and fast).
#if defined(__clang__)
#define ATTNLAB_COLD_PATH __attribute__((cold, noinline, minsize))
#elif defined(__GNUC__)
#define ATTNLAB_COLD_PATH __attribute__((cold, noinline))
#else
#define ATTNLAB_COLD_PATH
#endif

namespace detail {
// Appends one message part as `std::ostream <<` would print it (integers in decimal, floating
// point as %g with 6 digits, char types as characters), without <sstream>: a string stream
// brings the iostream and locale machinery, about 95 KB of the .wasm, for error messages only.
inline void append_part(std::string& s, std::string_view v) { s.append(v.data(), v.size()); }
inline void append_part(std::string& s, const char* v) { s.append(v ? v : "(null)"); }
inline void append_part(std::string& s, char v) { s.push_back(v); }
inline void append_part(std::string& s, signed char v) { s.push_back(static_cast<char>(v)); }
inline void append_part(std::string& s, unsigned char v) { s.push_back(static_cast<char>(v)); }
inline void append_part(std::string& s, bool v) { s.push_back(v ? '1' : '0'); }
inline void append_part(std::string& s, double v) {
  char buf[32];
  const int n = std::snprintf(buf, sizeof buf, "%g", v);
  s.append(buf, n > 0 ? static_cast<size_t>(n) : 0);
}
inline void append_part(std::string& s, long double v) { append_part(s, static_cast<double>(v)); }
inline void append_part(std::string& s, float v) { append_part(s, static_cast<double>(v)); }
template <class T, std::enable_if_t<std::is_integral_v<T> || std::is_enum_v<T>, int> = 0>
void append_part(std::string& s, T v) {
  if constexpr (std::is_enum_v<T>) {
    append_part(s, +static_cast<std::underlying_type_t<T>>(v));  // + : a char-sized enum as a number
  } else {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    s.append(buf, static_cast<size_t>(r.ptr - buf));
  }
}

template <class... Args>
ATTNLAB_COLD_PATH std::string concat(Args&&... args) {
  std::string s;
  (append_part(s, args), ...);
  return s;
}
// throws Error(concat(args...))
template <class... Args>
[[noreturn]] ATTNLAB_COLD_PATH void fail(Args&&... args) {
  throw Error(concat(args...));
}
}  // namespace detail

}  // namespace attnlab

// ATTNLAB_CHECK(cond, "expected ", a, " got ", b): throws attnlab::Error.
#define ATTNLAB_CHECK(cond, ...)                                    \
  do {                                                              \
    if (!(cond)) ::attnlab::detail::fail(__VA_ARGS__);              \
  } while (0)
