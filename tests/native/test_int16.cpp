// int16 inference kernels beyond the registry's twin comparison: the quantized product
// approximates the float product within the quantization bound, extreme values do not
// overflow, and zero / NaN rows behave as documented.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "attnlab/kernels/kernels.hpp"

namespace k = attnlab::kernels;

namespace {
size_t pad16(size_t n) { return (n + 15) / 16 * 16; }


// Weights quantized with the kernel of their type, and the matching product.
void quantize_weights(size_t rows, size_t cols, const float* a, int16_t* q, size_t ldq, float* s) {
  k::quantize_rows_i16(rows, cols, a, cols, k::kQmaxWeight, q, ldq, s);
}
void quantize_weights(size_t rows, size_t cols, const float* a, int8_t* q, size_t ldq, float* s) {
  k::quantize_rows_i8(rows, cols, a, cols, q, ldq, s);
}
void product(size_t n, size_t M, size_t K, const int16_t* X, const float* sx, const int16_t* A,
             const float* sa, const float* bias, float* Y) {
  k::gemm_i16(n, M, K, X, K, sx, A, K, sa, bias, Y, M);
}
void product(size_t n, size_t M, size_t K, const int16_t* X, const float* sx, const int8_t* A,
             const float* sa, const float* bias, float* Y) {
  k::gemm_i8(n, M, K, X, K, sx, A, K, sa, bias, Y, M);
}

// The quantized product of random weights and tanh-range inputs stays within the bound
// that per-element rounding allows: |a - a~| <= amax / (2 qmax_w), |x - x~| <= xmax / (2 qmax_x).
template <class W>
void check_product_bound(uint32_t seed, const std::vector<size_t>& Ks, size_t n, size_t M,
                         double qmax_w, bool with_bias) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (size_t K : Ks) {
    const size_t Kp = pad16(K);
    std::vector<float> a(M * K), x(n * K), bias(M, 0.f);
    for (float& v : a) v = 0.2f * nd(rng);
    for (float& v : x) v = std::tanh(nd(rng));
    if (with_bias)
      for (float& v : bias) v = nd(rng);
    std::vector<W> qa(M * Kp);
    std::vector<int16_t> qx(n * Kp);
    std::vector<float> sa(M), sx(n), y(n * M);
    quantize_weights(M, K, a.data(), qa.data(), Kp, sa.data());
    k::quantize_rows_i16(n, K, x.data(), K, k::kQmaxInput, qx.data(), Kp, sx.data());
    product(n, M, Kp, qx.data(), sx.data(), qa.data(), sa.data(), with_bias ? bias.data() : nullptr,
            y.data());
    for (size_t b = 0; b < n; ++b)
      for (size_t m = 0; m < M; ++m) {
        double exact = bias[m], bound = 1e-6;
        float amax = 0, xmax = 0;
        for (size_t j = 0; j < K; ++j) {
          amax = std::max(amax, std::fabs(a[m * K + j]));
          xmax = std::max(xmax, std::fabs(x[b * K + j]));
        }
        for (size_t j = 0; j < K; ++j) {
          exact += double(a[m * K + j]) * x[b * K + j];
          bound += std::fabs(x[b * K + j]) * amax / (2.0 * qmax_w) +
                   std::fabs(a[m * K + j]) * xmax / (2.0 * k::kQmaxInput) +
                   amax * xmax / (4.0 * qmax_w * k::kQmaxInput);
        }
        EXPECT_NEAR(y[b * M + m], exact, bound) << "K=" << K << " b=" << b << " m=" << m;
      }
  }
}
}  // namespace

TEST(Int16, ProductWithinQuantizationBound) {
  check_product_bound<int16_t>(7, {5, 64, 300}, 3, 37, k::kQmaxWeight, true);
}

TEST(Int16, ExtremeValuesDoNotOverflow) {
  // every product is qmax_w * qmax_x (or its negative): the worst case of the range contract
  const size_t K = 4096, M = 5;
  std::vector<float> a(M * K), x(2 * K);
  for (size_t i = 0; i < a.size(); ++i) a[i] = (i / K) % 2 ? -3.f : 3.f;
  for (size_t i = 0; i < K; ++i) x[i] = 1.f, x[K + i] = -1.f;
  std::vector<int16_t> qa(M * K), qx(2 * K);
  std::vector<float> sa(M), sx(2), y(2 * M), yr(2 * M);
  k::quantize_rows_i16(M, K, a.data(), K, k::kQmaxWeight, qa.data(), K, sa.data());
  k::quantize_rows_i16(2, K, x.data(), K, k::kQmaxInput, qx.data(), K, sx.data());
  EXPECT_EQ(qa[0], k::kQmaxWeight);
  EXPECT_EQ(qa[K], -k::kQmaxWeight);
  EXPECT_EQ(qx[K], -k::kQmaxInput);
  k::gemm_i16(2, M, K, qx.data(), K, sx.data(), qa.data(), K, sa.data(), nullptr, y.data(), M);
  k::gemm_i16_ref(2, M, K, qx.data(), K, sx.data(), qa.data(), K, sa.data(), nullptr, yr.data(), M);
  for (size_t b = 0; b < 2; ++b)
    for (size_t m = 0; m < M; ++m) {
      const double want = 3.0 * K * (m % 2 ? -1 : 1) * (b ? -1 : 1);
      EXPECT_NEAR(y[b * M + m], want, 1e-5 * std::fabs(want));
      EXPECT_NEAR(yr[b * M + m], want, 1e-5 * std::fabs(want));
    }
}

TEST(Int16, ZeroAndNonFiniteRows) {
  const size_t K = 20, Kp = 32;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x(3 * K, 0.5f);
  for (size_t j = 0; j < K; ++j) x[j] = 0.f;  // row 0: zeros
  x[K + 7] = nan;                               // row 1: a NaN
  x[2 * K + 19] = std::numeric_limits<float>::infinity();  // row 2: an inf
  for (auto q : {&k::quantize_rows_i16, &k::quantize_rows_i16_ref}) {
    std::vector<int16_t> qx(3 * Kp, 99);
    std::vector<float> sx(3, -1.f);
    q(3, K, x.data(), K, k::kQmaxInput, qx.data(), Kp, sx.data());
    EXPECT_EQ(sx[0], 0.f);
    EXPECT_TRUE(std::isnan(sx[1]));
    EXPECT_TRUE(std::isnan(sx[2]));
    for (int16_t v : qx) EXPECT_EQ(v, 0);
    // through the product: zero row -> the bias; NaN/inf rows -> NaN
    std::vector<float> a(2 * K, 0.25f), sa(2), bias = {1.5f, -2.f}, y(6);
    std::vector<int16_t> qa(2 * Kp);
    k::quantize_rows_i16(2, K, a.data(), K, k::kQmaxWeight, qa.data(), Kp, sa.data());
    k::gemm_i16(3, 2, Kp, qx.data(), Kp, sx.data(), qa.data(), Kp, sa.data(), bias.data(), y.data(), 2);
    EXPECT_EQ(y[0], 1.5f);
    EXPECT_EQ(y[1], -2.f);
    for (size_t i = 2; i < 6; ++i) EXPECT_TRUE(std::isnan(y[i]));
  }
}

TEST(Int16, RoundsHalfToEvenLikeTheTwin) {
  // values landing exactly on .5 steps after scaling: both twins round half to even
  const size_t K = 24;
  std::vector<float> x(K);
  for (size_t j = 0; j < K; ++j) x[j] = (float(j) - 11.5f);  // max |x| = 12.5
  std::vector<int16_t> q1(32), q2(32);
  float s1, s2;
  k::quantize_rows_i16(1, K, x.data(), K, 25, q1.data(), 32, &s1);  // x * 2: integers
  k::quantize_rows_i16_ref(1, K, x.data(), K, 25, q2.data(), 32, &s2);
  EXPECT_EQ(s1, s2);
  EXPECT_EQ(q1, q2);
  std::vector<float> h = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 4.f, 0, 0, 0, 0};  // qmax 4 -> inv 1
  k::quantize_rows_i16(1, h.size(), h.data(), h.size(), 4, q1.data(), 16, &s1);
  EXPECT_EQ(q1[0], 0);
  EXPECT_EQ(q1[1], 2);
  EXPECT_EQ(q1[2], 2);
  EXPECT_EQ(q1[3], 0);
  EXPECT_EQ(q1[4], -2);
  EXPECT_EQ(q1[5], 4);
}

TEST(Int8, ProductWithinQuantizationBound) {
  // 1500 crosses the int8 product's 1024-element int32 chunk
  check_product_bound<int8_t>(11, {7, 256, 1500}, 2, 13, 127, false);
}

TEST(Int8, ExtremeValuesDoNotOverflow) {
  // 127 * kQmaxInput in every product, over several int32 chunks of 1024
  const size_t K = 4096, M = 3;
  std::vector<float> a(M * K), x(K, -1.f);
  for (size_t i = 0; i < a.size(); ++i) a[i] = (i / K) % 2 ? 2.f : -2.f;
  std::vector<int8_t> qa(M * K);
  std::vector<int16_t> qx(K);
  std::vector<float> sa(M), sx(1), y(M), yr(M);
  k::quantize_rows_i8(M, K, a.data(), K, qa.data(), K, sa.data());
  k::quantize_rows_i16(1, K, x.data(), K, k::kQmaxInput, qx.data(), K, sx.data());
  EXPECT_EQ(qa[0], -127);
  EXPECT_EQ(qa[K], 127);
  k::gemm_i8(1, M, K, qx.data(), K, sx.data(), qa.data(), K, sa.data(), nullptr, y.data(), M);
  k::gemm_i8_ref(1, M, K, qx.data(), K, sx.data(), qa.data(), K, sa.data(), nullptr, yr.data(), M);
  for (size_t m = 0; m < M; ++m) {
    const double want = 2.0 * K * (m % 2 ? -1 : 1);
    EXPECT_NEAR(y[m], want, 1e-5 * std::fabs(want));
    EXPECT_NEAR(yr[m], want, 1e-5 * std::fabs(want));
  }
}

// gemm_i8_sparse (pair-interleaved weights, mostly-zero inputs: ReLU outputs) gives
// gemm_i8's result bit for bit, the same exact int32 lane sums added in the same order:
// a Transformer decodes the same with either.
TEST(Int8, SparseProductEqualsTheDenseOneBitForBit) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.f, 1.f), p(0.f, 1.f);
  for (const size_t M : {size_t{1}, size_t{13}, size_t{30}, size_t{128}})
    for (const size_t K : {size_t{16}, size_t{48}, size_t{512}, size_t{1024}}) {
      const size_t n = 5, ldp = (M + 15) / 16 * 16;
      std::vector<float> a(M * K), x(n * K), bias(M);
      for (float& v : a) v = u(rng);
      for (float& v : bias) v = u(rng);
      // row 0 dense, row 1 all zero, the others 90% zero (ReLU-like: >= 0)
      for (size_t i = 0; i < x.size(); ++i)
        x[i] = i < K ? u(rng) : i < 2 * K ? 0.f : p(rng) < 0.9f ? 0.f : p(rng);
      std::vector<int8_t> qa(M * K), packed(K * ldp, 0);
      std::vector<int16_t> qx(n * K);
      std::vector<float> sa(M), sx(n), dense(n * M), sparse(n * M, -7.f);
      k::quantize_rows_i8(M, K, a.data(), K, qa.data(), K, sa.data());
      k::quantize_rows_i16(n, K, x.data(), K, k::kQmaxInput, qx.data(), K, sx.data());
      for (size_t m = 0; m < M; ++m)
        for (size_t j = 0; j < K; ++j) packed[(j / 2) * 2 * ldp + 2 * m + j % 2] = qa[m * K + j];
      for (const float* b : std::vector<const float*>{nullptr, bias.data()}) {
        k::gemm_i8(n, M, K, qx.data(), K, sx.data(), qa.data(), K, sa.data(), b, dense.data(), M);
        k::gemm_i8_sparse(n, M, K, qx.data(), K, sx.data(), packed.data(), ldp, sa.data(), b,
                          sparse.data(), M);
        for (size_t i = 0; i < dense.size(); ++i)
          ASSERT_EQ(dense[i], sparse[i]) << "M " << M << " K " << K << " at " << i << (b ? " bias" : "");
        EXPECT_EQ(std::memcmp(dense.data(), sparse.data(), dense.size() * sizeof(float)), 0);
        for (size_t m = 0; m < M; ++m) EXPECT_EQ(sparse[M + m], b ? b[m] : 0.f);  // the zero row
      }
    }
}

// The 16-bit multiply-add ceiling the int8/int16 benchmarks print beside the products:
// measured (positive) where the instruction exists, 0 where it does not.
TEST(Int16, MaddPeakIsMeasured) {
  const double g = k::i16_madd_peak_gflops(5);
#if defined(__SSE2__)
  EXPECT_GT(g, 0.5);
  EXPECT_TRUE(std::isfinite(g));
#else
  EXPECT_EQ(g, 0.0);
#endif
}
