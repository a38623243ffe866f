// libFuzzer target: the readers of the user's labelled documents (JSONL and RFC 4180 CSV).
// Any bytes give documents with a non-blank UTF-8 text and label and a line number within
// the input, or an attnlab::Error; with skip_bad the JSONL reader never throws.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "attnlab/core/error.hpp"
#include "attnlab/data/labeled_docs.hpp"
#include "attnlab/data/tsv_pairs.hpp"

namespace {
void check(const attnlab::data::LabeledDocs& d, const std::string& text) {
  const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  for (const auto& doc : d.docs) {
    if (doc.line < 1 || doc.line > lines) __builtin_trap();
    if (doc.text.find_first_not_of(" \t\r\n\v\f") == std::string::npos) __builtin_trap();
    if (doc.label.find_first_not_of(" \t\r\n\v\f") == std::string::npos) __builtin_trap();
    if (attnlab::data::utf8_invalid_at(doc.text) != std::string::npos) __builtin_trap();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  attnlab::data::DocReadOptions skip;
  skip.skip_bad = true;
  try {
    check(attnlab::data::parse_jsonl_docs(text, "fuzz.jsonl", skip), text);
  } catch (const attnlab::Error&) {
    __builtin_trap();  // skip_bad: bad lines are counted, never thrown
  }
  try {
    check(attnlab::data::parse_jsonl_docs(text, "fuzz.jsonl"), text);
  } catch (const attnlab::Error&) {
  }
  attnlab::data::DocReadOptions strict;
  for (attnlab::data::DocReadOptions* o : {&skip, &strict}) {
    try {
      check(attnlab::data::parse_csv_docs(text, "fuzz.csv", *o), text);
    } catch (const attnlab::Error&) {
    }
  }
  return 0;
}
