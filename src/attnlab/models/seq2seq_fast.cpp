// The quantized decode paths of Seq2Seq (DecodePrecision::Int8, the default, and Int16).
//
// Per decoder step the float path streams every decoder matrix once: for the shipped
// G2P model 2.5 MB of float32, more than this machine's 2 MB L2, so each step waited on
// L3 (about 160 us in wasm). Here the same step is rearranged and quantized (int8: a
// quarter of the bytes, 0.6 MB per step):
//   * the embedding half of the decoder's input projection is a table computed once per
//     model: emb_gi[v] = W_ih[:, :E] tgt_emb[v] + b_ih  (V, G), G = 3 or 4 gates x Dh;
//   * the rest are int8/int16 products: W_hh h_{t-1} and the input-feeding half
//     W_ih[:, E:] att_{t-1} at the start of step t (so the step that emits </s> does not
//     compute them for a step that never comes), the attention query (additive W1 h_t,
//     local-p's predictor), the combine layer W_c [ctx; h_t] and the output layer W_out att_t.
// The matrices are int8 (or int16) with one scale per row, inputs are quantized to int16
// per vector at each step (kernels::gemm_i8 / gemm_i16). Scores, softmax, the context
// vector and the gate nonlinearities stay float32. The encoder's recurrent products and the attention keys
// are quantized too; the encoder's input projections are a per-symbol table like emb_gi.
#include <algorithm>
#include <cmath>

#include "attnlab/core/error.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/nn/quantized.hpp"

namespace attnlab::models {

namespace k = attnlab::kernels;

namespace {
using QMat = nn::QuantMatrix;

struct EncDir {
  std::vector<float> src_gi;  // (Vs, G): W_ih src_emb[v] + b_ih, the input projection per symbol
  QMat whh;                   // (G, H) with b_hh
};
}  // namespace

struct Seq2Seq::FastPlan {
  size_t G = 0;   // decoder gates x Dh
  size_t Aq = 0;  // rows of wq: additive A, local-p A, else 0
  std::vector<EncDir> enc;  // 1 or 2 directions
  std::vector<float> emb_gi;  // (V, G)
  QMat whh;     // W_hh (G, Dh), bias b_hh
  QMat wq;      // the query rows (Aq, Dh): additive W1 or local-p's W_p; empty otherwise
  QMat comb;    // W_c (C, De + Dh), bias b_c
  QMat wfeed;   // W_ih[:, E:] (G, C), the input-feeding half; empty without input feeding
  QMat wout;    // W_out (V, C), bias b_out
  QMat keys;    // additive W2 (A, De) / general W (Dh, De): the keys of an input, once per input
};

const Seq2Seq::FastPlan& Seq2Seq::fast_plan(DecodePrecision precision) const {
  ATTNLAB_CHECK(precision != DecodePrecision::F32, "seq2seq: no quantized plan for f32");
  const bool i8 = precision == DecodePrecision::Int8;
  std::shared_ptr<const FastPlan>& slot = plan_[i8 ? 0 : 1];
  if (slot) return *slot;
  auto p = std::make_shared<FastPlan>();
  const size_t Dh = cfg_.dec_hidden(), E = cfg_.emb, I = cfg_.dec_input(), C = cfg_.combine;
  const size_t De = cfg_.enc_out(), V = tgt_.size(), He = cfg_.enc_hidden;
  const size_t G = dec_.gates() * Dh, Ge = enc_.gates() * He;
  p->G = G;
  // encoder directions
  const size_t Vs = src_.size();
  for (size_t dir = 0; dir < enc_.directions(); ++dir) {
    const nn::Recurrent::Weights w = enc_.weights(dir);
    EncDir d;
    d.src_gi.resize(Vs * Ge);
    for (size_t v = 0; v < Vs; ++v) std::copy(w.b_ih, w.b_ih + Ge, d.src_gi.begin() + long(v * Ge));
    k::gemm(false, true, Vs, Ge, E, 1.f, src_emb_.weight.value.data(), E, w.w_ih, E, 1.f,
            d.src_gi.data(), Ge);
    d.whh = QMat(i8, He, {{Ge, w.w_hh, He, w.b_hh}});
    p->enc.push_back(std::move(d));
  }
  // decoder
  const nn::Recurrent::Weights dw = dec_.weights(0);
  const float *w_ih = dw.w_ih, *b_ih = dw.b_ih, *w_hh = dw.w_hh, *b_hh = dw.b_hh;
  // emb_gi (V,G) = tgt_emb (V,E) W_ih[:, :E]^T + b_ih
  p->emb_gi.resize(V * G);
  for (size_t v = 0; v < V; ++v) std::copy(b_ih, b_ih + G, p->emb_gi.begin() + long(v * G));
  k::gemm(false, true, V, G, E, 1.f, tgt_emb_.weight.value.data(), E, w_ih, I, 1.f,
          p->emb_gi.data(), G);
  const attention::Score& sc = is_local_ ? local_.score : att_.score;
  p->whh = QMat(i8, Dh, {{G, w_hh, Dh, b_hh}});
  if (is_local_ || sc.kind() == attention::ScoreKind::Additive) {
    p->Aq = cfg_.attn_dim;
    p->wq = QMat(i8, Dh, {{p->Aq, is_local_ ? local_.pred_weight.value.data() : sc.query_weight.value.data(), Dh, nullptr}});
  }
  p->comb = QMat(i8, De + Dh, {{C, combine_.weight.value.data(), De + Dh, combine_.bias.value.data()}});
  if (cfg_.input_feed) p->wfeed = QMat(i8, C, {{G, w_ih + E, I, nullptr}});
  p->wout = QMat(i8, C, {{V, out_.weight.value.data(), C, out_.bias.value.data()}});
  if (sc.kind() == attention::ScoreKind::Additive)
    p->keys = QMat(i8, De, {{cfg_.attn_dim, sc.key_weight.value.data(), De, nullptr}});
  else if (sc.kind() == attention::ScoreKind::General)
    p->keys = QMat(i8, De, {{Dh, sc.weight.value.data(), De, nullptr}});
  slot = p;
  return *slot;
}

Seq2Seq::InferCtx Seq2Seq::fast_prepare(const std::vector<int>& src, const FastPlan& p) const {
  // src: (S) -> enc (S,De), keys, decoder initial state; quantized recurrent products
  InferCtx ctx;
  const size_t S = src.size(), De = cfg_.enc_out(), H = cfg_.enc_hidden;
  const bool lstm = enc_.lstm();
  const size_t Ge = enc_.gates() * H;
  ctx.S = S;
  std::vector<float> gh(Ge), a(5 * H), h(H), c(H);
  std::vector<int16_t> qx;
  std::vector<float> sx;
  ctx.enc.resize(S * De);
  for (size_t d = 0; d < p.enc.size(); ++d) {
    const EncDir& dir = p.enc[d];
    const bool reverse = d == 1;
    std::fill(h.begin(), h.end(), 0.f);
    std::fill(c.begin(), c.end(), 0.f);
    for (size_t i = 0; i < S; ++i) {
      const size_t t = reverse ? S - 1 - i : i;
      const float* gi = dir.src_gi.data() + size_t(src[t]) * Ge;
      dir.whh.apply(1, h.data(), H, gh.data(), Ge, qx, sx);
      if (lstm) nn::lstm_update(H, gi, gh.data(), c.data(), h.data(), c.data(), a.data());
      else nn::gru_update(H, gi, gh.data(), h.data(), h.data(), a.data());
      std::copy(h.begin(), h.end(), ctx.enc.begin() + long(t * De + d * H));
    }
    ctx.h0.insert(ctx.h0.end(), h.begin(), h.end());
    if (lstm) ctx.c0.insert(ctx.c0.end(), c.begin(), c.end());
  }
  if (p.keys.rows()) {  // keys (S, A or Dh) = enc W^T, quantized
    ctx.keys.resize(S * p.keys.rows());
    p.keys.apply(S, ctx.enc.data(), De, ctx.keys.data(), p.keys.rows(), qx, sx);
  } else {  // scores whose prepared keys are no product (cosine's norms): as the float path
    const attention::Score& sc = is_local_ ? local_.score : att_.score;
    ctx.keys.resize(S * sc.prepared_width());
    sc.prepare_keys(S, ctx.enc.data(), ctx.keys.data());
  }
  return ctx;
}

Seq2Seq::Stepper Seq2Seq::fast_stepper(const InferCtx& ctx, const FastPlan& p) const {
  // state: [h (Dh) | c (Dh, LSTM only) | attentional vector (C, input feeding only)], as
  // the float path. The products with the previous h and att are taken at the start of a
  // step, so the step that ends the output does not pay for the next one.
  const bool lstm = dec_.lstm(), feed = cfg_.input_feed;
  const size_t Dh = cfg_.dec_hidden(), G = p.G, C = cfg_.combine, hc = lstm ? 2 * Dh : Dh;
  const size_t SS = hc + (feed ? C : 0);
  Stepper st;
  st.state_size = SS;
  st.init.assign(SS, 0.f);
  std::copy(ctx.h0.begin(), ctx.h0.end(), st.init.begin());
  if (lstm) std::copy(ctx.c0.begin(), ctx.c0.end(), st.init.begin() + long(Dh));
  // buffers reused by every step of this decode (no allocation once the beam is full)
  struct Scratch {
    std::vector<float> gh, gf, gi, a, h, q, cat, att, hid, mask, sx;
    std::vector<int16_t> qx;
  };
  auto scratch = std::make_shared<Scratch>();
  st.step = [this, &ctx, &p, lstm, feed, Dh, G, C, hc, SS, scratch](
                size_t n, const int* prev, const float* in, float* out, float* weights, float* logp) {
    const size_t S = ctx.S, De = cfg_.enc_out(), V = tgt_.size(), Aq = p.Aq;
    Scratch& z = *scratch;
    z.gh.resize(n * G);
    z.gf.resize(n * G);
    z.gi.resize(G);
    z.a.resize(5 * Dh);
    z.h.resize(n * Dh);
    z.q.resize(n * Aq);
    z.cat.resize(n * (De + Dh));
    z.att.resize(n * C);
    std::vector<float> &gh = z.gh, &gf = z.gf, &gi = z.gi, &a = z.a, &h = z.h, &cat = z.cat,
                       &att = z.att, &sx = z.sx;
    std::vector<int16_t>& qx = z.qx;
    // 1. the previous state's products: W_hh h + b_hh, W_feed att (0 before the first output)
    p.whh.apply(n, in, SS, gh.data(), G, qx, sx);
    bool any_att = false;
    if (feed)
      for (size_t b = 0; b < n && !any_att; ++b)
        for (size_t j = 0; j < C; ++j)
          if (in[b * SS + hc + j] != 0.f) { any_att = true; break; }
    if (any_att) p.wfeed.apply(n, in + hc, SS, gf.data(), G, qx, sx);
    // 2. recurrent cell: gi = emb_gi[prev] (+ W_feed att)
    for (size_t b = 0; b < n; ++b) {
      float* so = out + b * SS;
      const float* eg = p.emb_gi.data() + size_t(prev[b]) * G;
      if (any_att) {
        const float* f = gf.data() + b * G;
        for (size_t j = 0; j < G; ++j) gi[j] = eg[j] + f[j];
      } else {
        std::copy(eg, eg + G, gi.begin());
      }
      if (lstm) nn::lstm_update(Dh, gi.data(), gh.data() + b * G, in + b * SS + Dh, so, so + Dh, a.data());
      else nn::gru_update(Dh, gi.data(), gh.data() + b * G, in + b * SS, so, a.data());
      std::copy(so, so + Dh, h.begin() + long(b * Dh));
    }
    // 2b. the query rows (additive W1 h_t, local-p's W_p h_t)
    if (Aq) p.wq.apply(n, h.data(), Dh, z.q.data(), Aq, qx, sx);
    // 3. attention weights (n,S), float32
    attention_weights(n, ctx, h.data(), z.q.data(), z.hid, z.mask, weights);
    // 4. att = tanh(W_c [ctx; h] + b_c)
    for (size_t b = 0; b < n; ++b) {
      k::gemv(true, S, De, 1.f, ctx.enc.data(), De, weights + b * S, 0.f, cat.data() + b * (De + Dh));
      std::copy(h.begin() + long(b * Dh), h.begin() + long((b + 1) * Dh), cat.begin() + long(b * (De + Dh) + De));
    }
    p.comb.apply(n, cat.data(), De + Dh, att.data(), C, qx, sx);
    k::tanh(n * C, att.data(), att.data());
    // 5. logits = W_out att + b_out; att is the next step's input feeding
    if (feed)
      for (size_t b = 0; b < n; ++b) std::copy(att.begin() + long(b * C), att.begin() + long((b + 1) * C), out + b * SS + hc);
    p.wout.apply(n, att.data(), C, logp, V, qx, sx);
    k::log_softmax_rows(n, V, logp, logp);
  };
  return st;
}

}  // namespace attnlab::models
