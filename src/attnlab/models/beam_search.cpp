#include "attnlab/models/beam_search.hpp"

#include <algorithm>
#include <cmath>

#include "attnlab/core/error.hpp"

namespace attnlab::models {

namespace {
constexpr int kEos = 3;  // data::Vocab::kEos
double norm_score(const BeamHyp& h, float alpha) {
  if (alpha <= 0) return h.logp;
  const double len = double(h.ids.size() + (h.done ? 1 : 0));
  return h.logp / std::pow((5.0 + len) / 6.0, double(alpha));
}
}  // namespace

std::vector<BeamHyp> beam_search(const BeamStepper& dec, size_t K, size_t max_len, float alpha) {
  ATTNLAB_CHECK(K >= 1 && K <= 64, "beam width must be in [1, 64], got ", K);
  ATTNLAB_CHECK(dec.vocab > size_t(kEos), "beam search: vocabulary of ", dec.vocab,
                " tokens has no </s>");
  const size_t V = dec.vocab, W = dec.width;
  struct Cand {
    double logp;
    size_t hyp;
    int tok;
  };
  std::vector<BeamHyp> alive(1), finished;
  std::vector<int> prev, order;
  std::vector<float> w, lp;
  std::vector<Cand> cands;
  std::vector<size_t> uses;
  for (size_t t = 0; t <= max_len && !alive.empty(); ++t) {
    const size_t n = alive.size();
    prev.resize(n);
    for (size_t i = 0; i < n; ++i) prev[i] = alive[i].ids.empty() ? 2 : alive[i].ids.back();
    w.resize(n * W);
    lp.resize(n * V);
    dec.step(n, prev.data(), w.data(), lp.data());
    cands.clear();
    const bool last = t == max_len;  // only </s> or cut
    for (size_t i = 0; i < n; ++i) {
      // top K tokens of this hypothesis (specials other than </s> are never produced)
      order.clear();
      for (size_t v = size_t(kEos); v < V; ++v) order.push_back(int(v));
      const size_t kk = std::min(K, order.size());
      std::partial_sort(order.begin(), order.begin() + long(kk), order.end(), [&](int a, int b) {
        const float la = lp[i * V + size_t(a)], lb = lp[i * V + size_t(b)];
        return la != lb ? la > lb : a < b;
      });
      for (size_t j = 0; j < kk; ++j)
        cands.push_back({alive[i].logp + lp[i * V + size_t(order[j])], i, order[j]});
    }
    std::stable_sort(cands.begin(), cands.end(),
                     [](const Cand& a, const Cand& b) { return a.logp > b.logp; });
    std::vector<BeamHyp> next;
    std::vector<size_t> parents;
    // candidates left per hypothesis: its last one takes it over instead of a copy (greedy:
    // every step); not at the last step, whose cut keeps the alive hypotheses
    uses.assign(n, 0);
    for (const Cand& c : cands) ++uses[c.hyp];
    for (const Cand& c : cands) {
      if (next.size() + finished.size() >= K) break;  // the beam shrinks as hypotheses finish
      BeamHyp h = --uses[c.hyp] == 0 && !last ? std::move(alive[c.hyp]) : alive[c.hyp];
      h.logp = c.logp;
      const float p = std::exp(lp[c.hyp * V + size_t(c.tok)]);
      if (c.tok == kEos) {
        h.done = true;
        h.eos_prob = p;
        finished.push_back(std::move(h));
        continue;
      }
      if (last) continue;  // cannot grow past max_len
      h.ids.push_back(c.tok);
      h.probs.push_back(p);
      h.attn.insert(h.attn.end(), w.begin() + long(c.hyp * W), w.begin() + long((c.hyp + 1) * W));
      parents.push_back(c.hyp);
      next.push_back(std::move(h));
    }
    if (finished.size() >= K) break;
    if (last) {
      // cut: keep the alive ones (without </s>) as candidates
      for (size_t i = 0; i < n; ++i) finished.push_back(alive[i]);
      break;
    }
    if (!next.empty()) dec.reorder(parents);
    alive = std::move(next);
  }
  if (finished.empty()) finished = alive;
  ATTNLAB_CHECK(!finished.empty(), "beam search: no hypothesis (internal error)");
  // best first; equal scores keep their order (the first one found wins, as before)
  for (BeamHyp& h : finished) h.score = norm_score(h, alpha);
  std::stable_sort(finished.begin(), finished.end(),
                   [](const BeamHyp& a, const BeamHyp& b) { return a.score > b.score; });
  return finished;
}

}  // namespace attnlab::models
