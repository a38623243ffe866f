// Corpus BLEU (Papineni et al. 2002) as sacreBLEU computes it (Post 2018), on text that is
// already tokenized (sacreBLEU's tokenize='none' on space-joined tokens):
// - per sentence, n-grams n = 1..4 of the hypothesis; each n-gram's count is clipped by its
//   largest count in any one reference; correct[n] and total[n] sum over the corpus;
// - the reference length of a sentence is the one closest to the hypothesis length (ties:
//   the shorter); brevity penalty exp(1 - ref_len / sys_len) when sys_len < ref_len (0 when
//   sys_len = 0), else 1;
// - precisions p_n = correct[n] / total[n]; a zero p_n is smoothed by the method:
//     none:  stays 0 (then BLEU is 0)
//     exp:   sacreBLEU's default: the k-th zero precision becomes 1 / (2^k total[n])
//     floor: smooth_value / total[n] (sacreBLEU's default value 0.1)
//   an order with total[n] = 0 ends the orders (and makes BLEU 0 unless effective_order,
//   which then averages over the orders seen);
// - BLEU = 100 * BP * exp(mean of log p_n); 0 when no n-gram at all matches.
// Checked against the expected scores of sacreBLEU's own tests (tests/fixtures/bleu/).
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace attnlab::eval {

struct BleuOptions {
  std::string smooth = "exp";  // none | exp | floor
  double smooth_value = 0.1;   // floor only
  bool effective_order = false;
};

struct BleuResult {
  double score = 0;                  // 0..100
  std::array<double, 4> precisions{};  // 0..100, after smoothing
  double bp = 0, ratio = 0;           // brevity penalty, sys_len / ref_len
  size_t sys_len = 0, ref_len = 0;
};

// Sufficient statistics, accumulated sentence by sentence.
struct BleuStats {
  std::array<size_t, 4> correct{}, total{};
  size_t sys_len = 0, ref_len = 0, sentences = 0;
  void add(const std::vector<std::string>& hyp, const std::vector<std::vector<std::string>>& refs);
  void add(const std::vector<std::string>& hyp, const std::vector<std::string>& ref) {
    add(hyp, std::vector<std::vector<std::string>>{ref});
  }
  BleuResult result(const BleuOptions& o = {}) const;
};

// From the statistics alone (sacreBLEU's compute_bleu); throws on an unknown smoothing.
BleuResult compute_bleu(const std::array<size_t, 4>& correct, const std::array<size_t, 4>& total,
                        size_t sys_len, size_t ref_len, const BleuOptions& o = {});

// Space-separated tokens (runs of ' ') -> tokens, as tokenize='none' splits.
std::vector<std::string> split_spaces(const std::string& s);

}  // namespace attnlab::eval
