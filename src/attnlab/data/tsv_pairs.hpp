// Pairs from the user's own file: UTF-8 text, one "source<TAB>target" pair per line.
//
// Rules (what `attnlab train seq2seq --train FILE` accepts):
// - A UTF-8 byte order mark at the start is dropped; lines end with "\n" or "\r\n"; the
//   last line may lack its end.
// - Lines that are empty or hold only whitespace are left out (not counted as bad).
// - A pair line has exactly one tab; each side must hold a non-whitespace character.
//   Anything else (no tab, two tabs, an empty side) or bytes that are not UTF-8 make the
//   line bad (with extra_columns, a third and later tab-separated columns are allowed and
//   ignored, e.g. an attribution column): an attnlab::Error naming the file, the line number and what was wrong, or,
//   with skip_bad, the line is skipped and counted (the first few kept as examples).
//
// Tokens (TokenUnit, per side):
// - char: Unicode code points (so "你好" is two tokens and "é" one); spaces are tokens too.
// - word: runs of characters between ASCII whitespace (space, tab, CR, LF, VT, FF).
// - wordpunct: words for natural-language text: lowercased (the capitals of Basic Latin,
//   Latin-1, Greek and Cyrillic; other scripts unchanged), split at whitespace (ASCII, U+00A0,
//   U+3000), each punctuation mark its own token (ASCII punctuation and symbols, Latin-1's,
//   General Punctuation U+2010-U+205E, CJK U+3001-U+303F, full-width forms), except an
//   apostrophe (' or U+2019) between two letters ("don't", "o'clock") and a '.' or ','
//   between two digits ("3.5", "1,000"), which stay inside the word; digits stay in words
//   ("42", "mp3").
// join_tokens is the inverse for display: char joins with "", word with " ", wordpunct with
// " " except before closing punctuation (. , ! ? ; : ) ] } % and their CJK forms) and after
// an opening bracket; split_tokens(join_tokens(t)) == t for tokens split_tokens made.
// Vocabularies are counted from the training pairs only: a token seen fewer than
// min_count times is left out and becomes <unk> (data::Vocab ids 0..3 are the specials).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/data/split.hpp"
#include "attnlab/data/vocab.hpp"

namespace attnlab::data {

enum class TokenUnit { Char, Word, WordPunct };
// "char" | "word" | "wordpunct"; anything else is an attnlab::Error naming both.
TokenUnit parse_token_unit(const std::string& s);
const char* token_unit_name(TokenUnit u);

// Byte offset of the first byte that does not start a well-formed UTF-8 sequence (overlong
// forms, surrogates and code points above U+10FFFF are ill-formed), or npos if all is UTF-8.
size_t utf8_invalid_at(const std::string& s);
// Text -> tokens. The text must be valid UTF-8 for TokenUnit::Char (Error otherwise).
std::vector<std::string> split_tokens(const std::string& text, TokenUnit u);
// Tokens -> text (see above).
std::string join_tokens(const std::vector<std::string>& toks, TokenUnit u);

struct TextPair {
  std::string src, tgt;
  size_t line = 0;  // 1-based line number in its file
};

struct TsvOptions {
  bool skip_bad = false;
  bool extra_columns = false;  // ignore columns after the second (else such a line is bad)
};

struct TsvPairs {
  std::vector<TextPair> pairs;
  size_t lines = 0;        // lines read (blank ones included)
  size_t skipped = 0;      // bad lines skipped (skip_bad only)
  std::vector<std::string> skipped_examples;  // "line N: why", the first 5
};

// Parses the text of a whole file; `source` names it in messages.
TsvPairs parse_tsv_pairs(const std::string& text, const std::string& source, const TsvOptions& o = {});
TsvPairs load_tsv_pairs(const std::string& path, const TsvOptions& o = {});

// Vocabulary of the tokens seen at least min_count times (>= 1) in the sequences.
Vocab build_token_vocab(const std::vector<std::vector<std::string>>& seqs, size_t min_count);
// Tokens -> ids, unknown tokens as <unk> (no <s>/</s>).
std::vector<int> encode_tokens(const Vocab& v, const std::vector<std::string>& toks);

// Seeded split of pairs by their source text (split.hpp: a source and all its pairs go to
// the same split, whatever the order of the lines).
struct PairSplit {
  std::vector<TextPair> train, valid, test;
};
PairSplit split_pairs(const std::vector<TextPair>& pairs, uint64_t seed, const SplitFractions& f);
// "90/5/5" (three numbers >= 0 with a positive sum, normalized) -> fractions; Error otherwise.
SplitFractions parse_split_fractions(const std::string& s);

}  // namespace attnlab::data
