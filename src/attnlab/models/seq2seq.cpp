#include "attnlab/models/seq2seq.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "attnlab/core/enum_names.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/models/beam_search.hpp"
#include "attnlab/models/text_sides_fields.hpp"
#include "attnlab/nn/loss.hpp"

namespace attnlab::models {

namespace k = attnlab::kernels;

namespace {
constexpr EnumName<DecodePrecision> kPrecisions[] = {
    {DecodePrecision::Int8, "int8"}, {DecodePrecision::Int16, "int16"}, {DecodePrecision::F32, "f32"}};
}  // namespace

DecodePrecision parse_decode_precision(const std::string& s) {
  if (const DecodePrecision* p = enum_lookup(kPrecisions, s)) return *p;
  throw Error("precision: expected 'int8', 'int16' or 'f32', got '" + s + "'");
}
const char* decode_precision_name(DecodePrecision p) { return enum_name(kPrecisions, p, "f32"); }

using attention::Tensor3;
using nn::RnnState;
using Tensor = nn::Tensor;
using json = nlohmann::json;

// ---------------------------------------------------------------- config
namespace {
// the config's keys, each once (io/config_fields.hpp), typed and range-read through the one
// config reader (64-bit reads, so a size of 2^32 + 64 is an error in wasm too, never 64);
// validate() then checks the ranges and combinations
using text_sides::kAny;
using Cfg = Seq2SeqConfig;
constexpr auto kFields = std::tuple_cat(
    text_sides::kHead,
    std::make_tuple(
        io::field("rnn", &Cfg::rnn).required(), io::field("bidirectional", &Cfg::bidirectional).required(),
        io::field("input_feed", &Cfg::input_feed).required(), io::field("score", &Cfg::score).required(),
        io::field("emb", &Cfg::emb).required().in(0, kAny),
        io::field("enc_hidden", &Cfg::enc_hidden).required().in(0, kAny),
        io::field("attn_dim", &Cfg::attn_dim).in(0, kAny),
        io::field("local_window", &Cfg::local_window).in(0, kAny),
        io::field("combine", &Cfg::combine).required().in(0, kAny)),
    text_sides::kTail);
}  // namespace

ATTNLAB_CONFIG_JSON(Seq2SeqConfig, "seq2seq", kFields, validate)

void Seq2SeqConfig::validate() const {
  TextSides::validate("seq2seq config");
  ATTNLAB_CHECK(rnn == "gru" || rnn == "lstm", "seq2seq config: rnn must be 'gru' or 'lstm', got '",
                rnn, "'");
  if (score != "local_p") {
    bool known = false;
    for (const std::string& n : attention::score_names()) known = known || n == score;
    std::string all;
    for (const std::string& n : attention::score_names()) all += n + ", ";
    ATTNLAB_CHECK(known, "seq2seq config: score must be one of ", all, "or local_p, got '", score, "'");
  }
  auto in = [](size_t v, size_t lo, size_t hi) { return v >= lo && v <= hi; };
  ATTNLAB_CHECK(in(emb, 1, 4096) && in(enc_hidden, 1, 4096) && in(combine, 1, 8192),
                "seq2seq config: emb, enc_hidden, combine must be in [1, 4096], got ", emb, ", ",
                enc_hidden, ", ", combine);
  ATTNLAB_CHECK(in(attn_dim, 1, 4096), "seq2seq config: attn_dim must be in [1, 4096], got ",
                attn_dim);
  ATTNLAB_CHECK(in(local_window, 1, 1000),
                "seq2seq config: local_window must be in [1, 1000], got ", local_window);
}

Seq2SeqConfig tfjs_dates_config() {
  Seq2SeqConfig c;
  c.task = "dates";
  c.rnn = "lstm";
  c.bidirectional = false;
  c.input_feed = false;
  c.score = "dot";
  c.emb = 64;
  c.enc_hidden = 64;
  c.combine = 64;
  c.max_src_len = 20;
  c.max_tgt_len = 12;
  c.output_sep = "";
  return c;
}

// ---------------------------------------------------------------- batch
void check_seq2seq_batch(const Seq2SeqBatch& b, size_t src_vocab, size_t tgt_vocab,
                         const char* who, bool lengths) {
  const size_t B = b.B, S = b.S, T = b.T;
  ATTNLAB_CHECK(B > 0 && S > 0 && T > 0 && b.src.size() == B * S && b.tgt_in.size() == B * T &&
                    b.tgt_out.size() == B * T && (!lengths || b.src_len.size() == B),
                who, ": inconsistent batch (B=", B, ", S=", S, ", T=", T, ")");
  for (int id : b.src)
    ATTNLAB_CHECK(id >= 0 && size_t(id) < src_vocab, who, ": source id ", id, " out of range [0, ",
                  src_vocab, ")");
  for (size_t i = 0; i < B * T; ++i)
    ATTNLAB_CHECK(b.tgt_in[i] >= 0 && size_t(b.tgt_in[i]) < tgt_vocab && b.tgt_out[i] >= 0 &&
                      size_t(b.tgt_out[i]) < tgt_vocab,
                  who, ": target id out of range [0, ", tgt_vocab, ")");
}

Seq2SeqBatch make_seq2seq_batch(const std::vector<std::vector<int>>& src,
                                const std::vector<std::vector<int>>& tgt,
                                const std::vector<size_t>& idx) {
  ATTNLAB_CHECK(!idx.empty(), "seq2seq batch: expected at least one sample");
  ATTNLAB_CHECK(src.size() == tgt.size(), "seq2seq batch: ", src.size(), " sources but ",
                tgt.size(), " targets");
  Seq2SeqBatch b;
  b.B = idx.size();
  for (size_t i : idx) {
    ATTNLAB_CHECK(i < src.size(), "seq2seq batch: sample ", i, " out of range [0, ", src.size(), ")");
    ATTNLAB_CHECK(!src[i].empty(), "seq2seq batch: sample ", i, " has an empty source");
    b.S = std::max(b.S, src[i].size());
    b.T = std::max(b.T, tgt[i].size() + 1);
  }
  b.src.assign(b.B * b.S, data::Vocab::kPad);
  b.tgt_in.assign(b.B * b.T, data::Vocab::kPad);
  b.tgt_out.assign(b.B * b.T, data::Vocab::kPad);
  for (size_t r = 0; r < b.B; ++r) {
    const auto& s = src[idx[r]];
    const auto& t = tgt[idx[r]];
    std::copy(s.begin(), s.end(), b.src.begin() + static_cast<std::ptrdiff_t>(r * b.S));
    b.tgt_in[r * b.T] = data::Vocab::kBos;
    for (size_t j = 0; j < t.size(); ++j) {
      b.tgt_in[r * b.T + j + 1] = t[j];
      b.tgt_out[r * b.T + j] = t[j];
    }
    b.tgt_out[r * b.T + t.size()] = data::Vocab::kEos;
    b.src_len.push_back(s.size());
    b.tgt_len.push_back(t.size() + 1);
  }
  return b;
}

// ---------------------------------------------------------------- model
namespace {
// The attention of a config: local-p (a General score inside a predicted window) or a global
// score. Used by the constructor and by param_count, so the two cannot disagree.
attention::LocalConfig attention_config(const Seq2SeqConfig& c) {
  attention::LocalConfig lc;
  attention::ScoreConfig& sc = lc.score;
  sc.query_dim = c.dec_hidden();
  sc.key_dim = c.enc_out();
  sc.attn_dim = c.attn_dim;
  sc.max_keys = c.max_src_len;  // location
  if (c.score == "local_p") {
    lc.mode = attention::LocalMode::Predictive;
    lc.window = c.local_window;
    sc.kind = attention::ScoreKind::General;
    lc.predictor_dim = c.attn_dim;
  } else {
    sc.kind = attention::parse_score_kind(c.score);
  }
  return lc;
}
}  // namespace

Seq2Seq::Seq2Seq(const Seq2SeqConfig& cfg, const data::Vocab& src, const data::Vocab& tgt,
                 uint64_t seed)
    : TranslatorOf(cfg, src, tgt) {
  Rng rng(seed);
  const size_t E = cfg_.emb, He = cfg_.enc_hidden, De = cfg_.enc_out(), Dh = cfg_.dec_hidden();
  src_emb_ = nn::Embedding(src_.size(), E, rng, data::Vocab::kPad);
  tgt_emb_ = nn::Embedding(tgt_.size(), E, rng, data::Vocab::kPad);
  const nn::Recurrent::Kind kind = nn::Recurrent::parse_kind(cfg_.rnn);
  enc_ = nn::Recurrent(kind, cfg_.bidirectional, E, He, rng);
  dec_ = nn::Recurrent(kind, false, cfg_.dec_input(), Dh, rng);
  const attention::LocalConfig lc = attention_config(cfg_);
  is_local_ = cfg_.score == "local_p";
  if (is_local_) local_ = attention::LocalAttention(lc, rng);
  else att_ = attention::Attention(lc.score, rng);
  combine_ = nn::Linear(De + Dh, cfg_.combine, rng);
  out_ = nn::Linear(cfg_.combine, tgt_.size(), rng);
}

uint64_t Seq2Seq::param_count(Seq2SeqConfig cfg, size_t src_vocab, size_t tgt_vocab) {
  cfg.src_vocab = src_vocab;
  cfg.tgt_vocab = tgt_vocab;
  cfg.validate();
  const size_t E = cfg.emb, De = cfg.enc_out(), Dh = cfg.dec_hidden();
  const nn::Recurrent::Kind kind = nn::Recurrent::parse_kind(cfg.rnn);
  const attention::LocalConfig lc = attention_config(cfg);
  const uint64_t att = cfg.score == "local_p" ? attention::LocalAttention::param_count(lc)
                                              : attention::score_spec(lc.score.kind).param_count(lc.score);
  return nn::Embedding::param_count(src_vocab, E) + nn::Embedding::param_count(tgt_vocab, E) +
         nn::Recurrent::param_count(kind, cfg.bidirectional, E, cfg.enc_hidden) +
         nn::Recurrent::param_count(kind, false, cfg.dec_input(), Dh) + att +
         nn::Linear::param_count(uint64_t(De) + Dh, cfg.combine) + nn::Linear::param_count(cfg.combine, tgt_vocab);
}

void Seq2Seq::add_params(ParamList& ps) {
  src_emb_.collect(ps, "src_emb.");
  tgt_emb_.collect(ps, "tgt_emb.");
  enc_.collect(ps, "encoder.");
  dec_.collect(ps, "decoder.");
  if (is_local_) local_.collect(ps, "attention.");
  else att_.collect(ps, "attention.");
  combine_.collect(ps, "combine.");
  out_.collect(ps, "out.");
}

// ---------------------------------------------------------------- encoder
void Seq2Seq::encode(const Tensor& x, const std::vector<size_t>& len, Tensor& enc,
                     RnnState& init, EncCache* c) const {
  // x: (B,S,E), len: (B) -> enc: (B,S,De), init: h (B,Dh) [c (B,Dh) for LSTM]
  enc_.forward(x, len, nullptr, enc, init, c);
}

void Seq2Seq::encode_backward(const Tensor& denc, const RnnState& dinit, const EncCache& c,
                              Tensor& dx) {
  // denc: (B,S,De), dinit: (B,Dh) -> dx: (B,S,E)
  RnnState ds0;
  enc_.backward(denc, dinit, c, dx, ds0);
}

// ---------------------------------------------------------------- one decoder step
void Seq2Seq::step(size_t B, const int* ids, const Tensor3& enc3, const std::vector<size_t>& len,
                   RnnState& state, const float* feed, float* att, float* weights,
                   StepCache* c) const {
  // ids: (B), enc3: (B,S,De), state: (B,Dh), feed: (B,C) -> state', att: (B,C), weights: (B,S)
  const size_t E = cfg_.emb, C = cfg_.combine, I = cfg_.dec_input(), Dh = cfg_.dec_hidden();
  const size_t S = enc3.shape()[1], De = cfg_.enc_out();
  Tensor xl = nn::empty({B, size_t(1), I});
  for (size_t b = 0; b < B; ++b) {
    tgt_emb_.forward(1, ids + b, xl.data() + b * I);
    if (cfg_.input_feed) std::copy(feed + b * C, feed + (b + 1) * C, xl.data() + b * I + E);
  }
  Tensor out;
  RnnState sn;
  dec_.forward(xl, {}, &state, out, sn, c ? &c->rnn : nullptr);
  state = std::move(sn);
  Tensor3 q = Tensor3::from_shape({B, 1, Dh});
  std::copy(state.h.data(), state.h.data() + B * Dh, q.data());
  Tensor3 ctx, w;
  if (is_local_) {
    attention::LocalResult r = local_.forward(q, enc3, enc3, len, c ? &c->local : nullptr);
    ctx = std::move(r.out);
    w = std::move(r.weights);
  } else {
    attention::AttendMask m;
    m.lengths = len;
    attention::AttendResult r = att_.forward(q, enc3, enc3, m, c ? &c->att : nullptr);
    ctx = std::move(r.out);
    w = std::move(r.weights);
  }
  Tensor cat = nn::empty({B, De + Dh});
  for (size_t b = 0; b < B; ++b) {
    std::copy(ctx.data() + b * De, ctx.data() + (b + 1) * De, cat.data() + b * (De + Dh));
    std::copy(state.h.data() + b * Dh, state.h.data() + (b + 1) * Dh,
              cat.data() + b * (De + Dh) + De);
  }
  combine_.forward(B, cat.data(), att);
  k::tanh(B * C, att, att);
  if (weights) std::copy(w.data(), w.data() + B * S, weights);
  if (c) {
    c->x = std::move(xl);
    c->cat = std::move(cat);
  }
}

void Seq2Seq::step_backward(size_t B, const int* ids, const float* att, float* datt,
                            RnnState& dstate,
                            Tensor3& denc3, float* dfeed, const StepCache& c) {
  // datt: (B,C) (overwritten), dstate: (B,Dh) after -> before, denc3: (B,S,De) +=, dfeed: (B,C)
  const size_t E = cfg_.emb, C = cfg_.combine, I = cfg_.dec_input(), Dh = cfg_.dec_hidden();
  const size_t De = cfg_.enc_out();
  k::tanh_backward(B * C, att, datt, datt);
  Tensor dcat = nn::empty({B, De + Dh});
  combine_.backward(B, c.cat.data(), datt, dcat.data());
  Tensor3 dctx = Tensor3::from_shape({B, 1, De}), dq, dk, dv;
  for (size_t b = 0; b < B; ++b)
    std::copy(dcat.data() + b * (De + Dh), dcat.data() + b * (De + Dh) + De, dctx.data() + b * De);
  if (is_local_) local_.backward(dctx, c.local, dq, dk, dv);
  else att_.backward(dctx, c.att, dq, dk, dv);
  float* de = denc3.data();
  const size_t n = denc3.size();
  for (size_t i = 0; i < n; ++i) de[i] += dk.data()[i] + dv.data()[i];
  RnnState dsn;
  dsn.h = nn::empty({B, Dh});
  for (size_t b = 0; b < B; ++b)
    for (size_t j = 0; j < Dh; ++j)
      dsn.h.data()[b * Dh + j] = dcat.data()[b * (De + Dh) + De + j] + dq.data()[b * Dh + j] +
                                 dstate.h.data()[b * Dh + j];
  if (dec_.lstm()) dsn.c = dstate.c;
  Tensor dx;
  RnnState ds0;
  dec_.backward(Tensor(), dsn, c.rnn, dx, ds0);
  dstate = std::move(ds0);
  // dx: (B,1,I) -> embedding grads and dfeed
  for (size_t b = 0; b < B; ++b) {
    tgt_emb_.backward(1, ids + b, dx.data() + b * I);
    if (cfg_.input_feed) std::copy(dx.data() + b * I + E, dx.data() + (b + 1) * I, dfeed + b * C);
  }
}

// ---------------------------------------------------------------- teacher forcing
float Seq2Seq::train_step(const Seq2SeqBatch& b, float smoothing) {
  reset_decode_plan();
  return run(b, true, smoothing, nullptr, nullptr);
}
float Seq2Seq::loss(const Seq2SeqBatch& b) const {
  return const_cast<Seq2Seq*>(this)->run(b, false, 0.f, nullptr, nullptr);
}
void Seq2Seq::score_batch(const Seq2SeqBatch& b, std::vector<float>& logp,
                          std::vector<float>& attn) const {
  const_cast<Seq2Seq*>(this)->run(b, false, 0.f, &logp, &attn);
}
void Seq2Seq::next_token_probs(const Seq2SeqBatch& b, std::vector<float>& probs) const {
  const_cast<Seq2Seq*>(this)->run(b, false, 0.f, nullptr, nullptr, &probs);
}

float Seq2Seq::run(const Seq2SeqBatch& b, bool bw, float smoothing, std::vector<float>* logp,
                   std::vector<float>* attn, std::vector<float>* probs) {
  // src: (B,S), tgt_in/tgt_out: (B,T) -> mean token cross-entropy; logp (B,T), attn (B,T,S),
  // probs (B,T,V)
  const size_t B = b.B, S = b.S, T = b.T, C = cfg_.combine, V = tgt_.size();
  const size_t De = cfg_.enc_out(), Dh = cfg_.dec_hidden();
  check_seq2seq_batch(b, src_.size(), V, "seq2seq", /*lengths=*/true);
  EncCache ec;
  Tensor es = src_emb_.forward(b.src, {B, S});  // (B,S,E)
  if (emb_in_) {  // attribution: the given source embeddings
    ATTNLAB_CHECK(emb_in_->size() == es.size(), "seq2seq: expected source embeddings (", B, ",", S,
                  ",", cfg_.emb, "), got ", emb_in_->size(), " values");
    std::copy(emb_in_->begin(), emb_in_->end(), es.data());
  }
  Tensor enc;
  RnnState state;
  encode(es, b.src_len, enc, state, bw ? &ec : nullptr);
  Tensor3 enc3 = Tensor3::from_shape({B, S, De});
  std::copy(enc.data(), enc.data() + B * S * De, enc3.data());

  std::vector<StepCache> caches(bw ? T : 0);
  std::vector<int> ids_tm(T * B), out_tm(T * B);  // time-major tokens
  for (size_t r = 0; r < B; ++r)
    for (size_t t = 0; t < T; ++t) {
      ids_tm[t * B + r] = b.tgt_in[r * T + t];
      out_tm[t * B + r] = b.tgt_out[r * T + t];
    }
  std::vector<float> att(T * B * C), zero(B * C, 0.f), w(attn ? B * S : 0);
  if (attn) attn->assign(B * T * S, 0.f);
  for (size_t t = 0; t < T; ++t) {
    const float* feed = t ? att.data() + (t - 1) * B * C : zero.data();
    step(B, ids_tm.data() + t * B, enc3, b.src_len, state, feed, att.data() + t * B * C,
         attn ? w.data() : nullptr, bw ? &caches[t] : nullptr);
    if (attn)
      for (size_t r = 0; r < B; ++r)
        std::copy(w.data() + r * S, w.data() + (r + 1) * S, attn->data() + (r * T + t) * S);
  }
  const size_t N = T * B;
  std::vector<float> logits(N * V), dlogits(bw ? N * V : 0);
  out_.forward(N, att.data(), logits.data());
  const float loss = nn::cross_entropy(N, V, logits.data(), out_tm.data(),
                                       bw ? dlogits.data() : nullptr, data::Vocab::kPad, smoothing);
  if (logp || probs) {
    std::vector<float> ls(N * V);
    k::log_softmax_rows(N, V, logits.data(), ls.data());
    if (logp) logp->assign(B * T, 0.f);
    if (probs) probs->assign(B * T * V, 0.f);
    for (size_t t = 0; t < T; ++t)
      for (size_t r = 0; r < B; ++r) {
        const int y = out_tm[t * B + r];
        if (y == data::Vocab::kPad) continue;
        const float* row = ls.data() + (t * B + r) * V;
        if (logp) (*logp)[r * T + t] = row[y];
        if (probs)
          for (size_t v = 0; v < V; ++v) (*probs)[(r * T + t) * V + v] = std::exp(row[v]);
      }
  }
  if (!bw) return loss;

  std::vector<float> datt(N * C), dfeed(B * C, 0.f);
  out_.backward(N, att.data(), dlogits.data(), datt.data());
  Tensor3 denc3 = Tensor3::from_shape({B, S, De});
  denc3.fill(0.f);
  RnnState dstate;
  dstate.h = nn::zeros({B, Dh});
  if (dec_.lstm()) dstate.c = nn::zeros({B, Dh});
  for (size_t t = T; t-- > 0;) {
    float* da = datt.data() + t * B * C;
    if (cfg_.input_feed) k::add(B * C, dfeed.data(), da);
    step_backward(B, ids_tm.data() + t * B, att.data() + t * B * C, da, dstate, denc3, dfeed.data(), caches[t]);
  }
  Tensor denc = nn::empty({B, S, De});
  std::copy(denc3.data(), denc3.data() + B * S * De, denc.data());
  Tensor dx;
  encode_backward(denc, dstate, ec, dx);
  src_emb_.backward(b.src, dx);
  if (demb_out_) demb_out_->assign(dx.data(), dx.data() + dx.size());
  return loss;
}

std::vector<float> Seq2Seq::source_embeddings(const std::vector<int>& src) const {
  // src: (S) -> (S,E)
  for (int id : src)
    ATTNLAB_CHECK(id >= 0 && size_t(id) < src_.size(), "seq2seq: source id ", id,
                  " out of range [0, ", src_.size(), ")");
  std::vector<float> x(src.size() * cfg_.emb);
  src_emb_.forward(src.size(), src.data(), x.data());
  return x;
}

void Seq2Seq::attribution_pass(const Seq2SeqBatch& b, std::vector<float>& logp,
                               std::vector<float>& attn) {
  run(b, true, 0.f, &logp, &attn);
}

// ---------------------------------------------------------------- decoding

// ---------------------------------------------------------------- inference helpers
// Small-row linear maps and RNN steps for decoding (1..beam rows): one gemv per row instead
// of a packed gemm; same math as nn::GRU / nn::LSTM (PyTorch gate order).
namespace {
// y (n,out) = x (n,in) W^T + b
void rows_linear(size_t n, size_t in, size_t out, const float* x, const float* W, const float* b,
                 float* y) {
  for (size_t r = 0; r < n; ++r) {
    if (b) std::copy(b, b + out, y + r * out);
    k::gemv(false, out, in, 1.f, W, in, x + r * in, b ? 1.f : 0.f, y + r * out);
  }
}
// One direction d of rnn over x (S,I): writes h_t into out (S, ld); returns final h, c.
void run_direction(const nn::Recurrent& rnn, size_t d, size_t S, const float* x, float* out,
                   size_t ld, std::vector<float>& h, std::vector<float>& c) {
  const size_t I = rnn.input_size(), H = rnn.hidden_size(), G = rnn.gates() * H;
  const nn::Recurrent::Weights w = rnn.weights(d);
  std::vector<float> gi(S * G), work(2 * G + H);
  // all input projections at once: (S,I) x W_ih^T + b_ih
  for (size_t t = 0; t < S; ++t) std::copy(w.b_ih, w.b_ih + G, gi.data() + t * G);
  k::gemm(false, true, S, G, I, 1.f, x, I, w.w_ih, I, 1.f, gi.data(), G);
  h.assign(H, 0.f);
  c.assign(H, 0.f);
  for (size_t i = 0; i < S; ++i) {
    const size_t t = d == 1 ? S - 1 - i : i;  // the backward direction reads right to left
    rnn.cell(d, gi.data() + t * G, h.data(), c.data(), h.data(), c.data(), work.data());
    std::copy(h.begin(), h.end(), out + t * ld);
  }
}
}  // namespace

Seq2Seq::InferCtx Seq2Seq::infer_prepare(const std::vector<int>& src) const {
  // src: (S) -> enc (S,De) and the projected keys
  InferCtx ctx;
  const size_t S = src.size(), De = cfg_.enc_out();
  ctx.S = S;
  // x: (S,E) -> enc (S,De); decoder init = final state(s)
  std::vector<float> x(S * cfg_.emb), h, c;
  src_emb_.forward(S, src.data(), x.data());
  ctx.enc.resize(S * De);
  for (size_t d = 0; d < enc_.directions(); ++d) {
    run_direction(enc_, d, S, x.data(), ctx.enc.data() + d * cfg_.enc_hidden, De, h, c);
    ctx.h0.insert(ctx.h0.end(), h.begin(), h.end());
    if (enc_.lstm()) ctx.c0.insert(ctx.c0.end(), c.begin(), c.end());
  }
  const attention::Score& sc = is_local_ ? local_.score : att_.score;
  ctx.keys.resize(S * sc.prepared_width());
  sc.prepare_keys(S, ctx.enc.data(), ctx.keys.data());
  return ctx;
}

void Seq2Seq::attention_weights(size_t n, const InferCtx& ctx, const float* h, float* q,
                                std::vector<float>& hid, std::vector<float>& mask,
                                float* weights) const {
  // h: (n,Dh), q: (n,A) additive query or local-p predictor rows (overwritten; unused
  // otherwise) -> weights: (n,S)
  const size_t S = ctx.S, Dh = cfg_.dec_hidden(), A = cfg_.attn_dim;
  const attention::Score& sc = is_local_ ? local_.score : att_.score;  // local-p: general
  const bool additive = sc.kind() == attention::ScoreKind::Additive;
  hid.resize(sc.scratch_size(S));
  for (size_t b = 0; b < n; ++b)
    sc.score_query(S, h + b * Dh, additive ? q + b * A : nullptr, ctx.enc.data(), ctx.keys.data(),
                   weights + b * S, hid.data());
  if (is_local_) {
    for (size_t b = 0; b < n; ++b) local_.predictive_weights(S, q + b * A, weights + b * S, mask);
  } else {
    k::softmax_rows(n, S, weights, S, nullptr, 0, weights, S);
  }
}

void Seq2Seq::infer_step(size_t n, const int* prev, const InferCtx& ctx, float* h, float* c,
                         const float* feed, float* att, float* weights, float* logp) const {
  // prev: (n), h,c: (n,Dh), feed: (n,C) -> att: (n,C), weights: (n,S), logp: (n,V)
  const size_t E = cfg_.emb, C = cfg_.combine, I = cfg_.dec_input(), Dh = cfg_.dec_hidden();
  const size_t De = cfg_.enc_out(), S = ctx.S, V = tgt_.size();
  std::vector<float> x(n * I);
  for (size_t b = 0; b < n; ++b) {
    tgt_emb_.forward(1, prev + b, x.data() + b * I);
    if (cfg_.input_feed) std::copy(feed + b * C, feed + (b + 1) * C, x.data() + b * I + E);
  }
  {
    const size_t G = dec_.gates() * Dh;
    const nn::Recurrent::Weights w = dec_.weights(0);
    std::vector<float> gi(n * G), work(2 * G + Dh);
    rows_linear(n, I, G, x.data(), w.w_ih, w.b_ih, gi.data());
    for (size_t b = 0; b < n; ++b)
      dec_.cell(0, gi.data() + b * G, h + b * Dh, c ? c + b * Dh : nullptr, h + b * Dh,
                c ? c + b * Dh : nullptr, work.data());
  }
  // attention weights (n,S); q: the additive query or local-p's predictor rows (n,A)
  std::vector<float> q, hid, mask;
  if (is_local_ || att_.score.kind() == attention::ScoreKind::Additive) {
    q.resize(n * cfg_.attn_dim);
    rows_linear(n, Dh, cfg_.attn_dim, h,
                is_local_ ? local_.pred_weight.value.data() : att_.score.query_weight.value.data(),
                nullptr, q.data());
  }
  attention_weights(n, ctx, h, q.data(), hid, mask, weights);
  // cat = [ctx; h] (n, De+Dh)
  std::vector<float> cat(n * (De + Dh)), logits(n * V);
  for (size_t b = 0; b < n; ++b)
    k::gemv(true, S, De, 1.f, ctx.enc.data(), De, weights + b * S, 0.f, cat.data() + b * (De + Dh));
  for (size_t b = 0; b < n; ++b) std::copy(h + b * Dh, h + (b + 1) * Dh, cat.data() + b * (De + Dh) + De);
  rows_linear(n, De + Dh, C, cat.data(), combine_.weight.value.data(), combine_.bias.value.data(), att);
  k::tanh(n * C, att, att);
  rows_linear(n, C, V, att, out_.weight.value.data(), out_.bias.value.data(), logits.data());
  k::log_softmax_rows(n, V, logits.data(), logp);
}

Seq2Seq::Stepper Seq2Seq::f32_stepper(const InferCtx& ctx) const {
  // state: [h (Dh) | c (Dh, LSTM only) | attentional vector fed to the next step (C)]
  const size_t Dh = cfg_.dec_hidden(), C = cfg_.combine;
  const bool lstm = dec_.lstm();
  const size_t hc = lstm ? 2 * Dh : Dh;
  Stepper st;
  st.state_size = hc + C;
  st.init.assign(st.state_size, 0.f);
  std::copy(ctx.h0.begin(), ctx.h0.end(), st.init.begin());
  if (lstm) std::copy(ctx.c0.begin(), ctx.c0.end(), st.init.begin() + long(Dh));
  st.step = [this, &ctx, Dh, C, lstm, hc](size_t n, const int* prev, const float* in, float* out,
                                          float* weights, float* logp) {
    const size_t SS = hc + C;
    std::vector<float> h(n * Dh), c(lstm ? n * Dh : 0), feed(n * C);
    for (size_t b = 0; b < n; ++b) {
      std::copy(in + b * SS, in + b * SS + Dh, h.begin() + long(b * Dh));
      if (lstm) std::copy(in + b * SS + Dh, in + b * SS + 2 * Dh, c.begin() + long(b * Dh));
      std::copy(in + b * SS + hc, in + (b + 1) * SS, feed.begin() + long(b * C));
    }
    std::vector<float> att(n * C);
    infer_step(n, prev, ctx, h.data(), lstm ? c.data() : nullptr, feed.data(), att.data(), weights, logp);
    for (size_t b = 0; b < n; ++b) {
      std::copy(h.begin() + long(b * Dh), h.begin() + long((b + 1) * Dh), out + b * SS);
      if (lstm) std::copy(c.begin() + long(b * Dh), c.begin() + long((b + 1) * Dh), out + b * SS + Dh);
      std::copy(att.begin() + long(b * C), att.begin() + long((b + 1) * C), out + b * SS + hc);
    }
  };
  return st;
}

Translation Seq2Seq::decode(const std::vector<int>& src, const DecodeOptions& o) const {
  // src: (S) ids -> best output under beam search (beam 1 = greedy)
  check_source_ids(src, src_.size(), cfg_.max_src_len, !cfg_.src_tokens.empty());
  ATTNLAB_CHECK(o.beam >= 1 && o.beam <= 64, "beam width must be in [1, 64], got ", o.beam);
  const size_t S = src.size(), V = tgt_.size();
  const size_t max_len = o.max_len ? o.max_len : cfg_.max_tgt_len;
  const size_t K = o.beam;
  const FastPlan* plan = o.precision == DecodePrecision::F32 ? nullptr : &fast_plan(o.precision);
  const InferCtx ctx = plan ? fast_prepare(src, *plan) : infer_prepare(src);
  const Stepper dec = plan ? fast_stepper(ctx, *plan) : f32_stepper(ctx);
  const size_t SS = dec.state_size;
  std::vector<float> state = dec.init, state_out;  // (n, SS) of the alive hypotheses
  BeamStepper bs;
  bs.vocab = V;
  bs.width = S;
  bs.step = [&](size_t n, const int* prev, float* w, float* lp) {
    state_out.resize(n * SS);
    dec.step(n, prev, state.data(), state_out.data(), w, lp);
  };
  bs.reorder = [&](const std::vector<size_t>& parents) {
    // gather the states of the surviving hypotheses
    state.resize(parents.size() * SS);
    for (size_t j = 0; j < parents.size(); ++j)
      std::copy(state_out.begin() + long(parents[j] * SS),
                state_out.begin() + long((parents[j] + 1) * SS), state.begin() + long(j * SS));
  };
  return translation_from(beam_search(bs, K, max_len, o.length_alpha), o.n_best, src, src_, tgt_,
                          cfg_.output_sep);
}

// ---------------------------------------------------------------- files
std::vector<uint8_t> Seq2Seq::save(const io::SaveOptions& o) const { return save_as<Seq2Seq>(o); }

std::vector<uint8_t> Seq2Seq::save(io::DType dtype,
                                   const std::map<std::string, std::string>& extra) const {
  return save(io::SaveOptions{dtype, extra});
}

std::unique_ptr<Seq2Seq> Seq2Seq::load(const io::SafeTensors& st) {
  return load_as<Seq2Seq>(st, "seq2seq", /*budget=*/true);
}

std::unique_ptr<Seq2Seq> Seq2Seq::load(const uint8_t* bytes, size_t size) {
  return load(io::decode(bytes, size));
}

}  // namespace attnlab::models
