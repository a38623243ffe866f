#include "attnlab/models/transformer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <initializer_list>
#include <limits>

#include <nlohmann/json.hpp>

#include "attnlab/core/thread_local.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/models/text_sides_fields.hpp"
#include "attnlab/nn/loss.hpp"

namespace attnlab::models {

namespace k = attnlab::kernels;
using attention::BoolTensor2;
using attention::MhaOptions;
using attention::Tensor3;
using attention::Tensor4;
using json = nlohmann::json;

namespace {
constexpr size_t kSinusoidLen = size_t(1) << 20;  // sinusoids have no table: any position

// product of sizes as a float count, checked against the address space (wasm is 32-bit)
size_t checked_floats(const char* what, std::initializer_list<uint64_t> dims) {
  uint64_t n = 1;
  const uint64_t limit = uint64_t(std::numeric_limits<size_t>::max()) / sizeof(float);
  for (uint64_t d : dims) {
    ATTNLAB_CHECK(d == 0 || n <= limit / d, "transformer: ", what, " needs more memory than this ",
                  "platform can address; use smaller sizes");
    n *= d;
  }
  return size_t(n);
}
}  // namespace

// ---------------------------------------------------------------- config
attention::TransformerLayerConfig TransformerConfig::layer() const {
  attention::TransformerLayerConfig c;
  c.d_model = d_model;
  c.nhead = nhead;
  c.dim_feedforward = dim_feedforward;
  c.dropout = dropout;
  c.activation = nn::act_from_string(activation);
  c.norm_first = norm_first;
  return c;
}

namespace {
// the config's keys, each once (io/config_fields.hpp), read typed: a size must be a
// non-negative whole number that fits (8.7, -1, "8" and 2^32 + 64 are errors naming the key);
// validate() has the ranges
using Cfg = TransformerConfig;
constexpr auto kFields = std::tuple_cat(
    text_sides::kHead,
    std::make_tuple(
        io::field("d_model", &Cfg::d_model).required(), io::field("nhead", &Cfg::nhead).required(),
        io::field("dim_feedforward", &Cfg::dim_feedforward).required(),
        io::field("enc_layers", &Cfg::enc_layers).required(),
        io::field("dec_layers", &Cfg::dec_layers).required(), io::field("dropout", &Cfg::dropout),
        io::field("activation", &Cfg::activation).required(),
        io::field("norm_first", &Cfg::norm_first).required(), io::field("pos", &Cfg::pos).required(),
        io::field("tie_output", &Cfg::tie_output).required(),
        io::field("scale_embedding", &Cfg::scale_embedding).required()),
    text_sides::kTail);
}  // namespace

ATTNLAB_CONFIG_JSON(TransformerConfig, "transformer", kFields, validate)

void TransformerConfig::validate() const {
  TextSides::validate("transformer config");
  auto in = [](size_t v, size_t lo, size_t hi) { return v >= lo && v <= hi; };
  ATTNLAB_CHECK(in(d_model, 1, 4096) && in(nhead, 1, 256) && d_model % nhead == 0,
                "transformer config: d_model (", d_model, ") must be in [1, 4096] and a multiple of "
                "nhead (", nhead, ", in [1, 256])");
  ATTNLAB_CHECK(in(dim_feedforward, 1, 65536), "transformer config: dim_feedforward must be in "
                "[1, 65536], got ", dim_feedforward);
  ATTNLAB_CHECK(in(enc_layers, 1, 64) && in(dec_layers, 1, 64),
                "transformer config: enc_layers and dec_layers must be in [1, 64], got ", enc_layers,
                ", ", dec_layers);
  ATTNLAB_CHECK(dropout >= 0.f && dropout < 1.f, "transformer config: dropout must be in [0, 1), got ",
                dropout);
  ATTNLAB_CHECK(activation == "relu" || activation == "gelu",
                "transformer config: activation must be relu or gelu, got '", activation, "'");
  ATTNLAB_CHECK(pos == "sinusoidal" || pos == "learned",
                "transformer config: pos must be sinusoidal or learned, got '", pos, "'");
}

// ---------------------------------------------------------------- model
TransformerSeq2Seq::TransformerSeq2Seq(const TransformerConfig& cfg, const data::Vocab& src,
                                       const data::Vocab& tgt, uint64_t seed)
    : TranslatorOf(cfg, src, tgt) {
  checked_floats("the embeddings", {std::max(src_.size(), tgt_.size()), cfg_.d_model});
  checked_floats("the position tables", {std::max(cfg_.max_src_len, cfg_.max_tgt_len + 1), cfg_.d_model});
  checked_floats("a feed-forward layer", {cfg_.dim_feedforward, cfg_.d_model});
  Rng rng(seed);
  const size_t E = cfg_.d_model, V = tgt_.size();
  src_emb_ = nn::Embedding(src_.size(), E, rng, data::Vocab::kPad);
  tgt_emb_ = nn::Embedding(V, E, rng, data::Vocab::kPad);
  // N(0, 1/E): with the sqrt(E) input scale the embedded rows have unit-size entries, and a
  // tied output projection starts with logits of order 1 (as fairseq)
  const float sd = 1.f / std::sqrt(float(E));
  for (nn::Embedding* e : {&src_emb_, &tgt_emb_}) {
    for (size_t i = 0; i < e->weight.size(); ++i) e->weight.data()[i] *= sd;
  }
  const nn::PosKind pk = nn::pos_kind_from_string(cfg_.pos);
  const bool learned = pk == nn::PosKind::Learned;
  src_pos_ = nn::PositionalEncoding(pk, learned ? cfg_.max_src_len : kSinusoidLen, E, rng);
  tgt_pos_ = nn::PositionalEncoding(pk, learned ? cfg_.max_tgt_len + 1 : kSinusoidLen, E, rng);
  const attention::TransformerLayerConfig lc = cfg_.layer();
  for (size_t l = 0; l < cfg_.enc_layers; ++l) enc_.emplace_back(lc, rng);
  for (size_t l = 0; l < cfg_.dec_layers; ++l) dec_.emplace_back(lc, rng);
  if (cfg_.norm_first) {
    enc_norm_ = nn::LayerNorm(E);
    dec_norm_ = nn::LayerNorm(E);
  }
  if (!cfg_.tie_output) {
    const float bound = 1.f / std::sqrt(float(E));
    out_weight_ = Param({V, E});
    for (size_t i = 0; i < out_weight_.size(); ++i) out_weight_.data()[i] = rng.uniform(-bound, bound);
  }
  out_bias_ = Param({V});
}

void TransformerSeq2Seq::add_params(ParamList& ps) {
  src_emb_.collect(ps, "src_emb.");
  tgt_emb_.collect(ps, "tgt_emb.");
  src_pos_.collect(ps, "src_pos.");
  tgt_pos_.collect(ps, "tgt_pos.");
  for (size_t l = 0; l < enc_.size(); ++l) enc_[l].collect(ps, "encoder.layers." + std::to_string(l) + ".");
  if (cfg_.norm_first) enc_norm_.collect(ps, "encoder.norm.");
  for (size_t l = 0; l < dec_.size(); ++l) dec_[l].collect(ps, "decoder.layers." + std::to_string(l) + ".");
  if (cfg_.norm_first) dec_norm_.collect(ps, "decoder.norm.");
  if (!cfg_.tie_output) ps.add("out.weight", out_weight_);
  ps.add("out.bias", out_bias_);
}

const float* TransformerSeq2Seq::out_weight() const {
  return cfg_.tie_output ? tgt_emb_.weight.value.data() : out_weight_.value.data();
}

const TransformerSeq2Seq::QuantPlan* TransformerSeq2Seq::quant_plan(DecodePrecision p) const {
  if (p == DecodePrecision::F32) return nullptr;
  const bool i8 = p == DecodePrecision::Int8;
  std::shared_ptr<const QuantPlan>& slot = plan_[i8 ? 0 : 1];
  if (slot) return slot.get();
  auto q = std::make_shared<QuantPlan>();
  for (const auto& l : enc_) q->enc.push_back(l.quantize(i8));
  for (const auto& l : dec_) q->dec.push_back(l.quantize(i8));
  const size_t E = cfg_.d_model;
  q->out = nn::QuantMatrix(i8, E, {{tgt_.size(), out_weight(), E, out_bias_.value.data()}});
  slot = q;
  return slot.get();
}

void TransformerSeq2Seq::project(size_t n, const float* h, float* logits, const QuantPlan* q,
                                 attention::InferScratch* scratch) const {
  // h: (n,E) -> logits: (n,V)
  const size_t E = cfg_.d_model, V = tgt_.size();
  if (q) {
    if (scratch) q->out.apply(n, h, E, logits, V, scratch->qx, scratch->sx);
    else q->out.apply(n, h, E, logits, V);
    return;
  }
  for (size_t r = 0; r < n; ++r)
    std::copy(out_bias_.value.data(), out_bias_.value.data() + V, logits + r * V);
  k::gemm(false, true, n, V, E, 1.f, h, E, out_weight(), E, 1.f, logits, V);
}

Tensor3 TransformerSeq2Seq::embed(const nn::Embedding& emb, const nn::PositionalEncoding& pos,
                                  const int* ids, size_t B, size_t T, Rng* rng, bool drop,
                                  std::vector<float>* mask) const {
  // ids: (B,T) -> x: (B,T,E)
  const size_t E = cfg_.d_model;
  Tensor3 x = Tensor3::from_shape({B, T, E});
  if (emb_in_ && &emb == &src_emb_) {  // source_logp_grad: the given rows
    ATTNLAB_CHECK(emb_in_->size() == x.size(), "transformer attribution: expected ", x.size(),
                  " source embedding values (", B, "x", T, "x", E, "), got ", emb_in_->size());
    std::copy(emb_in_->begin(), emb_in_->end(), x.data());
  } else {
    emb.forward(B * T, ids, x.data());
  }
  if (cfg_.scale_embedding) k::scale(x.size(), std::sqrt(float(E)), x.data(), x.data());
  pos.forward(B, T, x.data());
  if (drop) {
    ATTNLAB_CHECK(rng, "transformer: training with dropout needs an Rng");
    attention::detail::dropout_inplace(cfg_.dropout, *rng, x.size(), x.data(), *mask);
  } else if (mask) {
    mask->clear();
  }
  return x;
}

void TransformerSeq2Seq::embed_backward(nn::Embedding& emb, nn::PositionalEncoding& pos,
                                        const int* ids, size_t B, size_t T, float* dx,
                                        const std::vector<float>& mask) {
  // dx: (B,T,E) (consumed)
  const size_t E = cfg_.d_model, n = B * T * E;
  if (!mask.empty()) k::mul(n, dx, mask.data(), dx);
  pos.backward(B, T, dx);
  if (cfg_.scale_embedding) k::scale(n, std::sqrt(float(E)), dx, dx);
  if (demb_out_ && &emb == &src_emb_) demb_out_->assign(dx, dx + n);
  emb.backward(B * T, ids, dx);
}

// ---------------------------------------------------------------- attribution
std::vector<float> TransformerSeq2Seq::source_embeddings(const std::vector<int>& src) const {
  // src: (S) -> (S,E), the table rows before the sqrt(E) scale and the positions
  for (int id : src)
    ATTNLAB_CHECK(id >= 0 && size_t(id) < src_.size(), "transformer: source id ", id,
                  " out of range [0, ", src_.size(), ")");
  std::vector<float> x(checked_floats("the source embeddings", {src.size(), cfg_.d_model}));
  src_emb_.forward(src.size(), src.data(), x.data());
  return x;
}

void TransformerSeq2Seq::attribution_pass(const Seq2SeqBatch& b, std::vector<float>& logp,
                                          std::vector<float>& attn) {
  TransformerLossOptions o;
  o.training = false;  // no dropout; no smoothing, no penalties: the loss is -sum(logp) / count
  run(b, true, o, nullptr, &logp, &attn, nullptr);
}

size_t TransformerSeq2Seq::pass_floats(size_t S, size_t T) const {
  // the caches of one sequence's training pass, roughly: per layer the activations of every
  // row (feed-forward + a dozen E-wide vectors) and the attention weights
  const size_t E = cfg_.d_model, F = cfg_.dim_feedforward, H = cfg_.nhead;
  const size_t enc = S * (F + 12 * E) + 2 * H * S * S;
  const size_t dec = T * (F + 16 * E) + 2 * H * (T * T + T * S);
  return cfg_.enc_layers * enc + cfg_.dec_layers * dec + 2 * T * tgt_.size();
}

// ---------------------------------------------------------------- teacher forcing
struct TransformerSeq2Seq::Cache {
  std::vector<attention::TransformerEncoderLayer::Cache> enc;
  std::vector<attention::TransformerDecoderLayer::Cache> dec;
  std::vector<float> src_mask, tgt_mask;  // embedding dropout
  Tensor3 enc_top, dec_top;               // inputs of the final norms (norm_first)
  nn::LayerNorm::Cache enc_ln, dec_ln;
};

namespace {
BoolTensor2 padding_mask(const std::vector<int>& ids, size_t B, size_t T) {
  BoolTensor2 m = BoolTensor2::from_shape({B, T});
  for (size_t i = 0; i < B * T; ++i) m.data()[i] = ids[i] == data::Vocab::kPad;
  return m;
}
// final LayerNorm over (rows,E) in place; keeps its input in `in` when in != nullptr
void final_norm(const nn::LayerNorm& ln, size_t rows, float* x, Tensor3* in,
                nn::LayerNorm::Cache* c, size_t B, size_t T) {
  const size_t E = ln.dim;
  if (in) {
    *in = Tensor3::from_shape({B, T, E});
    std::copy(x, x + rows * E, in->data());
    c->mean.resize(rows);
    c->rstd.resize(rows);
  }
  k::layernorm(rows, E, x, ln.weight.value.data(), ln.bias.value.data(), ln.eps, x,
               c ? c->mean.data() : nullptr, c ? c->rstd.data() : nullptr);
}
void final_norm_backward(nn::LayerNorm& ln, size_t rows, const Tensor3& in,
                         const nn::LayerNorm::Cache& c, float* d) {
  std::vector<float> t(rows * ln.dim);
  k::layernorm_backward(rows, ln.dim, d, in.data(), ln.weight.value.data(), c.mean.data(),
                        c.rstd.data(), t.data(), ln.weight.grad.data(), ln.bias.grad.data());
  std::copy(t.begin(), t.end(), d);
}
void add_terms(attention::DisagreementTerms& acc, const attention::DisagreementTerms& t, float s) {
  acc.subspace += s * t.subspace;
  acc.position += s * t.position;
  acc.output += s * t.output;
}
}  // namespace

float TransformerSeq2Seq::train_step(const Seq2SeqBatch& b, const TransformerLossOptions& o,
                                     Rng& rng, TransformerLossInfo* info) {
  plan_[0].reset();  // the weights are about to change: quantized copies are stale
  plan_[1].reset();
  return run(b, true, o, &rng, nullptr, nullptr, info);
}
float TransformerSeq2Seq::loss(const Seq2SeqBatch& b) const {
  TransformerLossOptions o;
  o.training = false;
  return const_cast<TransformerSeq2Seq*>(this)->run(b, false, o, nullptr, nullptr, nullptr, nullptr);
}
float TransformerSeq2Seq::loss(const Seq2SeqBatch& b, const TransformerLossOptions& o, Rng* rng,
                               TransformerLossInfo* info) const {
  return const_cast<TransformerSeq2Seq*>(this)->run(b, false, o, rng, nullptr, nullptr, info);
}
void TransformerSeq2Seq::score_batch(const Seq2SeqBatch& b, std::vector<float>& logp,
                                     std::vector<float>& attn) const {
  TransformerLossOptions o;
  o.training = false;
  const_cast<TransformerSeq2Seq*>(this)->run(b, false, o, nullptr, &logp, &attn, nullptr);
}
void TransformerSeq2Seq::next_token_probs(const Seq2SeqBatch& b, std::vector<float>& probs) const {
  TransformerLossOptions o;
  o.training = false;
  const_cast<TransformerSeq2Seq*>(this)->run(b, false, o, nullptr, nullptr, nullptr, nullptr, &probs);
}

float TransformerSeq2Seq::run(const Seq2SeqBatch& b, bool bw, const TransformerLossOptions& o,
                              Rng* rng, std::vector<float>* logp, std::vector<float>* attn,
                              TransformerLossInfo* info, std::vector<float>* probs) {
  // src: (B,S), tgt_in/tgt_out: (B,T) -> loss; logp (B,T), attn (B,T,S), probs (B,T,V)
  const size_t B = b.B, S = b.S, T = b.T, E = cfg_.d_model, V = tgt_.size(), H = cfg_.nhead;
  check_seq2seq_batch(b, src_.size(), V, "transformer", /*lengths=*/false);
  ATTNLAB_CHECK(S <= src_pos_.max_len && T <= tgt_pos_.max_len, "transformer: batch of S=", S,
                ", T=", T, " exceeds the learned position tables (", src_pos_.max_len, ", ",
                tgt_pos_.max_len, ")");
  const bool drop = o.training && cfg_.dropout > 0.f;
  Cache c;
  c.enc.resize(bw ? enc_.size() : 0);
  c.dec.resize(bw ? dec_.size() : 0);
  const bool want_terms = info || o.enc_self.any() || o.dec_self.any() || o.cross.any();
  std::vector<attention::TransformerEncoderLayer::Cache> enc_tmp(!bw && want_terms ? 1 : 0);
  std::vector<attention::TransformerDecoderLayer::Cache> dec_tmp(!bw && want_terms ? 1 : 0);
  TransformerLossInfo inf;

  // ---- encoder
  MhaOptions enc_opt;
  enc_opt.key_padding_mask = padding_mask(b.src, B, S);
  enc_opt.disagreement_skip_padding = true;
  Tensor3 x = embed(src_emb_, src_pos_, b.src.data(), B, S, rng, drop, &c.src_mask);
  for (size_t l = 0; l < enc_.size(); ++l) {
    auto* lc = bw ? &c.enc[l] : (want_terms ? &enc_tmp[0] : nullptr);
    x = enc_[l].forward(x, enc_opt, lc, rng, drop);
    if (lc && want_terms) {
      const auto te = enc_[l].disagreement(*lc);
      add_terms(inf.enc_self, te, 1.f / float(enc_.size()));
      inf.penalty += te.weighted(o.enc_self);
    }
  }
  if (cfg_.norm_first) final_norm(enc_norm_, B * S, x.data(), bw ? &c.enc_top : nullptr, bw ? &c.enc_ln : nullptr, B, S);
  const Tensor3& memory = x;

  // ---- decoder
  MhaOptions self_opt, cross_opt;
  self_opt.is_causal = true;
  self_opt.key_padding_mask = padding_mask(b.tgt_in, B, T);
  self_opt.disagreement_skip_padding = true;
  cross_opt.key_padding_mask = enc_opt.key_padding_mask;
  cross_opt.query_padding_mask = self_opt.key_padding_mask;
  cross_opt.disagreement_skip_padding = true;
  Tensor3 y = embed(tgt_emb_, tgt_pos_, b.tgt_in.data(), B, T, rng, drop, &c.tgt_mask);
  Tensor4 cw;
  for (size_t l = 0; l < dec_.size(); ++l) {
    auto* lc = bw ? &c.dec[l] : (want_terms ? &dec_tmp[0] : nullptr);
    const bool last = l + 1 == dec_.size();
    y = dec_[l].forward(y, memory, self_opt, cross_opt, lc, rng, drop, nullptr,
                        attn && last ? &cw : nullptr);
    if (lc && want_terms) {
      const auto ts = dec_[l].self_disagreement(*lc), tc = dec_[l].cross_disagreement(*lc);
      add_terms(inf.dec_self, ts, 1.f / float(dec_.size()));
      add_terms(inf.cross, tc, 1.f / float(dec_.size()));
      inf.penalty += ts.weighted(o.dec_self) + tc.weighted(o.cross);
    }
  }
  if (cfg_.norm_first) final_norm(dec_norm_, B * T, y.data(), bw ? &c.dec_top : nullptr, bw ? &c.dec_ln : nullptr, B, T);
  if (attn) {
    attn->assign(B * T * S, 0.f);
    for (size_t bb = 0; bb < B; ++bb)
      for (size_t h = 0; h < H; ++h)
        k::axpy(T * S, 1.f / float(H), cw.data() + (bb * H + h) * T * S, attn->data() + bb * T * S);
  }

  // ---- output
  const size_t N = B * T;
  std::vector<float> logits(N * V), dlogits(bw ? N * V : 0);
  project(N, y.data(), logits.data());
  inf.ce = nn::cross_entropy(N, V, logits.data(), b.tgt_out.data(), bw ? dlogits.data() : nullptr,
                             data::Vocab::kPad, o.label_smoothing, nullptr, o.teacher, o.teacher_weight);
  if (logp || probs) {
    std::vector<float> ls(N * V);
    k::log_softmax_rows(N, V, logits.data(), ls.data());
    if (logp) logp->assign(N, 0.f);
    if (probs) probs->assign(N * V, 0.f);
    for (size_t i = 0; i < N; ++i) {
      const int t = b.tgt_out[i];
      if (t == data::Vocab::kPad) continue;
      if (logp) (*logp)[i] = ls[i * V + size_t(t)];
      if (probs)
        for (size_t v = 0; v < V; ++v) (*probs)[i * V + v] = std::exp(ls[i * V + v]);
    }
  }
  if (info) *info = inf;
  const float total = inf.ce + inf.penalty;
  if (!bw) return total;

  // ---- backward
  Tensor3 dy = Tensor3::from_shape({B, T, E});
  float* dW = cfg_.tie_output ? tgt_emb_.weight.grad.data() : out_weight_.grad.data();
  k::gemm(false, false, N, E, V, 1.f, dlogits.data(), V, out_weight(), E, 0.f, dy.data(), E);
  k::gemm(true, false, V, E, N, 1.f, dlogits.data(), V, y.data(), E, 1.f, dW, E);
  for (size_t i = 0; i < N; ++i) k::add(V, dlogits.data() + i * V, out_bias_.grad.data());
  if (cfg_.norm_first) final_norm_backward(dec_norm_, N, c.dec_top, c.dec_ln, dy.data());
  Tensor3 dmem = Tensor3::from_shape({B, S, E}), dx, dm;
  dmem.fill(0.f);
  const auto* rs = o.dec_self.any() ? &o.dec_self : nullptr;
  const auto* rc = o.cross.any() ? &o.cross : nullptr;
  for (size_t l = dec_.size(); l-- > 0;) {
    dec_[l].backward(dy, c.dec[l], dx, dm, rs, rc);
    k::add(dmem.size(), dm.data(), dmem.data());
    dy = std::move(dx);
  }
  embed_backward(tgt_emb_, tgt_pos_, b.tgt_in.data(), B, T, dy.data(), c.tgt_mask);
  if (cfg_.norm_first) final_norm_backward(enc_norm_, B * S, c.enc_top, c.enc_ln, dmem.data());
  const auto* re = o.enc_self.any() ? &o.enc_self : nullptr;
  for (size_t l = enc_.size(); l-- > 0;) {
    enc_[l].backward(dmem, c.enc[l], dx, re);
    dmem = std::move(dx);
  }
  embed_backward(src_emb_, src_pos_, b.src.data(), B, S, dmem.data(), c.src_mask);
  return total;
}

// ---------------------------------------------------------------- inference
std::vector<float> TransformerSeq2Seq::encode_one(const std::vector<int>& src,
                                                  std::vector<float>* enc_w,
                                                  const QuantPlan* q,
                                                  attention::InferScratch* scratch) const {
  // src: (S) -> memory (S,E); enc_w: (Le,H,S,S)
  const size_t S = src.size(), E = cfg_.d_model, H = cfg_.nhead;
  Tensor3 x0 = embed(src_emb_, src_pos_, src.data(), 1, S, nullptr, false, nullptr);
  std::vector<float> x(x0.begin(), x0.end()), y(S * E);
  if (enc_w) enc_w->assign(enc_.size() * H * S * S, 0.f);
  attention::InferScratch own;
  for (size_t l = 0; l < enc_.size(); ++l) {
    enc_[l].infer(S, x.data(), y.data(), q ? &q->enc[l] : nullptr,
                  enc_w ? enc_w->data() + l * H * S * S : nullptr, scratch ? scratch : &own);
    x.swap(y);
  }
  if (cfg_.norm_first) final_norm(enc_norm_, S, x.data(), nullptr, nullptr, 1, S);
  return x;
}

Translation TransformerSeq2Seq::decode(const std::vector<int>& src, const DecodeOptions& o,
                                       bool kv_cache) const {
  // src: (S) ids -> best output under beam search (beam 1 = greedy)
  check_source_ids(src, src_.size(), cfg_.max_src_len, !cfg_.src_tokens.empty());
  const size_t S = src.size(), V = tgt_.size(), E = cfg_.d_model, H = cfg_.nhead;
  const size_t Ld = dec_.size();
  const size_t max_len = o.max_len ? o.max_len : cfg_.max_tgt_len;
  ATTNLAB_CHECK(max_len + 1 <= tgt_pos_.max_len, "decode: max_len ", max_len,
                " needs ", max_len + 1, " target positions, this model's learned table has ",
                tgt_pos_.max_len);
  ATTNLAB_CHECK(o.beam >= 1 && o.beam <= 64, "beam width must be in [1, 64], got ", o.beam);
  checked_floats("the decoder's key/value cache", {o.beam, max_len + 1, E});
  const QuantPlan* qp = kv_cache ? quant_plan(o.precision) : nullptr;
  // the encoder's and every decoder step's buffers, kept for the thread's next decode
  // (a few hundred KB at most: rows of n <= 64 hypotheses)
  static ATTNLAB_THREAD_LOCAL attention::InferScratch scratch;
  const std::vector<float> memory = encode_one(src, nullptr, qp, &scratch);
  auto* self = const_cast<TransformerSeq2Seq*>(this);
  std::vector<float> cw;  // (n,H,S) last layer's cross-attention

  // head-averaged last-layer cross-attention (n,H,S) -> (n,S); logits -> log-probabilities
  auto finish = [&](size_t n, float* h, float* w, float* lp) {
    if (cfg_.norm_first) final_norm(dec_norm_, n, h, nullptr, nullptr, n, 1);
    project(n, h, lp, qp, &scratch);
    k::log_softmax_rows(n, V, lp, lp);
    std::fill(w, w + n * S, 0.f);
    for (size_t i = 0; i < n; ++i)
      for (size_t hh = 0; hh < H; ++hh) k::axpy(S, 1.f / float(H), cw.data() + (i * H + hh) * S, w + i * S);
  };

  BeamStepper bs;
  bs.vocab = V;
  bs.width = S;
  std::vector<attention::DecoderLayerState> st(Ld);
  std::vector<std::vector<int>> prefix(1);
  std::vector<float> x;  // (n,E) the step's rows, through every layer; outlives the steppers
  if (kv_cache) {
    for (size_t l = 0; l < Ld; ++l)
      dec_[l].start(memory.data(), S, 1, max_len + 1, st[l], qp ? &qp->dec[l] : nullptr, &scratch);
    bs.step = [&](size_t n, const int* prev, float* w, float* lp) {
      const size_t t = st[0].len;
      x.resize(n * E);
      tgt_emb_.forward(n, prev, x.data());
      if (cfg_.scale_embedding) k::scale(n * E, std::sqrt(float(E)), x.data(), x.data());
      tgt_pos_.forward(n, 1, x.data(), t);
      cw.resize(n * H * S);
      for (size_t l = 0; l < Ld; ++l)
        dec_[l].step(x.data(), x.data(), st[l], nullptr, l + 1 == Ld ? cw.data() : nullptr,
                     qp ? &qp->dec[l] : nullptr, &scratch);
      finish(n, x.data(), w, lp);
    };
    bs.reorder = [&](const std::vector<size_t>& parents) {
      for (auto& s : st) s.reorder(parents, E);
    };
  } else {
    bs.step = [&](size_t n, const int* prev, float* w, float* lp) {
      for (size_t i = 0; i < n; ++i) prefix[i].push_back(prev[i]);
      const size_t T = prefix[0].size();
      std::vector<int> ids(n * T);
      for (size_t i = 0; i < n; ++i) std::copy(prefix[i].begin(), prefix[i].end(), ids.begin() + long(i * T));
      Tensor3 mem = Tensor3::from_shape({n, S, E});
      for (size_t i = 0; i < n; ++i) std::copy(memory.begin(), memory.end(), mem.data() + i * S * E);
      MhaOptions so;
      so.is_causal = true;
      Tensor3 y = embed(tgt_emb_, tgt_pos_, ids.data(), n, T, nullptr, false, nullptr);
      Tensor4 w4;
      for (size_t l = 0; l < Ld; ++l)
        y = self->dec_[l].forward(y, mem, so, {}, nullptr, nullptr, false, nullptr,
                                  l + 1 == Ld ? &w4 : nullptr);
      std::vector<float> h(n * E);
      cw.resize(n * H * S);
      for (size_t i = 0; i < n; ++i) {
        std::copy(y.data() + (i * T + T - 1) * E, y.data() + (i * T + T) * E, h.begin() + long(i * E));
        for (size_t hh = 0; hh < H; ++hh)
          std::copy(w4.data() + ((i * H + hh) * T + T - 1) * S, w4.data() + ((i * H + hh) * T + T) * S,
                    cw.begin() + long((i * H + hh) * S));
      }
      finish(n, h.data(), w, lp);
    };
    bs.reorder = [&](const std::vector<size_t>& parents) {
      std::vector<std::vector<int>> next;
      for (size_t p : parents) next.push_back(prefix[p]);
      prefix.swap(next);
    };
  }
  Translation r = translation_from(beam_search(bs, o.beam, max_len, o.length_alpha), o.n_best, src,
                                   src_, tgt_, cfg_.output_sep);
  if (o.head_maps) {
    const auto t0 = std::chrono::steady_clock::now();
    attention_maps(src, r.ids, r);
    r.head_maps_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return r;
}

void TransformerSeq2Seq::attention_maps(const std::vector<int>& src, const std::vector<int>& out,
                                        Translation& r) const {
  // src (S), out (n) -> r.enc_self (Le,H,S,S), r.dec_self (Ld,H,n,n), r.cross (Ld,H,n,S)
  const size_t S = src.size(), n = out.size(), H = cfg_.nhead, E = cfg_.d_model;
  r.enc_self = HeadMaps{enc_.size(), H, S, S, {}};
  const std::vector<float> memory = encode_one(src, &r.enc_self.data);
  r.cross = HeadMaps{dec_.size(), H, n, S, {}};
  r.dec_self = HeadMaps{dec_.size(), H, n, n, {}};
  if (n == 0) return;
  ATTNLAB_CHECK(n <= tgt_pos_.max_len, "attention maps: ", n, " output tokens exceed the ",
                tgt_pos_.max_len, " positions of this model");
  std::vector<int> in(n);
  in[0] = data::Vocab::kBos;
  for (size_t i = 1; i < n; ++i) in[i] = out[i - 1];  // row i is the step that chose out[i]
  auto* self = const_cast<TransformerSeq2Seq*>(this);
  Tensor3 mem = Tensor3::from_shape({1, S, E});
  std::copy(memory.begin(), memory.end(), mem.data());
  MhaOptions so;
  so.is_causal = true;
  Tensor3 y = embed(tgt_emb_, tgt_pos_, in.data(), 1, n, nullptr, false, nullptr);
  for (size_t l = 0; l < dec_.size(); ++l) {
    Tensor4 sw, cw;
    y = self->dec_[l].forward(y, mem, so, {}, nullptr, nullptr, false, &sw, &cw);
    r.dec_self.data.insert(r.dec_self.data.end(), sw.begin(), sw.end());
    r.cross.data.insert(r.cross.data.end(), cw.begin(), cw.end());
  }
}

// ---------------------------------------------------------------- files
std::vector<uint8_t> TransformerSeq2Seq::save(const io::SaveOptions& o) const {
  return save_as<TransformerSeq2Seq>(o);
}

// the parameters are held to what the file stores while the model is built, as for the RNN
// kind: a small file whose config asks for a huge model is refused before allocating
std::unique_ptr<TransformerSeq2Seq> TransformerSeq2Seq::load(const io::SafeTensors& st) {
  return load_as<TransformerSeq2Seq>(st, "transformer-seq2seq", /*budget=*/true);
}

std::unique_ptr<TransformerSeq2Seq> TransformerSeq2Seq::load(const uint8_t* bytes, size_t size) {
  return load(io::decode(bytes, size));
}

}  // namespace attnlab::models
