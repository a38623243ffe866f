#include "attnlab/attention/multihead.hpp"

#include <cmath>

#include "attnlab/attention/attend.hpp"
#include "attnlab/kernels/kernels.hpp"

namespace attnlab::attention {

namespace k = attnlab::kernels;

namespace {
// a default xt::xarray is a 0-d scalar of size 1: "given" means at least one dimension
template <class A>
bool given(const A& a) {
  return a.dimension() > 0 && a.size() > 0;
}
// mean_pairwise_cosine over the rows of one batch item whose skip flag is false (skip
// nullptr = every row): kept rows are gathered, and their gradient scattered back into dx
float cosine_kept(size_t H, size_t rows, size_t cols, const float* x, size_t head_offset,
                  size_t ld, const bool* skip, float* dx, float scale) {
  std::vector<size_t> keep;
  for (size_t r = 0; r < rows; ++r)
    if (!skip || !skip[r]) keep.push_back(r);
  if (keep.size() == rows) return mean_pairwise_cosine(H, rows, cols, x, head_offset, ld, dx, scale);
  const size_t n = keep.size();
  if (n == 0) return 0.f;
  std::vector<float> g(H * n * cols), dg(dx ? H * n * cols : 0, 0.f);
  for (size_t h = 0; h < H; ++h)
    for (size_t i = 0; i < n; ++i)
      std::copy(x + h * head_offset + keep[i] * ld, x + h * head_offset + keep[i] * ld + cols,
                g.data() + (h * n + i) * cols);
  const float v = mean_pairwise_cosine(H, n, cols, g.data(), n * cols, cols,
                                       dx ? dg.data() : nullptr, scale);
  if (dx)
    for (size_t h = 0; h < H; ++h)
      for (size_t i = 0; i < n; ++i)
        k::add(cols, dg.data() + (h * n + i) * cols, dx + h * head_offset + keep[i] * ld);
  return v;
}
// sum over heads of the (T,S) weights of one batch item, rows of skipped queries zeroed
void head_sum(size_t H, size_t T, size_t S, const float* P, const bool* skip, float* sum) {
  std::fill(sum, sum + T * S, 0.f);
  for (size_t h = 0; h < H; ++h) k::add(T * S, P + h * T * S, sum);
  if (skip)
    for (size_t t = 0; t < T; ++t)
      if (skip[t]) std::fill(sum + t * S, sum + (t + 1) * S, 0.f);
}
const bool* row_flags(const BoolTensor2& m, size_t b) {
  return m.size() ? m.data() + b * m.shape(1) : nullptr;
}
}  // namespace

MultiheadAttention::MultiheadAttention(size_t embed_dim, size_t num_heads, Rng& rng, bool bias)
    : E_(embed_dim), H_(num_heads), bias_(bias) {
  ATTNLAB_CHECK(embed_dim > 0 && num_heads > 0, "MultiheadAttention: embed_dim and num_heads must be > 0, got ",
                embed_dim, " and ", num_heads);
  ATTNLAB_CHECK(embed_dim % num_heads == 0, "MultiheadAttention: embed_dim (", embed_dim,
                ") must be divisible by num_heads (", num_heads, ")");
  detail::init_uniform(in_proj_weight, {3 * E_, E_}, std::sqrt(6.f / float(4 * E_)), rng);
  detail::init_uniform(out_proj_weight, {E_, E_}, 1.f / std::sqrt(float(E_)), rng);
  in_proj_bias = Param({3 * E_});
  out_proj_bias = Param({E_});
}

void MultiheadAttention::collect(ParamList& out, const std::string& prefix) {
  out.add(prefix + "in_proj_weight", in_proj_weight);
  if (bias_) out.add(prefix + "in_proj_bias", in_proj_bias);
  out.add(prefix + "out_proj.weight", out_proj_weight);
  if (bias_) out.add(prefix + "out_proj.bias", out_proj_bias);
}

size_t MultiheadAttention::build_mask(const MhaOptions& opt, size_t B, size_t T, size_t S,
                                      size_t b, size_t h, const float** ptr) {
  const bool kpm = opt.key_padding_mask.size() != 0;
  const bool fm = given(opt.attn_mask_float), bm = given(opt.attn_mask_bool);
  if (!kpm && !fm && !bm && !opt.is_causal) {
    *ptr = nullptr;
    return 0;
  }
  if (!fm && !bm && !opt.is_causal) {  // key padding only: one broadcast row
    mask_.resize(S);
    const bool* kr = opt.key_padding_mask.data() + b * S;
    for (size_t s = 0; s < S; ++s) mask_[s] = kr[s] ? kNegInf : 0.f;
    *ptr = mask_.data();
    return 0;
  }
  mask_.assign(T * S, 0.f);
  float* m = mask_.data();
  if (fm) {
    const size_t idx = opt.attn_mask_float.dimension() == 3 ? b * H_ + h : 0;
    const float* src = opt.attn_mask_float.data() + idx * T * S;
    for (size_t i = 0; i < T * S; ++i) m[i] = src[i];
  }
  if (bm) {
    const size_t idx = opt.attn_mask_bool.dimension() == 3 ? b * H_ + h : 0;
    const bool* src = opt.attn_mask_bool.data() + idx * T * S;
    for (size_t i = 0; i < T * S; ++i)
      if (src[i]) m[i] = kNegInf;
  }
  if (opt.is_causal)
    for (size_t t = 0; t < T; ++t)
      for (size_t s = t + 1; s < S; ++s) m[t * S + s] = kNegInf;
  if (kpm) {
    const bool* kr = opt.key_padding_mask.data() + b * S;
    for (size_t t = 0; t < T; ++t)
      for (size_t s = 0; s < S; ++s)
        if (kr[s]) m[t * S + s] = kNegInf;
  }
  (void)B;
  *ptr = m;
  return S;
}

namespace {
void check_attn_mask_shape(const char* name, const std::vector<size_t>& sh, size_t B, size_t H,
                           size_t T, size_t S) {
  const bool ok = (sh.size() == 2 && sh[0] == T && sh[1] == S) ||
                  (sh.size() == 3 && sh[0] == B * H && sh[1] == T && sh[2] == S);
  ATTNLAB_CHECK(ok, "MultiheadAttention: ", name, " must be (", T, ",", S, ") or (", B * H, ",", T,
                ",", S, "), got ", detail::shape_str(sh));
}
}  // namespace

bool MultiheadAttention::check_forward(const Tensor3& query, const Tensor3& key,
                                       const Tensor3& value, const MhaOptions& opt) const {
  ATTNLAB_CHECK(E_ > 0, "MultiheadAttention: not initialized");
  ATTNLAB_CHECK(query.shape(2) == E_ && key.shape(2) == E_ && value.shape(2) == E_,
                "MultiheadAttention: expected last dim E = ", E_, " for query, key and value, got ",
                detail::shape_of(query), ", ", detail::shape_of(key), ", ", detail::shape_of(value));
  detail::check_qkv("MultiheadAttention", query, key, value);
  detail::check_param_shape("in_proj_weight", in_proj_weight, {3 * E_, E_});
  detail::check_param_shape("out_proj.weight", out_proj_weight, {E_, E_});
  if (bias_) {
    detail::check_param_shape("in_proj_bias", in_proj_bias, {3 * E_});
    detail::check_param_shape("out_proj.bias", out_proj_bias, {E_});
  }
  const size_t B = query.shape(0), T = query.shape(1), S = key.shape(1), H = H_;
  if (opt.key_padding_mask.size() != 0)
    ATTNLAB_CHECK(opt.key_padding_mask.shape(0) == B && opt.key_padding_mask.shape(1) == S,
                  "MultiheadAttention: key_padding_mask must be (", B, ",", S, "), got ",
                  detail::shape_of(opt.key_padding_mask));
  ATTNLAB_CHECK(!given(opt.attn_mask_float) || !given(opt.attn_mask_bool),
                "MultiheadAttention: pass attn_mask_float or attn_mask_bool, not both");
  bool per_head = false;
  if (given(opt.attn_mask_float)) {
    check_attn_mask_shape("attn_mask_float",
                          {opt.attn_mask_float.shape().begin(), opt.attn_mask_float.shape().end()},
                          B, H, T, S);
    per_head = opt.attn_mask_float.dimension() == 3;
    for (size_t i = 0; i < opt.attn_mask_float.size(); ++i) {
      const float x = opt.attn_mask_float.data()[i];
      ATTNLAB_CHECK(!std::isnan(x) && x != std::numeric_limits<float>::infinity(),
                    "MultiheadAttention: attn_mask_float must hold finite values or -inf, got ", x);
    }
  }
  if (given(opt.attn_mask_bool)) {
    check_attn_mask_shape("attn_mask_bool",
                          {opt.attn_mask_bool.shape().begin(), opt.attn_mask_bool.shape().end()}, B,
                          H, T, S);
    per_head = opt.attn_mask_bool.dimension() == 3;
  }
  return per_head;
}

MhaResult MultiheadAttention::forward(const Tensor3& query, const Tensor3& key,
                                      const Tensor3& value, const MhaOptions& opt, Cache* cache) {
  // query: (B,T,E) key,value: (B,S,E) -> out: (B,T,E), weights: (B,T,S) or (B,H,T,S)
  const bool per_head = check_forward(query, key, value, opt);
  const size_t B = query.shape(0), T = query.shape(1), S = key.shape(1), E = E_, H = H_,
               Dh = E / H;

  // ---- input projections
  const bool packed = (&query == &key) && (&key == &value);
  std::vector<float>& proj = cache ? cache->proj : proj_;
  const float* Win = in_proj_weight.value.data();
  const float* bin = bias_ ? in_proj_bias.value.data() : nullptr;
  size_t qo, ko, vo, ldq, ldk, ldv;
  if (packed) {
    proj.resize(B * T * 3 * E);
    qo = 0, ko = E, vo = 2 * E, ldq = ldk = ldv = 3 * E;
    detail::linear_forward(B * T, E, 3 * E, query.data(), E, Win, bin, proj.data(), 3 * E);
  } else {
    proj.resize(B * T * E + 2 * B * S * E);
    qo = 0, ko = B * T * E, vo = ko + B * S * E, ldq = ldk = ldv = E;
    detail::linear_forward(B * T, E, E, query.data(), E, Win, bin, proj.data() + qo, E);
    detail::linear_forward(B * S, E, E, key.data(), E, Win + E * E, bin ? bin + E : nullptr,
                           proj.data() + ko, E);
    detail::linear_forward(B * S, E, E, value.data(), E, Win + 2 * E * E,
                           bin ? bin + 2 * E : nullptr, proj.data() + vo, E);
  }

  MhaResult res;
  float* ctx;
  if (cache) {
    cache->ctx = Tensor3::from_shape({B, T, E});
    ctx = cache->ctx.data();
  } else {
    ctx_.resize(B * T * E);
    ctx = ctx_.data();
  }
  float* P = nullptr;
  if (cache) {
    cache->P = Tensor4::from_shape({B, H, T, S});
    P = cache->P.data();
  } else if (opt.need_weights) {
    res.head_weights = Tensor4::from_shape({B, H, T, S});
    P = res.head_weights.data();
  }
  work_.resize(sdpa_workspace_size(S));

  // ---- per (batch, head): fused scaled-dot attention on strided views
  const float scale = 1.f / std::sqrt(float(Dh));
  const float* pr = proj.data();
  for (size_t b = 0; b < B; ++b) {
    const float* mptr = nullptr;
    size_t mstride = 0;
    for (size_t h = 0; h < H; ++h) {
      if (h == 0 || per_head) mstride = build_mask(opt, B, T, S, b, h, &mptr);
      sdpa_raw(T, S, Dh, Dh, scale, pr + qo + b * T * ldq + h * Dh, ldq,
               pr + ko + b * S * ldk + h * Dh, ldk, pr + vo + b * S * ldv + h * Dh, ldv, mptr,
               mstride, ctx + b * T * E + h * Dh, E, P ? P + (b * H + h) * T * S : nullptr, S,
               work_.data());
    }
  }

  // ---- output projection
  res.out = Tensor3::from_shape({B, T, E});
  detail::linear_forward(B * T, E, E, ctx, E, out_proj_weight.value.data(),
                         bias_ ? out_proj_bias.value.data() : nullptr, res.out.data(), E);

  if (opt.need_weights) {
    const Tensor4& src = cache ? cache->P : res.head_weights;
    if (opt.average_attn_weights) {
      res.weights = xt::zeros<float>({B, T, S});
      for (size_t b = 0; b < B; ++b)
        for (size_t h = 0; h < H; ++h)
          k::axpy(T * S, 1.f / float(H), src.data() + (b * H + h) * T * S,
                  res.weights.data() + b * T * S);
      res.head_weights = Tensor4();
    } else if (cache) {
      res.head_weights = cache->P;
    }
  }
  if (cache) {
    cache->skip_keys = BoolTensor2();
    cache->skip_queries = BoolTensor2();
    if (opt.disagreement_skip_padding) {
      if (opt.query_padding_mask.size())
        ATTNLAB_CHECK(opt.query_padding_mask.shape(0) == B && opt.query_padding_mask.shape(1) == T,
                      "MultiheadAttention: query_padding_mask must be (", B, ",", T, "), got ",
                      detail::shape_of(opt.query_padding_mask));
      cache->skip_keys = opt.key_padding_mask;
      cache->skip_queries = opt.query_padding_mask.size()
                                ? opt.query_padding_mask
                                : (packed ? opt.key_padding_mask : BoolTensor2());
    }
    cache->packed = packed;
    cache->q_off = qo, cache->k_off = ko, cache->v_off = vo;
    cache->ldq = ldq, cache->ldk = ldk, cache->ldv = ldv;
    cache->query = query;
    if (!packed) {
      cache->key = key;
      cache->value = value;
    } else {
      cache->key = Tensor3();
      cache->value = Tensor3();
    }
  }
  return res;
}

void MultiheadAttention::backward(const Tensor3& dout, const Cache& c, Tensor3& dquery,
                                  Tensor3& dkey, Tensor3& dvalue, const DisagreementWeights* reg,
                                  const xt::xarray<float>* dweights) {
  const size_t B = c.P.shape(0), H = H_, T = c.P.shape(2), S = c.P.shape(3), E = E_, Dh = E / H;
  ATTNLAB_CHECK(dout.shape(0) == B && dout.shape(1) == T && dout.shape(2) == E,
                "MultiheadAttention backward: expected dout (", B, ",", T, ",", E, "), got ",
                detail::shape_of(dout));
  bool dw_avg = false;
  if (dweights) {
    const std::vector<size_t> sh(dweights->shape().begin(), dweights->shape().end());
    const std::vector<size_t> avg_shape{B, T, S}, head_shape{B, H, T, S};
    dw_avg = sh == avg_shape;
    ATTNLAB_CHECK(dw_avg || sh == head_shape,
                  "MultiheadAttention backward: dweights must be (", B, ",", T, ",", S, ") or (", B,
                  ",", H, ",", T, ",", S, "), got ", detail::shape_str(sh));
  }
  const float* pr = c.proj.data();
  const size_t qo = c.q_off, ko = c.k_off, vo = c.v_off, ldq = c.ldq, ldk = c.ldk, ldv = c.ldv;
  const Tensor3& key = c.packed ? c.query : c.key;
  const Tensor3& value = c.packed ? c.query : c.value;

  // ---- output projection
  std::vector<float> dctx(B * T * E);
  detail::linear_backward(B * T, E, E, c.ctx.data(), E, out_proj_weight.value.data(), dout.data(),
                          E, dctx.data(), E, false, out_proj_weight.grad.data(),
                          bias_ ? out_proj_bias.grad.data() : nullptr);
  if (reg && reg->output != 0.f)
    for (size_t b = 0; b < B; ++b)
      cosine_kept(H, T, Dh, c.ctx.data() + b * T * E, Dh, E, row_flags(c.skip_queries, b),
                  dctx.data() + b * T * E, reg->output / float(B));

  // ---- attention, per (batch, head)
  std::vector<float> dproj(c.proj.size(), 0.f), dP(T * S), sumP;
  const bool pos = reg && reg->position != 0.f;
  if (pos) sumP.resize(T * S);
  const float scale = 1.f / std::sqrt(float(Dh));
  for (size_t b = 0; b < B; ++b) {
    if (pos) head_sum(H, T, S, c.P.data() + b * H * T * S, row_flags(c.skip_queries, b), sumP.data());
    for (size_t h = 0; h < H; ++h) {
      const float* Pbh = c.P.data() + (b * H + h) * T * S;
      const float* g = dctx.data() + b * T * E + h * Dh;
      const float* Qh = pr + qo + b * T * ldq + h * Dh;
      const float* Kh = pr + ko + b * S * ldk + h * Dh;
      const float* Vh = pr + vo + b * S * ldv + h * Dh;
      k::gemm(false, true, T, S, Dh, 1.f, g, E, Vh, ldv, 0.f, dP.data(), S);
      if (pos) k::axpy(T * S, 2.f * reg->position / float(H * H * B), sumP.data(), dP.data());
      if (dweights) {
        if (dw_avg) k::axpy(T * S, 1.f / float(H), dweights->data() + b * T * S, dP.data());
        else k::add(T * S, dweights->data() + (b * H + h) * T * S, dP.data());
      }
      k::gemm(true, false, S, Dh, T, 1.f, Pbh, S, g, E, 0.f, dproj.data() + vo + b * S * ldv + h * Dh,
              ldv);
      k::softmax_rows_backward(T, S, Pbh, dP.data(), dP.data());
      k::gemm(false, false, T, Dh, S, scale, dP.data(), S, Kh, ldk, 0.f,
              dproj.data() + qo + b * T * ldq + h * Dh, ldq);
      k::gemm(true, false, S, Dh, T, scale, dP.data(), S, Qh, ldq, 0.f,
              dproj.data() + ko + b * S * ldk + h * Dh, ldk);
    }
  }
  if (reg && reg->subspace != 0.f)
    for (size_t b = 0; b < B; ++b)
      cosine_kept(H, S, Dh, pr + vo + b * S * ldv, Dh, ldv, row_flags(c.skip_keys, b),
                  dproj.data() + vo + b * S * ldv, reg->subspace / float(B));

  // ---- input projections
  const float* Win = in_proj_weight.value.data();
  float* dWin = in_proj_weight.grad.data();
  float* dbin = bias_ ? in_proj_bias.grad.data() : nullptr;
  dquery = Tensor3::from_shape({B, T, E});
  dkey = Tensor3::from_shape({B, S, E});
  dvalue = Tensor3::from_shape({B, S, E});
  detail::linear_backward(B * T, E, E, c.query.data(), E, Win, dproj.data() + qo, ldq,
                          dquery.data(), E, false, dWin, dbin);
  detail::linear_backward(B * S, E, E, key.data(), E, Win + E * E, dproj.data() + ko, ldk,
                          dkey.data(), E, false, dWin + E * E, dbin ? dbin + E : nullptr);
  detail::linear_backward(B * S, E, E, value.data(), E, Win + 2 * E * E, dproj.data() + vo, ldv,
                          dvalue.data(), E, false, dWin + 2 * E * E, dbin ? dbin + 2 * E : nullptr);
}

DisagreementTerms MultiheadAttention::disagreement(const Cache& c) const {
  const size_t B = c.P.shape(0), H = H_, T = c.P.shape(2), S = c.P.shape(3), E = E_, Dh = E / H;
  DisagreementTerms r;
  std::vector<float> sum(T * S);
  for (size_t b = 0; b < B; ++b) {
    r.subspace += cosine_kept(H, S, Dh, c.proj.data() + c.v_off + b * S * c.ldv, Dh, c.ldv,
                              row_flags(c.skip_keys, b), nullptr, 0.f);
    // |sum_h A_h|^2 / H^2 over the kept query rows
    head_sum(H, T, S, c.P.data() + b * H * T * S, row_flags(c.skip_queries, b), sum.data());
    r.position += k::dot(T * S, sum.data(), sum.data()) / float(H * H);
    r.output += cosine_kept(H, T, Dh, c.ctx.data() + b * T * E, Dh, E,
                            row_flags(c.skip_queries, b), nullptr, 0.f);
  }
  r.subspace /= float(B);
  r.position /= float(B);
  r.output /= float(B);
  return r;
}

Tensor3 mean_over_heads(const Tensor4& hw) {
  const size_t B = hw.shape(0), H = hw.shape(1), T = hw.shape(2), S = hw.shape(3);
  Tensor3 out = Tensor3::from_shape({B, T, S});
  std::fill(out.begin(), out.end(), 0.f);
  const float inv = 1.f / static_cast<float>(H);
  for (size_t b = 0; b < B; ++b)
    for (size_t h = 0; h < H; ++h)
      k::axpy(T * S, inv, hw.data() + (b * H + h) * T * S, out.data() + b * T * S);
  return out;
}

}  // namespace attnlab::attention
