// One field list per config (io/config_fields.hpp): the same list writes the JSON and reads
// it back, required keys are checked before any key is read, ranges, omitted defaults,
// enum choices and per-field checks, and the plain (nlohmann) reading.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "attnlab/core/error.hpp"
#include "attnlab/io/config_fields.hpp"
#include "error_test_util.hpp"

using namespace attnlab;
using attnlab::testing::error_of;

namespace {

enum class Shade { Light, Dark };
const char* shade_name(Shade s) { return s == Shade::Dark ? "dark" : "light"; }
void parse_shade(const std::string& s, Shade& out, const std::string& model) {
  ATTNLAB_CHECK(s == "light" || s == "dark", model, " config: no shade '", s, "'");
  out = s == "dark" ? Shade::Dark : Shade::Light;
}

struct Widget {
  size_t width = 4;
  float ratio = 0.5f;
  bool round = false;
  std::string label;  // written only when set
  std::vector<size_t> sizes = {1};
  std::vector<std::string> tags;
  Shade shade = Shade::Light;
  size_t height = 2;  // of width's parity (checked right after it is read)
  void check() const { ATTNLAB_CHECK(width != 13, "Widget: unlucky width"); }
};

constexpr auto kWidget = std::make_tuple(
    io::field("width", &Widget::width).required().in(1, 100), io::field("ratio", &Widget::ratio).in(0, 1),
    io::field("round", &Widget::round), io::field("label", &Widget::label).omit_if(""),
    io::field("sizes", &Widget::sizes).in(1, 8), io::field("tags", &Widget::tags),
    io::choice("shade", &Widget::shade, shade_name, parse_shade),
    io::field("height", &Widget::height).then([](const Widget& w, const std::string& model) {
      ATTNLAB_CHECK(w.height % 2 == w.width % 2, model, " config: height and width differ in parity");
    }));

// the plain reading takes fields (no choices): required ones by at(), others by value()
constexpr auto kWidgetPlain = std::make_tuple(io::field("width", &Widget::width).required(),
                                              io::field("ratio", &Widget::ratio),
                                              io::field("label", &Widget::label));

}  // namespace

TEST(ConfigFields, OneListWritesAndReadsBack) {
  Widget w;
  EXPECT_EQ(io::fields_json(w, kWidget).dump(),
            R"({"height":2,"ratio":0.5,"round":false,"shade":"light","sizes":[1],"tags":[],"width":4})");
  w.width = 6;
  w.label = "x";
  w.tags = {"a", "b"};
  w.shade = Shade::Dark;
  const std::string text = io::fields_json(w, kWidget).dump();
  EXPECT_NE(text.find(R"("label":"x")"), std::string::npos);
  const Widget back = io::read_config(text, "Widget", kWidget, &Widget::check);
  EXPECT_EQ(io::fields_json(back, kWidget).dump(), text);
  // absent keys keep the defaults, the choice included
  const Widget some = io::read_config(R"({"width": 8})", "Widget", kWidget, &Widget::check);
  EXPECT_EQ(some.width, 8u);
  EXPECT_EQ(some.shade, Shade::Light);
  EXPECT_EQ(some.sizes, std::vector<size_t>{1});
}

TEST(ConfigFields, ReadErrorsNameTheKeyInListOrder) {
  auto read = [](const std::string& text) {
    return error_of([&] { io::read_config(text, "Widget", kWidget, &Widget::check); });
  };
  // the required key first, before a bad value of an earlier-read key is seen
  EXPECT_EQ(read(R"({"ratio": 7})"), "Widget config: 'width' is required");
  EXPECT_EQ(read(R"({"width": 0})"), "Widget config: 'width' must be in [1, 100], got 0");
  EXPECT_EQ(read(R"({"width": 4, "sizes": [9]})"), "Widget config: 'sizes' entries must be in [1, 8], got 9");
  EXPECT_EQ(read(R"({"width": 4, "shade": "grey"})"), "Widget config: no shade 'grey'");
  EXPECT_EQ(read(R"({"width": 3})"), "Widget config: height and width differ in parity");
  EXPECT_EQ(read(R"({"width": 13, "height": 1})"), "Widget: unlucky width");
  EXPECT_EQ(read("[1]"), "Widget config: expected a JSON object");
}

TEST(ConfigFields, PlainReadingUsesNlohmannConversions) {
  Widget w;
  io::read_fields_plain(nlohmann::json::parse(R"({"width": 6, "label": "y"})"), w, kWidgetPlain);
  EXPECT_EQ(w.width, 6u);
  EXPECT_EQ(w.label, "y");
  EXPECT_EQ(w.ratio, 0.5f);
  Widget m;  // a required key missing: nlohmann's out_of_range naming it
  try {
    io::read_fields_plain(nlohmann::json::parse(R"({"label": "y"})"), m, kWidgetPlain);
    ADD_FAILURE() << "a missing required key was accepted";
  } catch (const nlohmann::json::exception& e) {
    EXPECT_NE(std::string(e.what()).find("width"), std::string::npos) << e.what();
  }
}
