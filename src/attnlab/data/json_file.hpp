// A JSON file of a data package (the SOTU and SpamAssassin loaders).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace attnlab::data {

// The JSON document in the file at path; an Error starting with who (e.g. "sotu") when the file
// cannot be opened (the message then ends with open_hint) or is not valid JSON.
nlohmann::json read_json_file(const std::string& path, const char* who, const char* open_hint = "");

}  // namespace attnlab::data
