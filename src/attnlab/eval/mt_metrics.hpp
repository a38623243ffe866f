// Translation metrics on detokenized text, as sacreBLEU 2.x computes them (Post 2018):
//
// tokenize_zh: sacreBLEU's `zh` tokenizer: the line stripped of Python whitespace, a space put
//   on both sides of every character in its "Chinese" ranges (CJK ideographs and extensions,
//   compatibility ideographs, radicals, strokes, bopomofo, CJK symbols and punctuation
//   U+3000-U+303F, full-width forms U+FF00-U+FFEF, vertical/small forms, enclosed CJK, the
//   symbol blocks U+2600-U+27BF; and, as its table is written, U+2001-U+2A6D and
//   U+2F81-U+2FA1 where it meant the supplementary-plane ranges U+20000-U+2A6D6 and
//   U+2F800-U+2FA1D: a Python '\u20000' is two characters, so the comparison admits the BMP
//   range between the first four hex digits; so curly quotes and dashes are split off too),
//   then the regexp part of `13a` applied in order, each a left-to-right non-overlapping
//   substitution:
//     1. a space on both sides of  { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ /
//     2. X[.,]  -> "X [.,] " when X is not an ASCII digit
//     3. [.,]X  -> " [.,] X" when X is not an ASCII digit
//     4. digit '-' -> "digit - "
//   and finally split at Python whitespace (str.split(): ASCII whitespace, U+001C-U+001F,
//   U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
//   BLEU with tokenize='zh' is BleuStats (bleu.hpp) on these tokens.
//
// ChrF: chrF2 with character n-grams 1..6 and no word n-grams (sacreBLEU's CHRF defaults:
//   char_order 6, word_order 0, beta 2, whitespace removed, no lowercasing, eps_smoothing
//   off). Per sentence and order n: the text with all Python whitespace removed, its n-grams
//   of code points counted; hyp = hypothesis n-grams (0 when the reference has none of
//   order n), ref = reference n-grams, match = sum over n-grams of min(count in hyp, count
//   in ref). The corpus sums these per order; precision and recall of every order with
//   hyp > 0 and ref > 0 are averaged (P, R); chrF = 100 (1+b^2) P R / (b^2 P + R), b = 2, or
//   0 when P + R = 0 or no order counts.
//
// No reference implementation was importable here (neither python3 has sacrebleu, PyPI is
// unreachable and Debian 12 packages none), so the fixtures in tests/fixtures/mt_metrics/ were
// worked out by hand from the rules above (each case says how).
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace attnlab::eval {

std::vector<std::string> tokenize_zh(const std::string& line);
// The 13a regexp part alone (steps 1-4 and the split), without the CJK spacing.
std::vector<std::string> tokenize_13a_regexp(const std::string& line);

struct ChrfStats {
  static constexpr size_t kOrder = 6;
  std::array<size_t, kOrder> hyp{}, ref{}, match{};
  size_t sentences = 0;
  // One hypothesis against one reference (UTF-8; an Error if either is not UTF-8).
  void add(const std::string& hypothesis, const std::string& reference);
  double score(double beta = 2.0) const;  // 0..100
};

}  // namespace attnlab::eval
