#include "attnlab/eval/class_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "attnlab/core/error.hpp"

namespace attnlab::eval {

ConfusionMatrix confusion_matrix(const std::vector<int>& labels, const std::vector<int>& predicted) {
  ATTNLAB_CHECK(labels.size() == predicted.size(), "confusion_matrix: expected as many predictions (",
                predicted.size(), ") as labels (", labels.size(), ")");
  ConfusionMatrix cm;
  for (size_t i = 0; i < labels.size(); ++i) {
    ATTNLAB_CHECK((labels[i] == 0 || labels[i] == 1) && (predicted[i] == 0 || predicted[i] == 1),
                  "confusion_matrix: expected 0/1 labels and predictions, got ", labels[i], " and ",
                  predicted[i], " at ", i);
    if (labels[i]) (predicted[i] ? cm.tp : cm.fn)++;
    else (predicted[i] ? cm.fp : cm.tn)++;
  }
  return cm;
}

double roc_auc(const std::vector<int>& labels, const std::vector<double>& scores) {
  ATTNLAB_CHECK(labels.size() == scores.size(), "roc_auc: expected as many scores (", scores.size(),
                ") as labels (", labels.size(), ")");
  const size_t n = labels.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  for (size_t i = 0; i < n; ++i)
    ATTNLAB_CHECK(std::isfinite(scores[i]), "roc_auc: expected finite scores, got ", scores[i], " at ", i);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] < scores[b]; });
  double rank_sum_pos = 0;
  size_t npos = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && scores[order[j]] == scores[order[i]]) ++j;
    const double avg_rank = 0.5 * static_cast<double>(i + 1 + j);  // ranks i+1..j
    for (size_t k = i; k < j; ++k)
      if (labels[order[k]] == 1) rank_sum_pos += avg_rank, ++npos;
    i = j;
  }
  const size_t nneg = n - npos;
  if (npos == 0 || nneg == 0) return std::numeric_limits<double>::quiet_NaN();
  const double p = static_cast<double>(npos), q = static_cast<double>(nneg);
  return (rank_sum_pos - p * (p + 1) / 2) / (p * q);
}

BinaryMetrics binary_metrics(const std::vector<int>& labels, const std::vector<double>& scores,
                             double threshold) {
  ATTNLAB_CHECK(labels.size() == scores.size(), "binary_metrics: expected as many scores (",
                scores.size(), ") as labels (", labels.size(), ")");
  std::vector<int> pred(scores.size());
  for (size_t i = 0; i < scores.size(); ++i) pred[i] = scores[i] >= threshold ? 1 : 0;
  BinaryMetrics m;
  m.cm = confusion_matrix(labels, pred);
  m.n = labels.size();
  m.positives = m.cm.tp + m.cm.fn;
  const auto d = [](size_t a) { return static_cast<double>(a); };
  m.accuracy = m.n ? d(m.cm.tp + m.cm.tn) / d(m.n) : 0.0;
  m.precision = (m.cm.tp + m.cm.fp) ? d(m.cm.tp) / d(m.cm.tp + m.cm.fp) : 0.0;
  m.recall = (m.cm.tp + m.cm.fn) ? d(m.cm.tp) / d(m.cm.tp + m.cm.fn) : 0.0;
  m.f1 = (m.precision + m.recall) > 0 ? 2 * m.precision * m.recall / (m.precision + m.recall) : 0.0;
  m.roc_auc = roc_auc(labels, scores);
  return m;
}

nlohmann::json BinaryMetrics::to_json() const {
  nlohmann::json j;
  j["n"] = n;
  j["positives"] = positives;
  j["accuracy"] = accuracy;
  j["precision"] = precision;
  j["recall"] = recall;
  j["f1"] = f1;
  if (std::isfinite(roc_auc)) j["roc_auc"] = roc_auc;
  else j["roc_auc"] = nullptr;
  j["confusion"] = {{"tp", cm.tp}, {"fp", cm.fp}, {"tn", cm.tn}, {"fn", cm.fn}};
  return j;
}

std::string BinaryMetrics::summary() const {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "n=%zu pos=%zu acc=%.4f prec=%.4f rec=%.4f f1=%.4f auc=%.4f tp=%zu fp=%zu tn=%zu fn=%zu",
                n, positives, accuracy, precision, recall, f1, roc_auc, cm.tp, cm.fp, cm.tn, cm.fn);
  return buf;
}

MulticlassMetrics multiclass_metrics(const std::vector<int>& labels, const std::vector<int>& predicted,
                                     const std::vector<std::string>& names) {
  const size_t K = names.size();
  ATTNLAB_CHECK(K >= 2, "class metrics: expected at least 2 classes, got ", K);
  ATTNLAB_CHECK(labels.size() == predicted.size(), "class metrics: expected as many predictions as labels (",
                labels.size(), "), got ", predicted.size());
  MulticlassMetrics m;
  m.names = names;
  m.n = labels.size();
  m.confusion.assign(K, std::vector<size_t>(K, 0));
  size_t correct = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    const int y = labels[i], p = predicted[i];
    ATTNLAB_CHECK(y >= 0 && static_cast<size_t>(y) < K && p >= 0 && static_cast<size_t>(p) < K,
                  "class metrics: expected class ids in [0, ", K, "), got label ", y, " and prediction ", p);
    ++m.confusion[static_cast<size_t>(y)][static_cast<size_t>(p)];
    correct += y == p;
  }
  m.accuracy = m.n ? static_cast<double>(correct) / static_cast<double>(m.n) : 0;
  m.precision.assign(K, 0);
  m.recall.assign(K, 0);
  m.f1.assign(K, 0);
  m.support.assign(K, 0);
  for (size_t c = 0; c < K; ++c) {
    size_t col = 0, row = 0;
    for (size_t k = 0; k < K; ++k) col += m.confusion[k][c], row += m.confusion[c][k];
    const double tp = static_cast<double>(m.confusion[c][c]);
    m.support[c] = row;
    m.precision[c] = col ? tp / static_cast<double>(col) : 0;
    m.recall[c] = row ? tp / static_cast<double>(row) : 0;
    const double s = m.precision[c] + m.recall[c];
    m.f1[c] = s > 0 ? 2 * m.precision[c] * m.recall[c] / s : 0;
    m.macro_f1 += m.f1[c] / static_cast<double>(K);
  }
  return m;
}

nlohmann::json MulticlassMetrics::to_json() const {
  nlohmann::json per = nlohmann::json::object();
  for (size_t c = 0; c < names.size(); ++c)
    per[names[c]] = {{"precision", precision[c]}, {"recall", recall[c]}, {"f1", f1[c]}, {"support", support[c]}};
  return {{"n", n},         {"accuracy", accuracy}, {"macro_f1", macro_f1},
          {"labels", names}, {"classes", per},     {"confusion", confusion}};
}

std::string MulticlassMetrics::table() const {
  size_t w = 9;
  for (const auto& s : names) w = std::max(w, s.size());
  char buf[256];
  std::string o;
  std::snprintf(buf, sizeof buf, "  %-*s %9s %7s %7s %8s\n", static_cast<int>(w), "class", "precision", "recall",
                "F1", "support");
  o += buf;
  for (size_t c = 0; c < names.size(); ++c) {
    std::snprintf(buf, sizeof buf, "  %-*s %9.4f %7.4f %7.4f %8zu\n", static_cast<int>(w), names[c].c_str(),
                  precision[c], recall[c], f1[c], support[c]);
    o += buf;
  }
  std::snprintf(buf, sizeof buf, "  accuracy %.4f  macro F1 %.4f  (%zu documents)\n", accuracy, macro_f1, n);
  o += buf;
  o += "  confusion (rows: true, columns: predicted)\n";
  size_t cw = 6;
  for (const auto& s : names) cw = std::max(cw, s.size());
  std::snprintf(buf, sizeof buf, "  %-*s", static_cast<int>(w), "");
  o += buf;
  for (const auto& s : names) std::snprintf(buf, sizeof buf, " %*s", static_cast<int>(cw), s.c_str()), o += buf;
  o += "\n";
  for (size_t r = 0; r < names.size(); ++r) {
    std::snprintf(buf, sizeof buf, "  %-*s", static_cast<int>(w), names[r].c_str());
    o += buf;
    for (size_t c = 0; c < names.size(); ++c)
      std::snprintf(buf, sizeof buf, " %*zu", static_cast<int>(cw), confusion[r][c]), o += buf;
    o += "\n";
  }
  return o;
}

}  // namespace attnlab::eval
