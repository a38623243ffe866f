#include "attnlab/explain/attribution.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numeric>

#include "attnlab/core/checked.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/data/email.hpp"

namespace attnlab::explain {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// At most this many floats of interpolated embeddings per batched pass.
constexpr size_t kBatchFloats = size_t{1} << 20;

nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

// alpha of interpolation step k of m (IG), or 1 (gradient x input)
double alpha(const Options& o, size_t k) {
  return o.method == Method::IG ? (static_cast<double>(k) + 0.5) / static_cast<double>(o.steps) : 1.0;
}
}  // namespace

Method parse_method(const std::string& s) {
  if (s == "grad") return Method::Grad;
  if (s == "ig") return Method::IG;
  throw Error("attribution: expected 'grad' (gradient x input) or 'ig' (integrated gradients), got '" +
              s + "'");
}
const char* method_name(Method m) { return m == Method::IG ? "ig" : "grad"; }

Baseline parse_baseline(const std::string& s) {
  if (s == "zero") return Baseline::Zero;
  if (s == "unk") return Baseline::Unk;
  if (s == "pad") return Baseline::Pad;
  throw Error("attribution: expected the baseline 'zero', 'unk' or 'pad' (or given values), got '" + s +
              "'");
}
const char* baseline_name(Baseline b) {
  return b == Baseline::Unk ? "unk" : b == Baseline::Pad ? "pad" : "zero";
}

void Options::check(size_t emb) const {
  ATTNLAB_CHECK(steps >= 1 && steps <= kMaxSteps, "attribution: expected steps in [1, ", kMaxSteps,
                "], got ", steps);
  ATTNLAB_CHECK(emb > 0 && baseline.size() % emb == 0,
                "attribution: expected a baseline of ", emb,
                " values per token (one embedding, or one per input token; none for the named "
                "baseline), got ", baseline.size());
  for (float v : baseline)
    ATTNLAB_CHECK(std::isfinite(v), "attribution: expected finite baseline values, got ", v);
}

double kendall_tau_b(const std::vector<float>& a, const std::vector<float>& b) {
  // Knight's O(n log n) method: sort the pairs by (a, b), count the ties of a (n1) and of
  // (a, b) (n3); merge-sort by b counting the exchanges, which are the discordant pairs; count
  // the ties of b (n2). conc - disc = n0 - n1 - n2 + n3 - 2 disc, all integers.
  ATTNLAB_CHECK(a.size() == b.size(), "kendall tau: expected rankings of equal length, got ", a.size(),
                " and ", b.size());
  const size_t n = a.size();
  if (n < 2) return kNaN;
  for (size_t i = 0; i < n; ++i)
    if (std::isnan(a[i]) || std::isnan(b[i])) return kNaN;
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return a[x] < a[y] || (a[x] == a[y] && b[x] < b[y]); });
  // pairs tied within runs of equal keys, over a sequence in sorted order
  auto tied_pairs = [n](auto&& same) {
    uint64_t pairs = 0, run = 1;
    for (size_t i = 1; i <= n; ++i) {
      if (i < n && same(i)) { ++run; continue; }
      pairs += run * (run - 1) / 2;
      run = 1;
    }
    return pairs;
  };
  const uint64_t n1 = tied_pairs([&](size_t i) { return a[idx[i]] == a[idx[i - 1]]; });
  const uint64_t n3 =
      tied_pairs([&](size_t i) { return a[idx[i]] == a[idx[i - 1]] && b[idx[i]] == b[idx[i - 1]]; });
  // bottom-up merge sort of b in this order; disc = pairs i < j with b_i > b_j
  std::vector<float> v(n), w(n);
  for (size_t i = 0; i < n; ++i) v[i] = b[idx[i]];
  uint64_t disc = 0;
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi) {
        if (v[j] < v[i]) {
          disc += mid - i;  // v[j] is below every value left in the first half
          w[o++] = v[j++];
        } else {
          w[o++] = v[i++];
        }
      }
      while (i < mid) w[o++] = v[i++];
      while (j < hi) w[o++] = v[j++];
    }
    std::swap(v, w);
  }
  const uint64_t n2 = tied_pairs([&](size_t i) { return v[i] == v[i - 1]; });
  const double n0 = double(n) * double(n - 1) / 2;
  const double s = n0 - double(n1) - double(n2) + double(n3) - 2 * double(disc);
  const double den = std::sqrt((n0 - double(n1)) * (n0 - double(n2)));
  return den > 0 ? s / den : kNaN;
}

std::vector<size_t> top_k(const std::vector<float>& v, size_t k) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return v[x] > v[y]; });
  idx.resize(std::min(k, idx.size()));
  return idx;
}

size_t removal_count(size_t topk, size_t n) {
  if (n == 0) return 0;
  const size_t k = topk ? topk : std::max<size_t>(1, (n + 5) / 10);
  return std::min(k, n - 1);
}

std::vector<float> attention_rollout(const std::vector<float>& maps, size_t layers, size_t heads,
                                     size_t n) {
  // maps: (L,H,n,n) -> (n,n) = A_L ... A_1, A_l = rownorm(0.5 mean_h(maps_l) + 0.5 I)
  ATTNLAB_CHECK(layers >= 1 && heads >= 1 && n >= 1 &&
                    maps.size() == checked_product("rollout maps", {layers, heads, n, n}),
                "attention rollout: expected (", layers, ",", heads, ",", n, ",", n, ") maps, got ",
                maps.size(), " values");
  std::vector<double> R(n * n, 0.0), A(n * n), next(n * n);
  for (size_t i = 0; i < n; ++i) R[i * n + i] = 1.0;
  for (size_t l = 0; l < layers; ++l) {
    for (size_t i = 0; i < n; ++i) {
      double row = 0;
      for (size_t j = 0; j < n; ++j) {
        double m = 0;
        for (size_t h = 0; h < heads; ++h) m += maps[((l * heads + h) * n + i) * n + j];
        A[i * n + j] = 0.5 * m / double(heads) + (i == j ? 0.5 : 0.0);
        row += A[i * n + j];
      }
      if (row > 0)
        for (size_t j = 0; j < n; ++j) A[i * n + j] /= row;
    }
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        double s = 0;
        for (size_t q = 0; q < n; ++q) s += A[i * n + q] * R[q * n + j];
        next[i * n + j] = s;
      }
    R.swap(next);
  }
  return std::vector<float>(R.begin(), R.end());
}

// ---------------------------------------------------------------- HAN
models::HANDoc remove_words(const models::HANDoc& doc,
                            const std::vector<std::pair<size_t, size_t>>& where) {
  models::HANDoc out;
  for (size_t s = 0; s < doc.size(); ++s) {
    std::vector<int> sent;
    for (size_t t = 0; t < doc[s].size(); ++t)
      if (std::find(where.begin(), where.end(), std::make_pair(s, t)) == where.end())
        sent.push_back(doc[s][t]);
    if (!sent.empty()) out.push_back(std::move(sent));
  }
  if (out.empty()) out.push_back({data::Vocab::kUnk});
  return out;
}

namespace {
// The removal check of a HAN attribution: the top-k words by attention and by attribution
// removed, p(target y) of the two documents in one batch; sv_x: the input's sentence vectors
// (S,2Hw) (a sentence without a removed word keeps its vector: only the others rerun the word
// level). Fills r.k, r.removed_* and r.prob_without_*.
void han_removal_check(const models::HAN& m, const models::HANDoc& doc, const std::vector<float>& sv_x,
                       const std::vector<float>& flat_att, const std::vector<float>& flat_attr,
                       size_t topk, size_t y, HANAttribution& r) {
  const size_t S = doc.size(), C = m.config().classes;
  std::vector<std::pair<size_t, size_t>> pos;
  for (size_t s = 0; s < S; ++s)
    for (size_t t = 0; t < doc[s].size(); ++t) pos.emplace_back(s, t);
  size_t n_words = 0;
  for (const auto& sent : doc) n_words += sent.size();
  r.k = removal_count(topk, n_words);
  for (size_t i : top_k(flat_att, r.k)) r.removed_attention.push_back(pos[i]);
  for (size_t i : top_k(flat_attr, r.k)) r.removed_attribution.push_back(pos[i]);
  const models::HANDoc d_att = remove_words(doc, r.removed_attention);
  const models::HANDoc d_attr = remove_words(doc, r.removed_attribution);
  std::vector<const float*> given;
  for (const auto* where : {&r.removed_attention, &r.removed_attribution}) {
    size_t kept = 0;  // the sentences of remove_words(doc, *where), in order
    for (size_t s = 0; s < S; ++s) {
      size_t removed = 0;
      for (const auto& p : *where) removed += p.first == s;
      if (removed == doc[s].size()) continue;  // dropped
      given.push_back(removed ? nullptr : sv_x.data() + s * 2 * m.config().word_hidden);
      ++kept;
    }
    if (kept == 0) given.push_back(nullptr);  // [<unk>]
  }
  const models::HANOutput ow = m.forward_given({&d_att, &d_attr}, given);
  r.prob_without_attention = ow.probs[y];
  r.prob_without_attribution = ow.probs[C + y];
}

// attribute_han, with the forward output of the prediction (for classify_explained)
HANAttribution attribute_han_with(const models::HAN& m, const models::HANDoc& doc, const Options& o,
                                  models::HANOutput& pred) {
  const size_t E = m.config().emb, C = m.config().classes;
  o.check(E);
  ATTNLAB_CHECK(!doc.empty(), "HAN attribution: expected a document with at least one sentence");
  const size_t S = doc.size();
  size_t Tw = 0, n_words = 0;
  for (const auto& s : doc) Tw = std::max(Tw, s.size()), n_words += s.size();
  const std::vector<float> x = m.word_embeddings({&doc});  // (S,Tw,E)
  const size_t per = S * Tw * E;
  HANAttribution r;
  r.method = o.method;
  r.steps = o.method == Method::IG ? o.steps : 1;
  // the baseline at every word (IG), zeros at padding
  std::vector<float> base(per, 0.f);
  if (o.method == Method::IG) {
    const std::vector<float> b = o.baseline_for(n_words, E, [&](int id) {
      const models::HANDoc one = {{id}};
      return m.word_embeddings({&one});
    });
    size_t i = 0;
    for (size_t s = 0; s < S; ++s)
      for (size_t t = 0; t < doc[s].size(); ++t, ++i)
        std::copy(b.begin() + long(i * E), b.begin() + long((i + 1) * E),
                  base.begin() + long((s * Tw + t) * E));
  }
  // gradients of log p(y) at b + alpha (x - b), `R` interpolation points per batched pass;
  // gradient x input is one point, alpha = 1: its forward pass is also the prediction's
  const size_t R = std::max<size_t>(1, std::min(r.steps, kBatchFloats / std::max<size_t>(per, 1)));
  std::vector<double> gsum(per, 0.0);
  size_t y = 0;
  std::vector<float> sv_x;  // the sentence vectors (S,2Hw) at the input, for the removal check
  if (o.method == Method::IG) {  // the prediction and f at the baseline: one batch of two
    std::vector<float> xb(x);
    xb.insert(xb.end(), base.begin(), base.end());
    models::HAN::Cache cb;
    pred = m.forward_embedded({&doc, &doc}, xb, cb);
    sv_x.assign(cb.sv.begin(), cb.sv.begin() + long(S * 2 * m.config().word_hidden));
    y = size_t(std::max_element(pred.probs.begin(), pred.probs.begin() + long(C)) - pred.probs.begin());
    r.f_baseline = std::log(std::max(double(pred.probs[C + y]), 1e-300));
  }
  // d log p_y / d logits = onehot(y) - p, for n points
  auto dlogits_of = [&](const models::HANOutput& oi, size_t n) {
    std::vector<float> d(n * C);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < C; ++j) d[i * C + j] = (j == y ? 1.f : 0.f) - oi.probs[i * C + j];
    return d;
  };
  if (o.method == Method::IG) {
    // by linearity (HAN::Path): the word GRU's input projections at every point from two made
    // once, and the gradient summed over the points before its one product with W_ih
    models::HAN::Path path = m.begin_path(doc, x, base);
    for (size_t k0 = 0; k0 < r.steps; k0 += R) {
      const size_t n = std::min(R, r.steps - k0);
      std::vector<float> alphas(n);
      for (size_t i = 0; i < n; ++i) alphas[i] = float(alpha(o, k0 + i));
      models::HAN::Cache c;
      const models::HANOutput oi = m.forward_path(path, alphas, c);
      m.backward_path(dlogits_of(oi, n), c, path);
    }
    const std::vector<float> g = m.path_input_grad(path);  // (S,Tw,E)
    for (size_t j = 0; j < per; ++j) gsum[j] = g[j];
  } else {  // gradient x input: one point, the input itself
    models::HAN::Cache c;
    c.input_grads_only = true;  // backward_input only: every word projected in one gemm
    pred = m.forward_embedded({&doc}, x, c);
    sv_x = std::move(c.sv);
    y = size_t(std::max_element(pred.probs.begin(), pred.probs.end()) - pred.probs.begin());
    const std::vector<float> g = m.backward_input(dlogits_of(pred, 1), c);  // (S,Tw,E)
    for (size_t j = 0; j < per; ++j) gsum[j] = g[j];
  }
  // the prediction and its attention
  r.target = int(y);
  r.prob = pred.probs[y];
  r.f = std::log(std::max(double(pred.probs[y]), 1e-300));
  r.attention.resize(S);
  for (size_t s = 0; s < S; ++s) {
    r.attention[s].resize(doc[s].size());
    for (size_t t = 0; t < doc[s].size(); ++t)
      r.attention[s][t] = pred.word_weights[0][s][t] * pred.sent_weights[0][s];
  }
  r.attribution.resize(S);
  std::vector<float> flat_att, flat_attr;
  for (size_t s = 0; s < S; ++s) {
    r.attribution[s].resize(doc[s].size());
    for (size_t t = 0; t < doc[s].size(); ++t) {
      double v = 0;
      for (size_t e = 0; e < E; ++e) {
        const size_t j = (s * Tw + t) * E + e;
        v += (double(x[j]) - base[j]) * gsum[j] / double(r.steps);
      }
      r.attribution[s][t] = float(v);
      flat_att.push_back(r.attention[s][t]);
      flat_attr.push_back(float(v));
    }
  }
  std::vector<float> mag(flat_attr.size());
  for (size_t i = 0; i < mag.size(); ++i) mag[i] = std::fabs(flat_attr[i]);
  r.tau = kendall_tau_b(flat_att, mag);
  han_removal_check(m, doc, sv_x, flat_att, flat_attr, o.topk, y, r);
  return r;
}
}  // namespace

HANAttribution attribute_han(const models::HAN& m, const models::HANDoc& doc, const Options& o) {
  models::HANOutput pred;
  return attribute_han_with(m, doc, o, pred);
}

double han_prob_without(const models::HAN& m, const models::HANDoc& doc,
                        const std::vector<std::pair<size_t, size_t>>& where, int target) {
  ATTNLAB_CHECK(target >= 0 && size_t(target) < m.config().classes, "HAN removal: class ", target,
                " out of range [0, ", m.config().classes, ")");
  const models::HANDoc d = remove_words(doc, where);
  return double(m.forward({&d}).probs[size_t(target)]);
}

std::vector<std::pair<size_t, size_t>> random_words(const models::HANDoc& doc, size_t k, uint64_t seed) {
  std::vector<std::pair<size_t, size_t>> pos;
  for (size_t s = 0; s < doc.size(); ++s)
    for (size_t t = 0; t < doc[s].size(); ++t) pos.emplace_back(s, t);
  k = std::min(k, pos.empty() ? 0 : pos.size() - 1);
  Rng rng(seed);
  for (size_t i = 0; i < k; ++i) {  // a partial Fisher-Yates shuffle
    const size_t j = i + size_t(rng.next_u32()) % (pos.size() - i);
    std::swap(pos[i], pos[j]);
  }
  pos.resize(k);
  return pos;
}

namespace {
// HANAttribution::to_json() without the per-word maps (attribution, attention)
nlohmann::json han_summary_json(const HANAttribution& a) {
  auto pairs = [](const std::vector<std::pair<size_t, size_t>>& v) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& p : v) j.push_back({p.first, p.second});
    return j;
  };
  return {{"method", method_name(a.method)},
          {"steps", a.steps},
          {"target", a.target},
          {"f", num(a.f)},
          {"f_baseline", a.method == Method::IG ? num(a.f_baseline) : nlohmann::json()},
          {"tau", num(a.tau)},
          {"removal",
           {{"k", a.k},
            {"prob", num(a.prob)},
            {"by_attention", {{"prob", num(a.prob_without_attention)}, {"removed", pairs(a.removed_attention)}}},
            {"by_attribution",
             {{"prob", num(a.prob_without_attribution)}, {"removed", pairs(a.removed_attribution)}}}}}};
}
}  // namespace

nlohmann::json HANAttribution::to_json() const {
  nlohmann::json j = han_summary_json(*this);
  j["attribution"] = attribution;
  j["attention"] = attention;
  return j;
}

// ---------------------------------------------------------------- seq2seq (every kind)
namespace {
// teacher-forced log p(out + </s> | src)
double sequence_logprob(const models::Translator& m, const std::vector<int>& src,
                        const std::vector<int>& out) {
  const models::Seq2SeqBatch b = models::make_seq2seq_batch({src}, {out}, {0});
  std::vector<float> logp, attn;
  m.score_batch(b, logp, attn);
  double s = 0;
  for (float v : logp) s += v;
  return s;
}
}  // namespace

Seq2SeqAttribution attribute_seq2seq(models::Translator& m, const std::vector<int>& src,
                                     const std::vector<int>& out, const Options& o) {
  const size_t E = m.source_dim();
  o.check(E);
  models::check_source_ids(src, m.src_vocab().size(), m.max_src_len(), !m.sides().src_tokens.empty());
  for (int y : out)
    ATTNLAB_CHECK(y >= 0 && size_t(y) < m.tgt_vocab().size(), "seq2seq attribution: output id ", y,
                  " out of range [0, ", m.tgt_vocab().size(), ")");
  const size_t S = src.size(), T = out.size() + 1;  // teacher-forced steps incl. </s>
  Seq2SeqAttribution r;
  r.method = o.method;
  r.steps = o.method == Method::IG ? o.steps : 1;
  r.src = src;
  r.out = out;
  r.rows = out.size();
  r.cols = S;
  r.kind = m.kind();
  r.attention_source = r.kind == "transformer-seq2seq"
                           ? "cross-attention of the last decoder layer, mean over heads"
                           : "the decoder's attention weights";
  const std::vector<float> x = m.source_embeddings(src);  // (S,E)
  const std::vector<float> base =
      o.baseline_for(S, E, [&](int id) { return m.source_embeddings({id}); });  // (S,E)
  const models::Seq2SeqBatch one = models::make_seq2seq_batch({src}, {out}, {0});
  // f and the attention at the input (and f at the baseline), every step at once
  {
    std::vector<float> logp, attn, des;
    m.source_logp_grad(one, x, logp, attn, des);
    r.f.assign(logp.begin(), logp.begin() + long(r.rows));
    r.attention.assign(attn.begin(), attn.begin() + long(r.rows * S));
    r.prob = 0;
    for (float v : logp) r.prob += v;
    r.prob = std::exp(r.prob);
    if (o.method == Method::IG) {
      m.source_logp_grad(one, base, logp, attn, des);
      r.f_baseline.assign(logp.begin(), logp.begin() + long(r.rows));
    }
  }
  // replicas (row t, step k): target t alone is scored, the source is b + alpha_k (x - b)
  r.attribution.assign(r.rows * S, 0.f);
  const size_t total = r.rows * r.steps;
  const size_t R = std::max<size_t>(1, std::min<size_t>(256, kBatchFloats / (m.pass_floats(S, T) + 1)));
  std::vector<double> acc(r.rows * S, 0.0);
  for (size_t i0 = 0; i0 < total; i0 += R) {
    const size_t n = std::min(R, total - i0);
    // the decoders are causal: row t's log p depends on the targets before it only, so a batch
    // runs the targets up to its last (largest) row
    const size_t Tb = (i0 + n - 1) / r.steps + 1;
    models::Seq2SeqBatch b;
    b.B = n;
    b.S = S;
    b.T = Tb;
    std::vector<float> es(checked_product("seq2seq attribution batch", {n, S, E}));
    for (size_t i = 0; i < n; ++i) {
      const size_t row = (i0 + i) / r.steps, k = (i0 + i) % r.steps;
      b.src.insert(b.src.end(), src.begin(), src.end());
      b.tgt_in.insert(b.tgt_in.end(), one.tgt_in.begin(), one.tgt_in.begin() + long(Tb));
      for (size_t t = 0; t < Tb; ++t) b.tgt_out.push_back(t == row ? one.tgt_out[t] : data::Vocab::kPad);
      b.src_len.push_back(S);
      b.tgt_len.push_back(Tb);
      const float a = float(alpha(o, k));
      for (size_t j = 0; j < S * E; ++j) es[i * S * E + j] = base[j] + a * (x[j] - base[j]);
    }
    std::vector<float> logp, attn, des;
    m.source_logp_grad(b, es, logp, attn, des);
    for (size_t i = 0; i < n; ++i) {
      const size_t row = (i0 + i) / r.steps;
      for (size_t s = 0; s < S; ++s) {
        double v = 0;
        for (size_t e = 0; e < E; ++e)
          v += double(des[(i * S + s) * E + e]) * (double(x[s * E + e]) - base[s * E + e]);
        acc[row * S + s] += v;
      }
    }
  }
  for (size_t j = 0; j < acc.size(); ++j) r.attribution[j] = float(acc[j] / double(r.steps));
  // tau per output step
  double tsum = 0;
  size_t tn = 0;
  for (size_t t = 0; t < r.rows; ++t) {
    std::vector<float> att(r.attention.begin() + long(t * S), r.attention.begin() + long((t + 1) * S));
    std::vector<float> mag(S);
    for (size_t s = 0; s < S; ++s) mag[s] = std::fabs(r.attribution[t * S + s]);
    r.tau.push_back(kendall_tau_b(att, mag));
    if (std::isfinite(r.tau.back())) tsum += r.tau.back(), ++tn;
  }
  r.tau_mean = tn ? tsum / double(tn) : kNaN;
  // removal: inputs ranked by attention and by attribution summed over the output steps
  r.k = removal_count(o.topk, S);
  std::vector<float> col_att(S, 0.f), col_attr(S, 0.f);
  for (size_t t = 0; t < r.rows; ++t)
    for (size_t s = 0; s < S; ++s) {
      col_att[s] += r.attention[t * S + s];
      col_attr[s] += r.attribution[t * S + s];
    }
  auto prob_without = [&](const std::vector<float>& rank, std::vector<size_t>& rm) {
    rm = top_k(rank, r.k);
    return seq2seq_prob_without(m, src, out, rm);
  };
  r.prob_without_attention = prob_without(col_att, r.removed_attention);
  r.prob_without_attribution = prob_without(col_attr, r.removed_attribution);
  return r;
}

double seq2seq_prob_without(const models::Translator& m, const std::vector<int>& src,
                            const std::vector<int>& out, const std::vector<size_t>& where) {
  std::vector<int> kept;
  for (size_t s = 0; s < src.size(); ++s)
    if (std::find(where.begin(), where.end(), s) == where.end()) kept.push_back(src[s]);
  return kept.empty() ? kNaN : std::exp(sequence_logprob(m, kept, out));
}

nlohmann::json Seq2SeqAttribution::to_json() const {
  nlohmann::json taus = nlohmann::json::array();
  for (double t : tau) taus.push_back(num(t));
  nlohmann::json fb = nlohmann::json::array();
  for (double v : f_baseline) fb.push_back(num(v));
  return {{"method", method_name(method)},
          {"steps", steps},
          {"kind", kind},
          {"attention_source", attention_source},
          {"rows", rows},
          {"cols", cols},
          {"attribution", attribution},
          {"attention", attention},
          {"f", f},
          {"f_baseline", fb},
          {"tau", taus},
          {"tau_mean", num(tau_mean)},
          {"removal",
           {{"k", k},
            {"prob", num(prob)},
            {"by_attention", {{"prob", num(prob_without_attention)}, {"removed", removed_attention}}},
            {"by_attribution", {{"prob", num(prob_without_attribution)}, {"removed", removed_attribution}}}}}};
}

// ---------------------------------------------------------------- from text
HANExplained classify_explained(const models::HAN& m, std::string_view text, const Options& o) {
  o.check(m.config().emb);
  HANExplained r;
  const data::EmailDoc email = data::tokenize_email(text, m.config().email_options());
  const models::HANDoc doc = m.encode(email);
  models::HANOutput pred;  // the attribution's forward pass is also the classification's
  r.attribution = attribute_han_with(m, doc, o, pred);
  r.classification = m.describe(email, pred);
  return r;
}

std::string HANExplained::to_json_string() const {
  // the classification's JSON text, each word with its attribution and attention (9 digits:
  // a float exactly; null when not finite), and "explain": the rest of HANAttribution::to_json()
  const HANAttribution& a = attribution;
  auto word = [&a](std::string& o, size_t s, size_t t) {
    if (s >= a.attribution.size() || t >= a.attribution[s].size()) return;
    for (const auto& [name, v] : {std::make_pair(",\"attribution\":", a.attribution[s][t]),
                                  std::make_pair(",\"attention\":", a.attention[s][t])}) {
      o += name;
      char buf[32];
      const int n = std::isfinite(v) ? std::snprintf(buf, sizeof buf, "%.9g", double(v)) : 0;
      if (n > 0) o.append(buf, size_t(n));
      else o += "null";
    }
  };
  const std::string tail =
      ",\"explain\":" + han_summary_json(a).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return classification.to_json_string(word, tail);
}

TranslationExplained translate_explained(models::Translator& m, const std::string& text,
                                         const models::DecodeOptions& d, const Options& o) {
  // every kind through the Translator interface: the RNN (kind "seq2seq") and the
  // Transformer ("transformer-seq2seq") implement its attribution hooks
  o.check(m.source_dim());
  TranslationExplained r;
  const std::vector<int> src = m.encode_input(text);
  r.translation = m.decode(src, d);
  r.attribution = attribute_seq2seq(m, src, r.translation.ids, o);
  return r;
}

}  // namespace attnlab::explain
