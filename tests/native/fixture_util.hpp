// The one loader of the PyTorch reference fixtures in tests/fixtures (JSON
// written by scripts/fixtures_*.py): tensors are {"shape": [...], "data": [...]}
// with "-inf" / "inf" as strings.
#pragma once
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab::testing {

inline nlohmann::json load_fixture(const std::string& file) {
  const std::string path = std::string(ATTNLAB_FIXTURES_DIR) + "/" + file;
  std::ifstream f(path);
  if (!f)
    throw std::runtime_error("cannot open fixture " + path +
                             " (regenerate it with /usr/bin/python3 scripts/fixtures_*.py)");
  nlohmann::json j;
  f >> j;
  return j;
}

// A fixture tensor's values ("-inf" / "inf" strings included).
inline std::vector<float> fixture_floats(const nlohmann::json& t) {
  std::vector<float> v;
  for (const auto& x : t.at("data")) {
    if (x.is_string())
      v.push_back(x.get<std::string>() == "-inf" ? -INFINITY : INFINITY);
    else
      v.push_back(x.get<float>());
  }
  return v;
}

// Calls fn(name, case) on each case of a fixture file (every entry but "_meta"; with
// kind, only the cases whose "kind" is kind) and returns how many it called fn on.
template <class Fn>
size_t for_each_case(const nlohmann::json& all, Fn&& fn, const char* kind = nullptr) {
  size_t n = 0;
  for (auto it = all.begin(); it != all.end(); ++it) {
    if (it.key() == "_meta" || (kind && it.value().at("kind") != kind)) continue;
    ++n;
    fn(it.key(), it.value());
  }
  return n;
}

}  // namespace attnlab::testing
