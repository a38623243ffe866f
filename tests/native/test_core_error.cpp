// attnlab::Error's message builder (detail::concat) prints each part as `std::ostream <<`
// does with default formatting, without a string stream: integers of every width and sign,
// floating point as %g with 6 significant digits (inf, nan, negatives, tiny and huge),
// char types as characters, bool as 0/1, strings, views and C strings, enums as their value.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>

#include "attnlab/core/error.hpp"

using attnlab::Error;
using attnlab::detail::concat;

namespace {
template <class... Args>
std::string streamed(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
enum Plain { kZero, kSeven = 7 };
enum class Scoped : int8_t { kMinus = -3 };
}  // namespace

TEST(CoreError, ConcatPrintsAsAStreamWould) {
  const std::string s = "str";
  const std::string_view v = "view";
  const char* cs = "cstr";
  EXPECT_EQ(concat("a", 1, ' ', s, v, cs), streamed("a", 1, ' ', s, v, cs));
  EXPECT_EQ(concat(0, -1, std::numeric_limits<int64_t>::min(), std::numeric_limits<uint64_t>::max(),
                   size_t(4096), uint16_t(65535), short(-7), 'x', true, false),
            streamed(0, -1, std::numeric_limits<int64_t>::min(), std::numeric_limits<uint64_t>::max(),
                     size_t(4096), uint16_t(65535), short(-7), 'x', true, false));
  for (double d : {0.0, -0.0, 1.0, 0.1, -2.5, 1.0 / 3.0, 123456.0, 1234567.0, 1e-7, 6.02e23, 1e300,
                   std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()})
    EXPECT_EQ(concat(d), streamed(d)) << d;
  for (float f : {0.5f, 3.14159265f, -1e-20f, 65504.f, std::numeric_limits<float>::max()})
    EXPECT_EQ(concat(f), streamed(f)) << f;
  EXPECT_EQ(concat(std::nan("")).find("nan") != std::string::npos, true);
  EXPECT_EQ(concat(kSeven, "/", kZero), "7/0");
  EXPECT_EQ(concat(Scoped::kMinus), "-3");
  EXPECT_EQ(concat(static_cast<const char*>(nullptr)), "(null)");
  EXPECT_EQ(concat(), "");
}

TEST(CoreError, CheckThrowsTheBuiltMessage) {
  const size_t got = 3;
  try {
    ATTNLAB_CHECK(got == 4, "layer: expected ", 4, " inputs, got ", got, " (", 0.25f, ")");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "layer: expected 4 inputs, got 3 (0.25)");
  }
  EXPECT_NO_THROW(ATTNLAB_CHECK(got == 3, "unused ", got));
}
