// The message of the attnlab::Error a call throws, for tests of error paths.
#pragma once
#include <gtest/gtest.h>

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

// f must throw an attnlab::Error whose message holds `part`
template <class F>
void expect_error_with(F f, const std::string& part) {
  const std::string msg = error_of(f);
  EXPECT_NE(msg.find(part), std::string::npos)
      << (msg.empty() ? std::string("no error") : "message: " + msg) << "; expected one mentioning '" << part << "'";
}

}  // namespace attnlab::testing
