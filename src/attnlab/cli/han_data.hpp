// The documents of a HAN run, one path for both sources:
//   spam  the SpamAssassin package (--data-dir; labels ham/spam, stratified 80/10/10 split)
//   docs  the user's files: --train FILE (JSONL, or CSV by a .csv name) or --train-dir DIR
//         (one folder per label); --valid/--test files, or a seeded --split of --train by
//         text; --format text|email says how each text is tokenized.
// `attnlab train han` reads its data, labels and metadata from here; `eval` scores a model
// trained on the user's documents through the same functions (score_docs).
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/data/email.hpp"
#include "attnlab/data/labeled_docs.hpp"
#include "attnlab/eval/class_metrics.hpp"
#include "attnlab/models/han.hpp"

namespace attnlab::cli {

// --data-dir --split-seed (spam) and --train --train-dir --valid --test --split --format
// --skip-bad (the user's documents).
std::vector<FlagSpec> han_data_flags(const char* default_data_dir);
// The user's files can be opened and the data flags agree (a UsageError otherwise):
// checked right after parsing, before the model flags are judged.
void check_han_data_flags(const Args& a);
bool han_user_data(const Args& a);  // --train or --train-dir given

struct HanData {
  bool spam = true;
  std::vector<data::EmailDoc> docs;  // tokenized
  std::vector<int> labels;           // class ids
  std::vector<size_t> train, valid, test;
  std::vector<std::string> names;    // class names
  std::string format = "email";
  std::map<std::string, std::string> meta;  // recorded in the model file
  nlohmann::json id;                        // what a resumption must match
  nlohmann::json stats;                     // the done event's "data"
  std::string summary;                      // "data: ..." (before vocab and parameters)
  size_t count(const std::vector<size_t>& idx, int label) const;
};
// Reads and tokenizes (opt: the model's truncation; its plain_text is set from --format).
HanData load_han_data(const Args& a, data::EmailOptions opt);

// Documents scored by a model: probabilities, predictions and the class metrics.
struct DocScores {
  std::vector<int> predicted;
  std::vector<float> probs;  // (N,C)
  eval::MulticlassMetrics metrics;
  double logloss = 0;
};
DocScores score_docs(const models::HAN& m, const std::vector<models::HANDoc>& docs,
                     const std::vector<int>& labels);
// Mean -log p(true class), p clamped to [1e-12, 1]; for 2 classes as the spam runs always
// computed it (1 - p(class 1) for class 0).
double han_logloss(const std::vector<float>& probs, size_t classes, const std::vector<int>& labels);

// eval of a model trained on the user's documents: --test FILE|DIR, or the test part of the
// split of the training file recorded in the model.
int cmd_eval_han_docs(const models::HAN& m, const std::map<std::string, std::string>& meta,
                      const Args& a);

}  // namespace attnlab::cli
