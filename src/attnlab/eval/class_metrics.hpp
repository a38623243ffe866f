// Classification metrics (binary below, K classes at the end): confusion matrix, accuracy, precision,
// recall, F1 and ROC-AUC. Label 1 is the positive class (spam).
// Conventions: precision is 0 when nothing is predicted positive, recall is 0
// when there are no positives, F1 is 0 when precision + recall == 0 (as
// scikit-learn's zero_division=0). ROC-AUC is the Mann-Whitney statistic with
// average ranks, i.e. P(score_pos > score_neg) + 0.5 P(score_pos == score_neg);
// it is NaN when one class is absent (undefined) and JSON writes it as null.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab::eval {

struct ConfusionMatrix {
  size_t tp = 0, fp = 0, tn = 0, fn = 0;
  size_t total() const { return tp + fp + tn + fn; }
};

struct BinaryMetrics {
  size_t n = 0, positives = 0;
  ConfusionMatrix cm;
  double accuracy = 0, precision = 0, recall = 0, f1 = 0, roc_auc = 0;
  nlohmann::json to_json() const;
  std::string summary() const;  // one line, for logs and test output
};

// labels: 0/1; predictions: 0/1.
ConfusionMatrix confusion_matrix(const std::vector<int>& labels, const std::vector<int>& predicted);
// Tie-aware ROC-AUC from scores (higher = more positive); NaN if a class is absent.
double roc_auc(const std::vector<int>& labels, const std::vector<double>& scores);
// All metrics; predicted = score >= threshold. Scores must be finite.
BinaryMetrics binary_metrics(const std::vector<int>& labels, const std::vector<double>& scores,
                             double threshold = 0.5);

// Metrics over K >= 2 named classes: per class precision, recall, F1 and support (the
// binary conventions above for a zero denominator), accuracy, macro F1 (mean over
// classes), and the confusion matrix (rows: true class, columns: predicted class).
struct MulticlassMetrics {
  std::vector<std::string> names;
  size_t n = 0;
  std::vector<std::vector<size_t>> confusion;  // (K,K)
  std::vector<double> precision, recall, f1;   // (K)
  std::vector<size_t> support;                 // (K) documents of each true class
  double accuracy = 0, macro_f1 = 0;
  nlohmann::json to_json() const;
  // A table: one row per class (precision recall F1 support), then the confusion matrix.
  std::string table() const;
};
// labels, predicted: class ids in [0, names.size()); an id out of range is an Error.
MulticlassMetrics multiclass_metrics(const std::vector<int>& labels, const std::vector<int>& predicted,
                                     const std::vector<std::string>& names);

}  // namespace attnlab::eval
