// HAN on the SpamAssassin corpus: encoding the corpus with a model's
// vocabulary, and scoring a split the same way the tf-idf baseline is scored
// (all messages, hard ham alone, spam + hard ham), so CLI, tests and the
// model card report the same numbers.
#pragma once
#include <vector>

#include "attnlab/eval/class_metrics.hpp"
#include "attnlab/data/spam_assassin.hpp"
#include "attnlab/models/han.hpp"

namespace attnlab::models {

struct HANSpamScores {
  std::vector<double> p_spam;             // one per message of the split, in split order
  eval::BinaryMetrics all;                // every message of the split
  eval::BinaryMetrics hard_ham;           // hard ham alone (all negatives: accuracy = 1 - FPR)
  eval::BinaryMetrics spam_hard_ham;      // spam + hard ham
  nlohmann::json to_json() const;         // the three metric sets
};

// Every document of the corpus encoded with the model's vocabulary.
std::vector<HANDoc> encode_corpus(const HAN& m, const data::SpamCorpus& c);
// Scores the messages idx (e.g. c.split.test); docs from encode_corpus.
HANSpamScores score_han_spam(const HAN& m, const data::SpamCorpus& c,
                             const std::vector<HANDoc>& docs, const std::vector<size_t>& idx,
                             double threshold = 0.5);
// The same three metric sets for any scorer's p_spam over idx.
HANSpamScores spam_scores(const data::SpamCorpus& c, const std::vector<size_t>& idx,
                          std::vector<double> p_spam, double threshold = 0.5);

}  // namespace attnlab::models
