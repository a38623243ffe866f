// xsimd kernels (everything but GEMM, which lives in gemm.cpp).
// Each: a vector main loop over W = batch<float>::size lanes, then a scalar tail.
#include <cmath>
#include <limits>

#include "attnlab/kernels/kernels.hpp"
#include "attnlab/kernels/simd_math.hpp"

namespace attnlab::kernels {

using simd::fbatch;
using simd::W;

namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
inline fbatch load(const float* p) { return fbatch::load_unaligned(p); }
inline void store(float* p, fbatch v) { v.store_unaligned(p); }
inline float hsum(fbatch v) { return xsimd::hadd(v); }
inline float hmax(fbatch v) {
  alignas(64) float tmp[W];
  v.store_aligned(tmp);
  float m = tmp[0];
  for (size_t i = 1; i < W; ++i) m = tmp[i] > m ? tmp[i] : m;
  return m;
}
inline fbatch vmax(fbatch a, fbatch b) { return xsimd::select(a < b, b, a); }

// Applies a unary vector op; the tail goes through a zero-padded vector, so
// tail and body agree bit for bit.
template <class VF>
inline void unary(size_t n, const float* x, float* y, VF vf) {
  size_t i = 0;
  for (; i + W <= n; i += W) store(y + i, vf(load(x + i)));
  if (i < n) {
    alignas(64) float tmp[W] = {};
    for (size_t j = i; j < n; ++j) tmp[j - i] = x[j];
    const fbatch r = vf(fbatch::load_aligned(tmp));
    r.store_aligned(tmp);
    for (size_t j = i; j < n; ++j) y[j] = tmp[j - i];
  }
}
template <class VF>
inline void binary(size_t n, const float* a, const float* b, float* y, VF vf) {
  size_t i = 0;
  for (; i + W <= n; i += W) store(y + i, vf(load(a + i), load(b + i)));
  if (i < n) {
    alignas(64) float ta[W] = {}, tb[W] = {};
    for (size_t j = i; j < n; ++j) { ta[j - i] = a[j]; tb[j - i] = b[j]; }
    const fbatch r = vf(fbatch::load_aligned(ta), fbatch::load_aligned(tb));
    r.store_aligned(ta);
    for (size_t j = i; j < n; ++j) y[j] = ta[j - i];
  }
}
}  // namespace

// ---------------------------------------------------------------- BLAS-like
float dot(size_t n, const float* x, const float* y) noexcept {
  fbatch a0(0.f), a1(0.f), a2(0.f), a3(0.f);
  size_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    a0 += load(x + i) * load(y + i);
    a1 += load(x + i + W) * load(y + i + W);
    a2 += load(x + i + 2 * W) * load(y + i + 2 * W);
    a3 += load(x + i + 3 * W) * load(y + i + 3 * W);
  }
  for (; i + W <= n; i += W) a0 += load(x + i) * load(y + i);
  float s = hsum((a0 + a1) + (a2 + a3));
  for (; i < n; ++i) s += x[i] * y[i];
  return s;
}

void axpy(size_t n, float alpha, const float* x, float* y) noexcept {
  const fbatch a(alpha);
  size_t i = 0;
  for (; i + W <= n; i += W) store(y + i, load(y + i) + a * load(x + i));
  for (; i < n; ++i) y[i] += alpha * x[i];
}

void scale(size_t n, float alpha, const float* x, float* y) noexcept {
  const fbatch a(alpha);
  size_t i = 0;
  for (; i + W <= n; i += W) store(y + i, a * load(x + i));
  for (; i < n; ++i) y[i] = alpha * x[i];
}

void add(size_t n, const float* x, float* y) noexcept {
  size_t i = 0;
  for (; i + W <= n; i += W) store(y + i, load(y + i) + load(x + i));
  for (; i < n; ++i) y[i] += x[i];
}

void mul(size_t n, const float* x, const float* y, float* z) noexcept {
  size_t i = 0;
  for (; i + W <= n; i += W) store(z + i, load(x + i) * load(y + i));
  for (; i < n; ++i) z[i] = x[i] * y[i];
}

void gemv(bool transA, size_t M, size_t N, float alpha, const float* A, size_t lda,
          const float* x, float beta, float* y) noexcept {
  if (!transA) {
    // y[i] = alpha * <A[i,:], x> + beta * y[i], four rows share each x load.
    size_t i = 0;
    for (; i + 4 <= M; i += 4) {
      const float* r0 = A + i * lda;
      const float* r1 = r0 + lda;
      const float* r2 = r1 + lda;
      const float* r3 = r2 + lda;
      fbatch c0(0.f), c1(0.f), c2(0.f), c3(0.f);
      size_t k = 0;
      for (; k + W <= N; k += W) {
        const fbatch xv = load(x + k);
        c0 += load(r0 + k) * xv;
        c1 += load(r1 + k) * xv;
        c2 += load(r2 + k) * xv;
        c3 += load(r3 + k) * xv;
      }
      float s[4] = {hsum(c0), hsum(c1), hsum(c2), hsum(c3)};
      for (; k < N; ++k) {
        s[0] += r0[k] * x[k];
        s[1] += r1[k] * x[k];
        s[2] += r2[k] * x[k];
        s[3] += r3[k] * x[k];
      }
      for (int j = 0; j < 4; ++j)
        y[i + j] = alpha * s[j] + (beta == 0.f ? 0.f : beta * y[i + j]);
    }
    for (; i < M; ++i)
      y[i] = alpha * dot(N, A + i * lda, x) + (beta == 0.f ? 0.f : beta * y[i]);
    return;
  }
  // y(N) = alpha * A^T x + beta * y: rows of A scaled by x[i], four at a time.
  if (beta == 0.f) {
    for (size_t j = 0; j < N; ++j) y[j] = 0.f;
  } else if (beta != 1.f) {
    scale(N, beta, y, y);
  }
  size_t i = 0;
  for (; i + 4 <= M; i += 4) {
    const float* r0 = A + i * lda;
    const float* r1 = r0 + lda;
    const float* r2 = r1 + lda;
    const float* r3 = r2 + lda;
    const float s0 = alpha * x[i], s1 = alpha * x[i + 1], s2 = alpha * x[i + 2],
                s3 = alpha * x[i + 3];
    const fbatch b0(s0), b1(s1), b2(s2), b3(s3);
    size_t j = 0;
    for (; j + W <= N; j += W) {
      fbatch acc = load(y + j);
      acc += b0 * load(r0 + j) + b1 * load(r1 + j);
      acc += b2 * load(r2 + j) + b3 * load(r3 + j);
      store(y + j, acc);
    }
    for (; j < N; ++j) y[j] += s0 * r0[j] + s1 * r1[j] + s2 * r2[j] + s3 * r3[j];
  }
  for (; i < M; ++i) axpy(N, alpha * x[i], A + i * lda, y);
}

// ---------------------------------------------------------------- reductions
float sum(size_t n, const float* x) noexcept {
  fbatch a0(0.f), a1(0.f);
  size_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    a0 += load(x + i);
    a1 += load(x + i + W);
  }
  for (; i + W <= n; i += W) a0 += load(x + i);
  float s = hsum(a0 + a1);
  for (; i < n; ++i) s += x[i];
  return s;
}

float max(size_t n, const float* x) noexcept {
  float m = kNegInf;
  size_t i = 0;
  if (n >= W) {
    fbatch v = load(x);
    for (i = W; i + W <= n; i += W) v = vmax(v, load(x + i));
    m = hmax(v);
  }
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

// ---------------------------------------------------------------- softmax
// Three passes over a row, none of them a copy: the max of z = x (+ mask), then
// e = exp(z - max) into y with its sum (simd::exp2_nonpositive), then y *= 1 / sum.
// z is recomputed in the second pass rather than stored in the first (a load of the
// mask is cheaper than a store and a reload). Two vectors per step, each with its own accumulator, so the
// exp chains and the max/sum reductions overlap.
namespace {
template <bool kMask>
inline fbatch z_at(const float* xr, const float* mr, size_t c) {
  if constexpr (kMask) return load(xr + c) + load(mr + c);
  else return load(xr + c);
}

template <bool kMask>
void softmax_row(size_t cols, const float* xr, const float* mr, float* yr) noexcept {
  // pass 1: the row max
  size_t c = 0;
  float m = kNegInf;
  if (cols >= W) {
    fbatch m0(kNegInf), m1(kNegInf);
    for (; c + 2 * W <= cols; c += 2 * W) {
      m0 = simd::max_lanes(m0, z_at<kMask>(xr, mr, c));
      m1 = simd::max_lanes(m1, z_at<kMask>(xr, mr, c + W));
    }
    if (c + W <= cols) {
      m0 = simd::max_lanes(m0, z_at<kMask>(xr, mr, c));
      c += W;
    }
    m = hmax(simd::max_lanes(m0, m1));
  }
  for (size_t j = c; j < cols; ++j) {
    const float z = xr[j] + (kMask ? mr[j] : 0.f);
    m = z > m ? z : m;
  }
  if (m == kNegInf) {  // fully masked row (or empty): zeros, not NaN
    for (size_t j = 0; j < cols; ++j) yr[j] = 0.f;
    return;
  }
  // pass 2: e = exp(z - m) = 2^((z - m) log2 e) into y, and the sum (y may alias x:
  // each z is read before its e is written)
  const simd::Exp2Consts k = simd::exp2_consts();
  const fbatch bm(m), l2e = k.log2e;
  fbatch s0(0.f), s1(0.f);
  c = 0;
  for (; c + 2 * W <= cols; c += 2 * W) {
    const fbatch e0 = simd::exp2_nonpositive((z_at<kMask>(xr, mr, c) - bm) * l2e, k);
    const fbatch e1 = simd::exp2_nonpositive((z_at<kMask>(xr, mr, c + W) - bm) * l2e, k);
    store(yr + c, e0);
    store(yr + c + W, e1);
    s0 += e0;
    s1 += e1;
  }
  if (c + W <= cols) {
    const fbatch e0 = simd::exp2_nonpositive((z_at<kMask>(xr, mr, c) - bm) * l2e, k);
    store(yr + c, e0);
    s0 += e0;
    c += W;
  }
  float s = hsum(s0 + s1);
  if (c < cols) {
    alignas(64) float tmp[W] = {};
    for (size_t j = c; j < cols; ++j) tmp[j - c] = xr[j] + (kMask ? mr[j] : 0.f) - m;
    const fbatch e = simd::exp2_nonpositive(fbatch::load_aligned(tmp) * l2e, k);
    e.store_aligned(tmp);
    for (size_t j = c; j < cols; ++j) {
      yr[j] = tmp[j - c];
      s += tmp[j - c];
    }
  }
  // pass 3: normalize
  scale(cols, 1.f / s, yr, yr);
}
}  // namespace

void softmax_rows(size_t rows, size_t cols, const float* x, size_t ldx, const float* mask,
                  size_t mask_stride, float* y, size_t ldy) noexcept {
  for (size_t r = 0; r < rows; ++r) {
    if (mask) softmax_row<true>(cols, x + r * ldx, mask + r * mask_stride, y + r * ldy);
    else softmax_row<false>(cols, x + r * ldx, nullptr, y + r * ldy);
  }
}

void softmax_rows_backward(size_t rows, size_t cols, const float* y, const float* dy,
                           float* dx) noexcept {
  for (size_t r = 0; r < rows; ++r) {
    const float* yr = y + r * cols;
    const float* dyr = dy + r * cols;
    float* dxr = dx + r * cols;
    const float ss = dot(cols, yr, dyr);
    const fbatch s(ss);
    size_t c = 0;
    for (; c + W <= cols; c += W) store(dxr + c, load(yr + c) * (load(dyr + c) - s));
    for (; c < cols; ++c) dxr[c] = yr[c] * (dyr[c] - ss);
  }
}

void log_softmax_rows(size_t rows, size_t cols, const float* x, float* y) noexcept {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    const float m = max(cols, xr);
    if (m == kNegInf) {
      for (size_t c = 0; c < cols; ++c) yr[c] = kNegInf;
      continue;
    }
    const fbatch bm(m);
    fbatch vs(0.f);
    size_t c = 0;
    for (; c + W <= cols; c += W) vs += simd::exp_nonpositive(load(xr + c) - bm);
    float s = hsum(vs);
    for (; c < cols; ++c) s += std::exp(xr[c] - m);
    const float lse = m + std::log(s);
    const fbatch bl(lse);
    c = 0;
    for (; c + W <= cols; c += W) store(yr + c, load(xr + c) - bl);
    for (; c < cols; ++c) yr[c] = xr[c] - lse;
  }
}

// ---------------------------------------------------------------- elementwise
void exp(size_t n, const float* x, float* y) noexcept {
  unary(n, x, y, [](fbatch v) { return simd::exp(v); });
}
void exp_backward(size_t n, const float* y, const float* dy, float* dx) noexcept { mul(n, y, dy, dx); }

void tanh(size_t n, const float* x, float* y) noexcept {
  const simd::ActConsts k = simd::act_consts();
  unary(n, x, y, [&k](fbatch v) { return simd::tanh(v, k); });
}
void tanh_backward(size_t n, const float* y, const float* dy, float* dx) noexcept {
  binary(n, y, dy, dx, [](fbatch a, fbatch d) { return d * (fbatch(1.f) - a * a); });
}

void sigmoid(size_t n, const float* x, float* y) noexcept {
  const simd::ActConsts k = simd::act_consts();
  unary(n, x, y, [&k](fbatch v) { return simd::sigmoid(v, k); });
}
void sigmoid_backward(size_t n, const float* y, const float* dy, float* dx) noexcept {
  binary(n, y, dy, dx, [](fbatch a, fbatch d) { return d * a * (fbatch(1.f) - a); });
}

void relu(size_t n, const float* x, float* y) noexcept {
  unary(n, x, y, [](fbatch v) { return xsimd::select(v > fbatch(0.f), v, fbatch(0.f)); });
}
void relu_backward(size_t n, const float* x, const float* dy, float* dx) noexcept {
  binary(n, x, dy, dx,
         [](fbatch a, fbatch d) { return xsimd::select(a > fbatch(0.f), d, fbatch(0.f)); });
}

void gelu(size_t n, const float* x, float* y) noexcept {
  unary(n, x, y, [](fbatch v) { return v * simd::normal_cdf(v); });
}
void gelu_backward(size_t n, const float* x, const float* dy, float* dx) noexcept {
  binary(n, x, dy, dx, [](fbatch a, fbatch d) {
    const fbatch pdf = fbatch(0.3989422804014327f) * simd::exp(fbatch(-0.5f) * a * a);
    return d * (simd::normal_cdf(a) + a * pdf);
  });
}

// ---------------------------------------------------------------- layer norm
void layernorm(size_t rows, size_t cols, const float* x, const float* gamma,
               const float* beta, float eps, float* y, float* mean, float* rstd) noexcept {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    const float m = sum(cols, xr) / static_cast<float>(cols);
    const fbatch bm(m);
    fbatch vv(0.f);
    size_t c = 0;
    for (; c + W <= cols; c += W) {
      const fbatch d = load(xr + c) - bm;
      vv += d * d;
    }
    float v = hsum(vv);
    for (; c < cols; ++c) v += (xr[c] - m) * (xr[c] - m);
    v /= static_cast<float>(cols);
    const float rs = 1.f / std::sqrt(v + eps);
    const fbatch brs(rs);
    c = 0;
    for (; c + W <= cols; c += W) {
      fbatch h = (load(xr + c) - bm) * brs;
      if (gamma) h *= load(gamma + c);
      if (beta) h += load(beta + c);
      store(yr + c, h);
    }
    for (; c < cols; ++c) {
      const float h = (xr[c] - m) * rs;
      yr[c] = h * (gamma ? gamma[c] : 1.f) + (beta ? beta[c] : 0.f);
    }
    if (mean) mean[r] = m;
    if (rstd) rstd[r] = rs;
  }
}

void layernorm_backward(size_t rows, size_t cols, const float* dy, const float* x,
                        const float* gamma, const float* mean, const float* rstd,
                        float* dx, float* dgamma, float* dbeta) noexcept {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    const float* dyr = dy + r * cols;
    float* dxr = dx + r * cols;
    const fbatch bm(mean[r]), brs(rstd[r]);
    const float m = mean[r], rs = rstd[r];
    fbatch v1(0.f), v2(0.f);
    size_t c = 0;
    for (; c + W <= cols; c += W) {
      const fbatch xh = (load(xr + c) - bm) * brs;
      const fbatch d = load(dyr + c);
      const fbatch dxh = gamma ? d * load(gamma + c) : d;
      v1 += dxh;
      v2 += dxh * xh;
      if (dgamma) store(dgamma + c, load(dgamma + c) + d * xh);
      if (dbeta) store(dbeta + c, load(dbeta + c) + d);
    }
    float s1 = hsum(v1), s2 = hsum(v2);
    for (; c < cols; ++c) {
      const float xh = (xr[c] - m) * rs;
      const float dxh = dyr[c] * (gamma ? gamma[c] : 1.f);
      s1 += dxh;
      s2 += dxh * xh;
      if (dgamma) dgamma[c] += dyr[c] * xh;
      if (dbeta) dbeta[c] += dyr[c];
    }
    const float a = s1 / static_cast<float>(cols), b = s2 / static_cast<float>(cols);
    const fbatch ba(a), bb(b);
    c = 0;
    for (; c + W <= cols; c += W) {
      const fbatch xh = (load(xr + c) - bm) * brs;
      const fbatch d = load(dyr + c);
      const fbatch dxh = gamma ? d * load(gamma + c) : d;
      store(dxr + c, brs * (dxh - ba - xh * bb));
    }
    for (; c < cols; ++c) {
      const float xh = (xr[c] - m) * rs;
      const float dxh = dyr[c] * (gamma ? gamma[c] : 1.f);
      dxr[c] = rs * (dxh - a - xh * b);
    }
  }
}

// ---------------------------------------------------------------- info
const char* simd_arch_name() noexcept {
#if defined(__wasm_simd128__)
  return "wasm-simd128 (xsimd sse4.1 path)";
#else
  return xsimd::default_arch::name();
#endif
}
size_t simd_lanes() noexcept { return W; }

}  // namespace attnlab::kernels
