#include "attnlab/eval/bleu.hpp"

#include <cmath>
#include <cstdlib>
#include <map>

#include "attnlab/core/error.hpp"

namespace attnlab::eval {

namespace {
using Counts = std::map<std::vector<std::string>, size_t>;
Counts ngram_counts(const std::vector<std::string>& toks, size_t n) {
  Counts c;
  for (size_t i = 0; i + n <= toks.size(); ++i)
    ++c[std::vector<std::string>(toks.begin() + long(i), toks.begin() + long(i + n))];
  return c;
}
}  // namespace

void BleuStats::add(const std::vector<std::string>& hyp,
                    const std::vector<std::vector<std::string>>& refs) {
  ATTNLAB_CHECK(!refs.empty(), "BLEU: expected at least one reference per hypothesis");
  ++sentences;
  const size_t h = hyp.size();
  size_t best = refs[0].size(), best_diff = SIZE_MAX;
  for (const auto& r : refs) {
    const size_t d = r.size() > h ? r.size() - h : h - r.size();
    if (d < best_diff || (d == best_diff && r.size() < best)) {
      best_diff = d;
      best = r.size();
    }
  }
  sys_len += h;
  ref_len += best;
  for (size_t n = 1; n <= 4; ++n) {
    const Counts hc = ngram_counts(hyp, n);
    Counts maxref;
    for (const auto& r : refs)
      for (const auto& [g, c] : ngram_counts(r, n)) maxref[g] = std::max(maxref[g], c);
    for (const auto& [g, c] : hc) {
      total[n - 1] += c;
      auto it = maxref.find(g);
      correct[n - 1] += it == maxref.end() ? 0 : std::min(c, it->second);
    }
  }
}

BleuResult BleuStats::result(const BleuOptions& o) const { return compute_bleu(correct, total, sys_len, ref_len, o); }

BleuResult compute_bleu(const std::array<size_t, 4>& correct, const std::array<size_t, 4>& total,
                        size_t sys_len, size_t ref_len, const BleuOptions& o) {
  ATTNLAB_CHECK(o.smooth == "none" || o.smooth == "exp" || o.smooth == "floor",
                "BLEU: smoothing must be none, exp or floor, got '", o.smooth, "'");
  BleuResult r;
  r.sys_len = sys_len;
  r.ref_len = ref_len;
  r.ratio = ref_len ? double(sys_len) / double(ref_len) : 0.0;
  r.bp = sys_len >= ref_len ? 1.0 : sys_len > 0 ? std::exp(1.0 - double(ref_len) / double(sys_len)) : 0.0;
  bool any = false;
  for (size_t c : correct) any = any || c > 0;
  if (!any) return r;  // no n-gram matches: 0
  double smooth_mteval = 1;
  size_t order = 4;
  for (size_t n = 0; n < 4; ++n) {
    if (total[n] == 0) break;
    if (o.effective_order) order = n + 1;
    if (correct[n] == 0) {
      if (o.smooth == "exp") {
        smooth_mteval *= 2;
        r.precisions[n] = 100.0 / (smooth_mteval * double(total[n]));
      } else if (o.smooth == "floor") {
        r.precisions[n] = 100.0 * o.smooth_value / double(total[n]);
      }
    } else {
      r.precisions[n] = 100.0 * double(correct[n]) / double(total[n]);
    }
  }
  double logsum = 0;
  for (size_t n = 0; n < order; ++n) {
    if (r.precisions[n] <= 0) return r;  // log 0: BLEU 0
    logsum += std::log(r.precisions[n]);
  }
  r.score = r.bp * std::exp(logsum / double(order));
  return r;
}

std::vector<std::string> split_spaces(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace attnlab::eval
