// Labelled documents from the user's own files, for document classifiers (HAN):
//
// - JSONL: one JSON object per line with a string "text" and a "label" (a string, or an
//   integer taken as its decimal text); other keys are ignored. A UTF-8 byte order mark
//   at the start is dropped, "\r\n" line ends are fine, blank lines are left out.
// - CSV (RFC 4180): a header row naming the columns, of which one is "text" and one
//   "label" (other columns ignored; names compared without surrounding spaces and case);
//   fields separated by commas, records by "\n" or "\r\n"; a field in double quotes may
//   hold commas, line breaks and "" for a quote. Blank lines are left out.
// - A folder: one sub-folder per label, every regular file in it one document (files
//   and folders whose name starts with '.' are left out; files in name order).
//
// A bad record (not an object, no text or label, a label that is empty, text without a
// non-whitespace character, a CSV row with another number of fields than the header, an
// unterminated quote, bytes that are not UTF-8) is an attnlab::Error naming the file and
// the line where the record starts, or, with skip_bad, is skipped and counted.
// Labels are names; classes are the sorted distinct training labels (at least 2).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/data/split.hpp"

namespace attnlab::data {

struct LabeledDoc {
  std::string text, label;
  size_t line = 0;  // 1-based line where the record starts (0 for a file of a folder)
};

struct DocReadOptions {
  bool skip_bad = false;
};

struct LabeledDocs {
  std::vector<LabeledDoc> docs;
  size_t skipped = 0;                         // bad records skipped (skip_bad only)
  std::vector<std::string> skipped_examples;  // "line N: why", the first 5
};

// The text of a whole file; `source` names it in messages.
LabeledDocs parse_jsonl_docs(const std::string& text, const std::string& source,
                             const DocReadOptions& o = {});
LabeledDocs parse_csv_docs(const std::string& text, const std::string& source,
                           const DocReadOptions& o = {});
// A folder with one sub-folder per label (native only: lists directories).
LabeledDocs load_doc_folder(const std::string& dir, const DocReadOptions& o = {});
// A path: a folder as above, a name ending in .csv as CSV, anything else as JSONL.
LabeledDocs load_labeled_docs(const std::string& path, const DocReadOptions& o = {});

// RFC 4180 records of a CSV text, each with the line where it starts; blank lines are
// left out. Throws attnlab::Error (source and line) for a quote that never closes or a
// quote inside an unquoted field.
struct CsvRecord {
  std::vector<std::string> fields;
  size_t line = 0;
};
std::vector<CsvRecord> parse_csv(const std::string& text, const std::string& source);

// The class names: the distinct labels of docs, sorted (byte order). Throws
// attnlab::Error saying what to do when there are fewer than 2.
std::vector<std::string> class_names(const std::vector<LabeledDoc>& docs, const std::string& source);
// Index of each document's label in names; a label not in names is an attnlab::Error
// naming the document's source and line and the known names.
std::vector<int> label_ids(const std::vector<LabeledDoc>& docs, const std::vector<std::string>& names,
                           const std::string& source);

// Seeded split by text (split.hpp: equal texts go to the same split).
struct DocSplit {
  std::vector<LabeledDoc> train, valid, test;
};
DocSplit split_docs(const std::vector<LabeledDoc>& docs, uint64_t seed, const SplitFractions& f);

// n short documents about 3 topics (sport, cooking, space), labelled by topic, from word
// lists and sentence patterns (seeded): 2-4 sentences on the topic and, in 40% of the
// documents, one sentence about another topic at a random place; a few words are shared
// between topics. For examples and tests.
std::vector<LabeledDoc> topic_docs(size_t n, uint64_t seed);
// Documents as JSONL text (the form parse_jsonl_docs reads).
std::string docs_jsonl(const std::vector<LabeledDoc>& docs);

}  // namespace attnlab::data
