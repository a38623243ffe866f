// The message of the attnlab::Error a call throws, for tests of error paths.
#pragma once
#include <string>

#include "attnlab/core/error.hpp"

namespace attnlab::testing {

// the message of the Error f throws ("" if it throws none)
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace attnlab::testing
