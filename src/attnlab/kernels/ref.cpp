// Scalar reference twins of every kernel: plain loops, written for clarity.
// They are the oracle the SIMD kernels are tested against.
#include <cmath>
#include <limits>

#include "attnlab/kernels/kernels.hpp"

namespace attnlab::kernels {

void gemm_ref(bool transA, bool transB, size_t M, size_t N, size_t K, float alpha,
              const float* A, size_t lda, const float* B, size_t ldb, float beta,
              float* C, size_t ldc) noexcept {
  for (size_t i = 0; i < M; ++i) {
    for (size_t j = 0; j < N; ++j) {
      double acc = 0.0;
      for (size_t k = 0; k < K; ++k) {
        const float a = transA ? A[k * lda + i] : A[i * lda + k];
        const float b = transB ? B[j * ldb + k] : B[k * ldb + j];
        acc += static_cast<double>(a) * b;
      }
      float& c = C[i * ldc + j];
      c = static_cast<float>(alpha * acc + (beta == 0.f ? 0.0 : static_cast<double>(beta) * c));
    }
  }
}

void gemv_ref(bool transA, size_t M, size_t N, float alpha, const float* A, size_t lda,
              const float* x, float beta, float* y) noexcept {
  const size_t rows_out = transA ? N : M;
  const size_t inner = transA ? M : N;
  for (size_t i = 0; i < rows_out; ++i) {
    double acc = 0.0;
    for (size_t k = 0; k < inner; ++k) {
      const float a = transA ? A[k * lda + i] : A[i * lda + k];
      acc += static_cast<double>(a) * x[k];
    }
    y[i] = static_cast<float>(alpha * acc + (beta == 0.f ? 0.0 : static_cast<double>(beta) * y[i]));
  }
}

float dot_ref(size_t n, const float* x, const float* y) noexcept {
  double acc = 0.0;
  for (size_t i = 0; i < n; ++i) acc += static_cast<double>(x[i]) * y[i];
  return static_cast<float>(acc);
}
void axpy_ref(size_t n, float alpha, const float* x, float* y) noexcept {
  for (size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}
void scale_ref(size_t n, float alpha, const float* x, float* y) noexcept {
  for (size_t i = 0; i < n; ++i) y[i] = alpha * x[i];
}
void add_ref(size_t n, const float* x, float* y) noexcept {
  for (size_t i = 0; i < n; ++i) y[i] += x[i];
}
void mul_ref(size_t n, const float* x, const float* y, float* z) noexcept {
  for (size_t i = 0; i < n; ++i) z[i] = x[i] * y[i];
}

float sum_ref(size_t n, const float* x) noexcept {
  double acc = 0.0;
  for (size_t i = 0; i < n; ++i) acc += x[i];
  return static_cast<float>(acc);
}
float max_ref(size_t n, const float* x) noexcept {
  float m = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

void softmax_rows_ref(size_t rows, size_t cols, const float* x, size_t ldx,
                      const float* mask, size_t mask_stride, float* y, size_t ldy) noexcept {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * ldx;
    const float* mr = mask ? mask + r * mask_stride : nullptr;
    float* yr = y + r * ldy;
    float m = -std::numeric_limits<float>::infinity();
    for (size_t c = 0; c < cols; ++c) {
      const float v = xr[c] + (mr ? mr[c] : 0.f);
      m = v > m ? v : m;
    }
    if (m == -std::numeric_limits<float>::infinity()) {
      for (size_t c = 0; c < cols; ++c) yr[c] = 0.f;
      continue;
    }
    double s = 0.0;
    for (size_t c = 0; c < cols; ++c) {
      const float e = std::exp(xr[c] + (mr ? mr[c] : 0.f) - m);
      yr[c] = e;
      s += e;
    }
    const float inv = static_cast<float>(1.0 / s);
    for (size_t c = 0; c < cols; ++c) yr[c] *= inv;
  }
}

void softmax_rows_backward_ref(size_t rows, size_t cols, const float* y, const float* dy,
                               float* dx) noexcept {
  for (size_t r = 0; r < rows; ++r) {
    const float* yr = y + r * cols;
    const float* dyr = dy + r * cols;
    float* dxr = dx + r * cols;
    double s = 0.0;
    for (size_t c = 0; c < cols; ++c) s += static_cast<double>(yr[c]) * dyr[c];
    for (size_t c = 0; c < cols; ++c) dxr[c] = yr[c] * (dyr[c] - static_cast<float>(s));
  }
}

void log_softmax_rows_ref(size_t rows, size_t cols, const float* x, float* y) noexcept {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -std::numeric_limits<float>::infinity();
    for (size_t c = 0; c < cols; ++c) m = xr[c] > m ? xr[c] : m;
    if (m == -std::numeric_limits<float>::infinity()) {
      for (size_t c = 0; c < cols; ++c) yr[c] = m;
      continue;
    }
    double s = 0.0;
    for (size_t c = 0; c < cols; ++c) s += std::exp(static_cast<double>(xr[c]) - m);
    const float lse = m + static_cast<float>(std::log(s));
    for (size_t c = 0; c < cols; ++c) yr[c] = xr[c] - lse;
  }
}

void exp_ref(size_t n, const float* x, float* y) noexcept {
  for (size_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}
void exp_backward_ref(size_t n, const float* y, const float* dy, float* dx) noexcept {
  for (size_t i = 0; i < n; ++i) dx[i] = dy[i] * y[i];
}
void tanh_ref(size_t n, const float* x, float* y) noexcept {
  for (size_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]);
}
void tanh_backward_ref(size_t n, const float* y, const float* dy, float* dx) noexcept {
  for (size_t i = 0; i < n; ++i) dx[i] = dy[i] * (1.f - y[i] * y[i]);
}
void sigmoid_ref(size_t n, const float* x, float* y) noexcept {
  for (size_t i = 0; i < n; ++i) y[i] = 1.f / (1.f + std::exp(-x[i]));
}
void sigmoid_backward_ref(size_t n, const float* y, const float* dy, float* dx) noexcept {
  for (size_t i = 0; i < n; ++i) dx[i] = dy[i] * y[i] * (1.f - y[i]);
}
void relu_ref(size_t n, const float* x, float* y) noexcept {
  for (size_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
void relu_backward_ref(size_t n, const float* x, const float* dy, float* dx) noexcept {
  for (size_t i = 0; i < n; ++i) dx[i] = x[i] > 0.f ? dy[i] : 0.f;
}
void gelu_ref(size_t n, const float* x, float* y) noexcept {
  for (size_t i = 0; i < n; ++i) y[i] = 0.5f * x[i] * (1.f + std::erf(x[i] * 0.70710678f));
}
void gelu_backward_ref(size_t n, const float* x, const float* dy, float* dx) noexcept {
  for (size_t i = 0; i < n; ++i) {
    const float cdf = 0.5f * (1.f + std::erf(x[i] * 0.70710678f));
    const float pdf = 0.3989422804f * std::exp(-0.5f * x[i] * x[i]);
    dx[i] = dy[i] * (cdf + x[i] * pdf);
  }
}

void layernorm_ref(size_t rows, size_t cols, const float* x, const float* gamma,
                   const float* beta, float eps, float* y, float* mean, float* rstd) noexcept {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    double m = 0.0;
    for (size_t c = 0; c < cols; ++c) m += xr[c];
    m /= static_cast<double>(cols);
    double v = 0.0;
    for (size_t c = 0; c < cols; ++c) v += (xr[c] - m) * (xr[c] - m);
    v /= static_cast<double>(cols);
    const float rs = static_cast<float>(1.0 / std::sqrt(v + eps));
    const float mf = static_cast<float>(m);
    for (size_t c = 0; c < cols; ++c) {
      const float xh = (xr[c] - mf) * rs;
      yr[c] = xh * (gamma ? gamma[c] : 1.f) + (beta ? beta[c] : 0.f);
    }
    if (mean) mean[r] = mf;
    if (rstd) rstd[r] = rs;
  }
}

void layernorm_backward_ref(size_t rows, size_t cols, const float* dy, const float* x,
                            const float* gamma, const float* mean, const float* rstd,
                            float* dx, float* dgamma, float* dbeta) noexcept {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    const float* dyr = dy + r * cols;
    float* dxr = dx + r * cols;
    const float m = mean[r], rs = rstd[r];
    double s1 = 0.0, s2 = 0.0;  // mean(dxhat), mean(dxhat * xhat)
    for (size_t c = 0; c < cols; ++c) {
      const float xh = (xr[c] - m) * rs;
      const float dxh = dyr[c] * (gamma ? gamma[c] : 1.f);
      s1 += dxh;
      s2 += static_cast<double>(dxh) * xh;
      if (dgamma) dgamma[c] += dyr[c] * xh;
      if (dbeta) dbeta[c] += dyr[c];
    }
    const float a = static_cast<float>(s1 / cols), b = static_cast<float>(s2 / cols);
    for (size_t c = 0; c < cols; ++c) {
      const float xh = (xr[c] - m) * rs;
      const float dxh = dyr[c] * (gamma ? gamma[c] : 1.f);
      dxr[c] = rs * (dxh - a - xh * b);
    }
  }
}

}  // namespace attnlab::kernels
