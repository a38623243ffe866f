// Tiny flag parser for the attnlab CLI: every flag is declared with a default
// and a help line, so `--help` lists them all and unknown flags are usage
// errors (exit code 2) that say what to do.
#pragma once
#include <cstdint>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct FlagSpec {
  std::string name;   // without the leading "--"
  std::string value;  // placeholder shown in help ("N", "PATH"); empty = boolean switch
  std::string def;    // default (as text)
  std::string help;
};

// The --json switch of most commands, with its usual help line.
inline FlagSpec json_flag(std::string help = "print one JSON object on stdout") {
  return {"json", "", "", std::move(help)};
}
// The --model PATH flag of the commands that read a model file; `what` says which file.
inline FlagSpec model_flag(std::string what) { return {"model", "PATH", "", std::move(what)}; }
// The --file PATH flag of the commands that read their input from a file or, given '-', from
// stdin (read_input_file); `what` says what is read, e.g. "read the message from a file".
inline FlagSpec file_flag(const std::string& what) { return {"file", "PATH", "", what + " ('-' = stdin)"}; }
// The --seed of the evaluations that draw fresh samples, with one default for every model kind;
// `help` says what it draws.
inline FlagSpec eval_seed_flag(std::string help) { return {"seed", "N", "12345", std::move(help)}; }

class Args {
 public:
  Args(std::string command, std::vector<FlagSpec> specs) : cmd_(std::move(command)), specs_(std::move(specs)) {
    specs_.push_back({"help", "", "", "show this help and exit"});
    for (auto& s : specs_) values_[s.name] = s.def;
  }

  // argv after the subcommand; positional arguments are collected in order
  void parse(const std::vector<std::string>& argv) {
    for (size_t i = 0; i < argv.size(); ++i) {
      const std::string& a = argv[i];
      if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
        std::string name = a.substr(2), val;
        const size_t eq = name.find('=');
        bool has_val = false;
        if (eq != std::string::npos) {
          val = name.substr(eq + 1);
          name = name.substr(0, eq);
          has_val = true;
        }
        const FlagSpec* s = find(name);
        if (!s)
          throw UsageError("unknown flag --" + name + " for 'attnlab " + cmd_ +
                           "' (run 'attnlab " + cmd_ + " --help' to list the flags)");
        if (s->value.empty()) {
          if (has_val) throw UsageError("flag --" + name + " takes no value");
          values_[name] = "1";
          set_.insert({name, true});
        } else {
          if (!has_val) {
            if (i + 1 >= argv.size())
              throw UsageError("flag --" + name + " needs a value (" + s->value + ")");
            val = argv[++i];
          }
          values_[name] = val;
          set_.insert({name, true});
        }
      } else {
        positional_.push_back(a);
      }
    }
  }

  // parse(argv), and on --help print help(usage, about) to stdout: true when it did (the
  // command then returns 0 without doing anything else)
  bool parse_or_help(const std::vector<std::string>& argv, const std::string& usage, const std::string& about) {
    parse(argv);
    if (!flag("help")) return false;
    std::cout << help(usage, about);
    return true;
  }

  bool has(const std::string& n) const { return values_.count(n) > 0; }  // declared
  bool flag(const std::string& n) const { return get(n) == "1"; }
  bool given(const std::string& n) const { return set_.count(n) > 0; }
  std::string get(const std::string& n) const {
    auto it = values_.find(n);
    if (it == values_.end()) throw std::logic_error("undeclared flag " + n);
    return it->second;
  }
  uint64_t u64(const std::string& n, uint64_t lo = 0, uint64_t hi = UINT64_MAX) const {
    const std::string v = get(n);
    size_t pos = 0;
    unsigned long long x = 0;
    try {
      if (!v.empty() && v[0] == '-') throw std::invalid_argument("negative");
      x = std::stoull(v, &pos);
    } catch (const std::exception&) {
      pos = std::string::npos;
    }
    if (pos != v.size() || v.empty())
      throw UsageError("flag --" + n + " expects a whole number, got '" + v + "'");
    if (x < lo || x > hi)
      throw UsageError("flag --" + n + " must be in [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "], got " + v);
    return x;
  }
  double num(const std::string& n, double lo, double hi) const {
    const std::string v = get(n);
    size_t pos = 0;
    double x = 0;
    try {
      x = std::stod(v, &pos);
    } catch (const std::exception&) {
      pos = std::string::npos;
    }
    if (pos != v.size() || v.empty())
      throw UsageError("flag --" + n + " expects a number, got '" + v + "'");
    if (!(x >= lo && x <= hi)) {
      std::ostringstream os;
      os << "flag --" << n << " must be in [" << lo << ", " << hi << "], got " << v;
      throw UsageError(os.str());
    }
    return x;
  }
  const std::vector<std::string>& positional() const { return positional_; }
  // For commands that take flags only: a positional argument is a UsageError, `why` or else
  // "unexpected argument '<the first one>'".
  void no_positional(const std::string& why = "") const {
    if (positional_.empty()) return;
    throw UsageError(why.empty() ? "unexpected argument '" + positional_[0] + "'" : why);
  }

  std::string help(const std::string& usage, const std::string& about) const {
    std::ostringstream os;
    os << "usage: " << usage << "\n\n" << about << "\n\nflags:\n";
    for (auto& s : specs_) {
      std::string left = "  --" + s.name + (s.value.empty() ? "" : " " + s.value);
      if (left.size() < 26) left += std::string(26 - left.size(), ' ');
      else left += "\n" + std::string(26, ' ');
      os << left << s.help;
      if (!s.def.empty() && !s.value.empty()) os << " (default: " << s.def << ")";
      os << "\n";
    }
    return os.str();
  }

 private:
  const FlagSpec* find(const std::string& n) const {
    for (auto& s : specs_)
      if (s.name == n) return &s;
    return nullptr;
  }
  std::string cmd_;
  std::vector<FlagSpec> specs_;
  std::map<std::string, std::string> values_;
  std::map<std::string, bool> set_;
  std::vector<std::string> positional_;
};

}  // namespace attnlab::cli
