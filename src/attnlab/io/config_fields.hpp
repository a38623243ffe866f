// One field list per config: each config names its JSON keys once, with the member each
// key fills and how it is checked, and the functions below read and write a config
// through that list, so that to_json() and from_json() cannot drift apart.
//
//   constexpr auto kDinFields = std::make_tuple(
//       io::field("items", &DINConfig::items).in(1, size_t(1) << 24),
//       io::field("attention", &DINConfig::attention));
//   io::write_fields(j, cfg, kDinFields);                         // j["items"] = cfg.items, ...
//   io::read_fields(io::ConfigReader(text, "DIN"), cfg, kDinFields);
//   DINConfig c = io::read_config(text, "DIN", kDinFields, &DINConfig::check);  // the same, checked
//
// A field may be required (.required()), range-checked (.in(lo, hi): sizes, their lists and
// numbers), left out of the written JSON while it has one value (.omit_if("") for strings),
// or followed by a check of the config read so far (.then(f)). A choice() field stores an
// enum that the JSON spells as a string.
//
// Keys are written into a nlohmann::json object, which keeps its keys sorted: the list's
// order is the order of reading (which key's error comes first), not of the file.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/io/config_reader.hpp"

namespace attnlab::io {

// A key and the member of C it fills. T: for read_fields (through ConfigReader) size_t, float,
// bool, std::string, or a vector of size_t or of std::string; for writing and read_fields_plain
// any type nlohmann::json converts.
template <class C, class T>
struct Field {
  using Bound = std::conditional_t<std::is_same_v<T, float>, double, size_t>;
  const char* key;
  T C::*member;
  bool need = false;              // the key must be present
  Bound lo = std::numeric_limits<Bound>::lowest(), hi = std::numeric_limits<Bound>::max();
  const char* omit = nullptr;     // not written while the member equals this (strings)
  void (*check)(const C&, const std::string& model) = nullptr;  // after the key is read

  constexpr Field required() const { Field f = *this; f.need = true; return f; }
  constexpr Field in(Bound a, Bound b) const { Field f = *this; f.lo = a; f.hi = b; return f; }
  constexpr Field omit_if(const char* v) const { Field f = *this; f.omit = v; return f; }
  constexpr Field then(void (*c)(const C&, const std::string&)) const {
    Field f = *this;
    f.check = c;
    return f;
  }
};

// An enum member spelled as a string in the JSON: written as name(value); read into a string
// that starts as name(current value), then parse(text, member, model) sets the member (and may
// throw naming the model).
template <class C, class E>
struct Choice {
  const char* key;
  E C::*member;
  const char* (*name)(E);
  void (*parse)(const std::string& text, E& out, const std::string& model);
};

template <class C, class T>
constexpr Field<C, T> field(const char* key, T C::*member) {
  return Field<C, T>{key, member};
}

template <class C, class E>
constexpr Choice<C, E> choice(const char* key, E C::*member, const char* (*name)(E),
                              void (*parse)(const std::string&, E&, const std::string&)) {
  return Choice<C, E>{key, member, name, parse};
}

namespace detail {

template <class Obj, class C, class T>
void write_one(nlohmann::json& j, const Obj& c, const Field<C, T>& f) {
  const T& v = c.*f.member;
  if constexpr (std::is_same_v<T, std::string>) {
    if (f.omit && v == f.omit) return;
  }
  j[f.key] = v;
}
template <class Obj, class C, class E>
void write_one(nlohmann::json& j, const Obj& c, const Choice<C, E>& f) {
  j[f.key] = f.name(c.*f.member);
}

template <class C, class T>
void require_one(const ConfigReader& r, const Field<C, T>& f) {
  if (f.need) r.require(f.key);
}
template <class C, class E>
void require_one(const ConfigReader&, const Choice<C, E>&) {}

template <class Obj, class C, class T>
void read_one(const ConfigReader& r, Obj& c, const Field<C, T>& f) {
  T& v = c.*f.member;
  if constexpr (std::is_same_v<T, size_t>) r.size(f.key, v, f.lo, f.hi);
  else if constexpr (std::is_same_v<T, float>) r.number(f.key, v, f.lo, f.hi);
  else if constexpr (std::is_same_v<T, bool>) r.boolean(f.key, v);
  else if constexpr (std::is_same_v<T, std::string>) r.string(f.key, v);
  else if constexpr (std::is_same_v<T, std::vector<size_t>>) r.sizes(f.key, v, f.lo, f.hi);
  else if constexpr (std::is_same_v<T, std::vector<std::string>>) r.strings(f.key, v);
  else static_assert(sizeof(T) == 0, "config field of a type ConfigReader does not read");
  if (f.check) f.check(c, r.model());
}
template <class Obj, class C, class E>
void read_one(const ConfigReader& r, Obj& c, const Choice<C, E>& f) {
  std::string text = f.name(c.*f.member);
  r.string(f.key, text);
  f.parse(text, c.*f.member, r.model());
}

template <class Obj, class C, class T>
void read_plain_one(const nlohmann::json& j, Obj& c, const Field<C, T>& f) {
  T& v = c.*f.member;
  v = f.need ? j.at(f.key).template get<T>() : j.value(f.key, v);
}

}  // namespace detail

// Puts every listed member of c into the object j under its key.
template <class Obj, class... F>
void write_fields(nlohmann::json& j, const Obj& c, const std::tuple<F...>& fields) {
  std::apply([&](const auto&... f) { (detail::write_one(j, c, f), ...); }, fields);
}

// The listed members of c as a JSON object.
template <class Obj, class... F>
nlohmann::json fields_json(const Obj& c, const std::tuple<F...>& fields) {
  nlohmann::json j = nlohmann::json::object();
  write_fields(j, c, fields);
  return j;
}

// Reads the listed keys of r's JSON into c: first that every required key is there (in list
// order), then each key in list order, typed and range-checked by r (a key that is absent
// keeps c's value), each followed by its check. Errors are r's ("<Model> config: 'key' ...").
template <class Obj, class... F>
void read_fields(const ConfigReader& r, Obj& c, const std::tuple<F...>& fields) {
  std::apply([&](const auto&... f) { (detail::require_one(r, f), ...); }, fields);
  std::apply([&](const auto&... f) { (detail::read_one(r, c, f), ...); }, fields);
}

// A default C with the listed keys of `text` (a JSON object) read into it as read_fields
// does (`model` names the config in errors), then checked by c.*validate().
template <class C, class... F>
C read_config(const std::string& text, const char* model, const std::tuple<F...>& fields,
              void (C::*validate)() const) {
  C c;
  read_fields(ConfigReader(text, model), c, fields);
  (c.*validate)();
  return c;
}

// The listed keys of the object j read into c with nlohmann's own conversions:
// j.at(key).get<T>() for a required key, j.value(key, current) for another, in list order, no
// ranges; a failed conversion is nlohmann's exception.
template <class Obj, class... F>
void read_fields_plain(const nlohmann::json& j, Obj& c, const std::tuple<F...>& fields) {
  std::apply([&](const auto&... f) { (detail::read_plain_one(j, c, f), ...); }, fields);
}

}  // namespace attnlab::io

// Defines C::to_json() (the listed members as JSON text) and C::from_json(text) (read_config:
// the keys read into a default C, then checked by its member function `validate`) from the one
// field list, for a config whose header declares both:
//   ATTNLAB_CONFIG_JSON(DINConfig, "DIN", kFields, check)
#define ATTNLAB_CONFIG_JSON(C, model, fields, validate)                                       \
  std::string C::to_json() const { return ::attnlab::io::fields_json(*this, fields).dump(); } \
  C C::from_json(const std::string& s) {                                                       \
    return ::attnlab::io::read_config(s, model, fields, &C::validate);                         \
  }
