// A command's model flags and the config they fill, in one list: each flag is declared once,
// with what it fills, so that the flags --help lists and the reading of the config cannot
// drift apart.
//
//   const std::vector<ConfigFlag<ToyConfig>> kToyFlags = {
//       {{"emb", "N", "32", "embedding width"}, &ToyConfig::emb, 1, 4096},  // whole number in range
//       {{"samples", "N", "4096", "generated training sequences"}}};      // the command reads it
//   Args a("train toy", flag_specs(kToyFlags));
//   ToyConfig c;
//   read_config_flags(a, kToyFlags, c);  // c.emb = a.u64("emb", 1, 4096)
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/cli/args.hpp"

namespace attnlab::cli {

// One flag of a command and what it fills of a config C: a size_t member (a whole number in
// [lo, hi]), a float member (a number in [lo, hi]), a string member (the text as given), a
// bool member (true when the switch is given, or false with `when_given` false), or nothing
// (a plain flag the command reads itself).
template <class C>
struct ConfigFlag {
  ConfigFlag(FlagSpec s) : spec(std::move(s)) {}  // a plain flag
  ConfigFlag(FlagSpec s, size_t C::*m, uint64_t lo, uint64_t hi) : spec(std::move(s)) {
    read = [n = spec.name, m, lo, hi](const Args& a, C& c) { c.*m = a.u64(n, lo, hi); };
  }
  ConfigFlag(FlagSpec s, float C::*m, double lo, double hi) : spec(std::move(s)) {
    read = [n = spec.name, m, lo, hi](const Args& a, C& c) {
      c.*m = static_cast<float>(a.num(n, lo, hi));
    };
  }
  ConfigFlag(FlagSpec s, std::string C::*m) : spec(std::move(s)) {
    read = [n = spec.name, m](const Args& a, C& c) { c.*m = a.get(n); };
  }
  ConfigFlag(FlagSpec s, bool C::*m, bool when_given) : spec(std::move(s)) {
    read = [n = spec.name, m, when_given](const Args& a, C& c) {
      c.*m = a.flag(n) ? when_given : !when_given;
    };
  }
  FlagSpec spec;
  std::function<void(const Args&, C&)> read;  // empty for a plain flag
};

// The flags to declare (Args), in the list's order.
template <class C>
std::vector<FlagSpec> flag_specs(const std::vector<ConfigFlag<C>>& flags) {
  std::vector<FlagSpec> out;
  for (const ConfigFlag<C>& f : flags) out.push_back(f.spec);
  return out;
}

// The config members the flags fill, read in the list's order (a bad value is a UsageError).
template <class C>
void read_config_flags(const Args& a, const std::vector<ConfigFlag<C>>& flags, C& c) {
  for (const ConfigFlag<C>& f : flags)
    if (f.read) f.read(a, c);
}

}  // namespace attnlab::cli
