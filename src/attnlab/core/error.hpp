// attnlab::Error: the one exception type the library throws.
// Messages say what was expected and what came, so a caller (or a JS user,
// via the bindings) can fix the call without reading the source.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

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
template <class... Args>
ATTNLAB_COLD_PATH std::string concat(Args&&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
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
