#include "attnlab/models/han_spam.hpp"

#include "attnlab/core/error.hpp"

namespace attnlab::models {

nlohmann::json HANSpamScores::to_json() const {
  return {{"test", all.to_json()},
          {"test_hard_ham", hard_ham.to_json()},
          {"test_spam_vs_hard_ham", spam_hard_ham.to_json()}};
}

std::vector<HANDoc> encode_corpus(const HAN& m, const data::SpamCorpus& c) {
  std::vector<HANDoc> out;
  out.reserve(c.docs.size());
  for (const data::EmailDoc& d : c.docs) out.push_back(m.encode(d));
  return out;
}

HANSpamScores spam_scores(const data::SpamCorpus& c, const std::vector<size_t>& idx,
                          std::vector<double> p_spam, double threshold) {
  ATTNLAB_CHECK(p_spam.size() == idx.size(), "spam_scores: expected ", idx.size(),
                " scores (one per message), got ", p_spam.size());
  HANSpamScores s;
  std::vector<int> y, yh, ys;
  std::vector<double> ph, ps;
  for (size_t k = 0; k < idx.size(); ++k) {
    ATTNLAB_CHECK(idx[k] < c.records.size(), "spam_scores: index ", idx[k], " out of range");
    const data::EmailRecord& r = c.records[idx[k]];
    y.push_back(r.label);
    if (r.group == "hard-ham-1") yh.push_back(r.label), ph.push_back(p_spam[k]);
    if (r.group == "hard-ham-1" || r.label == 1) ys.push_back(r.label), ps.push_back(p_spam[k]);
  }
  s.all = eval::binary_metrics(y, p_spam, threshold);
  s.hard_ham = eval::binary_metrics(yh, ph, threshold);
  s.spam_hard_ham = eval::binary_metrics(ys, ps, threshold);
  s.p_spam = std::move(p_spam);
  return s;
}

HANSpamScores score_han_spam(const HAN& m, const data::SpamCorpus& c,
                             const std::vector<HANDoc>& docs, const std::vector<size_t>& idx,
                             double threshold) {
  ATTNLAB_CHECK(docs.size() == c.records.size(), "score_han_spam: expected ", c.records.size(),
                " encoded documents, got ", docs.size());
  std::vector<const HANDoc*> ptrs;
  for (size_t i : idx) {
    ATTNLAB_CHECK(i < docs.size(), "score_han_spam: index ", i, " out of range");
    ptrs.push_back(&docs[i]);
  }
  return spam_scores(c, idx, m.predict_positive(ptrs), threshold);
}

}  // namespace attnlab::models
