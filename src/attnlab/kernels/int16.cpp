// Quantized inference kernels: per-row quantization to int16 / int8 and the matrix
// products with int16 inputs and int16 or int8 weights.
// SSE2 / SSE4.1 intrinsics, the same instruction set the xsimd kernels use (the wasm build
// compiles them to SIMD128: _mm_madd_epi16 becomes i32x4.dot_i16x8_s, _mm_packs_epi32
// i16x8.narrow_i32x4_s). xsimd 8.1 has no 16-bit multiply-add, hence the intrinsics.
// Float -> int rounding uses the 1.5 * 2^23 trick (as the exp kernel does) instead of
// _mm_cvt(t)ps_epi32, which has no SIMD128 equivalent and becomes a scalar loop there.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "attnlab/kernels/kernels.hpp"
#include "attnlab/kernels/timing.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#define ATTNLAB_I16_SIMD 1
#endif
#if defined(__SSE4_1__)
#include <smmintrin.h>
#define ATTNLAB_I8_SIMD 1
#endif
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attnlab::kernels {

#if ATTNLAB_I16_SIMD
namespace {
constexpr float kMagic = 12582912.f;
// k elements per int32 accumulation: each lane sums kChunk / 4 products of magnitude at
// most kQmaxWeight * kQmaxInput = 11585^2 < 2^31 / 16, so 16 products (kChunk 64) fit.
constexpr size_t kChunk = 64;
static_assert(double(kQmaxWeight) * kQmaxInput * (kChunk / 4) < 2147483647.0, "int32 overflow");  // 1.5 * 2^23: x + kMagic rounds x to an integer (|x| < 2^22)

// Sum of each of four vectors, as one vector [sum a, sum b, sum c, sum d].
inline __m128 hsum4(__m128 a, __m128 b, __m128 c, __m128 d) {
  const __m128 ab_lo = _mm_unpacklo_ps(a, b), ab_hi = _mm_unpackhi_ps(a, b);
  const __m128 cd_lo = _mm_unpacklo_ps(c, d), cd_hi = _mm_unpackhi_ps(c, d);
  const __m128 ab = _mm_add_ps(ab_lo, ab_hi);  // a0+a2 b0+b2 a1+a3 b1+b3
  const __m128 cd = _mm_add_ps(cd_lo, cd_hi);
  return _mm_add_ps(_mm_movelh_ps(ab, cd), _mm_movehl_ps(cd, ab));
}
inline float hsum1(__m128 a) {
  const __m128 s = _mm_add_ps(a, _mm_movehl_ps(a, a));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)));
}
// 16 products of one A row and one X row added to an int32 accumulator (exact).
inline __m128i madd16(__m128i acc, const int16_t* a, __m128i x0, __m128i x1) {
  const __m128i p0 = _mm_madd_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a)), x0);
  const __m128i p1 = _mm_madd_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 8)), x1);
  return _mm_add_epi32(acc, _mm_add_epi32(p0, p1));
}
inline __m128i load16(const int16_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
// 16 weights of one A row as two vectors of eight int16 (loaded, or int8 extended below)
inline void load_w(const int16_t* a, __m128i& lo, __m128i& hi) { lo = load16(a); hi = load16(a + 8); }
}  // namespace

#if ATTNLAB_I8_SIMD  // int8 weights need the int8 -> int16 extension of SSE4.1
namespace {
constexpr size_t kChunk8 = 1024;  // 127 * 11585 * (1024 / 4) < 2^31
static_assert(127.0 * kQmaxInput * (kChunk8 / 4) < 2147483647.0, "int32 overflow");
// 8 int8 weights loaded and extended to int16 in one step: SIMD128's v128.load8x8_s (one
// pmovsxbw from memory on x86), where a 16-byte load needs two extensions after it
#if defined(__wasm_simd128__)
inline __m128i load_ext8(const int8_t* a) { return (__m128i)wasm_i16x8_load8x8(a); }
#else
inline __m128i load_ext8(const int8_t* a) {
  return _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a)));
}
#endif
inline __m128i madd16(__m128i acc, const int8_t* a, __m128i x0, __m128i x1) {
  return _mm_add_epi32(acc, _mm_add_epi32(_mm_madd_epi16(load_ext8(a), x0), _mm_madd_epi16(load_ext8(a + 8), x1)));
}
inline void load_w(const int8_t* a, __m128i& lo, __m128i& hi) {
  lo = load_ext8(a);
  hi = load_ext8(a + 8);
}
}  // namespace
#endif

namespace {
// Stores 8 int32 lanes (|v| <= qmax <= 32767) as int16 or int8.
inline void store8(int16_t* p, __m128i a, __m128i b) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_packs_epi32(a, b));
}
inline void store8(int8_t* p, __m128i a, __m128i b) {
  const __m128i w = _mm_packs_epi32(a, b);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packs_epi16(w, w));
}
template <class Q>
void quantize_rows(size_t rows, size_t cols, const float* x, size_t ldx, int qmax, Q* q,
                   size_t ldq, float* scale) {
  const __m128 sign = _mm_set1_ps(-0.f), fmax = _mm_set1_ps(std::numeric_limits<float>::max());
  const __m128 magic = _mm_set1_ps(kMagic);
  const __m128i magic_bits = _mm_castps_si128(magic);
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * ldx;
    Q* qr = q + r * ldq;
    // max |x| and whether every value is finite (NaN compares false)
    __m128 amax = _mm_setzero_ps(), ok = _mm_castsi128_ps(_mm_set1_epi32(-1));
    size_t j = 0;
    for (; j + 4 <= cols; j += 4) {
      const __m128 a = _mm_andnot_ps(sign, _mm_loadu_ps(xr + j));
      amax = _mm_max_ps(amax, a);
      ok = _mm_and_ps(ok, _mm_cmple_ps(a, fmax));
    }
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, amax);
    float m = std::fmax(std::fmax(lanes[0], lanes[1]), std::fmax(lanes[2], lanes[3]));
    bool finite = _mm_movemask_ps(ok) == 0xF;
    for (; j < cols; ++j) {
      const float a = std::fabs(xr[j]);
      finite = finite && a <= std::numeric_limits<float>::max();
      m = std::fmax(m, a);
    }
    if (!finite || m == 0.f) {
      scale[r] = finite ? 0.f : std::numeric_limits<float>::quiet_NaN();
      for (size_t c = 0; c < ldq; ++c) qr[c] = 0;
      continue;
    }
    scale[r] = m / float(qmax);
    const float inv = float(qmax) / m;
    const __m128 vinv = _mm_set1_ps(inv), hi = _mm_set1_ps(float(qmax)), lo = _mm_set1_ps(-float(qmax));
    j = 0;
    for (; j + 8 <= cols; j += 8) {
      __m128 a = _mm_mul_ps(_mm_loadu_ps(xr + j), vinv);
      __m128 b = _mm_mul_ps(_mm_loadu_ps(xr + j + 4), vinv);
      a = _mm_min_ps(_mm_max_ps(a, lo), hi);
      b = _mm_min_ps(_mm_max_ps(b, lo), hi);
      const __m128i ia = _mm_sub_epi32(_mm_castps_si128(_mm_add_ps(a, magic)), magic_bits);
      const __m128i ib = _mm_sub_epi32(_mm_castps_si128(_mm_add_ps(b, magic)), magic_bits);
      store8(qr + j, ia, ib);
    }
    for (; j < cols; ++j) {
      const float v = std::fmin(std::fmax(xr[j] * inv, -float(qmax)), float(qmax));
      qr[j] = static_cast<Q>(std::nearbyint(v));
    }
    for (; j < ldq; ++j) qr[j] = 0;
  }
}
}  // namespace

void quantize_rows_i16(size_t rows, size_t cols, const float* x, size_t ldx, int qmax,
                       int16_t* q, size_t ldq, float* scale) noexcept {
  quantize_rows(rows, cols, x, ldx, qmax, q, ldq, scale);
}
void quantize_rows_i8(size_t rows, size_t cols, const float* x, size_t ldx, int8_t* q,
                      size_t ldq, float* scale) noexcept {
  quantize_rows(rows, cols, x, ldx, 127, q, ldq, scale);
}

namespace {
// X: (n,K) A: (M,K) int16 or int8 -> Y: (n,M); a block of 4 A rows stays in L1 while all
// n X rows pass. Up to Chunk products per lane pair stay exact in int32, then one
// conversion to float. madd16(acc, a, x0, x1) adds 16 products of an A row.
template <size_t Chunk, class W>
void gemm_quantized(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx,
                    const float* x_scale, const W* A, size_t lda, const float* a_scale,
                    const float* bias, float* Y, size_t ldy) {
  size_t m = 0;
  for (; m + 4 <= M; m += 4) {
    const W* a0 = A + m * lda;
    const W* a1 = a0 + lda;
    const W* a2 = a1 + lda;
    const W* a3 = a2 + lda;
    const __m128 as = _mm_loadu_ps(a_scale + m);
    const __m128 bs = bias ? _mm_loadu_ps(bias + m) : _mm_setzero_ps();
    // two X rows at a time: each block of A weights is loaded (and, for int8, extended)
    // once for both
    size_t b = 0;
    for (; b + 2 <= n; b += 2) {
      const int16_t* xb = X + b * ldx;
      const int16_t* xc = xb + ldx;
      __m128 c0 = _mm_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
      __m128 d0 = c0, d1 = c0, d2 = c0, d3 = c0;
      for (size_t k0 = 0; k0 < K; k0 += Chunk) {
        const size_t kend = std::min(K, k0 + Chunk);
        __m128i i0 = _mm_setzero_si128(), i1 = i0, i2 = i0, i3 = i0;
        __m128i j0 = i0, j1 = i0, j2 = i0, j3 = i0;
        for (size_t k = k0; k < kend; k += 16) {
          const __m128i x0 = load16(xb + k), x1 = load16(xb + k + 8);
          const __m128i y0 = load16(xc + k), y1 = load16(xc + k + 8);
          __m128i lo, hi;
#define ATTNLAB_ROW(acc_x, acc_y, a)                                                         \
  load_w(a + k, lo, hi);                                                                     \
  acc_x = _mm_add_epi32(acc_x, _mm_add_epi32(_mm_madd_epi16(lo, x0), _mm_madd_epi16(hi, x1))); \
  acc_y = _mm_add_epi32(acc_y, _mm_add_epi32(_mm_madd_epi16(lo, y0), _mm_madd_epi16(hi, y1)));
          ATTNLAB_ROW(i0, j0, a0)
          ATTNLAB_ROW(i1, j1, a1)
          ATTNLAB_ROW(i2, j2, a2)
          ATTNLAB_ROW(i3, j3, a3)
#undef ATTNLAB_ROW
        }
        c0 = _mm_add_ps(c0, _mm_cvtepi32_ps(i0));
        c1 = _mm_add_ps(c1, _mm_cvtepi32_ps(i1));
        c2 = _mm_add_ps(c2, _mm_cvtepi32_ps(i2));
        c3 = _mm_add_ps(c3, _mm_cvtepi32_ps(i3));
        d0 = _mm_add_ps(d0, _mm_cvtepi32_ps(j0));
        d1 = _mm_add_ps(d1, _mm_cvtepi32_ps(j1));
        d2 = _mm_add_ps(d2, _mm_cvtepi32_ps(j2));
        d3 = _mm_add_ps(d3, _mm_cvtepi32_ps(j3));
      }
      const __m128 s0 = _mm_mul_ps(hsum4(c0, c1, c2, c3), _mm_mul_ps(as, _mm_set1_ps(x_scale[b])));
      const __m128 s1 = _mm_mul_ps(hsum4(d0, d1, d2, d3), _mm_mul_ps(as, _mm_set1_ps(x_scale[b + 1])));
      _mm_storeu_ps(Y + b * ldy + m, _mm_add_ps(s0, bs));
      _mm_storeu_ps(Y + (b + 1) * ldy + m, _mm_add_ps(s1, bs));
    }
    for (; b < n; ++b) {
      const int16_t* xb = X + b * ldx;
      __m128 c0 = _mm_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
      for (size_t k0 = 0; k0 < K; k0 += Chunk) {
        const size_t kend = std::min(K, k0 + Chunk);
        __m128i i0 = _mm_setzero_si128(), i1 = i0, i2 = i0, i3 = i0;
        for (size_t k = k0; k < kend; k += 16) {
          const __m128i x0 = load16(xb + k), x1 = load16(xb + k + 8);
          i0 = madd16(i0, a0 + k, x0, x1);
          i1 = madd16(i1, a1 + k, x0, x1);
          i2 = madd16(i2, a2 + k, x0, x1);
          i3 = madd16(i3, a3 + k, x0, x1);
        }
        c0 = _mm_add_ps(c0, _mm_cvtepi32_ps(i0));
        c1 = _mm_add_ps(c1, _mm_cvtepi32_ps(i1));
        c2 = _mm_add_ps(c2, _mm_cvtepi32_ps(i2));
        c3 = _mm_add_ps(c3, _mm_cvtepi32_ps(i3));
      }
      const __m128 s = _mm_mul_ps(hsum4(c0, c1, c2, c3), _mm_mul_ps(as, _mm_set1_ps(x_scale[b])));
      _mm_storeu_ps(Y + b * ldy + m, _mm_add_ps(s, bs));
    }
  }
  for (; m < M; ++m) {
    const W* a0 = A + m * lda;
    for (size_t b = 0; b < n; ++b) {
      const int16_t* xb = X + b * ldx;
      __m128 c0 = _mm_setzero_ps();
      for (size_t k0 = 0; k0 < K; k0 += Chunk) {
        const size_t kend = std::min(K, k0 + Chunk);
        __m128i i0 = _mm_setzero_si128();
        for (size_t k = k0; k < kend; k += 16) i0 = madd16(i0, a0 + k, load16(xb + k), load16(xb + k + 8));
        c0 = _mm_add_ps(c0, _mm_cvtepi32_ps(i0));
      }
      Y[b * ldy + m] = hsum1(c0) * (a_scale[m] * x_scale[b]) + (bias ? bias[m] : 0.f);
    }
  }
}
}  // namespace

void gemm_i16(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx,
              const float* x_scale, const int16_t* A, size_t lda, const float* a_scale,
              const float* bias, float* Y, size_t ldy) noexcept {
  gemm_quantized<kChunk>(n, M, K, X, ldx, x_scale, A, lda, a_scale, bias, Y, ldy);
}

#if ATTNLAB_I8_SIMD
void gemm_i8(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx, const float* x_scale,
             const int8_t* A, size_t lda, const float* a_scale, const float* bias, float* Y,
             size_t ldy) noexcept {
  gemm_quantized<kChunk8>(n, M, K, X, ldx, x_scale, A, lda, a_scale, bias, Y, ldy);
}

// Per X row: the pairs (X[2p], X[2p+1]) not both zero (found 4 at a time), listed by the
// int32 lane of gemm_quantized that sums them (p % 4: _mm_madd_epi16 on 16 k adds k = 2i,
// 2i+1, 8 + 2i and 8 + 2i + 1 into lane i), each with the pair as one int32 (the madd
// operand). Then per block of 16 outputs, per lane: the pairs' products summed exactly in
// int32 (at most 256 per lane: K <= kChunk8), converted, and the lanes added as hsum4 adds
// them, (l0 + l2) + (l1 + l3); scaled as gemm_quantized scales. So the result is gemm_i8's,
// bit for bit (this file is compiled without contraction into fused multiply-adds).
namespace {
constexpr size_t kLanePairs = kChunk8 / 8;  // pairs per lane at most
struct PairLists {
  uint16_t at[4][kLanePairs];
  int32_t pair[4][kLanePairs];
  size_t count[4];
  void add(size_t p, const int16_t* x) {
    const size_t lane = p & 3;
    int32_t v;
    std::memcpy(&v, x + 2 * p, sizeof v);
    at[lane][count[lane]] = static_cast<uint16_t>(p);
    pair[lane][count[lane]++] = v;
  }
  void build(const int16_t* x, size_t pairs) {
    count[0] = count[1] = count[2] = count[3] = 0;
    const __m128i zero = _mm_setzero_si128();
    size_t p = 0;
    for (; p + 4 <= pairs; p += 4) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + 2 * p));
      int nz = ~_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, zero))) & 15;
      while (nz) {
        add(p + size_t(__builtin_ctz(unsigned(nz))), x);
        nz &= nz - 1;
      }
    }
    for (; p < pairs; ++p)
      if (x[2 * p] != 0 || x[2 * p + 1] != 0) add(p, x);
  }
  // lane's products for outputs m..m+15 (pm = P + 2m), exact in int32, as floats
  void sum16(size_t lane, const int8_t* pm, size_t ldp, __m128 f[4]) const {
    __m128i i0 = _mm_setzero_si128(), i1 = i0, i2 = i0, i3 = i0;
    for (size_t i = 0; i < count[lane]; ++i) {
      const __m128i x2 = _mm_set1_epi32(pair[lane][i]);
      const int8_t* w = pm + size_t(at[lane][i]) * 2 * ldp;
      __m128i lo, hi;
      load_w(w, lo, hi);
      i0 = _mm_add_epi32(i0, _mm_madd_epi16(lo, x2));
      i1 = _mm_add_epi32(i1, _mm_madd_epi16(hi, x2));
      load_w(w + 16, lo, hi);
      i2 = _mm_add_epi32(i2, _mm_madd_epi16(lo, x2));
      i3 = _mm_add_epi32(i3, _mm_madd_epi16(hi, x2));
    }
    f[0] = _mm_cvtepi32_ps(i0);
    f[1] = _mm_cvtepi32_ps(i1);
    f[2] = _mm_cvtepi32_ps(i2);
    f[3] = _mm_cvtepi32_ps(i3);
  }
};
}  // namespace

void gemm_i8_sparse(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx,
                    const float* x_scale, const int8_t* P, size_t ldp, const float* a_scale,
                    const float* bias, float* Y, size_t ldy) noexcept {
  PairLists lists;
  for (size_t b = 0; b < n; ++b) {
    lists.build(X + b * ldx, K / 2);
    const float xs = x_scale[b];
    float* yb = Y + b * ldy;
    for (size_t m = 0; m < M; m += 16) {
      const int8_t* pm = P + 2 * m;
      __m128 f02[4], f13[4], t[4];
      lists.sum16(0, pm, ldp, f02);
      lists.sum16(2, pm, ldp, t);
      for (int j = 0; j < 4; ++j) f02[j] = _mm_add_ps(f02[j], t[j]);
      lists.sum16(1, pm, ldp, f13);
      lists.sum16(3, pm, ldp, t);
      for (int j = 0; j < 4; ++j) f13[j] = _mm_add_ps(f13[j], t[j]);
      for (size_t j = 0; j < 4; ++j) {
        const size_t o = m + 4 * j;
        const __m128 sum = _mm_add_ps(f02[j], f13[j]);
        if (o + 4 <= M) {  // as gemm_quantized's blocks of 4 outputs
          const __m128 bs = bias ? _mm_loadu_ps(bias + o) : _mm_setzero_ps();
          _mm_storeu_ps(yb + o, _mm_add_ps(_mm_mul_ps(sum, _mm_mul_ps(_mm_loadu_ps(a_scale + o), _mm_set1_ps(xs))), bs));
        } else {  // as its last outputs, one by one
          float sv[4];
          _mm_storeu_ps(sv, sum);
          for (size_t r = 0; o + r < M && r < 4; ++r)
            yb[o + r] = sv[r] * (a_scale[o + r] * xs) + (bias ? bias[o + r] : 0.f);
        }
      }
    }
  }
}
#else
void gemm_i8(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx, const float* x_scale,
             const int8_t* A, size_t lda, const float* a_scale, const float* bias, float* Y,
             size_t ldy) noexcept {
  gemm_i8_ref(n, M, K, X, ldx, x_scale, A, lda, a_scale, bias, Y, ldy);
}
void gemm_i8_sparse(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx,
                    const float* x_scale, const int8_t* P, size_t ldp, const float* a_scale,
                    const float* bias, float* Y, size_t ldy) noexcept {
  gemm_i8_sparse_ref(n, M, K, X, ldx, x_scale, P, ldp, a_scale, bias, Y, ldy);
}
#endif

// The ceiling the int8/int16 products are judged against: the 16-bit multiply-add
// instruction alone (_mm_madd_epi16, SIMD128's i32x4.dot_i16x8_s: 8 multiply-adds), issued
// back to back on registers, 8 independent chains (its latency is a few cycles), no memory.
// GFLOPS = 2 x multiply-adds per second, as the kernels' counters count them.
namespace {
volatile int g_madd_sink;
}
double i16_madd_peak_gflops(double min_ms) {
  constexpr int kIters = 4096;
  const __m128i x = _mm_set1_epi16(g_madd_sink | 1);
  auto run = [&] {
    __m128i a0 = _mm_set1_epi32(g_madd_sink), a1 = _mm_add_epi32(a0, x), a2 = _mm_add_epi32(a1, x);
    __m128i a3 = _mm_add_epi32(a2, x), a4 = _mm_add_epi32(a3, x), a5 = _mm_add_epi32(a4, x);
    __m128i a6 = _mm_add_epi32(a5, x), a7 = _mm_add_epi32(a6, x);
    for (int i = 0; i < kIters; ++i) {
      a0 = _mm_madd_epi16(a0, x);
      a1 = _mm_madd_epi16(a1, x);
      a2 = _mm_madd_epi16(a2, x);
      a3 = _mm_madd_epi16(a3, x);
      a4 = _mm_madd_epi16(a4, x);
      a5 = _mm_madd_epi16(a5, x);
      a6 = _mm_madd_epi16(a6, x);
      a7 = _mm_madd_epi16(a7, x);
    }
    const __m128i s = _mm_add_epi32(_mm_add_epi32(_mm_add_epi32(a0, a1), _mm_add_epi32(a2, a3)),
                                    _mm_add_epi32(_mm_add_epi32(a4, a5), _mm_add_epi32(a6, a7)));
    g_madd_sink = _mm_cvtsi128_si32(s);
  };
  const double ms = best_ms_per_call(run, min_ms);
  return 2.0 * 8 * 8 * kIters / (ms * 1e6);
}

#else  // no SSE2: the scalar twins

void quantize_rows_i16(size_t rows, size_t cols, const float* x, size_t ldx, int qmax,
                       int16_t* q, size_t ldq, float* scale) noexcept {
  quantize_rows_i16_ref(rows, cols, x, ldx, qmax, q, ldq, scale);
}
void gemm_i16(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx,
              const float* x_scale, const int16_t* A, size_t lda, const float* a_scale,
              const float* bias, float* Y, size_t ldy) noexcept {
  gemm_i16_ref(n, M, K, X, ldx, x_scale, A, lda, a_scale, bias, Y, ldy);
}

void quantize_rows_i8(size_t rows, size_t cols, const float* x, size_t ldx, int8_t* q,
                      size_t ldq, float* scale) noexcept {
  quantize_rows_i8_ref(rows, cols, x, ldx, q, ldq, scale);
}
void gemm_i8(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx, const float* x_scale,
             const int8_t* A, size_t lda, const float* a_scale, const float* bias, float* Y,
             size_t ldy) noexcept {
  gemm_i8_ref(n, M, K, X, ldx, x_scale, A, lda, a_scale, bias, Y, ldy);
}
void gemm_i8_sparse(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx,
                    const float* x_scale, const int8_t* P, size_t ldp, const float* a_scale,
                    const float* bias, float* Y, size_t ldy) noexcept {
  gemm_i8_sparse_ref(n, M, K, X, ldx, x_scale, P, ldp, a_scale, bias, Y, ldy);
}

#endif

#if !ATTNLAB_I16_SIMD
double i16_madd_peak_gflops(double) { return 0.0; }  // no 16-bit SIMD multiply-add here
#endif

// ---------------------------------------------------------------- scalar twins
namespace {
template <class Q>
void quantize_rows_ref(size_t rows, size_t cols, const float* x, size_t ldx, int qmax, Q* q,
                       size_t ldq, float* scale) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * ldx;
    Q* qr = q + r * ldq;
    float m = 0.f;
    bool finite = true;
    for (size_t j = 0; j < cols; ++j) {
      finite = finite && std::isfinite(xr[j]);
      m = std::fmax(m, std::fabs(xr[j]));
    }
    for (size_t j = 0; j < ldq; ++j) qr[j] = 0;
    if (!finite) {
      scale[r] = std::numeric_limits<float>::quiet_NaN();
      continue;
    }
    if (m == 0.f) {
      scale[r] = 0.f;
      continue;
    }
    scale[r] = m / float(qmax);
    const float inv = float(qmax) / m;
    for (size_t j = 0; j < cols; ++j) {
      const float v = std::fmin(std::fmax(xr[j] * inv, -float(qmax)), float(qmax));
      qr[j] = static_cast<Q>(std::nearbyint(v));
    }
  }
}
}  // namespace

void quantize_rows_i16_ref(size_t rows, size_t cols, const float* x, size_t ldx, int qmax,
                           int16_t* q, size_t ldq, float* scale) noexcept {
  quantize_rows_ref(rows, cols, x, ldx, qmax, q, ldq, scale);
}
void quantize_rows_i8_ref(size_t rows, size_t cols, const float* x, size_t ldx, int8_t* q,
                          size_t ldq, float* scale) noexcept {
  quantize_rows_ref(rows, cols, x, ldx, 127, q, ldq, scale);
}

namespace {
// Y = (X A^T) * x_scale * a_scale + bias for int16 or int8 weights W, summed exactly in int64
template <class W>
void gemm_quantized_ref(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx,
                        const float* x_scale, const W* A, size_t lda, const float* a_scale,
                        const float* bias, float* Y, size_t ldy) {
  for (size_t b = 0; b < n; ++b)
    for (size_t m = 0; m < M; ++m) {
      int64_t s = 0;  // exact
      for (size_t k = 0; k < K; ++k) s += int64_t(X[b * ldx + k]) * A[m * lda + k];
      Y[b * ldy + m] = float(double(s) * double(a_scale[m]) * double(x_scale[b])) +
                       (bias ? bias[m] : 0.f);
    }
}
}  // namespace

void gemm_i16_ref(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx,
                  const float* x_scale, const int16_t* A, size_t lda, const float* a_scale,
                  const float* bias, float* Y, size_t ldy) noexcept {
  gemm_quantized_ref(n, M, K, X, ldx, x_scale, A, lda, a_scale, bias, Y, ldy);
}

void gemm_i8_ref(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx,
                 const float* x_scale, const int8_t* A, size_t lda, const float* a_scale,
                 const float* bias, float* Y, size_t ldy) noexcept {
  gemm_quantized_ref(n, M, K, X, ldx, x_scale, A, lda, a_scale, bias, Y, ldy);
}

void gemm_i8_sparse_ref(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx,
                        const float* x_scale, const int8_t* P, size_t ldp, const float* a_scale,
                        const float* bias, float* Y, size_t ldy) noexcept {
  for (size_t b = 0; b < n; ++b)
    for (size_t m = 0; m < M; ++m) {
      int64_t s = 0;  // exact
      for (size_t k = 0; k < K; ++k) s += int64_t(X[b * ldx + k]) * P[(k / 2) * 2 * ldp + 2 * m + k % 2];
      Y[b * ldy + m] = float(double(s) * double(a_scale[m]) * double(x_scale[b])) +
                       (bias ? bias[m] : 0.f);
    }
}

}  // namespace attnlab::kernels
