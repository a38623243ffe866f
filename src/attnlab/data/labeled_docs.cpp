#include "attnlab/data/labeled_docs.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/data/text_util.hpp"
#include "attnlab/data/tsv_pairs.hpp"
#include "attnlab/io/safetensors.hpp"

#ifndef __EMSCRIPTEN__
#include <filesystem>
#endif

namespace attnlab::data {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
bool blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return is_space(c); });
}
std::string strip_bom(const std::string& t) {
  return t.rfind("\xEF\xBB\xBF", 0) == 0 ? t.substr(3) : t;
}
std::string trim_lower(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  std::string r = s.substr(b, e - b);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// Records either throw or, with skip_bad, are counted.
struct Collector {
  const std::string& source;
  const DocReadOptions& o;
  LabeledDocs r;
  void bad(size_t line, const std::string& why) {
    if (!o.skip_bad)
      throw Error(source + " line " + std::to_string(line) + ": " + why +
                  " (fix the line, or pass --skip-bad to skip such lines)");
    ++r.skipped;
    if (r.skipped_examples.size() < 5) r.skipped_examples.push_back("line " + std::to_string(line) + ": " + why);
  }
  // checks shared by every format; false if the record was bad (and skipped)
  bool add(std::string text, std::string label, size_t line) {
    if (utf8_invalid_at(text) != std::string::npos || utf8_invalid_at(label) != std::string::npos) {
      bad(line, "expected UTF-8 text, got bytes that are not UTF-8");
      return false;
    }
    if (blank(label)) {
      bad(line, "expected a non-empty label, got '" + label + "'");
      return false;
    }
    if (blank(text)) {
      bad(line, "expected a text with at least one non-space character, got an empty text");
      return false;
    }
    r.docs.push_back({std::move(text), std::move(label), line});
    return true;
  }
};

std::string shorten(const std::string& s) { return s.size() <= 60 ? s : s.substr(0, 57) + "..."; }

}  // namespace

LabeledDocs parse_jsonl_docs(const std::string& text_in, const std::string& source,
                             const DocReadOptions& o) {
  const std::string text = strip_bom(text_in);
  Collector c{source, o, {}};
  size_t line = 0;
  std::string l;
  for (size_t pos = 0; read_line(text, pos, l);) {
    ++line;
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (blank(l)) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(l);
    } catch (const std::exception&) {
      c.bad(line, "expected one JSON object {\"text\": ..., \"label\": ...}, got '" + shorten(l) + "'");
      continue;
    }
    if (!j.is_object()) {
      c.bad(line, "expected a JSON object {\"text\": ..., \"label\": ...}, got " + shorten(j.dump()));
      continue;
    }
    if (!j.contains("text") || !j["text"].is_string()) {
      c.bad(line, "expected a string \"text\", got " +
                      (j.contains("text") ? shorten(j["text"].dump()) : std::string("no \"text\" key")));
      continue;
    }
    const nlohmann::json& lj = j.contains("label") ? j["label"] : nlohmann::json();
    std::string label;
    if (lj.is_string()) label = lj.get<std::string>();
    else if (lj.is_number_integer()) label = lj.dump();
    else {
      c.bad(line, "expected a \"label\" (a string or an integer), got " +
                      (j.contains("label") ? shorten(lj.dump()) : std::string("no \"label\" key")));
      continue;
    }
    c.add(j["text"].get<std::string>(), std::move(label), line);
  }
  return std::move(c.r);
}

std::vector<CsvRecord> parse_csv(const std::string& text_in, const std::string& source) {
  const std::string text = strip_bom(text_in);
  std::vector<CsvRecord> out;
  CsvRecord rec;
  std::string field;
  size_t line = 1;
  rec.line = 1;
  bool in_record = false;  // something (a field or a comma) seen on this record
  auto end_record = [&]() {
    if (in_record || !field.empty()) {
      rec.fields.push_back(std::move(field));
      const bool blank_line = rec.fields.size() == 1 && blank(rec.fields[0]);
      if (!blank_line) out.push_back(std::move(rec));
    }
    rec = CsvRecord{};
    field.clear();
    in_record = false;
  };
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    if (!in_record && field.empty()) rec.line = line;
    const char ch = text[i];
    if (ch == '"' && field.empty()) {  // quoted field
      const size_t start_line = line;
      ++i;
      for (;;) {
        if (i >= n)
          throw Error(source + " line " + std::to_string(start_line) +
                      ": a quoted field never closes (expected a closing '\"')");
        if (text[i] == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        if (text[i] == '\n') ++line;
        field += text[i++];
      }
      in_record = true;
      // after the closing quote: a comma, a line end or the end of the text
      if (i < n && text[i] != ',' && text[i] != '\n' && !(text[i] == '\r' && i + 1 < n && text[i + 1] == '\n') &&
          !(text[i] == '\r' && i + 1 == n))
        throw Error(source + " line " + std::to_string(line) +
                    ": expected ',' or a line end after a closing quote, got '" + std::string(1, text[i]) + "'");
      continue;
    }
    if (ch == ',') {
      rec.fields.push_back(std::move(field));
      field.clear();
      in_record = true;
      ++i;
    } else if (ch == '\n' || (ch == '\r' && (i + 1 == n || text[i + 1] == '\n'))) {
      end_record();
      i += ch == '\r' && i + 1 < n ? 2 : 1;
      ++line;
    } else if (ch == '"') {
      throw Error(source + " line " + std::to_string(line) +
                  ": a quote inside an unquoted field (RFC 4180: quote the whole field and write \"\" for a quote)");
    } else {
      field += ch;
      ++i;
    }
  }
  end_record();
  return out;
}

LabeledDocs parse_csv_docs(const std::string& text, const std::string& source, const DocReadOptions& o) {
  const std::vector<CsvRecord> recs = parse_csv(text, source);
  ATTNLAB_CHECK(!recs.empty(), source, ": expected a header row with columns text and label, got an empty file");
  size_t ti = SIZE_MAX, li = SIZE_MAX;
  for (size_t k = 0; k < recs[0].fields.size(); ++k) {
    const std::string h = trim_lower(recs[0].fields[k]);
    if (h == "text" && ti == SIZE_MAX) ti = k;
    if (h == "label" && li == SIZE_MAX) li = k;
  }
  if (ti == SIZE_MAX || li == SIZE_MAX) {
    std::string got;
    for (const auto& f : recs[0].fields) got += (got.empty() ? "" : ",") + f;
    throw Error(source + " line " + std::to_string(recs[0].line) +
                ": expected a header row naming a 'text' and a 'label' column, got '" + shorten(got) + "'");
  }
  Collector c{source, o, {}};
  const size_t cols = recs[0].fields.size();
  for (size_t r = 1; r < recs.size(); ++r) {
    const CsvRecord& rec = recs[r];
    if (rec.fields.size() != cols) {
      c.bad(rec.line, "expected " + std::to_string(cols) + " fields as in the header, got " +
                          std::to_string(rec.fields.size()));
      continue;
    }
    c.add(rec.fields[ti], rec.fields[li], rec.line);
  }
  return std::move(c.r);
}

LabeledDocs load_doc_folder(const std::string& dir, const DocReadOptions& o) {
#ifdef __EMSCRIPTEN__
  (void)o;
  throw Error("reading a folder of documents ('" + dir + "') is not available in WebAssembly");
#else
  namespace fs = std::filesystem;
  std::error_code ec;
  ATTNLAB_CHECK(fs::is_directory(dir, ec), "expected a folder with one sub-folder per label, got '", dir,
                "' (not a folder)");
  std::vector<fs::path> labels;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind('.', 0) != 0) labels.push_back(e.path());
  std::sort(labels.begin(), labels.end());
  Collector c{dir, o, {}};
  for (const fs::path& ld : labels) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(ld))
      if (e.is_regular_file() && e.path().filename().string().rfind('.', 0) != 0) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      const std::vector<uint8_t> b = io::read_bytes(f.string());
      std::string t(b.begin(), b.end());
      const std::string label = ld.filename().string();
      if (blank(t)) {
        if (!o.skip_bad)
          throw Error(f.string() + ": expected a document with at least one non-space character, got an "
                      "empty file (remove it, or pass --skip-bad)");
        ++c.r.skipped;
        if (c.r.skipped_examples.size() < 5) c.r.skipped_examples.push_back(f.string() + ": empty");
        continue;
      }
      // a folder's files may be raw e-mail in any charset: the tokenizer repairs bytes
      c.r.docs.push_back({std::move(t), label, 0});
    }
  }
  return std::move(c.r);
#endif
}

LabeledDocs load_labeled_docs(const std::string& path, const DocReadOptions& o) {
#ifndef __EMSCRIPTEN__
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return load_doc_folder(path, o);
#endif
  const std::vector<uint8_t> b = io::read_bytes(path);
  const std::string t(b.begin(), b.end());
  const std::string low = trim_lower(path);
  if (low.size() >= 4 && low.compare(low.size() - 4, 4, ".csv") == 0) return parse_csv_docs(t, path, o);
  return parse_jsonl_docs(t, path, o);
}

std::vector<std::string> class_names(const std::vector<LabeledDoc>& docs, const std::string& source) {
  std::set<std::string> s;
  for (const auto& d : docs) s.insert(d.label);
  if (s.size() < 2)
    throw Error(source + ": expected documents of at least 2 labels to learn from, got " +
                (s.empty() ? std::string("no documents") : "only the label '" + *s.begin() + "'") +
                " (a classifier needs examples of every class it should tell apart)");
  return {s.begin(), s.end()};
}

std::vector<int> label_ids(const std::vector<LabeledDoc>& docs, const std::vector<std::string>& names,
                           const std::string& source) {
  std::vector<int> ids;
  ids.reserve(docs.size());
  for (const auto& d : docs) {
    const auto it = std::find(names.begin(), names.end(), d.label);
    if (it == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      throw Error(source + (d.line ? " line " + std::to_string(d.line) : std::string()) + ": label '" +
                  d.label + "' is not one the model knows (" + known + ")");
    }
    ids.push_back(static_cast<int>(it - names.begin()));
  }
  return ids;
}

DocSplit split_docs(const std::vector<LabeledDoc>& docs, uint64_t seed, const SplitFractions& f) {
  return split_items<DocSplit>(docs, [](const LabeledDoc& d) -> const std::string& { return d.text; }, seed, f);
}

std::vector<LabeledDoc> topic_docs(size_t n, uint64_t seed) {
  struct Topic {
    const char* label;
    std::vector<const char*> nouns, verbs, adjs;
  };
  // "team", "record", "light", "heat" and "time" appear in more than one topic
  static const std::vector<Topic> topics = {
      {"sport",
       {"team", "goal", "match", "coach", "player", "season", "league", "referee", "stadium", "record", "ball",
        "striker", "defence", "final", "time"},
       {"won", "lost", "scored", "trained", "played", "defended", "celebrated", "missed"},
       {"fast", "tired", "strong", "young", "home", "late"}},
      {"cooking",
       {"soup", "onion", "oven", "recipe", "garlic", "butter", "flour", "pan", "sauce", "kitchen", "heat", "salt",
        "dough", "team", "time"},
       {"stirred", "baked", "chopped", "tasted", "boiled", "mixed", "roasted", "served"},
       {"hot", "fresh", "sweet", "crispy", "light", "golden"}},
      {"space",
       {"rocket", "orbit", "planet", "telescope", "moon", "astronaut", "galaxy", "launch", "satellite", "star",
        "light", "mission", "crew", "record", "heat"},
       {"launched", "observed", "landed", "orbited", "measured", "docked", "detected", "reached"},
       {"distant", "bright", "cold", "dark", "huge", "new"}},
  };
  static const std::vector<const char*> fillers = {"the", "a", "this", "our", "their", "every"};
  Rng rng(seed * 0x9E3779B97F4A7C15ull + 0x5bd1e995);
  auto pick = [&](const std::vector<const char*>& v) { return std::string(v[rng.below(static_cast<uint32_t>(v.size()))]); };
  std::vector<LabeledDoc> out;
  out.reserve(n);
  auto sentence = [&](const Topic& t) {
    std::string sent = pick(fillers) + " " + pick(t.adjs) + " " + pick(t.nouns) + " " + pick(t.verbs) + " " +
                       pick(fillers) + " " + pick(t.nouns);
    if (rng.uniform() < 0.5) sent += " after " + std::to_string(1 + rng.below(90)) + " minutes";
    sent[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sent[0])));
    return sent + ".";
  };
  for (size_t i = 0; i < n; ++i) {
    const size_t ti = rng.below(static_cast<uint32_t>(topics.size()));
    std::vector<std::string> sents;
    const size_t on = 2 + rng.below(3);
    for (size_t s = 0; s < on; ++s) sents.push_back(sentence(topics[ti]));
    if (rng.uniform() < 0.4) {  // one sentence about another topic, somewhere: a distractor
      const size_t other = (ti + 1 + rng.below(static_cast<uint32_t>(topics.size() - 1))) % topics.size();
      sents.insert(sents.begin() + rng.below(static_cast<uint32_t>(sents.size() + 1)), sentence(topics[other]));
    }
    std::string text;
    for (const auto& s : sents) text += (text.empty() ? "" : " ") + s;
    out.push_back({std::move(text), topics[ti].label, i + 1});
  }
  return out;
}

std::string docs_jsonl(const std::vector<LabeledDoc>& docs) {
  std::string s;
  for (const auto& d : docs) s += nlohmann::json({{"text", d.text}, {"label", d.label}}).dump() + "\n";
  return s;
}

}  // namespace attnlab::data
