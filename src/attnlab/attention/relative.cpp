#include "attnlab/attention/relative.hpp"

#include <cmath>
#include <cstring>

#include "attnlab/kernels/kernels.hpp"

namespace attnlab::attention {

namespace k = attnlab::kernels;

RelMultiheadAttention::RelMultiheadAttention(const RelConfig& cfg, Rng& rng) : cfg_(cfg) {
  ATTNLAB_CHECK(cfg.d_model > 0 && cfg.n_head > 0, "RelMultiheadAttention: d_model and n_head must be > 0");
  ATTNLAB_CHECK(cfg.d_model % 2 == 0, "RelMultiheadAttention: d_model must be even (sin/cos pairs), got ",
                cfg.d_model);
  if (cfg_.d_head == 0) {
    ATTNLAB_CHECK(cfg.d_model % cfg.n_head == 0, "RelMultiheadAttention: d_model (", cfg.d_model,
                  ") must be divisible by n_head (", cfg.n_head, ") when d_head = 0");
    cfg_.d_head = cfg.d_model / cfg.n_head;
  }
  const size_t E = cfg_.d_model, I = cfg_.n_head * cfg_.d_head;
  const float bd = 1.f / std::sqrt(float(E));
  detail::init_uniform(qkv_weight, {3 * I, E}, bd, rng);
  detail::init_uniform(r_weight, {I, E}, bd, rng);
  detail::init_uniform(o_weight, {E, I}, 1.f / std::sqrt(float(I)), rng);
  detail::init_uniform(r_w_bias, {cfg_.n_head, cfg_.d_head}, 0.1f, rng);
  detail::init_uniform(r_r_bias, {cfg_.n_head, cfg_.d_head}, 0.1f, rng);
}

void RelMultiheadAttention::collect(ParamList& out, const std::string& prefix) {
  out.add(prefix + "qkv_net.weight", qkv_weight);
  out.add(prefix + "r_net.weight", r_weight);
  out.add(prefix + "o_net.weight", o_weight);
  out.add(prefix + "r_w_bias", r_w_bias);
  out.add(prefix + "r_r_bias", r_r_bias);
}

void RelMultiheadAttention::set_memory(const Tensor3& m) {
  ATTNLAB_CHECK(m.size() == 0 || (m.shape(2) == cfg_.d_model && m.shape(1) <= cfg_.mem_len),
                "RelMultiheadAttention::set_memory: expected (B,M<=", cfg_.mem_len, ",",
                cfg_.d_model, "), got ", detail::shape_of(m));
  mem_ = m;
  if (infer_) load_windows(mem_);
}

void RelMultiheadAttention::reset_memory() {
  mem_ = Tensor3();
  hwin_.reset(0, 0);
  kvwin_.reset(0, 0);
}

const Tensor3& RelMultiheadAttention::memory() const {
  if (infer_) {  // the hidden rows live in the window: copy them out
    const size_t B = hwin_.B, M = hwin_.rows, E = cfg_.d_model;
    mem_ = M ? Tensor3::from_shape({B, M, E}) : Tensor3();
    for (size_t b = 0; b < B && M; ++b)
      std::copy(hwin_.row(b, 0), hwin_.row(b, 0) + M * E, mem_.data() + b * M * E);
  }
  return mem_;
}

void RelMultiheadAttention::set_inference_cache(bool on) {
  if (infer_) memory();  // mem_ = the window's rows
  infer_ = on;
  r_cache_ = Tensor2();
  r_cache_L_ = 0;
  if (on) {
    load_windows(mem_);
  } else {
    hwin_.reset(0, 0);
    kvwin_.reset(0, 0);
  }
}

void RelMultiheadAttention::set_mem_len(size_t mem_len) {
  cfg_.mem_len = mem_len;
  if (infer_) {
    hwin_.keep_last(mem_len);
    kvwin_.keep_last(mem_len);
    return;
  }
  if (mem_.size() == 0 || mem_.shape(1) <= mem_len) return;
  if (mem_len == 0) {
    mem_ = Tensor3();
    return;
  }
  const size_t B = mem_.shape(0), M = mem_.shape(1), E = mem_.shape(2);
  Tensor3 nm = Tensor3::from_shape({B, mem_len, E});
  for (size_t b = 0; b < B; ++b)
    std::copy(mem_.data() + (b * M + M - mem_len) * E, mem_.data() + (b + 1) * M * E,
              nm.data() + b * mem_len * E);
  mem_ = std::move(nm);
}

Tensor2 RelMultiheadAttention::sinusoids(size_t L, size_t E) {
  Tensor2 R = Tensor2::from_shape({L, E});
  const size_t half = E / 2;
  for (size_t c = 0; c < L; ++c) {
    const double d = double(L - 1 - c);
    for (size_t i = 0; i < half; ++i) {
      const double f = std::pow(10000.0, -2.0 * double(i) / double(E));
      R(c, i) = float(std::sin(d * f));
      R(c, half + i) = float(std::cos(d * f));
    }
  }
  return R;
}

void RelMultiheadAttention::attend(size_t B, size_t T, size_t M, const float* q, const float* kv,
                                   size_t kv_stride, const float* r, float* P, float* ctx) const {
  // q: (B,T,I), kv: B blocks of (L,2I) kv_stride floats apart, r: (L,I) -> P: (B,H,T,L), ctx: (B,T,I)
  const size_t H = cfg_.n_head, Dh = cfg_.d_head, I = H * Dh, L = M + T;
  const float scale = 1.f / std::sqrt(float(Dh));
  std::vector<float> qu(T * Dh), qv(T * Dh), bd(T * L);
  for (size_t b = 0; b < B; ++b)
    for (size_t h = 0; h < H; ++h) {
      const float* qh = q + b * T * I + h * Dh;
      for (size_t i = 0; i < T; ++i)
        for (size_t d = 0; d < Dh; ++d) {
          qu[i * Dh + d] = qh[i * I + d] + r_w_bias.value(h, d);
          qv[i * Dh + d] = qh[i * I + d] + r_r_bias.value(h, d);
        }
      float* S = P + (b * H + h) * T * L;
      const float* kh = kv + b * kv_stride + h * Dh;
      const float* vh = kh + I;
      k::gemm(false, true, T, L, Dh, scale, qu.data(), Dh, kh, 2 * I, 0.f, S, L);  // content
      k::gemm(false, true, T, L, Dh, scale, qv.data(), Dh, r + h * Dh, I, 0.f, bd.data(),
              L);  // position, columns by distance L-1..0
      for (size_t i = 0; i < T; ++i) {
        const size_t off = T - 1 - i;  // relative shift
        for (size_t j = 0; j <= M + i; ++j) S[i * L + j] += bd[i * L + j + off];
        for (size_t j = M + i + 1; j < L; ++j) S[i * L + j] = kNegInf;  // causal
      }
      k::softmax_rows(T, L, S, L, nullptr, 0, S, L);
      k::gemm(false, false, T, Dh, L, 1.f, S, L, vh, 2 * I, 0.f, ctx + b * T * I + h * Dh, I);
    }
}

const float* RelMultiheadAttention::projected_sinusoids(size_t L, Tensor2& R, Tensor2& r) {
  // -> (L,I): r = R W_r^T, kept for the next call with the same L when the inference cache is on
  const size_t E = cfg_.d_model, I = cfg_.n_head * cfg_.d_head;
  if (infer_ && r_cache_L_ == L) return r_cache_.data();
  R = sinusoids(L, E);
  r = Tensor2::from_shape({L, I});
  detail::linear_forward(L, E, I, R.data(), E, r_weight.value.data(), nullptr, r.data(), I);
  if (!infer_) return r.data();
  r_cache_ = r;
  r_cache_L_ = L;
  return r_cache_.data();
}

Tensor3 RelMultiheadAttention::forward(const Tensor3& x, Cache* cache, bool update_memory,
                                       Tensor4* weights) {
  // x: (B,T,E), memory: (B,M,E) -> out: (B,T,E), weights: (B,H,T,M+T)
  const size_t E = cfg_.d_model, H = cfg_.n_head, Dh = cfg_.d_head, I = H * Dh;
  ATTNLAB_CHECK(E > 0, "RelMultiheadAttention: not initialized");
  ATTNLAB_CHECK(x.shape(2) == E, "RelMultiheadAttention: expected input (B,T,", E, "), got ",
                detail::shape_of(x));
  const size_t B = x.shape(0), T = x.shape(1);
  ATTNLAB_CHECK(B > 0 && T > 0, "RelMultiheadAttention: empty input ", detail::shape_of(x));
  detail::check_finite("RelMultiheadAttention input", x.data(), x.size());
  detail::check_param_shape("qkv_net.weight", qkv_weight, {3 * I, E});
  ATTNLAB_CHECK(!(infer_ && cache), "RelMultiheadAttention: the inference cache is on; turn it ",
                "off (set_inference_cache(false)) before a training forward");
  if (infer_) return forward_inference(x, update_memory, weights);
  const size_t M = mem_.size() ? mem_.shape(1) : 0;
  if (M)
    ATTNLAB_CHECK(mem_.shape(0) == B, "RelMultiheadAttention: memory holds batch ", mem_.shape(0),
                  " but input has batch ", B, " (call reset_memory() when the batch changes)");
  const size_t L = M + T;

  Cache local;
  Cache& c = cache ? *cache : local;
  c.M = M;
  c.cat = Tensor3::from_shape({B, L, E});
  for (size_t b = 0; b < B; ++b) {
    if (M) std::copy(mem_.data() + b * M * E, mem_.data() + (b + 1) * M * E, c.cat.data() + b * L * E);
    std::copy(x.data() + b * T * E, x.data() + (b + 1) * T * E, c.cat.data() + (b * L + M) * E);
  }
  c.q = Tensor3::from_shape({B, T, I});
  c.kv = Tensor3::from_shape({B, L, 2 * I});
  const float* W = qkv_weight.value.data();
  detail::linear_forward(B * T, E, I, x.data(), E, W, nullptr, c.q.data(), I);
  detail::linear_forward(B * L, E, 2 * I, c.cat.data(), E, W + I * E, nullptr, c.kv.data(), 2 * I);
  projected_sinusoids(L, c.R, c.r);
  c.P = Tensor4::from_shape({B, H, T, L});
  c.ctx = Tensor3::from_shape({B, T, I});
  attend(B, T, M, c.q.data(), c.kv.data(), L * 2 * I, c.r.data(), c.P.data(), c.ctx.data());
  Tensor3 out = Tensor3::from_shape({B, T, E});
  detail::linear_forward(B * T, I, E, c.ctx.data(), I, o_weight.value.data(), nullptr, out.data(), E);
  if (weights) *weights = c.P;
  if (update_memory && cfg_.mem_len > 0) {
    const size_t keep = std::min(cfg_.mem_len, L);
    Tensor3 nm = Tensor3::from_shape({B, keep, E});
    for (size_t b = 0; b < B; ++b)
      std::copy(c.cat.data() + (b * L + L - keep) * E, c.cat.data() + (b + 1) * L * E,
                nm.data() + b * keep * E);
    mem_ = std::move(nm);
  }
  return out;
}

// ---------------------------------------------------------------- inference cache
void RelMultiheadAttention::RowWindow::reset(size_t B_, size_t W_) {
  B = B_, W = W_, cap = 0, start = 0, rows = 0;
  buf.clear();
}

void RelMultiheadAttention::RowWindow::make_room(size_t n) {
  if (start + rows + n <= cap) return;
  if (rows + n <= cap) {  // slide the window to the front
    for (size_t b = 0; b < B; ++b)
      std::memmove(buf.data() + b * cap * W, buf.data() + (b * cap + start) * W,
                   rows * W * sizeof(float));
  } else {  // grow: twice what is needed now, so slides stay rare
    const size_t ncap = 2 * (rows + n);
    std::vector<float> nb(B * ncap * W);
    for (size_t b = 0; b < B; ++b)
      std::copy(buf.data() + (b * cap + start) * W, buf.data() + (b * cap + start + rows) * W,
                nb.data() + b * ncap * W);
    buf.swap(nb);
    cap = ncap;
  }
  start = 0;
}

void RelMultiheadAttention::RowWindow::keep_last(size_t k) {
  if (k >= rows) return;
  start += rows - k;
  rows = k;
}

void RelMultiheadAttention::load_windows(const Tensor3& m) {
  // m: (B,M,E) hidden rows -> the windows hold them and their key/value projections
  const size_t E = cfg_.d_model, I = cfg_.n_head * cfg_.d_head;
  const size_t B = m.size() ? m.shape(0) : 0, M = m.size() ? m.shape(1) : 0;
  hwin_.reset(B, E);
  kvwin_.reset(B, 2 * I);
  if (!M) return;
  hwin_.make_room(M);
  kvwin_.make_room(M);
  for (size_t b = 0; b < B; ++b) {
    std::copy(m.data() + b * M * E, m.data() + (b + 1) * M * E, hwin_.row(b, 0));
    detail::linear_forward(M, E, 2 * I, m.data() + b * M * E, E, qkv_weight.value.data() + I * E,
                           nullptr, kvwin_.row(b, 0), 2 * I);
  }
  hwin_.rows = kvwin_.rows = M;
}

Tensor3 RelMultiheadAttention::forward_inference(const Tensor3& x, bool update_memory,
                                                 Tensor4* weights) {
  // x: (B,T,E) -> out: (B,T,E); the windows hold the memory rows and their projections
  const size_t E = cfg_.d_model, H = cfg_.n_head, Dh = cfg_.d_head, I = H * Dh;
  const size_t B = x.shape(0), T = x.shape(1);
  if (hwin_.rows == 0) {
    hwin_.reset(B, E);
    kvwin_.reset(B, 2 * I);
  }
  ATTNLAB_CHECK(hwin_.B == B, "RelMultiheadAttention: memory holds batch ", hwin_.B,
                " but input has batch ", B, " (call reset_memory() when the batch changes)");
  const size_t M = hwin_.rows, L = M + T;
  hwin_.make_room(T);
  kvwin_.make_room(T);
  const float* W = qkv_weight.value.data();
  for (size_t b = 0; b < B; ++b) {  // the new rows go right after the memory rows
    std::copy(x.data() + b * T * E, x.data() + (b + 1) * T * E, hwin_.row(b, M));
    detail::linear_forward(T, E, 2 * I, x.data() + b * T * E, E, W + I * E, nullptr,
                           kvwin_.row(b, M), 2 * I);
  }
  std::vector<float> q(B * T * I), ctx(B * T * I);
  detail::linear_forward(B * T, E, I, x.data(), E, W, nullptr, q.data(), I);
  Tensor2 R, r;
  const float* rp = projected_sinusoids(L, R, r);
  Tensor4 P = Tensor4::from_shape({B, H, T, L});
  attend(B, T, M, q.data(), kvwin_.row(0, 0), kvwin_.cap * 2 * I, rp, P.data(), ctx.data());
  Tensor3 out = Tensor3::from_shape({B, T, E});
  detail::linear_forward(B * T, I, E, ctx.data(), I, o_weight.value.data(), nullptr, out.data(), E);
  if (weights) *weights = std::move(P);
  if (update_memory && cfg_.mem_len > 0) {
    hwin_.rows = kvwin_.rows = L;
    hwin_.keep_last(cfg_.mem_len);
    kvwin_.keep_last(cfg_.mem_len);
  }
  return out;
}

void RelMultiheadAttention::backward(const Tensor3& dout, const Cache& c, Tensor3& dx) {
  const size_t E = cfg_.d_model, H = cfg_.n_head, Dh = cfg_.d_head, I = H * Dh;
  const size_t B = c.P.shape(0), T = c.P.shape(2), L = c.P.shape(3), M = c.M;
  ATTNLAB_CHECK(dout.shape(0) == B && dout.shape(1) == T && dout.shape(2) == E,
                "RelMultiheadAttention backward: expected dout (", B, ",", T, ",", E, "), got ",
                detail::shape_of(dout));
  Tensor3 dctx = Tensor3::from_shape({B, T, I});
  detail::linear_backward(B * T, I, E, c.ctx.data(), I, o_weight.value.data(), dout.data(), E,
                          dctx.data(), I, false, o_weight.grad.data(), nullptr);
  Tensor3 dq = Tensor3::from_shape({B, T, I});
  Tensor3 dkv = Tensor3::from_shape({B, L, 2 * I});
  Tensor2 dr = xt::zeros<float>({L, I});
  const float scale = 1.f / std::sqrt(float(Dh));
  std::vector<float> qu(T * Dh), qv(T * Dh), dS(T * L), dbd(T * L), dqv(T * Dh);
  for (size_t b = 0; b < B; ++b)
    for (size_t h = 0; h < H; ++h) {
      const float* qh = c.q.data() + b * T * I + h * Dh;
      for (size_t i = 0; i < T; ++i)
        for (size_t d = 0; d < Dh; ++d) {
          qu[i * Dh + d] = qh[i * I + d] + r_w_bias.value(h, d);
          qv[i * Dh + d] = qh[i * I + d] + r_r_bias.value(h, d);
        }
      const float* P = c.P.data() + (b * H + h) * T * L;
      const float* kh = c.kv.data() + b * L * 2 * I + h * Dh;
      const float* vh = kh + I;
      const float* g = dctx.data() + b * T * I + h * Dh;
      float* dkh = dkv.data() + b * L * 2 * I + h * Dh;
      float* dvh = dkh + I;
      float* dqh = dq.data() + b * T * I + h * Dh;
      k::gemm(false, true, T, L, Dh, 1.f, g, I, vh, 2 * I, 0.f, dS.data(), L);
      k::gemm(true, false, L, Dh, T, 1.f, P, L, g, I, 0.f, dvh, 2 * I);
      k::softmax_rows_backward(T, L, P, dS.data(), dS.data());
      k::scale(T * L, scale, dS.data(), dS.data());
      std::fill(dbd.begin(), dbd.end(), 0.f);
      for (size_t i = 0; i < T; ++i) {
        const size_t off = T - 1 - i;
        for (size_t j = 0; j <= M + i; ++j) dbd[i * L + j + off] = dS[i * L + j];
      }
      // content: S = qu k^T
      k::gemm(false, false, T, Dh, L, 1.f, dS.data(), L, kh, 2 * I, 0.f, dqh, I);
      k::gemm(true, false, L, Dh, T, 1.f, dS.data(), L, qu.data(), Dh, 0.f, dkh, 2 * I);
      // position: BD_full = qv r^T
      k::gemm(false, false, T, Dh, L, 1.f, dbd.data(), L, c.r.data() + h * Dh, I, 0.f, dqv.data(), Dh);
      k::gemm(true, false, L, Dh, T, 1.f, dbd.data(), L, qv.data(), Dh, 1.f, dr.data() + h * Dh, I);
      float* du = r_w_bias.grad.data() + h * Dh;
      float* dvb = r_r_bias.grad.data() + h * Dh;
      for (size_t i = 0; i < T; ++i) {
        k::add(Dh, dqh + i * I, du);
        k::add(Dh, dqv.data() + i * Dh, dvb);
        k::add(Dh, dqv.data() + i * Dh, dqh + i * I);
      }
    }
  const float* W = qkv_weight.value.data();
  float* dW = qkv_weight.grad.data();
  dx = Tensor3::from_shape({B, T, E});
  // dW_q += dq^T x (x rows are cat rows [M, L) of each batch item), dx = dq W_q
  for (size_t b = 0; b < B; ++b) {
    const float* xb = c.cat.data() + (b * L + M) * E;
    detail::linear_backward(T, E, I, xb, E, W, dq.data() + b * T * I, I, dx.data() + b * T * E, E,
                            false, dW, nullptr);
  }
  // k, v from cat: all rows feed dW_kv; only the current rows feed dx (memory is a constant)
  detail::linear_backward(B * L, E, 2 * I, c.cat.data(), E, W + I * E, dkv.data(), 2 * I, nullptr,
                          E, false, dW + I * E, nullptr);
  for (size_t b = 0; b < B; ++b)
    detail::linear_backward(T, E, 2 * I, nullptr, E, W + I * E, dkv.data() + (b * L + M) * 2 * I,
                            2 * I, dx.data() + b * T * E, E, true, nullptr, nullptr);
  detail::linear_backward(L, E, I, c.R.data(), E, r_weight.value.data(), dr.data(), I, nullptr, E,
                          false, r_weight.grad.data(), nullptr);
}

}  // namespace attnlab::attention
