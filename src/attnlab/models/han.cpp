#include "attnlab/models/han.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attnlab/core/checked.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/io/config_reader.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/nn/loss.hpp"

namespace attnlab::models {

using attention::Tensor2;
using attention::Tensor3;
using nn::Tensor;

namespace {

// xarray (B,T,D) -> xtensor (B,T,D) and back (the GRUs and the pooling use
// different storage types; one copy each way).
Tensor3 to3(const Tensor& x) {
  Tensor3 y = Tensor3::from_shape({x.shape()[0], x.shape()[1], x.shape()[2]});
  std::copy(x.data(), x.data() + x.size(), y.data());
  return y;
}
Tensor toA(const Tensor3& x) {
  Tensor y = nn::empty({x.shape(0), x.shape(1), x.shape(2)});
  std::copy(x.data(), x.data() + x.size(), y.data());
  return y;
}

// Fixed cost of one word-GRU step in rows of work (chunking, see HAN::forward).
constexpr size_t kStepCost = 4;

}  // namespace

// ---------------------------------------------------------------- model
HAN::HAN(HANConfig cfg, data::Vocab vocab, uint64_t seed) : cfg_(std::move(cfg)), vocab_(std::move(vocab)) {
  cfg_.vocab = vocab_.size();
  cfg_.check();
  Rng rng(seed);
  embedding_ = nn::Embedding(cfg_.vocab, cfg_.emb, rng, data::Vocab::kPad);
  word_gru_ = nn::BiGRU(cfg_.emb, cfg_.word_hidden, rng);
  word_attn_ = attention::ContextPooling(2 * cfg_.word_hidden, cfg_.word_ctx, rng);
  sent_gru_ = nn::BiGRU(2 * cfg_.word_hidden, cfg_.sent_hidden, rng);
  sent_attn_ = attention::ContextPooling(2 * cfg_.sent_hidden, cfg_.sent_ctx, rng);
  classifier_ = nn::Linear(2 * cfg_.sent_hidden, cfg_.classes, rng);
  collect();
}

void HAN::collect() {
  params_ = ParamList();
  embedding_.collect(params_, "embedding.");
  word_gru_.collect(params_, "word_gru.");
  word_attn_.collect(params_, "word_attn.");
  sent_gru_.collect(params_, "sent_gru.");
  sent_attn_.collect(params_, "sent_attn.");
  classifier_.collect(params_, "classifier.");
}

namespace {
// Inverted dropout in place: mask = 0 or 1/(1-p).
void dropout_inplace(size_t n, float* x, float p, Rng& rng, std::vector<float>& mask) {
  mask.resize(n);
  const float keep = 1.f / (1.f - p);
  for (size_t i = 0; i < n; ++i) {
    mask[i] = rng.uniform() < p ? 0.f : keep;
    x[i] *= mask[i];
  }
}
}  // namespace

// ---------------------------------------------------------------- forward
// forward's steps, in order: sizes, dropout masks, word chunks, word level, sentence level, head.

std::vector<const std::vector<int>*> HAN::flatten(const std::vector<const HANDoc*>& docs,
                                                  Cache& c) const {
  // docs: B documents -> c.B, N, Tw, Ts, wlen (N), slen (B), first (B); the N sentences in order
  const size_t B = docs.size();
  ATTNLAB_CHECK(B > 0, "HAN forward: expected at least one document, got 0");
  c.B = B;
  c.slen.assign(B, 0);
  c.first.assign(B, 0);
  c.N = 0;
  c.Tw = 0;
  c.Ts = 0;
  for (size_t b = 0; b < B; ++b) {
    ATTNLAB_CHECK(docs[b] != nullptr && !docs[b]->empty(), "HAN forward: document ", b,
                  " has no sentences (expected at least one; encode() gives empty text one <unk>)");
    c.first[b] = c.N;
    c.slen[b] = docs[b]->size();
    c.N += docs[b]->size();
    c.Ts = std::max(c.Ts, docs[b]->size());
    for (size_t s = 0; s < docs[b]->size(); ++s) {
      const size_t L = (*docs[b])[s].size();
      ATTNLAB_CHECK(L > 0, "HAN forward: document ", b, " sentence ", s,
                    " is empty (expected at least one token)");
      c.Tw = std::max(c.Tw, L);
    }
  }
  std::vector<const std::vector<int>*> sents;
  sents.reserve(c.N);
  c.wlen.assign(c.N, 0);
  for (size_t b = 0; b < B; ++b)
    for (const std::vector<int>& sent : *docs[b]) {
      for (int id : sent)
        ATTNLAB_CHECK(id >= 0 && static_cast<size_t>(id) < cfg_.vocab, "HAN forward: token id ", id,
                      " out of range [0, ", cfg_.vocab, ")");
      c.wlen[sents.size()] = sent.size();
      sents.push_back(&sent);
    }
  return sents;
}

void HAN::plan_chunks(Cache& c) {
  // c.wlen (N) -> c.chunks: sentences sorted longest first, split into chunks minimising
  // sum_chunks T * (rows + kStepCost): each GRU step has a fixed cost (about kStepCost rows
  // of work) besides its rows; sentences with a given vector (c.sv_given) are left out
  std::vector<size_t> order;
  for (size_t n = 0; n < c.N; ++n)
    if (c.sv_given.empty() || !c.sv_given[n]) order.push_back(n);
  const size_t N = order.size();
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return c.wlen[x] > c.wlen[y]; });
  std::vector<double> best(N + 1, 0.0);
  std::vector<size_t> from(N + 1, 0);
  for (size_t j = 1; j <= N; ++j) {
    best[j] = -1;
    for (size_t i = 0; i < j; ++i) {
      const double cost = best[i] + double(c.wlen[order[i]]) * double(j - i + kStepCost);
      if (best[j] < 0 || cost < best[j]) best[j] = cost, from[j] = i;
    }
  }
  c.chunks.clear();
  for (size_t j = N; j > 0; j = from[j]) {
    WordChunk ch;
    ch.T = c.wlen[order[from[j]]];
    ch.rows.assign(order.begin() + static_cast<std::ptrdiff_t>(from[j]),
                   order.begin() + static_cast<std::ptrdiff_t>(j));
    c.chunks.push_back(std::move(ch));
  }
}

void HAN::chunk_rows(WordChunk& ch, const std::vector<const std::vector<int>*>& sents) {
  // chunk of R sentences -> ch.ids (R,T) padded with <pad>, ch.len (R)
  const size_t R = ch.rows.size(), T = ch.T;
  ch.ids.assign(R * T, data::Vocab::kPad);
  ch.len.resize(R);
  for (size_t r = 0; r < R; ++r) {
    const std::vector<int>& sent = *sents[ch.rows[r]];
    std::copy(sent.begin(), sent.end(), ch.ids.begin() + static_cast<std::ptrdiff_t>(r * T));
    ch.len[r] = sent.size();
  }
}

nn::Tensor HAN::chunk_input(const Cache& c, WordChunk& ch,
                            const std::vector<const std::vector<int>*>& sents) const {
  // chunk of R sentences -> ch.ids (R,T), ch.len (R); returns x (R,T,E): the word embeddings
  // (looked up, or copied from c.emb_in), times the dropout mask when there is one
  const size_t R = ch.rows.size(), T = ch.T, E = cfg_.emb, Tw = c.Tw;
  chunk_rows(ch, sents);
  Tensor x = nn::empty({R, T, E});
  if (c.emb_in) {  // given embeddings (attribution): sentence n's row n*Tw+t
    for (size_t r = 0; r < R; ++r)
      for (size_t t = 0; t < T; ++t)
        std::copy(c.emb_in + (ch.rows[r] * Tw + t) * E, c.emb_in + (ch.rows[r] * Tw + t + 1) * E,
                  x.data() + (r * T + t) * E);
  } else {
    embedding_.forward(R * T, ch.ids.data(), x.data());
  }
  if (!c.emb_mask.empty()) mask_chunk(c, ch, x.data());
  return x;
}

void HAN::chunk_gates(const Cache& c, const WordChunk& ch, Tensor gi[2]) const {
  // path mode: chunk rows (sentence s of copy b) -> gi[2] (R,T,G), the word GRU's input
  // projections P(base) + alpha_b (P(x) - P(base)) of that sentence, both directions
  const Path& p = *c.path;
  const size_t R = ch.rows.size(), T = ch.T, G = 3 * cfg_.word_hidden, S = p.S, Tw = p.Tw;
  for (int d = 0; d < 2; ++d) {
    gi[d] = nn::empty({R, T, G});
    for (size_t r = 0; r < R; ++r) {
      const size_t n = ch.rows[r], s = n % S;
      const float* p0 = p.p0[d].data() + s * Tw * G;
      float* g = gi[d].data() + r * T * G;
      std::copy(p0, p0 + T * G, g);
      kernels::axpy(T * G, c.path_alpha[n / S], p.dp[d].data() + s * Tw * G, g);
    }
  }
}

void HAN::project_words(Cache& c, const std::vector<const std::vector<int>*>& sents,
                        Tensor g[2]) const {
  // the chunks' sentences -> c.woff (N): each one's first row among their Nw words; g[2]
  // (1,Nw,G): the word GRU's input projections of those words (looked up, or from c.emb_in)
  const size_t E = cfg_.emb;
  c.woff.assign(c.N, 0);
  size_t nw = 0;
  for (const WordChunk& ch : c.chunks)
    for (size_t n : ch.rows) c.woff[n] = nw, nw += c.wlen[n];
  Tensor x = nn::empty({1, nw, E});
  for (const WordChunk& ch : c.chunks)
    for (size_t n : ch.rows) {
      float* xp = x.data() + c.woff[n] * E;
      if (c.emb_in)
        std::copy(c.emb_in + n * c.Tw * E, c.emb_in + (n * c.Tw + c.wlen[n]) * E, xp);
      else
        embedding_.forward(c.wlen[n], sents[n]->data(), xp);
    }
  word_gru_.project_input(x, g);
}

void HAN::gather_gates(const Cache& c, const WordChunk& ch, const Tensor g[2], Tensor gi[2]) const {
  // g[2] (1,Nw,G) -> gi[2] (R,T,G): the chunk's rows, zeros at padding
  const size_t R = ch.rows.size(), T = ch.T, G = 3 * cfg_.word_hidden;
  for (int d = 0; d < 2; ++d) {
    gi[d] = nn::zeros({R, T, G});
    for (size_t r = 0; r < R; ++r) {
      const float* src = g[d].data() + c.woff[ch.rows[r]] * G;
      std::copy(src, src + ch.len[r] * G, gi[d].data() + r * T * G);
    }
  }
}

void HAN::mask_chunk(const Cache& c, const WordChunk& ch, float* x) const {
  // x (R,T,E) *= the chunk's rows of the embedding dropout mask (N,Tw,E)
  const size_t T = ch.T, E = cfg_.emb;
  for (size_t r = 0; r < ch.rows.size(); ++r)
    for (size_t t = 0; t < T; ++t) {
      const float* mk = c.emb_mask.data() + (ch.rows[r] * c.Tw + t) * E;
      float* xp = x + (r * T + t) * E;
      for (size_t e = 0; e < E; ++e) xp[e] *= mk[e];
    }
}

attention::Tensor2 HAN::word_level(Cache& c, const std::vector<const std::vector<int>*>& sents,
                                   bool keep, std::vector<std::vector<float>>& ww) const {
  // per chunk of R sentences: x (R,T,E) -> hw (R,T,2Hw) -> sentence vectors (R,2Hw), word
  // weights (R,T); returns sv (N,2Hw) and ww[n] (wlen[n]); keep: leave the layer caches
  const size_t N = c.N, H2 = 2 * cfg_.word_hidden;
  Tensor2 sv = Tensor2::from_shape({N, H2});
  ww.assign(N, {});
  for (size_t n = 0; n < c.sv_given.size(); ++n)  // known sentences (forward_given)
    if (c.sv_given[n]) std::copy(c.sv_given[n], c.sv_given[n] + H2, sv.data() + n * H2);
  // inference and input-gradient passes: every word's input projections at once (project_words)
  const bool batched = !c.path && c.emb_mask.empty() && (!keep || c.input_grads_only);
  Tensor g[2];
  if (batched && !c.chunks.empty()) project_words(c, sents, g);
  for (WordChunk& ch : c.chunks) {
    const size_t R = ch.rows.size(), T = ch.T;
    Tensor hw;
    nn::RnnState sn[2];
    if (c.path || batched) {  // the input projections from the path's (one axpy per word) or g
      chunk_rows(ch, sents);
      Tensor gi[2];
      if (c.path) chunk_gates(c, ch, gi);
      else gather_gates(c, ch, g, gi);
      word_gru_.forward_gates(gi, ch.len, nullptr, hw, sn, keep ? &ch.gru : nullptr);
    } else {
      const Tensor x = chunk_input(c, ch, sents);
      word_gru_.forward(x, ch.len, nullptr, hw, sn, keep ? &ch.gru : nullptr);
    }
    const attention::PoolingResult wp =
        word_attn_.forward(to3(hw), ch.len, keep ? &ch.attn : nullptr);
    for (size_t r = 0; r < R; ++r) {
      const size_t n = ch.rows[r];
      std::copy(wp.out.data() + r * H2, wp.out.data() + (r + 1) * H2, sv.data() + n * H2);
      ww[n].assign(wp.weights.data() + r * T, wp.weights.data() + r * T + ch.len[r]);
    }
    if (!keep) ch = WordChunk();  // inference: free as we go
  }
  return sv;
}

attention::PoolingResult HAN::sentence_level(Cache& c, const Tensor2& sv, bool keep) const {
  // sv (N,2Hw) packed as (B,Ts,2Hw) -> hs (B,Ts,2Hs) -> document vectors (B,2Hs), weights (B,Ts)
  const size_t B = c.B, Ts = c.Ts, H2 = 2 * cfg_.word_hidden;
  Tensor sin = nn::zeros({B, Ts, H2});
  for (size_t b = 0; b < B; ++b)
    std::copy(sv.data() + c.first[b] * H2, sv.data() + (c.first[b] + c.slen[b]) * H2,
              sin.data() + b * Ts * H2);
  Tensor hs;
  nn::RnnState sn[2];
  sent_gru_.forward(sin, c.slen, nullptr, hs, sn, keep ? &c.sgru : nullptr);
  return sent_attn_.forward(to3(hs), c.slen, keep ? &c.sattn : nullptr);
}

void HAN::head(const std::vector<float>& doc, HANOutput& out) const {
  // doc (B,2Hs) -> out.logits, out.probs (B,C)
  const size_t C = cfg_.classes, B = doc.size() / (2 * cfg_.sent_hidden);
  out.logits.resize(B * C);
  classifier_.forward(B, doc.data(), out.logits.data());
  out.probs.resize(B * C);
  for (size_t b = 0; b < B; ++b) {
    const float* l = out.logits.data() + b * C;
    const float mx = *std::max_element(l, l + C);
    double z = 0;
    for (size_t j = 0; j < C; ++j) z += std::exp(static_cast<double>(l[j] - mx));
    for (size_t j = 0; j < C; ++j)
      out.probs[b * C + j] = static_cast<float>(std::exp(static_cast<double>(l[j] - mx)) / z);
  }
}

HANOutput HAN::forward(const std::vector<const HANDoc*>& docs, Cache* cache, Rng* train_rng) const {
  Cache local;
  return run_forward(docs, cache ? *cache : local, cache != nullptr, train_rng);
}

HANOutput HAN::forward_given(const std::vector<const HANDoc*>& docs,
                             const std::vector<const float*>& given) const {
  Cache c;
  c.sv_given = given;
  return run_forward(docs, c, false, nullptr);
}

HANOutput HAN::run_forward(const std::vector<const HANDoc*>& docs, Cache& c, bool keep,
                           Rng* train_rng) const {
  // docs: B documents of S_b sentences of L_bs ids
  //   -> logits, probs: (B,C); sentence weights [b](S_b); word weights [b][s](L_bs)
  const std::vector<const std::vector<int>*> sents = flatten(docs, c);
  ATTNLAB_CHECK(c.sv_given.empty() || c.sv_given.size() == c.N, "HAN forward: expected ", c.N,
                " given sentence vectors (one per sentence, or none), got ", c.sv_given.size());
  const size_t B = c.B, Ts = c.Ts, E = cfg_.emb, Hs = cfg_.sent_hidden;
  const bool drop = train_rng && cfg_.dropout > 0.f;
  c.emb_mask.clear();
  c.doc_mask.clear();
  if (drop) {  // drawn over (N,Tw,E) in row-major order, whatever the chunking
    std::vector<float> ones(c.N * c.Tw * E, 1.f);
    dropout_inplace(ones.size(), ones.data(), cfg_.dropout, *train_rng, c.emb_mask);
  }
  plan_chunks(c);
  // word level: sv (N,2Hw), ww [n](wlen[n]); sentence level: document vectors (B,2Hs)
  std::vector<std::vector<float>> ww;
  const Tensor2 sv = word_level(c, sents, keep, ww);
  const attention::PoolingResult sp = sentence_level(c, sv, keep);
  if (keep) c.sv.assign(sv.data(), sv.data() + sv.size());
  std::vector<float> doc(sp.out.data(), sp.out.data() + B * 2 * Hs);
  if (drop) dropout_inplace(doc.size(), doc.data(), cfg_.dropout, *train_rng, c.doc_mask);
  // classifier: (B,2Hs) -> (B,C)
  HANOutput out;
  head(doc, out);
  out.sent_weights.resize(B);
  out.word_weights.resize(B);
  for (size_t b = 0; b < B; ++b) {
    out.sent_weights[b].assign(sp.weights.data() + b * Ts, sp.weights.data() + b * Ts + c.slen[b]);
    out.word_weights[b].resize(c.slen[b]);
    for (size_t s = 0; s < c.slen[b]; ++s) out.word_weights[b][s] = std::move(ww[c.first[b] + s]);
  }
  if (keep) c.doc = std::move(doc);
  return out;
}

// ---------------------------------------------------------------- backward
void HAN::backward(const std::vector<float>& dlogits, Cache& c) { backward_pass(dlogits, c, this); }

std::vector<float> HAN::backward_input(const std::vector<float>& dlogits, Cache& cache) const {
  cache.keep_demb = true;
  backward_pass(dlogits, cache, nullptr);
  cache.keep_demb = false;
  return std::move(cache.demb);
}

void HAN::backward_pass(const std::vector<float>& dlogits, Cache& c, HAN* grads) const {
  // dlogits: (B,C) -> parameter grads accumulated into grads' parameters (grads == this), or
  // none (grads == nullptr: each layer's backward_input, no dW gemms or bias sums);
  // c.keep_demb: d/d(word embeddings) (N,Tw,E) into c.demb
  const size_t B = c.B, N = c.N, Tw = c.Tw, Ts = c.Ts, Hw = cfg_.word_hidden,
               Hs = cfg_.sent_hidden, C = cfg_.classes, E = cfg_.emb;
  ATTNLAB_CHECK(B > 0 && c.doc.size() == B * 2 * Hs,
                "HAN backward: the cache does not come from a forward with a cache");
  ATTNLAB_CHECK(dlogits.size() == B * C, "HAN backward: expected dlogits (", B, ",", C, "), got ",
                dlogits.size(), " values");
  ATTNLAB_CHECK(!c.path || !grads, "HAN backward: a forward_path pass has input gradients only "
                                   "(backward_path); run forward for parameter gradients");
  ATTNLAB_CHECK(!c.input_grads_only || !grads,
                "HAN backward: the forward pass had Cache::input_grads_only set (input gradients "
                "only: backward_input); run forward without it for parameter gradients");
  // classifier: ddoc (B,2Hs)
  Tensor2 ddoc = Tensor2::from_shape({B, 2 * Hs});
  if (grads)
    grads->classifier_.backward(B, c.doc.data(), dlogits.data(), ddoc.data());
  else
    classifier_.backward_input(B, dlogits.data(), ddoc.data());
  if (!c.doc_mask.empty())
    for (size_t i = 0; i < ddoc.size(); ++i) ddoc.data()[i] *= c.doc_mask[i];
  // sentence attention: dhs (B,Ts,2Hs); sentence GRU: dsin (B,Ts,2Hw)
  Tensor3 dhs3;
  if (grads) grads->sent_attn_.backward(ddoc, c.sattn, dhs3);
  else sent_attn_.backward_input(ddoc, c.sattn, dhs3);
  Tensor dsin;
  nn::RnnState dsn[2], ds0[2];
  if (grads) grads->sent_gru_.backward(toA(dhs3), dsn, c.sgru, dsin, ds0);
  else sent_gru_.backward_input(toA(dhs3), dsn, c.sgru, dsin, ds0);
  // unpack to the sentence vectors: dsv (N,2Hw)
  Tensor2 dsv = Tensor2::from_shape({N, 2 * Hw});
  for (size_t b = 0; b < B; ++b)
    std::copy(dsin.data() + b * Ts * 2 * Hw, dsin.data() + (b * Ts + c.slen[b]) * 2 * Hw,
              dsv.data() + c.first[b] * 2 * Hw);
  // word level, per chunk: dsv rows -> dhw (R,T,2Hw) -> dx (R,T,E) -> embedding
  if (c.keep_demb) c.demb.assign(N * Tw * E, 0.f);
  // input_grads_only: the projections' gradients of every word (rows c.woff), one gemm at the end
  const bool batched = c.input_grads_only && !c.path && !c.chunks.empty();
  Tensor dg[2];
  if (batched) {
    size_t nw = 0;
    for (const WordChunk& ch : c.chunks)
      for (size_t n : ch.rows) nw += c.wlen[n];
    for (Tensor& t : dg) t = nn::empty({1, nw, 3 * Hw});
  }
  for (const WordChunk& ch : c.chunks) {
    const size_t R = ch.rows.size(), T = ch.T;
    Tensor2 dsv_c = Tensor2::from_shape({R, 2 * Hw});
    for (size_t r = 0; r < R; ++r)
      std::copy(dsv.data() + ch.rows[r] * 2 * Hw, dsv.data() + (ch.rows[r] + 1) * 2 * Hw,
                dsv_c.data() + r * 2 * Hw);
    Tensor3 dhw3;
    if (grads) grads->word_attn_.backward(dsv_c, ch.attn, dhw3);
    else word_attn_.backward_input(dsv_c, ch.attn, dhw3);
    if (c.path || batched) {  // d/d(input projections): summed per sentence (path), or kept
      Tensor dgi[2];
      word_gru_.backward_gates(toA(dhw3), dsn, ch.gru, dgi, ds0);
      const size_t S = c.path ? c.path->S : 0, G = 3 * Hw;
      for (int d = 0; d < 2; ++d)
        for (size_t r = 0; r < R; ++r) {
          const float* src = dgi[d].data() + r * T * G;
          if (c.path)
            kernels::add(ch.len[r] * G, src, c.path->dg[d].data() + (ch.rows[r] % S) * c.path->Tw * G);
          else
            std::copy(src, src + ch.len[r] * G, dg[d].data() + c.woff[ch.rows[r]] * G);
        }
      continue;
    }
    Tensor dx;
    if (grads) grads->word_gru_.backward(toA(dhw3), dsn, ch.gru, dx, ds0);
    else word_gru_.backward_input(toA(dhw3), dsn, ch.gru, dx, ds0);
    if (!c.emb_mask.empty()) mask_chunk(c, ch, dx.data());
    if (grads) grads->embedding_.backward(R * T, ch.ids.data(), dx.data());  // <pad> gets none
    if (c.keep_demb)
      for (size_t r = 0; r < R; ++r)
        for (size_t t = 0; t < ch.len[r]; ++t)
          std::copy(dx.data() + (r * T + t) * E, dx.data() + (r * T + t + 1) * E,
                    c.demb.data() + (ch.rows[r] * Tw + t) * E);
  }
  if (batched && c.keep_demb) {  // dx (1,Nw,E) = dg[0] W_ih(fwd) + dg[1] W_ih(bwd) -> demb rows
    const Tensor dx = word_gru_.input_grad_from(dg);
    for (const WordChunk& ch : c.chunks)
      for (size_t n : ch.rows)
        std::copy(dx.data() + c.woff[n] * E, dx.data() + (c.woff[n] + c.wlen[n]) * E,
                  c.demb.data() + n * Tw * E);
  }
}

std::vector<float> HAN::word_embeddings(const std::vector<const HANDoc*>& docs) const {
  // docs -> (N,Tw,E)
  size_t N = 0, Tw = 0;
  for (const HANDoc* d : docs) {
    ATTNLAB_CHECK(d != nullptr, "HAN word_embeddings: null document");
    N += d->size();
    for (const auto& s : *d) Tw = std::max(Tw, s.size());
  }
  const size_t E = cfg_.emb;
  std::vector<float> x(checked_product("HAN word embeddings", {N, Tw, E}), 0.f);
  size_t n = 0;
  for (const HANDoc* d : docs)
    for (const auto& s : *d) {
      for (int id : s)
        ATTNLAB_CHECK(id >= 0 && static_cast<size_t>(id) < cfg_.vocab, "HAN word_embeddings: token id ",
                      id, " out of range [0, ", cfg_.vocab, ")");
      embedding_.forward(s.size(), s.data(), x.data() + n * Tw * E);
      ++n;
    }
  return x;
}

HANOutput HAN::forward_embedded(const std::vector<const HANDoc*>& docs, const std::vector<float>& emb,
                                Cache& cache) const {
  size_t N = 0, Tw = 0;
  for (const HANDoc* d : docs) {
    ATTNLAB_CHECK(d != nullptr, "HAN forward_embedded: null document");
    N += d->size();
    for (const auto& s : *d) Tw = std::max(Tw, s.size());
  }
  ATTNLAB_CHECK(emb.size() == N * Tw * cfg_.emb, "HAN forward_embedded: expected embeddings (", N,
                ",", Tw, ",", cfg_.emb, "), got ", emb.size(), " values");
  cache.emb_in = emb.data();
  cache.path = nullptr;
  HANOutput o = forward(docs, &cache);
  cache.emb_in = nullptr;
  return o;
}

std::vector<float> HAN::backward_embedded(const std::vector<float>& dlogits, Cache& cache) {
  cache.keep_demb = true;
  backward(dlogits, cache);
  cache.keep_demb = false;
  return std::move(cache.demb);
}

HAN::Path HAN::begin_path(const HANDoc& doc, const std::vector<float>& x,
                          const std::vector<float>& base) const {
  // x, base: (S,Tw,E) -> p0 = P(base), dp = P(x) - P(base): (S,Tw,G) per direction
  Path p;
  p.doc = &doc;
  p.S = doc.size();
  for (const auto& s : doc) p.Tw = std::max(p.Tw, s.size());
  const size_t E = cfg_.emb, n = p.S * p.Tw * E;
  ATTNLAB_CHECK(p.S > 0 && p.Tw > 0, "HAN path: expected a non-empty document");
  ATTNLAB_CHECK(x.size() == n && base.size() == n, "HAN path: expected x and base (", p.S, ",", p.Tw,
                ",", E, "), got ", x.size(), " and ", base.size(), " values");
  Tensor xt = nn::empty({p.S, p.Tw, E}), bt = nn::empty({p.S, p.Tw, E});
  std::copy(x.begin(), x.end(), xt.data());
  std::copy(base.begin(), base.end(), bt.data());
  word_gru_.project_input(bt, p.p0);
  word_gru_.project_input(xt, p.dp);
  for (int d = 0; d < 2; ++d) {
    kernels::axpy(p.dp[d].size(), -1.f, p.p0[d].data(), p.dp[d].data());
    p.dg[d] = nn::zeros({p.S, p.Tw, 3 * cfg_.word_hidden});
  }
  return p;
}

HANOutput HAN::forward_path(Path& p, const std::vector<float>& alphas, Cache& cache) const {
  // alphas (B) -> the output of B copies of p.doc at the points base + alphas[b] (x - base)
  ATTNLAB_CHECK(p.doc != nullptr && !alphas.empty(),
                "HAN forward_path: expected a Path from begin_path and at least one point");
  const std::vector<const HANDoc*> docs(alphas.size(), p.doc);
  cache.path = &p;
  cache.path_alpha = alphas;
  return forward(docs, &cache);
}

void HAN::backward_path(const std::vector<float>& dlogits, Cache& cache, Path& p) const {
  ATTNLAB_CHECK(cache.path == &p, "HAN backward_path: the cache does not come from forward_path "
                                  "with this path");
  backward_pass(dlogits, cache, nullptr);
}

std::vector<float> HAN::path_input_grad(const Path& p) const {
  // p.dg[2] (S,Tw,G) -> (S,Tw,E) = dg[0] W_ih(fwd) + dg[1] W_ih(bwd)
  const Tensor d = word_gru_.input_grad_from(p.dg);
  return std::vector<float>(d.data(), d.data() + d.size());
}

double HAN::loss_and_grad(const std::vector<const HANDoc*>& docs, const std::vector<int>& labels,
                          Rng* train_rng) {
  ATTNLAB_CHECK(labels.size() == docs.size(), "HAN loss: expected ", docs.size(),
                " labels (one per document), got ", labels.size());
  for (int l : labels)
    ATTNLAB_CHECK(l >= 0 && static_cast<size_t>(l) < cfg_.classes, "HAN loss: label ", l,
                  " out of range [0, ", cfg_.classes, ")");
  Cache cache;
  const HANOutput out = forward(docs, &cache, train_rng);
  std::vector<float> dlogits(out.logits.size());
  const float loss = nn::cross_entropy(docs.size(), cfg_.classes, out.logits.data(), labels.data(),
                                       dlogits.data());
  backward(dlogits, cache);
  return loss;
}

std::vector<double> HAN::predict_positive(const std::vector<const HANDoc*>& docs,
                                          size_t batch) const {
  ATTNLAB_CHECK(batch > 0, "HAN predict: batch must be > 0");
  std::vector<double> p;
  p.reserve(docs.size());
  for (size_t s = 0; s < docs.size(); s += batch) {
    const std::vector<const HANDoc*> part(docs.begin() + static_cast<std::ptrdiff_t>(s),
                                          docs.begin() + static_cast<std::ptrdiff_t>(std::min(docs.size(), s + batch)));
    const HANOutput o = forward(part);
    for (size_t b = 0; b < part.size(); ++b) p.push_back(o.probs[b * cfg_.classes + 1]);
  }
  return p;
}

std::vector<float> HAN::predict_probs(const std::vector<const HANDoc*>& docs, size_t batch) const {
  ATTNLAB_CHECK(batch > 0, "HAN predict: batch must be > 0");
  std::vector<float> p;
  p.reserve(docs.size() * cfg_.classes);
  for (size_t s = 0; s < docs.size(); s += batch) {
    const std::vector<const HANDoc*> part(docs.begin() + static_cast<std::ptrdiff_t>(s),
                                          docs.begin() + static_cast<std::ptrdiff_t>(std::min(docs.size(), s + batch)));
    const HANOutput o = forward(part);
    p.insert(p.end(), o.probs.begin(), o.probs.end());
  }
  return p;
}

HANDoc HAN::encode(const data::EmailDoc& doc) const {
  HANDoc d;
  for (const data::Sentence& s : doc.sentences) {
    if (s.tokens.empty()) continue;
    std::vector<int> ids;
    ids.reserve(s.tokens.size());
    for (const std::string& t : s.tokens) ids.push_back(vocab_.id(t));
    d.push_back(std::move(ids));
  }
  if (d.empty()) d.push_back({data::Vocab::kUnk});
  return d;
}

HANClassification HAN::classify(std::string_view text) const {
  const data::EmailDoc doc = data::tokenize_email(text, cfg_.email_options());
  const HANDoc enc = encode(doc);
  return describe(doc, forward({&enc}));
}

HANClassification HAN::describe(const data::EmailDoc& doc, const HANOutput& o) const {
  ATTNLAB_CHECK(o.probs.size() >= cfg_.classes && !o.sent_weights.empty() && !o.word_weights.empty(),
                "HAN describe: expected the output of a forward pass over encode(doc)");
  HANClassification r;
  r.probs.assign(o.probs.begin(), o.probs.begin() + static_cast<std::ptrdiff_t>(cfg_.classes));
  r.label = static_cast<int>(std::max_element(r.probs.begin(), r.probs.end()) - r.probs.begin());
  r.label_name = cfg_.labels[static_cast<size_t>(r.label)];
  r.truncated = doc.input_truncated || doc.doc_truncated;
  r.empty = std::none_of(doc.sentences.begin(), doc.sentences.end(),
                         [](const data::Sentence& s) { return !s.tokens.empty(); });
  // encode() skips token-less sentences (the tokenizer already drops them) and
  // maps an empty document to [<unk>]: then there is no sentence to show.
  size_t s_out = 0;
  for (const data::Sentence& s : doc.sentences) {
    if (s.tokens.empty()) continue;
    ATTNLAB_CHECK(s_out < o.sent_weights[0].size() && s_out < o.word_weights[0].size() &&
                      o.word_weights[0][s_out].size() == s.tokens.size(),
                  "HAN describe: the forward output does not match the document's sentence ", s_out);
    HANSentence hs;
    hs.text = s.text;
    hs.weight = o.sent_weights[0][s_out];
    const float sq = std::sqrt(hs.weight);
    for (size_t t = 0; t < s.tokens.size(); ++t) {
      HANWord w;
      const data::TokenSpan sp = t < s.spans.size() ? s.spans[t] : data::TokenSpan{0, 0};
      w.text = sp.begin + sp.size <= s.text.size() && sp.size > 0 ? s.text.substr(sp.begin, sp.size)
                                                                    : s.tokens[t];
      w.token = vocab_.contains(s.tokens[t]) ? s.tokens[t] : std::string("<unk>");
      w.weight = o.word_weights[0][s_out][t];
      w.score = sq * w.weight;
      hs.words.push_back(std::move(w));
    }
    r.sentences.push_back(std::move(hs));
    ++s_out;
  }
  return r;
}

std::vector<uint8_t> HAN::save(const io::SaveOptions& o) const {
  io::ModelInfo info;
  info.kind = "han";
  info.config = cfg_.to_json().dump();
  info.vocab = vocab_.tokens();
  info.extra = o.meta;
  return io::save_model(info, params_, o.dtype);
}

std::vector<uint8_t> HAN::save(io::DType dtype, const std::map<std::string, std::string>& extra) const {
  return save(io::SaveOptions{dtype, extra});
}

std::unique_ptr<HAN> HAN::load(const uint8_t* bytes, size_t size) {
  return load(io::decode(bytes, size));
}

std::unique_ptr<HAN> HAN::load(const io::SafeTensors& st) {
  const io::ModelInfo info = io::model_info(st);
  ATTNLAB_CHECK(info.kind == "han", "expected a HAN model file (kind 'han'), got kind '", info.kind,
                "'");
  const HANConfig cfg = HANConfig::from_json(info.config);
  const data::Vocab vocab = data::Vocab::from_json(nlohmann::json(info.vocab).dump());
  ATTNLAB_CHECK(vocab.size() == cfg.vocab, "HAN model file: config says vocab ", cfg.vocab,
                " but the file holds ", vocab.size(), " tokens");
  const ParamBudget budget(st.total_elements());  // config checked against the file first
  auto m = std::make_unique<HAN>(cfg, vocab, 0);
  io::load_params(st, m->params_);
  return m;
}

}  // namespace attnlab::models
