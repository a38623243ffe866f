#include "attnlab/io/config_reader.hpp"

#include "attnlab/core/error.hpp"

namespace attnlab::io {

ConfigReader::ConfigReader(const std::string& text, std::string model) : model_(std::move(model)) {
  try {
    j_ = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw Error(model_ + " config: invalid JSON: " + e.what());
  }
  ATTNLAB_CHECK(j_.is_object(), model_, " config: expected a JSON object");
}

ConfigReader ConfigReader::of(nlohmann::json j, std::string model) {
  ATTNLAB_CHECK(j.is_object(), model, " config: expected a JSON object");
  ConfigReader r("{}", std::move(model));
  r.j_ = std::move(j);
  return r;
}

void ConfigReader::fail(const char* key, const std::string& what) const {
  throw Error(model_ + " config: '" + key + "' " + what);
}

void ConfigReader::require(const char* key) const {
  if (!has(key)) fail(key, "is required");
}

namespace {
std::string range(size_t lo, size_t hi) {
  return "[" + std::to_string(lo) + ", " + (hi == SIZE_MAX ? std::string("...") : std::to_string(hi)) +
         "]";
}
}  // namespace

void ConfigReader::size(const char* key, size_t& v, size_t lo, size_t hi) const {
  if (!has(key)) return;
  const nlohmann::json& x = j_[key];
  if (!x.is_number_unsigned()) fail(key, "must be a non-negative integer, got " + x.dump());
  const size_t got = x.get<size_t>();
  if (got < lo || got > hi) fail(key, "must be in " + range(lo, hi) + ", got " + x.dump());
  v = got;
}

void ConfigReader::number(const char* key, float& v, double lo, double hi) const {
  if (!has(key)) return;
  const nlohmann::json& x = j_[key];
  if (!x.is_number()) fail(key, "must be a number, got " + x.dump());
  const double got = x.get<double>();
  if (!(got >= lo && got <= hi))
    fail(key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + x.dump());
  v = static_cast<float>(got);
}

void ConfigReader::boolean(const char* key, bool& v) const {
  if (!has(key)) return;
  if (!j_[key].is_boolean()) fail(key, "must be true or false, got " + j_[key].dump());
  v = j_[key].get<bool>();
}

void ConfigReader::string(const char* key, std::string& v) const {
  if (!has(key)) return;
  if (!j_[key].is_string()) fail(key, "must be a string, got " + j_[key].dump());
  v = j_[key].get<std::string>();
}

void ConfigReader::sizes(const char* key, std::vector<size_t>& v, size_t lo, size_t hi) const {
  if (!has(key)) return;
  const nlohmann::json& x = j_[key];
  if (!x.is_array()) fail(key, "must be an array of non-negative integers, got " + x.dump());
  std::vector<size_t> out;
  for (const auto& e : x) {
    if (!e.is_number_unsigned())
      fail(key, "entries must be non-negative integers, got " + e.dump());
    const size_t got = e.get<size_t>();
    if (got < lo || got > hi) fail(key, "entries must be in " + range(lo, hi) + ", got " + e.dump());
    out.push_back(got);
  }
  v = std::move(out);
}

void ConfigReader::strings(const char* key, std::vector<std::string>& v) const {
  if (!has(key)) return;
  const nlohmann::json& x = j_[key];
  if (!x.is_array()) fail(key, "must be an array of strings, got " + x.dump());
  std::vector<std::string> out;
  for (const auto& e : x) {
    if (!e.is_string()) fail(key, "must be an array of strings, got " + x.dump());
    out.push_back(e.get<std::string>());
  }
  v = std::move(out);
}

}  // namespace attnlab::io
