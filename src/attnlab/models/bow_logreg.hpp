// Bag-of-words baseline for spam: tf-idf features + logistic regression,
// trained by our own code.
//
// Features (fit on the training documents only):
//   vocabulary: tokens found in >= min_df training documents (optionally the
//   max_features with the highest document frequency), as a data::Vocab whose
//   ids 4.. are the feature columns (the 4 specials are not features; unknown
//   tokens are ignored);
//   tf = 1 + ln(count) (sublinear), idf = ln((1 + n) / (1 + df)) + 1
//   (smoothed), row = tf * idf, L2-normalized (an empty row stays zero);
//   rows are sparse (CSR).
// Model: p(spam | x) = sigmoid(w . x + b), trained full-batch by L-BFGS
// (history m, backtracking Armijo line search) on
//   mean log-loss + l2 / 2 * |w|^2   (the bias is not regularized),
// starting from zeros, so training is deterministic (no seed needed; the
// split's seed decides the data). Predicted label = p >= threshold (0.5).
// Saved as JSON: {"format":"attnlab-bow-logreg","version":1,"vocab":[...],
// "idf":[...],"weights":[...],"bias":b,"options":{...}}.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/eval/class_metrics.hpp"
#include "attnlab/data/email.hpp"
#include "attnlab/data/spam_assassin.hpp"
#include "attnlab/data/vocab.hpp"

namespace attnlab::models {

struct BowLogRegOptions {
  size_t min_df = 2;          // min number of training documents a token appears in
  size_t max_features = 0;    // 0 = no limit
  double l2 = 1e-4;           // weight decay of the objective above
  int max_iter = 500;         // L-BFGS iterations
  double tol = 1e-6;          // stop when max |gradient| < tol
  int history = 10;           // L-BFGS memory
  double threshold = 0.5;
  nlohmann::json to_json() const;
};

struct BowFitReport {
  int iterations = 0;
  double loss = 0;        // final objective
  double grad_max = 0;    // final max |gradient|
  bool converged = false;
};

class BowLogReg {
 public:
  using SparseRow = std::vector<std::pair<uint32_t, float>>;  // (feature, value), sorted

  // docs: token lists (e.g. data::EmailDoc::all_tokens()); labels 0/1.
  BowFitReport fit(const std::vector<std::vector<std::string>>& docs, const std::vector<int>& labels,
                   const BowLogRegOptions& opt = {});
  bool fitted() const { return !w_.empty() || vocab_.size() > 4; }

  SparseRow features(const std::vector<std::string>& tokens) const;  // tf-idf row
  double predict_proba(const std::vector<std::string>& tokens) const;
  std::vector<double> predict_proba(const std::vector<std::vector<std::string>>& docs) const;
  int predict(const std::vector<std::string>& tokens) const {
    return predict_proba(tokens) >= opt_.threshold ? 1 : 0;
  }

  const data::Vocab& vocab() const { return vocab_; }
  const std::vector<double>& idf() const { return idf_; }
  const std::vector<double>& weights() const { return w_; }
  double bias() const { return b_; }
  const BowLogRegOptions& options() const { return opt_; }

  std::string to_json() const;
  static BowLogReg from_json(const std::string& s);  // throws attnlab::Error if malformed
  void save(const std::string& path) const;
  static BowLogReg load(const std::string& path);

 private:
  data::Vocab vocab_;
  std::vector<double> idf_;  // one per feature (vocab id - 4)
  std::vector<double> w_;    // one per feature
  double b_ = 0;
  BowLogRegOptions opt_;
};

// The baseline run on SpamAssassin: split (seeded, stratified, deduped), fit
// on train for each l2 in l2_grid, keep the one with the lowest validation
// log-loss, score valid and test.
struct SpamBaselineOptions {
  uint64_t seed = 0;
  data::EmailOptions email;  // tokenization/truncation, the same as the HAN's
  BowLogRegOptions model;
  std::vector<double> l2_grid = {1e-6, 1e-5, 1e-4, 1e-3};  // empty = model.l2 only
};

struct SpamBaselineResult {
  size_t messages = 0, duplicates = 0;
  size_t n_train = 0, n_valid = 0, n_test = 0;
  size_t spam_train = 0, spam_valid = 0, spam_test = 0, hard_ham_test = 0;
  double l2 = 0;
  double valid_logloss = 0;
  BowFitReport fit;
  eval::BinaryMetrics valid, test;
  eval::BinaryMetrics test_hard_ham;        // hard ham alone (all negatives: accuracy = 1 - FPR)
  eval::BinaryMetrics test_spam_hard_ham;   // test spam + hard ham only
  BowLogReg model;
  nlohmann::json to_json() const;           // everything but the model
};

// On an already loaded corpus: its own split and tokenization are used (opt.seed
// and opt.email are ignored; only opt.model and opt.l2_grid apply).
SpamBaselineResult run_spam_baseline(const data::SpamCorpus& corpus, const SpamBaselineOptions& opt = {});
// Loads the corpus from the package's data/ folder first.
SpamBaselineResult run_spam_baseline(const std::string& data_dir, const SpamBaselineOptions& opt = {});

}  // namespace attnlab::models
