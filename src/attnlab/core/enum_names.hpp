// One table per enum that is spelled as text (flags, config files, JS options): each row a
// value and a name. The first row of a value gives the name it is written as; further rows
// of the same value are aliases that are read too. The parse functions keep their own error
// message (what is expected, what came).
//
//   constexpr EnumName<Act> kActs[] = {{Act::ReLU, "relu"}, ..., {Act::Identity, "none"}};
//   const char* act_name(Act a) { return enum_name(kActs, a); }
//   if (const Act* a = enum_lookup(kActs, s)) return *a;
//   return enum_parse(kActs, s, "activation", "one of relu, tanh, ...");  // or the Error
#pragma once
#include <cstddef>
#include <string>

#include "attnlab/core/error.hpp"

namespace attnlab {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

// The name v is written as; `other` for a value the table lacks.
template <class E, size_t N>
const char* enum_name(const EnumName<E> (&table)[N], E v, const char* other = "?") {
  for (const EnumName<E>& r : table)
    if (r.value == v) return r.name;
  return other;
}

// The value named s (a name or an alias), or nullptr.
template <class E, size_t N>
const E* enum_lookup(const EnumName<E> (&table)[N], const std::string& s) {
  for (const EnumName<E>& r : table)
    if (s == r.name) return &r.value;
  return nullptr;
}

// The value named s, or an Error "unknown <what> '<s>': expected <expected>".
template <class E, size_t N>
E enum_parse(const EnumName<E> (&table)[N], const std::string& s, const char* what,
             const char* expected) {
  if (const E* v = enum_lookup(table, s)) return *v;
  throw Error(std::string("unknown ") + what + " '" + s + "': expected " + expected);
}

}  // namespace attnlab
