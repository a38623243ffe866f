// Vector transcendentals for the xsimd kernels (internal header).
//
// The wasm compiler translates SSE float->int conversions (_mm_cvtps_epi32), which
// xsimd::exp uses, into scalar loops. These versions never convert: exp
// rounds with the 1.5*2^23 "magic number" and builds 2^n by integer shifts
// on the float's bits, which map to single WebAssembly SIMD instructions.
#pragma once
#include <cstdint>
#include <limits>

#include <xsimd/xsimd.hpp>
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attnlab::kernels::simd {

using fbatch = xsimd::batch<float>;
using ibatch = xsimd::batch<int32_t>;
constexpr std::size_t W = fbatch::size;

// The shared core of exp: for xc in [-86.5, 88.73] returns exp(r), r = xc - n ln2,
// |r| <= ln2/2 (cephes polynomial, about 2 ulp), and sets n (as an integer).
// Rounding uses the 1.5 * 2^23 "magic number", so no float->int conversion.
inline fbatch exp_reduced(fbatch xc, ibatch& n_out) {
  const fbatch magic(12582912.f);
  const fbatch t = xc * fbatch(1.44269504088896341f) + magic;
  const fbatch n = t - magic;
  n_out = xsimd::bitwise_cast<ibatch>(t) - ibatch(0x4B400000);
  fbatch r = xc - n * fbatch(0.693359375f);
  r = r - n * fbatch(-2.12194440e-4f);
  fbatch p(1.9875691500E-4f);
  p = p * r + fbatch(1.3981999507E-3f);
  p = p * r + fbatch(8.3334519073E-3f);
  p = p * r + fbatch(4.1665795894E-2f);
  p = p * r + fbatch(1.6666665459E-1f);
  p = p * r + fbatch(5.0000001201E-1f);
  return p * (r * r) + r + fbatch(1.f);
}

// exp(x): returns 0 below -86.5 (exp(-86.5) = 2.7e-38, so exp(-inf) = 0 and
// masked softmax entries vanish), +inf above ln(FLT_MAX), NaN for NaN.
// 2^n is built as 2 * 2^(n-1) so n = 128 stays representable.
inline fbatch exp(fbatch x) {
  const fbatch hi(88.7228317f), lo(-86.5f);
  const fbatch xc = xsimd::select(x < lo, lo, xsimd::select(x > hi, hi, x));
  ibatch ni;
  const fbatch y = exp_reduced(xc, ni);
  const fbatch pow2n1 = xsimd::bitwise_cast<fbatch>((ni + ibatch(126)) << 23);
  fbatch out = (y + y) * pow2n1;
  out = xsimd::select(x < lo, fbatch(0.f), out);
  out = xsimd::select(x > hi, fbatch(std::numeric_limits<float>::infinity()), out);
  return xsimd::select(x == x, out, x);  // NaN stays NaN
}

// Two helpers whose SSE spelling is slow in wasm: Emscripten turns _mm_max_ps into
// compare + bitselect and _mm_blendv_ps (xsimd::select) into shift + bitselect,
// where WebAssembly has one instruction each (f32x4.pmax, v128.andnot).
// max_lanes(a, b) = a < b ? b : a per lane (a NaN in a is kept, as a select would).
// zero_where(y, m) = m ? 0 : y per lane, m a comparison's all-ones/all-zeros mask.
#if defined(__wasm_simd128__)
inline fbatch max_lanes(fbatch a, fbatch b) {
  return fbatch(__m128(wasm_f32x4_pmax(v128_t(__m128(a)), v128_t(__m128(b)))));
}
inline fbatch zero_where(fbatch y, xsimd::batch_bool<float> m) {
  return fbatch(__m128(wasm_v128_andnot(v128_t(__m128(y)), v128_t(__m128(m)))));
}
#else
inline fbatch max_lanes(fbatch a, fbatch b) { return xsimd::select(a < b, b, a); }
inline fbatch zero_where(fbatch y, xsimd::batch_bool<float> m) {
  return xsimd::select(m, fbatch(0.f), y);
}
#endif

// exp(x) for x <= 0 (softmax after the max is subtracted; -inf allowed):
// without the overflow and NaN paths, 4 fewer vector ops per call. Below -86.5 it
// gives exactly 0 (so masked entries vanish); NaN stays NaN. The same polynomial and
// operation order as exp(), so the two agree bit for bit on x <= 0.
inline fbatch exp_nonpositive(fbatch x) {
  const fbatch lo(-86.5f);
  const auto under = x < lo;
  const fbatch xc = max_lanes(x, lo);
  ibatch ni;
  const fbatch y = exp_reduced(xc, ni);
  // n <= 0 here, so 2^n is representable directly
  const fbatch pow2n = xsimd::bitwise_cast<fbatch>((ni + ibatch(127)) << 23);
  return zero_where(y * pow2n, under);
}

// 2^u for u <= 0 (-inf allowed), the softmax's exp: softmax_rows computes
// exp(z - max) as 2^((z - max) * log2 e). Fewer operations than exp_nonpositive
// (18 vector ops against 29 per call, counting the caller's subtract and multiply):
// - u = n + f with n = round(u), f in [-1/2, 1/2], by the 1.5 * 2^23 magic number; the
//   magic number carries the exponent bias 127, so shifting t's bits left by 23 gives
//   2^n (no integer add, no float->int conversion);
// - 2^f by a degree-5 polynomial fitted (iteratively reweighted least squares toward
//   minimax) to relative error 2.4e-7 on [-1/2, 1/2], evaluated in float32.
// The price is the rounding of (z - max) * log2 e: about 6e-8 * |z - max| relative, a
// few ulp where the weights matter and at most 2.2e-8 absolute anywhere (x e^-x <= 1/e).
// u is clamped at -127, where n + 127 = 0 makes the bits of 2^n all zero: below
// -126.5 (where 2^u < 1.2e-38 would be subnormal) the result is exactly 0, so masked
// entries vanish without a compare and select; NaN stays NaN (NaN * 0).
//
// The constants are read from memory through a volatile pointer once per call of
// exp2_consts(), so the compiler cannot turn them back into v128.const: V8 builds
// each 128-bit constant with several instructions wherever it appears, and clang
// puts the v128.const inside the loop. Hoisted this way they live in registers (or
// one spill slot load) for the whole row.
struct Exp2Consts {
  fbatch lo, magic, c5, c4, c3, c2, c1, one, log2e;
};
inline float g_exp2_table[9] = {-127.f, 12582912.f + 127.f, 1.327647152e-03f, 9.675541331e-03f,
                                5.550713275e-02f, 2.402211972e-01f, 6.931469671e-01f, 1.f,
                                1.44269504088896341f};
inline float* volatile g_exp2_table_ptr = g_exp2_table;
inline Exp2Consts exp2_consts() {
  const float* t = g_exp2_table_ptr;
  return {fbatch(t[0]), fbatch(t[1]), fbatch(t[2]), fbatch(t[3]), fbatch(t[4]),
          fbatch(t[5]), fbatch(t[6]), fbatch(t[7]), fbatch(t[8])};
}
inline fbatch exp2_nonpositive(fbatch u, const Exp2Consts& k) {
  const fbatch uc = max_lanes(u, k.lo);
  const fbatch t = uc + k.magic;
  const fbatch f = uc - (t - k.magic);
  fbatch p = k.c5 * f + k.c4;
  p = p * f + k.c3;
  p = p * f + k.c2;
  p = p * f + k.c1;
  p = p * f + k.one;
  // n = -127 (u clamped at -127) gives the bits 0, i.e. 2^n = +0: no select needed
  const fbatch pow2n = xsimd::bitwise_cast<fbatch>(xsimd::bitwise_cast<ibatch>(t) << 23);
  return p * pow2n;
}
inline fbatch exp2_nonpositive(fbatch u) { return exp2_nonpositive(u, exp2_consts()); }

inline fbatch sign_bits(fbatch x) {
  return xsimd::bitwise_cast<fbatch>(xsimd::bitwise_cast<ibatch>(x) & ibatch(INT32_MIN));
}
inline fbatch abs(fbatch x) {
  return xsimd::bitwise_cast<fbatch>(xsimd::bitwise_cast<ibatch>(x) & ibatch(INT32_MAX));
}

// m ? a : b per lane, m a comparison's all-ones/all-zeros mask (one v128.bitselect in wasm)
#if defined(__wasm_simd128__)
inline fbatch select_lanes(xsimd::batch_bool<float> m, fbatch a, fbatch b) {
  return fbatch(__m128(wasm_v128_bitselect(v128_t(__m128(a)), v128_t(__m128(b)), v128_t(__m128(m)))));
}
#else
inline fbatch select_lanes(xsimd::batch_bool<float> m, fbatch a, fbatch b) { return xsimd::select(m, a, b); }
#endif

// tanh and sigmoid on exp2_nonpositive, their constants hoisted out of the caller's loop
// the same way (read through a volatile pointer once per call of act_consts()).
// tanh(x) = sign(x) (1 - e) / (1 + e), e = exp(-2|x|) = 2^(-2 log2(e) |x|) in [0, 1]; a short
// odd series below |x| < 0.0625 keeps the relative error small near zero (1 - e cancels).
// sigmoid(x) = r = 1 / (1 + e) for x >= 0 and e r for x < 0, e = exp(-|x|) in [0, 1].
// Beyond |x| ~ 44 (tanh) and 88 (sigmoid) e is exactly 0: tanh = +-1, sigmoid = 1 or 0; NaN
// stays NaN (NaN in u gives NaN in e).
struct ActConsts {
  Exp2Consts e;
  fbatch sign, m2log2e, mlog2e, small, c3, c5;
};
inline float g_act_table[6] = {-0.f, -2.88539008177792681f, -1.44269504088896341f, 0.0625f,
                               -1.f / 3.f, 2.f / 15.f};
inline float* volatile g_act_table_ptr = g_act_table;
inline ActConsts act_consts() {
  const float* t = g_act_table_ptr;
  return {exp2_consts(), fbatch(t[0]), fbatch(t[1]), fbatch(t[2]), fbatch(t[3]), fbatch(t[4]),
          fbatch(t[5])};
}
inline fbatch tanh(fbatch x, const ActConsts& k) {
  const fbatch s = xsimd::bitwise_and(x, k.sign), a = xsimd::bitwise_xor(x, s);  // sign, |x|
  const fbatch e = exp2_nonpositive(a * k.m2log2e, k.e);
  const fbatch big = (k.e.one - e) / (k.e.one + e);
  const fbatch a2 = a * a;
  const fbatch small = a + a * a2 * (k.c3 + a2 * k.c5);
  return xsimd::bitwise_or(select_lanes(a < k.small, small, big), s);
}
inline fbatch sigmoid(fbatch x, const ActConsts& k) {
  const fbatch a = xsimd::bitwise_xor(x, xsimd::bitwise_and(x, k.sign));  // |x|
  const fbatch e = exp2_nonpositive(a * k.mlog2e, k.e);
  const fbatch r = k.e.one / (k.e.one + e);
  return select_lanes(x < fbatch(0.f), e * r, r);
}
inline fbatch tanh(fbatch x) { return tanh(x, act_consts()); }
inline fbatch sigmoid(fbatch x) { return sigmoid(x, act_consts()); }

// Standard normal CDF Phi(x) via Abramowitz & Stegun 7.1.26 for erfc
// (|error| < 1.5e-7), written so that the tail x << 0 has no cancellation.
inline fbatch normal_cdf(fbatch x) {
  const fbatch z = abs(x) * fbatch(0.70710678118654752f);
  const fbatch t = fbatch(1.f) / (fbatch(1.f) + fbatch(0.3275911f) * z);
  fbatch p(1.061405429f);
  p = p * t + fbatch(-1.453152027f);
  p = p * t + fbatch(1.421413741f);
  p = p * t + fbatch(-0.284496736f);
  p = p * t + fbatch(0.254829592f);
  const fbatch half_erfc = fbatch(0.5f) * p * t * exp(-(z * z));  // = Phi(-|x|)
  return xsimd::select(x < fbatch(0.f), half_erfc, fbatch(1.f) - half_erfc);
}

}  // namespace attnlab::kernels::simd
