#include "attnlab/attention/transformer.hpp"

#include <cmath>
#include <initializer_list>
#include <string>

#include "attnlab/attention/attend.hpp"
#include "attnlab/kernels/kernels.hpp"

namespace attnlab::attention {

namespace k = attnlab::kernels;

void TransformerLayerConfig::validate() const {
  ATTNLAB_CHECK(d_model > 0 && nhead > 0 && d_model % nhead == 0,
                "Transformer layer: d_model (", d_model, ") must be a positive multiple of nhead (",
                nhead, ")");
  ATTNLAB_CHECK(dim_feedforward > 0, "Transformer layer: dim_feedforward must be > 0");
  ATTNLAB_CHECK(dropout >= 0.f && dropout < 1.f, "Transformer layer: dropout must be in [0, 1), got ",
                dropout);
  ATTNLAB_CHECK(activation == nn::Act::ReLU || activation == nn::Act::GELU,
                "Transformer layer: activation must be relu or gelu, got ", nn::act_name(activation));
  ATTNLAB_CHECK(layer_norm_eps > 0.f, "Transformer layer: layer_norm_eps must be > 0");
}

void detail::dropout_inplace(float p, Rng& rng, size_t n, float* x, std::vector<float>& mask) {
  // x: (n) -> x * mask, mask: 0 or 1/(1-p)
  mask.resize(n);
  const float keep = 1.f / (1.f - p);
  for (size_t i = 0; i < n; ++i) mask[i] = rng.uniform() < p ? 0.f : keep;
  k::mul(n, x, mask.data(), x);
}

namespace {

using detail::FeedForwardCache;
using detail::ResidualCache;

bool dropping(const TransformerLayerConfig& c, bool training) { return training && c.dropout > 0.f; }


// ---- one residual sub-block: pre-norm  y = x + drop(f(LN(x)))
//                              post-norm y = LN(x + drop(f(x)))
// x: (rows,E) -> s: (rows,E), the sublayer's input
void block_in(bool norm_first, const nn::LayerNorm& ln, size_t rows, const float* x, float* s,
              ResidualCache& c) {
  const size_t E = ln.dim;
  if (!norm_first) {
    std::copy(x, x + rows * E, s);
    return;
  }
  c.ln_in.assign(x, x + rows * E);
  c.mean.resize(rows);
  c.rstd.resize(rows);
  k::layernorm(rows, E, x, ln.weight.value.data(), ln.bias.value.data(), ln.eps, s, c.mean.data(),
               c.rstd.data());
}
// ds: (rows,E) gradient w.r.t. the sublayer's input -> dx += its share
void block_in_backward(bool norm_first, nn::LayerNorm& ln, size_t rows, const float* ds,
                       const ResidualCache& c, float* dx) {
  const size_t E = ln.dim;
  if (!norm_first) {
    k::add(rows * E, ds, dx);
    return;
  }
  std::vector<float> t(rows * E);
  k::layernorm_backward(rows, E, ds, c.ln_in.data(), ln.weight.value.data(), c.mean.data(),
                        c.rstd.data(), t.data(), ln.weight.grad.data(), ln.bias.grad.data());
  k::add(rows * E, t.data(), dx);
}
// x: block input (rows,E), a: sublayer output (rows,E, dropout applied in place) -> y (rows,E)
void block_out(bool norm_first, const nn::LayerNorm& ln, float p, Rng* rng, bool drop, size_t rows,
               const float* x, float* a, float* y, ResidualCache& c) {
  const size_t E = ln.dim, n = rows * E;
  if (drop) detail::dropout_inplace(p, *rng, n, a, c.mask);
  else c.mask.clear();
  if (norm_first) {
    for (size_t i = 0; i < n; ++i) y[i] = x[i] + a[i];
    return;
  }
  c.ln_in.resize(n);
  for (size_t i = 0; i < n; ++i) c.ln_in[i] = x[i] + a[i];
  c.mean.resize(rows);
  c.rstd.resize(rows);
  k::layernorm(rows, E, c.ln_in.data(), ln.weight.value.data(), ln.bias.value.data(), ln.eps, y,
               c.mean.data(), c.rstd.data());
}
// dy: (rows,E) -> dx (direct path, overwritten), da (sublayer output, overwritten)
void block_out_backward(bool norm_first, nn::LayerNorm& ln, size_t rows, const float* dy,
                        const ResidualCache& c, float* dx, float* da) {
  const size_t E = ln.dim, n = rows * E;
  if (norm_first) std::copy(dy, dy + n, dx);
  else
    k::layernorm_backward(rows, E, dy, c.ln_in.data(), ln.weight.value.data(), c.mean.data(),
                          c.rstd.data(), dx, ln.weight.grad.data(), ln.bias.grad.data());
  if (c.mask.empty()) std::copy(dx, dx + n, da);
  else k::mul(n, dx, c.mask.data(), da);
}

// ---- feed-forward: x (rows,E) -> y (rows,E) = linear2(drop(act(linear1(x))))
void ff_forward(const nn::Linear& l1, const nn::Linear& l2, nn::Act act, float p, Rng* rng,
                bool drop, size_t rows, const float* x, float* y, FeedForwardCache& c) {
  const size_t E = l1.in_features, F = l1.out_features;
  c.in.assign(x, x + rows * E);
  c.pre.resize(rows * F);
  c.act.resize(rows * F);
  l1.forward(rows, x, c.pre.data());
  nn::Activation::forward(act, rows * F, c.pre.data(), c.act.data());
  if (drop) detail::dropout_inplace(p, *rng, rows * F, c.act.data(), c.mask);
  else c.mask.clear();
  l2.forward(rows, c.act.data(), y);
}
// dy: (rows,E) -> dx: (rows,E) overwritten
void ff_backward(nn::Linear& l1, nn::Linear& l2, nn::Act act, size_t rows, const float* dy,
                 const FeedForwardCache& c, float* dx) {
  const size_t F = l1.out_features;
  std::vector<float> dh(rows * F);
  l2.backward(rows, c.act.data(), dy, dh.data());
  if (!c.mask.empty()) k::mul(rows * F, dh.data(), c.mask.data(), dh.data());
  // relu and gelu derivatives need only the input (pre)
  nn::Activation::backward(act, rows * F, c.pre.data(), c.act.data(), dh.data(), dh.data());
  l1.backward(rows, c.in.data(), dh.data(), dx);
}

Tensor3 like(size_t B, size_t T, size_t E) { return Tensor3::from_shape({B, T, E}); }

const float* bias_of(const nn::Linear& l) { return l.has_bias ? l.bias.value.data() : nullptr; }
// y (n,out) = x W^T + b in float32, or with the quantized copy of W when q is given
void project(const nn::QuantMatrix* q, size_t n, size_t in, size_t out, const float* x,
             size_t ldx, const float* W, const float* b, float* y, size_t ldy,
             std::vector<int16_t>& qx, std::vector<float>& sx) {
  if (q) q->apply(n, x, ldx, y, ldy, qx, sx);
  else detail::linear_forward(n, in, out, x, ldx, W, b, y, ldy);
}
// sparse_input: the matrix reads ReLU outputs (mostly zeros: gemm_i8_sparse, same result)
nn::QuantMatrix quant_of(bool int8, const nn::Linear& l, bool sparse_input = false) {
  return nn::QuantMatrix(int8, l.in_features, {{l.out_features, l.weight.value.data(), l.in_features, bias_of(l)}},
                         sparse_input);
}

void check_input(const char* who, const Tensor3& x, size_t E) {
  ATTNLAB_CHECK(x.shape(2) == E && x.shape(0) > 0 && x.shape(1) > 0, who,
                ": expected input (B,T,", E, ") with B, T > 0, got ", detail::shape_of(x));
}

// ---- the residual sub-blocks of a layer's forward over rows = B*T positions
struct SubBlocks {
  const TransformerLayerConfig& cfg;
  Rng* rng;
  bool drop;
  size_t B, T;
  Tensor3 s;  // (B,T,E) the current sublayer's input

  SubBlocks(const TransformerLayerConfig& c, Rng* r, bool training, size_t b, size_t t,
            const char* who)
      : cfg(c), rng(r), drop(dropping(c, training)), B(b), T(t), s(like(b, t, c.d_model)) {
    ATTNLAB_CHECK(!drop || rng, who, ": training with dropout needs an Rng");
  }
  size_t rows() const { return B * T; }
  // x: (B,T,E), kv: (B,S,E) or nullptr (self-attention) -> y: (B,T,E),
  // w: (B,H,T,S) per-head weights when asked
  void attention(const nn::LayerNorm& ln, MultiheadAttention& mha, const float* x,
                 const Tensor3* kv, const MhaOptions& opt, Tensor4* w,
                 MultiheadAttention::Cache* mc, ResidualCache& rc, float* y) {
    block_in(cfg.norm_first, ln, rows(), x, s.data(), rc);
    MhaOptions o = opt;
    o.need_weights = w != nullptr;
    o.average_attn_weights = false;
    MhaResult a = kv ? mha.forward(s, *kv, *kv, o, mc) : mha.forward(s, s, s, o, mc);
    if (w) *w = std::move(a.head_weights);
    block_out(cfg.norm_first, ln, cfg.dropout, rng, drop, rows(), x, a.out.data(), y, rc);
  }
  // x: (B,T,E) -> y: (B,T,E)
  void feed_forward(const nn::LayerNorm& ln, const nn::Linear& l1, const nn::Linear& l2,
                    const float* x, FeedForwardCache& fc, ResidualCache& rc, float* y) {
    block_in(cfg.norm_first, ln, rows(), x, s.data(), rc);
    std::vector<float> f(rows() * cfg.d_model);
    ff_forward(l1, l2, cfg.activation, cfg.dropout, rng, drop, rows(), s.data(), f.data(), fc);
    block_out(cfg.norm_first, ln, cfg.dropout, rng, drop, rows(), x, f.data(), y, rc);
  }
};

// dy: (rows,E) -> dx: (rows,E) (overwritten) through a feed-forward sub-block
void ff_block_backward(bool nf, nn::LayerNorm& ln, nn::Linear& l1, nn::Linear& l2, nn::Act act,
                       size_t rows, const float* dy, const ResidualCache& rc,
                       const FeedForwardCache& fc, float* dx) {
  std::vector<float> df(rows * ln.dim), ds(rows * ln.dim);
  block_out_backward(nf, ln, rows, dy, rc, dx, df.data());
  ff_backward(l1, l2, act, rows, df.data(), fc, ds.data());
  block_in_backward(nf, ln, rows, ds.data(), rc, dx);
}
// dy: (B,T,E) -> dx: (B,T,E) (overwritten) through an attention sub-block; with
// dmemory the block attended to a memory, which gets dkey + dvalue (B,S,E)
void attn_block_backward(bool nf, nn::LayerNorm& ln, MultiheadAttention& mha, size_t B, size_t T,
                         const float* dy, const ResidualCache& rc,
                         const MultiheadAttention::Cache& mc, const DisagreementWeights* reg,
                         float* dx, Tensor3* dmemory) {
  const size_t rows = B * T, n = rows * ln.dim;
  Tensor3 da = like(B, T, ln.dim), dq, dk, dv;
  block_out_backward(nf, ln, rows, dy, rc, dx, da.data());
  mha.backward(da, mc, dq, dk, dv, reg);
  if (dmemory) {
    *dmemory = std::move(dk);
    k::add(dmemory->size(), dv.data(), dmemory->data());
  } else {
    k::add(n, dk.data(), dq.data());
    k::add(n, dv.data(), dq.data());
  }
  block_in_backward(nf, ln, rows, dq.data(), rc, dx);
}

// ---- inference over n rows of width E, float32 or with the quantized copies
// v grown to at least n elements (never shrunk: a reused buffer is not refilled)
template <class T>
T* grab(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

struct InferRows {
  size_t n, E;
  bool nf;
  InferScratch& w;

  void ln(const nn::LayerNorm& l, const float* in, float* out) const {
    k::layernorm(n, E, in, l.weight.value.data(), l.bias.value.data(), l.eps, out, nullptr,
                 nullptr);
  }
  // the sublayer's input: LN(x) (pre-norm) or x
  void block_in(const nn::LayerNorm& l, const float* x, float* s) const {
    if (nf) ln(l, x, s);
    else std::copy(x, x + n * E, s);
  }
  // out = x + sub, then LN (post-norm)
  void residual(const nn::LayerNorm& l, const float* x, const float* sub, float* out) const {
    for (size_t i = 0; i < n * E; ++i) out[i] = x[i] + sub[i];
    if (!nf) ln(l, out, out);
  }
  void project(const nn::QuantMatrix* q, size_t in, size_t out, const float* x, size_t ldx,
               const float* W, const float* b, float* y, size_t ldy) {
    attention::project(q, n, in, out, x, ldx, W, b, y, ldy, w.qx, w.sx);
  }
  // ctx: (n,E) -> a: (n,E) through the attention's output projection
  void out_proj(const nn::QuantMatrix* q, const MultiheadAttention& mha, const float* ctx,
                float* a) {
    project(q, E, E, ctx, E, mha.out_proj_weight.value.data(), mha.out_proj_bias.value.data(), a,
            E);
  }
  // y = residual(x, ff(block_in(x))); uses w.s, w.hid, w.a
  void feed_forward(const nn::LayerNorm& l, const nn::Linear& l1, const nn::Linear& l2,
                    nn::Act act, const nn::QuantMatrix* q1, const nn::QuantMatrix* q2,
                    const float* x, float* y) {
    const size_t F = l1.out_features;
    float* s = grab(w.s, n * E);
    float* hid = grab(w.hid, n * F);
    float* a = grab(w.a, n * E);
    block_in(l, x, s);
    project(q1, E, F, s, E, l1.weight.value.data(), bias_of(l1), hid, F);
    nn::Activation::forward(act, n * F, hid, hid);
    project(q2, F, E, hid, F, l2.weight.value.data(), bias_of(l2), a, E);
    residual(l, x, a, y);
  }
};

// the parts every layer has beside its attention: linear1 (E->F), linear2 (F->E) and
// its layer norms (E), built in that order (the Rng draws follow it)
void build_parts(const TransformerLayerConfig& c, Rng& rng, nn::Linear& l1, nn::Linear& l2,
                 std::initializer_list<nn::LayerNorm*> norms) {
  l1 = nn::Linear(c.d_model, c.dim_feedforward, rng);
  l2 = nn::Linear(c.dim_feedforward, c.d_model, rng);
  for (nn::LayerNorm* n : norms) *n = nn::LayerNorm(c.d_model, c.layer_norm_eps);
}
// names as torch: self_attn., [multihead_attn.], linear1., linear2., norm1. ...
void collect_parts(ParamList& out, const std::string& prefix, MultiheadAttention& self_attn,
                   MultiheadAttention* cross, nn::Linear& l1, nn::Linear& l2,
                   std::initializer_list<nn::LayerNorm*> norms) {
  self_attn.collect(out, prefix + "self_attn.");
  if (cross) cross->collect(out, prefix + "multihead_attn.");
  l1.collect(out, prefix + "linear1.");
  l2.collect(out, prefix + "linear2.");
  int i = 0;
  for (nn::LayerNorm* n : norms) n->collect(out, prefix + "norm" + std::to_string(++i) + ".");
}

nn::QuantMatrix out_quant(bool int8, const MultiheadAttention& mha, size_t E) {
  return nn::QuantMatrix(int8, E, {{E, mha.out_proj_weight.value.data(), E,
                                    mha.out_proj_bias.value.data()}});
}

}  // namespace

// ================================================================= encoder layer
TransformerEncoderLayer::TransformerEncoderLayer(const TransformerLayerConfig& cfg, Rng& rng)
    : cfg_(cfg) {
  cfg_.validate();
  self_attn = MultiheadAttention(cfg_.d_model, cfg_.nhead, rng);
  build_parts(cfg_, rng, linear1, linear2, {&norm1, &norm2});
}

void TransformerEncoderLayer::collect(ParamList& out, const std::string& prefix) {
  collect_parts(out, prefix, self_attn, nullptr, linear1, linear2, {&norm1, &norm2});
}

Tensor3 TransformerEncoderLayer::forward(const Tensor3& x, const MhaOptions& self_opt, Cache* c,
                                         Rng* rng, bool training, Tensor4* head_weights) {
  // x: (B,T,E) -> y: (B,T,E), head_weights: (B,H,T,T)
  const size_t E = cfg_.d_model;
  check_input("TransformerEncoderLayer", x, E);
  const size_t B = x.shape(0), T = x.shape(1);
  SubBlocks sb(cfg_, rng, training, B, T, "TransformerEncoderLayer");
  Cache local;
  Cache& cc = c ? *c : local;
  std::vector<float> h1(B * T * E);
  // block 1: self-attention
  sb.attention(norm1, self_attn, x.data(), nullptr, self_opt, head_weights, c ? &c->sa : nullptr,
               cc.r1, h1.data());
  // block 2: feed-forward
  Tensor3 y = like(B, T, E);
  sb.feed_forward(norm2, linear1, linear2, h1.data(), cc.ff, cc.r2, y.data());
  return y;
}

void TransformerEncoderLayer::backward(const Tensor3& dy, const Cache& c, Tensor3& dx,
                                       const DisagreementWeights* reg) {
  const size_t B = c.sa.P.shape(0), T = c.sa.P.shape(2), E = cfg_.d_model, rows = B * T;
  ATTNLAB_CHECK(dy.shape(0) == B && dy.shape(1) == T && dy.shape(2) == E,
                "TransformerEncoderLayer backward: expected dy (", B, ",", T, ",", E, "), got ",
                detail::shape_of(dy));
  const bool nf = cfg_.norm_first;
  std::vector<float> dh1(rows * E);
  ff_block_backward(nf, norm2, linear1, linear2, cfg_.activation, rows, dy.data(), c.r2, c.ff,
                    dh1.data());
  dx = like(B, T, E);
  attn_block_backward(nf, norm1, self_attn, B, T, dh1.data(), c.r1, c.sa, reg, dx.data(), nullptr);
}

void TransformerEncoderLayer::infer(size_t S, const float* x, float* y, const EncoderLayerQuant* q,
                                    float* head_w, InferScratch* scratch) const {
  // x: (S,E) -> y: (S,E); head_w: (H,S,S)
  const size_t E = cfg_.d_model, H = cfg_.nhead, Dh = E / H;
  ATTNLAB_CHECK(S > 0 && x && y && x != y, "TransformerEncoderLayer::infer: expected S > 0 and distinct x, y");
  const float scale = 1.f / std::sqrt(float(Dh));
  InferScratch own;
  InferRows r{S, E, cfg_.norm_first, scratch ? *scratch : own};
  float* s = grab(r.w.s, S * E);
  float* qkv = grab(r.w.qkv, S * 3 * E);
  float* ctx = grab(r.w.ctx, S * E);
  float* a = grab(r.w.a, S * E);
  float* h1 = grab(r.w.h1, S * E);
  float* work = grab(r.w.work, sdpa_workspace_size(S));
  // block 1: self-attention
  r.block_in(norm1, x, s);
  r.project(q ? &q->qkv : nullptr, E, 3 * E, s, E, self_attn.in_proj_weight.value.data(),
            self_attn.in_proj_bias.value.data(), qkv, 3 * E);
  for (size_t h = 0; h < H; ++h)
    sdpa_raw(S, S, Dh, Dh, scale, qkv + h * Dh, 3 * E, qkv + E + h * Dh, 3 * E,
             qkv + 2 * E + h * Dh, 3 * E, nullptr, 0, ctx + h * Dh, E,
             head_w ? head_w + h * S * S : nullptr, S, work);
  r.out_proj(q ? &q->out : nullptr, self_attn, ctx, a);
  r.residual(norm1, x, a, h1);
  // block 2: feed-forward
  r.feed_forward(norm2, linear1, linear2, cfg_.activation, q ? &q->ff1 : nullptr,
                 q ? &q->ff2 : nullptr, h1, y);
}

EncoderLayerQuant TransformerEncoderLayer::quantize(bool int8) const {
  const size_t E = cfg_.d_model;
  EncoderLayerQuant q;
  q.qkv = nn::QuantMatrix(int8, E, {{3 * E, self_attn.in_proj_weight.value.data(), E, self_attn.in_proj_bias.value.data()}});
  q.out = out_quant(int8, self_attn, E);
  q.ff1 = quant_of(int8, linear1);
  q.ff2 = quant_of(int8, linear2, cfg_.activation == nn::Act::ReLU);
  return q;
}

// ================================================================= decoder layer
TransformerDecoderLayer::TransformerDecoderLayer(const TransformerLayerConfig& cfg, Rng& rng)
    : cfg_(cfg) {
  cfg_.validate();
  self_attn = MultiheadAttention(cfg_.d_model, cfg_.nhead, rng);
  multihead_attn = MultiheadAttention(cfg_.d_model, cfg_.nhead, rng);
  build_parts(cfg_, rng, linear1, linear2, {&norm1, &norm2, &norm3});
}

void TransformerDecoderLayer::collect(ParamList& out, const std::string& prefix) {
  collect_parts(out, prefix, self_attn, &multihead_attn, linear1, linear2,
                {&norm1, &norm2, &norm3});
}

Tensor3 TransformerDecoderLayer::forward(const Tensor3& x, const Tensor3& memory,
                                         const MhaOptions& self_opt, const MhaOptions& cross_opt,
                                         Cache* c, Rng* rng, bool training, Tensor4* self_w,
                                         Tensor4* cross_w) {
  // x: (B,T,E), memory: (B,S,E) -> y: (B,T,E), self_w: (B,H,T,T), cross_w: (B,H,T,S)
  const size_t E = cfg_.d_model;
  check_input("TransformerDecoderLayer", x, E);
  check_input("TransformerDecoderLayer memory", memory, E);
  ATTNLAB_CHECK(memory.shape(0) == x.shape(0), "TransformerDecoderLayer: memory batch ",
                memory.shape(0), " differs from the input's ", x.shape(0));
  const size_t B = x.shape(0), T = x.shape(1), n = B * T * E;
  SubBlocks sb(cfg_, rng, training, B, T, "TransformerDecoderLayer");
  Cache local;
  Cache& cc = c ? *c : local;
  std::vector<float> h1(n), h2(n);
  // block 1: masked self-attention
  sb.attention(norm1, self_attn, x.data(), nullptr, self_opt, self_w, c ? &c->sa : nullptr, cc.r1,
               h1.data());
  // block 2: cross-attention over memory
  sb.attention(norm2, multihead_attn, h1.data(), &memory, cross_opt, cross_w,
               c ? &c->ca : nullptr, cc.r2, h2.data());
  // block 3: feed-forward
  Tensor3 y = like(B, T, E);
  sb.feed_forward(norm3, linear1, linear2, h2.data(), cc.ff, cc.r3, y.data());
  return y;
}

void TransformerDecoderLayer::backward(const Tensor3& dy, const Cache& c, Tensor3& dx,
                                       Tensor3& dmemory, const DisagreementWeights* reg_self,
                                       const DisagreementWeights* reg_cross) {
  const size_t B = c.sa.P.shape(0), T = c.sa.P.shape(2), E = cfg_.d_model, rows = B * T,
               n = rows * E;
  ATTNLAB_CHECK(dy.shape(0) == B && dy.shape(1) == T && dy.shape(2) == E,
                "TransformerDecoderLayer backward: expected dy (", B, ",", T, ",", E, "), got ",
                detail::shape_of(dy));
  const bool nf = cfg_.norm_first;
  std::vector<float> dh2(n), dh1(n);
  ff_block_backward(nf, norm3, linear1, linear2, cfg_.activation, rows, dy.data(), c.r3, c.ff,
                    dh2.data());
  attn_block_backward(nf, norm2, multihead_attn, B, T, dh2.data(), c.r2, c.ca, reg_cross,
                      dh1.data(), &dmemory);
  dx = like(B, T, E);
  attn_block_backward(nf, norm1, self_attn, B, T, dh1.data(), c.r1, c.sa, reg_self, dx.data(),
                      nullptr);
}

// ================================================================= incremental decoding
void DecoderLayerState::reorder(const std::vector<size_t>& parents, size_t E) {
  const size_t m = parents.size(), row = cap * E, used = len * E;
  bool same = m == n;  // every hypothesis kept in place (greedy): nothing to move
  for (size_t j = 0; j < m; ++j) {
    ATTNLAB_CHECK(parents[j] < n, "decoder state: parent ", parents[j], " out of range [0, ", n, ")");
    same = same && parents[j] == j;
  }
  if (same) return;
  // into the spare buffers, then swapped in (the old ones become the next spares)
  float* nk = grab(spare_k, m * row);
  float* nv = grab(spare_v, m * row);
  for (size_t j = 0; j < m; ++j) {
    std::copy_n(k.data() + parents[j] * row, used, nk + j * row);
    std::copy_n(v.data() + parents[j] * row, used, nv + j * row);
  }
  k.swap(spare_k);
  v.swap(spare_v);
  n = m;
}

void TransformerDecoderLayer::start(const float* memory, size_t S, size_t n, size_t cap,
                                    DecoderLayerState& st, const DecoderLayerQuant* q,
                                    InferScratch* scratch) const {
  // memory: (S,E) -> st.mkv: (S,2E) cross-attention keys | values
  const size_t E = cfg_.d_model;
  ATTNLAB_CHECK(S > 0 && n > 0 && cap > 0, "TransformerDecoderLayer::start: expected S, n, cap > 0");
  st.n = n;
  st.cap = cap;
  st.len = 0;
  st.S = S;
  st.k.assign(n * cap * E, 0.f);
  st.v.assign(n * cap * E, 0.f);
  st.mkv.resize(S * 2 * E);
  const float* W = multihead_attn.in_proj_weight.value.data();
  const float* b = multihead_attn.in_proj_bias.value.data();
  if (q) {  // keys and values in one product
    InferScratch& sc = scratch ? *scratch : st.scratch;
    q->cross_kv.apply(S, memory, E, st.mkv.data(), 2 * E, sc.qx, sc.sx);
    return;
  }
  detail::linear_forward(S, E, E, memory, E, W + E * E, b + E, st.mkv.data(), 2 * E);
  detail::linear_forward(S, E, E, memory, E, W + 2 * E * E, b + 2 * E, st.mkv.data() + E, 2 * E);
}

DecoderLayerQuant TransformerDecoderLayer::quantize(bool int8) const {
  const size_t E = cfg_.d_model;
  const float* sw = self_attn.in_proj_weight.value.data();
  const float* sb = self_attn.in_proj_bias.value.data();
  const float* cw = multihead_attn.in_proj_weight.value.data();
  const float* cb = multihead_attn.in_proj_bias.value.data();
  DecoderLayerQuant q;
  q.self_qkv = nn::QuantMatrix(int8, E, {{3 * E, sw, E, sb}});
  q.self_out = out_quant(int8, self_attn, E);
  q.cross_q = nn::QuantMatrix(int8, E, {{E, cw, E, cb}});
  q.cross_kv = nn::QuantMatrix(int8, E, {{2 * E, cw + E * E, E, cb + E}});
  q.cross_out = out_quant(int8, multihead_attn, E);
  q.ff1 = quant_of(int8, linear1);
  q.ff2 = quant_of(int8, linear2, cfg_.activation == nn::Act::ReLU);
  return q;
}

void TransformerDecoderLayer::step(const float* x, float* y, DecoderLayerState& st, float* self_w,
                                   float* cross_w, const DecoderLayerQuant* q,
                                   InferScratch* scratch) const {
  // x: (n,E) rows at position t = st.len -> y: (n,E); self_w: (n,H,t+1), cross_w: (n,H,S)
  const size_t E = cfg_.d_model, H = cfg_.nhead, Dh = E / H, n = st.n, t = st.len, S = st.S;
  const size_t L = t + 1;
  ATTNLAB_CHECK(t < st.cap, "TransformerDecoderLayer::step: the state holds ", st.cap,
                " positions, all used");
  const float scale = 1.f / std::sqrt(float(Dh));
  InferRows r{n, E, cfg_.norm_first, scratch ? *scratch : st.scratch};
  float* s = grab(r.w.s, n * E);
  float* a = grab(r.w.a, n * E);
  float* ctx = grab(r.w.ctx, n * E);
  float* h1 = grab(r.w.h1, n * E);
  float* h2 = grab(r.w.h2, n * E);
  float* qkv = grab(r.w.qkv, n * 3 * E);  // self-attention q|k|v, then the cross query
  float* work = grab(r.w.work, sdpa_workspace_size(std::max(L, S)));
  // block 1: self-attention over positions 0..t of each hypothesis
  r.block_in(norm1, x, s);
  r.project(q ? &q->self_qkv : nullptr, E, 3 * E, s, E, self_attn.in_proj_weight.value.data(),
            self_attn.in_proj_bias.value.data(), qkv, 3 * E);
  for (size_t i = 0; i < n; ++i) {
    const float* qi = qkv + i * 3 * E;
    std::copy(qi + E, qi + 2 * E, st.k.data() + (i * st.cap + t) * E);
    std::copy(qi + 2 * E, qi + 3 * E, st.v.data() + (i * st.cap + t) * E);
    for (size_t h = 0; h < H; ++h)
      sdpa_raw(1, L, Dh, Dh, scale, qi + h * Dh, 3 * E, st.k.data() + i * st.cap * E + h * Dh, E,
               st.v.data() + i * st.cap * E + h * Dh, E, nullptr, 0, ctx + i * E + h * Dh, E,
               self_w ? self_w + (i * H + h) * L : nullptr, L, work);
  }
  r.out_proj(q ? &q->self_out : nullptr, self_attn, ctx, a);
  r.residual(norm1, x, a, h1);
  // block 2: cross-attention; every hypothesis queries the same source keys
  r.block_in(norm2, h1, s);
  r.project(q ? &q->cross_q : nullptr, E, E, s, E, multihead_attn.in_proj_weight.value.data(),
            multihead_attn.in_proj_bias.value.data(), qkv, E);
  for (size_t h = 0; h < H; ++h)
    sdpa_raw(n, S, Dh, Dh, scale, qkv + h * Dh, E, st.mkv.data() + h * Dh, 2 * E,
             st.mkv.data() + E + h * Dh, 2 * E, nullptr, 0, ctx + h * Dh, E,
             cross_w ? cross_w + h * S : nullptr, H * S, work);
  r.out_proj(q ? &q->cross_out : nullptr, multihead_attn, ctx, a);
  r.residual(norm2, h1, a, h2);
  // block 3: feed-forward
  r.feed_forward(norm3, linear1, linear2, cfg_.activation, q ? &q->ff1 : nullptr,
                 q ? &q->ff2 : nullptr, h2, y);
  ++st.len;
}

}  // namespace attnlab::attention
