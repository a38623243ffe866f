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

namespace detail {
template <class... Args>
std::string concat(Args&&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

}  // namespace attnlab

// ATTNLAB_CHECK(cond, "expected ", a, " got ", b): throws attnlab::Error.
#define ATTNLAB_CHECK(cond, ...)                                          \
  do {                                                                    \
    if (!(cond)) throw ::attnlab::Error(::attnlab::detail::concat(__VA_ARGS__)); \
  } while (0)
