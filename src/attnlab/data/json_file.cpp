#include "attnlab/data/json_file.hpp"

#include <fstream>
#include <sstream>

#include "attnlab/core/error.hpp"

namespace attnlab::data {

nlohmann::json read_json_file(const std::string& path, const char* who, const char* open_hint) {
  std::ifstream f(path, std::ios::binary);
  ATTNLAB_CHECK(f.good(), who, ": cannot open '", path, "'", open_hint);
  std::ostringstream ss;
  ss << f.rdbuf();
  try {
    return nlohmann::json::parse(ss.str());
  } catch (const std::exception& e) {
    throw Error(std::string(who) + ": '" + path + "' is not valid JSON: " + e.what());
  }
}

}  // namespace attnlab::data
