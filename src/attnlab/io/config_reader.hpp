// Reading a model's config (the JSON object stored under "config" in a model
// file's __metadata__) field by field: typed, range-checked, with one form of
// error message for every model ("<Model> config: '<key>' must be ...").
// A key that is absent keeps the caller's default; a key that is present
// must have the right type and lie in the given range.
//
//   io::ConfigReader r(text, "MMoE");
//   r.size("experts", c.experts, 1, 256);
//   r.boolean("gate_bias", c.gate_bias);
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab::io {

class ConfigReader {
 public:
  // text must be a JSON object; `model` names the model in error messages.
  ConfigReader(const std::string& text, std::string model);
  // From JSON already parsed (must be an object).
  static ConfigReader of(nlohmann::json j, std::string model);

  bool has(const char* key) const { return j_.contains(key); }
  const nlohmann::json& json() const { return j_; }
  const std::string& model() const { return model_; }  // as the errors name it

  // Each reads `key` into `v` if present (else leaves v alone); throws attnlab::Error otherwise.
  void size(const char* key, size_t& v, size_t lo = 0, size_t hi = SIZE_MAX) const;
  void number(const char* key, float& v, double lo, double hi) const;
  void boolean(const char* key, bool& v) const;
  void string(const char* key, std::string& v) const;
  void sizes(const char* key, std::vector<size_t>& v, size_t lo = 0, size_t hi = SIZE_MAX) const;
  void strings(const char* key, std::vector<std::string>& v) const;
  // As above, but the key must be present.
  void require(const char* key) const;

 private:
  [[noreturn]] void fail(const char* key, const std::string& what) const;
  nlohmann::json j_;
  std::string model_;
};

}  // namespace attnlab::io
