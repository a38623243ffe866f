// The shared reader of model configs (io/config_reader.hpp): typed, range-checked
// fields, absent keys keep their defaults, one form of error message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attnlab/core/error.hpp"
#include "attnlab/io/config_reader.hpp"
#include "error_test_util.hpp"

using namespace attnlab;
using attnlab::testing::error_of;

TEST(ConfigReader, TypedRangeCheckedFields) {
  const io::ConfigReader r(R"({"n": 5, "f": 0.5, "b": true, "s": "x", "v": [1, 2], "neg": -1})", "Foo");
  size_t n = 9, absent = 7;
  float f = 0;
  bool b = false;
  std::string s;
  std::vector<size_t> v;
  std::vector<std::string> names = {"kept"};
  r.size("n", n, 1, 10);
  r.size("nothing", absent);
  r.number("f", f, 0, 1);
  r.boolean("b", b);
  r.string("s", s);
  r.sizes("v", v, 1, 2);
  r.strings("none", names);
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(absent, 7u);  // absent keys keep the default
  EXPECT_EQ(f, 0.5f);
  EXPECT_TRUE(b);
  EXPECT_EQ(s, "x");
  EXPECT_EQ(v, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(names, std::vector<std::string>{"kept"});
  const io::ConfigReader labels(R"({"l": ["a", "b"], "bad": ["a", 1]})", "Foo");
  labels.strings("l", names);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(error_of([&] { r.size("n", n, 6, 10); }), "Foo config: 'n' must be in [6, 10], got 5");
  EXPECT_EQ(error_of([&] { r.size("neg", n); }),
            "Foo config: 'neg' must be a non-negative integer, got -1");
  EXPECT_EQ(error_of([&] { r.boolean("n", b); }), "Foo config: 'n' must be true or false, got 5");
  EXPECT_EQ(error_of([&] { r.string("n", s); }), "Foo config: 'n' must be a string, got 5");
  EXPECT_EQ(error_of([&] { r.sizes("v", v, 2, 3); }),
            "Foo config: 'v' entries must be in [2, 3], got 1");
  EXPECT_EQ(error_of([&] { r.require("missing"); }), "Foo config: 'missing' is required");
  EXPECT_EQ(error_of([&] { labels.strings("bad", names); }),
            "Foo config: 'bad' must be an array of strings, got [\"a\",1]");
  EXPECT_EQ(error_of([&] { r.number("f", f, 0.75, 1); }),
            "Foo config: 'f' must be in [0.750000, 1.000000], got 0.5");
  EXPECT_EQ(n, 5u);  // a failed read leaves the value alone
  EXPECT_THROW(io::ConfigReader("[1]", "Foo"), Error);
  EXPECT_THROW(io::ConfigReader("{", "Foo"), Error);
}
