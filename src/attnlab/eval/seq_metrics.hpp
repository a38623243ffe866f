// Sequence metrics for seq2seq evaluation.
//
// - edit_distance: Levenshtein distance (insert, delete, substitute, each cost 1).
// - G2P word error rate (WER): a word is wrong unless the hypothesis equals one
//   of its reference pronunciations exactly; WER = wrong words / words.
// - G2P phoneme error rate (PER): per word, the smallest edit distance to any
//   reference, and that reference's length (ties: the first reference in
//   order, i.e. the dictionary's primary pronunciation); PER = sum of the
//   distances / sum of those lengths over the corpus.
// - Exact match accuracy, optionally per group (e.g. per date input format).
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "attnlab/core/error.hpp"

namespace attnlab::eval {

// Levenshtein distance between two sequences of comparable tokens; O(|a||b|)
// time, O(min(|a|,|b|)) memory.
template <class Seq>
size_t edit_distance(const Seq& a, const Seq& b) {
  const Seq& s = a.size() < b.size() ? a : b;  // shorter one in the row
  const Seq& l = a.size() < b.size() ? b : a;
  std::vector<size_t> row(s.size() + 1);
  for (size_t j = 0; j <= s.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= l.size(); ++i) {
    size_t diag = row[0];  // D[i-1][j-1]
    row[0] = i;
    for (size_t j = 1; j <= s.size(); ++j) {
      const size_t up = row[j];  // D[i-1][j]
      const size_t sub = diag + (l[i - 1] == s[j - 1] ? 0 : 1);
      row[j] = std::min({sub, up + 1, row[j - 1] + 1});
      diag = up;
    }
  }
  return row[s.size()];
}

// Result of scoring one hypothesis against its references.
struct G2PWordScore {
  bool correct = false;  // equals one reference exactly
  size_t edits = 0;      // min edit distance over the references
  size_t ref_len = 0;    // length of the reference attaining it
  size_t best_ref = 0;   // its index
};

template <class Seq>
G2PWordScore score_g2p_word(const Seq& hyp, const std::vector<Seq>& refs) {
  ATTNLAB_CHECK(!refs.empty(), "score_g2p_word: expected at least one reference pronunciation");
  G2PWordScore r;
  bool first = true;
  for (size_t k = 0; k < refs.size(); ++k) {
    const size_t d = edit_distance(hyp, refs[k]);
    if (first || d < r.edits) {
      r.edits = d;
      r.ref_len = refs[k].size();
      r.best_ref = k;
      first = false;
    }
  }
  r.correct = r.edits == 0;
  return r;
}

// Corpus accumulator for WER and PER.
struct G2PScore {
  size_t words = 0, word_errors = 0, phone_edits = 0, ref_phones = 0;

  template <class Seq>
  G2PWordScore add(const Seq& hyp, const std::vector<Seq>& refs) {
    const G2PWordScore w = score_g2p_word(hyp, refs);
    ++words;
    word_errors += w.correct ? 0 : 1;
    phone_edits += w.edits;
    ref_phones += w.ref_len;
    return w;
  }
  void merge(const G2PScore& o) {
    words += o.words;
    word_errors += o.word_errors;
    phone_edits += o.phone_edits;
    ref_phones += o.ref_phones;
  }
  // Fractions in [0,1] (PER can exceed 1 for very long hypotheses); 0 when empty.
  double wer() const { return words ? static_cast<double>(word_errors) / words : 0.0; }
  double per() const { return ref_phones ? static_cast<double>(phone_edits) / ref_phones : 0.0; }
};

// Exact-match accuracy, overall and per group (groups 0..n-1, grown on demand).
struct ExactMatch {
  std::vector<size_t> correct, total;

  template <class Seq>
  bool add(const Seq& hyp, const Seq& ref, size_t group = 0) {
    const bool ok = hyp == ref;
    add_result(ok, group);
    return ok;
  }
  void add_result(bool ok, size_t group = 0) {
    if (group >= total.size()) {
      total.resize(group + 1, 0);
      correct.resize(group + 1, 0);
    }
    ++total[group];
    correct[group] += ok ? 1 : 0;
  }
  size_t num_total() const {
    size_t n = 0;
    for (size_t t : total) n += t;
    return n;
  }
  size_t num_correct() const {
    size_t n = 0;
    for (size_t c : correct) n += c;
    return n;
  }
  double accuracy() const {
    const size_t n = num_total();
    return n ? static_cast<double>(num_correct()) / n : 0.0;
  }
  // 0 for a group that saw no samples.
  double accuracy(size_t group) const {
    return group < total.size() && total[group] ? static_cast<double>(correct[group]) / total[group] : 0.0;
  }
};

// Non-template conveniences (compiled once, usable from bindings).
size_t edit_distance_ids(const std::vector<int>& a, const std::vector<int>& b);
size_t edit_distance_tokens(const std::vector<std::string>& a, const std::vector<std::string>& b);
size_t edit_distance_chars(const std::string& a, const std::string& b);

}  // namespace attnlab::eval
