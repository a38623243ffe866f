// The kernel registry: for each kernel of kernel_list.def, a function
// cases_<name> that says how the kernel is checked against its scalar twin
// (inputs, tolerance, in place or not, tile-edge shapes) and timed (bench shapes).
// build_cases() calls one such function per row of the list, so a kernel added to
// the list without its cases_<name> here is a compile error.
#include "attnlab/kernels/registry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <iterator>
#include <cstdio>
#include <string>
#include <tuple>
#include <type_traits>

#include "attnlab/core/error.hpp"
#include "attnlab/kernels/kernels.hpp"

namespace attnlab::kernels {

CheckResult compare_outputs(const std::vector<float>& ref, const std::vector<float>& simd,
                            Tolerance tol) {
  CheckResult res;
  if (ref.size() != simd.size()) {
    res.all_finite = false;
    res.worst_ratio = std::numeric_limits<double>::infinity();
    return res;
  }
  for (size_t i = 0; i < ref.size(); ++i) {
    const float r = ref[i], s = simd[i];
    if (r == s || (std::isnan(r) && std::isnan(s))) continue;
    if (std::isfinite(r) != std::isfinite(s)) {
      res.all_finite = false;
      res.worst_ratio = std::numeric_limits<double>::infinity();
      continue;
    }
    const double e = std::fabs(static_cast<double>(r) - s);
    res.max_abs_err = std::max(res.max_abs_err, e);
    res.worst_ratio = std::max(res.worst_ratio, e / (tol.atol + tol.rtol * std::fabs(r)));
  }
  return res;
}

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

struct Input {
  size_t size;
  float lo, hi;
  float p_neg_inf = 0.f;  // probability of -inf (masks)
};

using Fn = std::function<void(const std::vector<float*>& in, float* out)>;

// Inputs filled from a seed; ref and simd run on identical copies.
class GenericRun final : public KernelRun {
 public:
  GenericRun(std::vector<Input> inputs, size_t out_size, float out_lo, float out_hi,
             int in_place_input, double flops, Fn ref, Fn simd, uint32_t seed)
      : in_place_input_(in_place_input), flops_(flops), ref_(std::move(ref)),
        simd_(std::move(simd)) {
    std::mt19937 rng(seed);
    for (const Input& spec : inputs) {
      std::uniform_real_distribution<float> u(spec.lo, spec.hi);
      std::uniform_real_distribution<float> p(0.f, 1.f);
      std::vector<float> v(spec.size);
      for (float& x : v) x = (spec.p_neg_inf > 0.f && p(rng) < spec.p_neg_inf) ? -kInf : u(rng);
      in_.push_back(std::move(v));
    }
    out_init_.resize(out_size);
    std::uniform_real_distribution<float> u(out_lo, out_hi);
    for (float& x : out_init_) x = u(rng);
    out_ref_ = out_simd_ = out_init_;
  }

  void run_ref() override { ref_(ptrs(in_), out_ref_.data()); }
  void run_simd() override { simd_(ptrs(in_), out_simd_.data()); }
  double flops() const override { return flops_; }

  std::array<std::vector<float>, 2> outputs(bool in_place) override {
    if (in_place && in_place_input_ >= 0) {
      // output buffer starts as a copy of the aliased input and is passed as both
      auto in_r = in_, in_s = in_;
      const auto k = static_cast<size_t>(in_place_input_);
      std::vector<float> r = in_[k], s = in_[k];
      r.resize(std::max(r.size(), out_init_.size()));
      s.resize(r.size());
      auto pr = ptrs(in_r), ps = ptrs(in_s);
      pr[k] = r.data();
      ps[k] = s.data();
      ref_(pr, r.data());
      simd_(ps, s.data());
      return {std::move(r), std::move(s)};
    }
    out_ref_ = out_init_;
    out_simd_ = out_init_;
    auto in_r = in_, in_s = in_;
    ref_(ptrs(in_r), out_ref_.data());
    simd_(ptrs(in_s), out_simd_.data());
    return {out_ref_, out_simd_};
  }

 private:
  static std::vector<float*> ptrs(std::vector<std::vector<float>>& v) {
    std::vector<float*> p;
    for (auto& x : v) p.push_back(x.data());
    return p;
  }

  std::vector<std::vector<float>> in_;
  std::vector<float> out_init_, out_ref_, out_simd_;
  int in_place_input_;
  double flops_;
  Fn ref_, simd_;
};

std::vector<size_t> edge_sizes(size_t tile, bool with_zero) {
  std::set<size_t> s = {1, tile - 1, tile, tile + 1, 2 * tile, 3 * tile + 1, 4 * tile - 1,
                        16 * tile, 64 * tile + 3};
  if (with_zero) s.insert(0);
  else s.erase(0);  // tile - 1 is 0 when tile is 1
  return {s.begin(), s.end()};
}

std::vector<Shape> vec_shapes(size_t tile, bool with_zero = true) {
  std::vector<Shape> out;
  for (size_t n : edge_sizes(tile, with_zero)) out.push_back({n, 0, 0});
  return out;
}
std::vector<Shape> row_shapes(size_t tile) {
  std::vector<Shape> out;
  for (size_t rows : {size_t{1}, size_t{3}})
    for (size_t n : edge_sizes(tile, false)) out.push_back({rows, n, 0});
  return out;
}

// One kernel of the list: its name and its two twins.
template <class F>
struct Twins {
  const char* name;
  F ref, simd;
};
// gemm_twins, exp_twins, ...: one type per row of the list
#define ATTNLAB_KERNEL(name, ret, params) using name##_twins = Twins<ret(*) params noexcept>;
#include "attnlab/kernels/kernel_list.def"
using UnaryTwins = exp_twins;              // y = f(x)
using BackwardTwins = exp_backward_twins;  // dx = dy * f'(a)

// A case of `kernel` named after it, or kernel + "_" + variant; `make` is set by the caller.
// (Not inlined: one copy serves every case, which keeps the .wasm smaller.)
[[gnu::noinline]] KernelCase new_case(const char* kernel, const char* variant, size_t tile,
                                      Tolerance tol, bool in_place,
                                      std::vector<Shape> test_shapes,
                                      std::vector<Shape> bench_shapes) {
  KernelCase c;
  c.kernel = kernel;
  c.name = *variant ? c.kernel + "_" + variant : c.kernel;
  c.tile = tile;
  c.tol = tol;
  c.in_place = in_place;
  c.every_gemm_tile = false;
  c.test_shapes = std::move(test_shapes);
  c.bench_shapes = std::move(bench_shapes);
  return c;
}

// A vector kernel at vec_shapes(tile), timed at n = 4096: inputs(n) gives its inputs,
// out_per_n * n its output floats (0: one float, a reduction) starting in [out_lo, out_hi],
// call(f, n, in, out) the call; in_place_input >= 0 checks it in place with that input.
template <class F, class Inputs, class Call>
KernelCase vector_case(const Twins<F>& k, const char* variant, size_t tile,
                       Tolerance tol, int in_place_input, Inputs inputs, size_t out_per_n,
                       float out_lo, float out_hi, double flops_per_n, Call call,
                       bool with_zero = true) {
  KernelCase c = new_case(k.name, variant, tile, tol, in_place_input >= 0,
                          vec_shapes(tile, with_zero), {{4096, 0, 0}});
  c.make = [=](Shape s, uint32_t seed) -> std::unique_ptr<KernelRun> {
    const size_t n = s[0];
    auto fn = [=](F f) {
      return [=](const std::vector<float*>& in, float* o) { call(f, n, in, o); };
    };
    return std::make_unique<GenericRun>(inputs(n), out_per_n ? out_per_n * n : 1, out_lo,
                                        out_hi, in_place_input, flops_per_n * n, fn(k.ref),
                                        fn(k.simd), seed);
  };
  return c;
}

// y = f(x) on inputs in [lo, hi], in place allowed
KernelCase unary(const UnaryTwins& k, const char* variant, float lo, float hi,
                 Tolerance tol) {
  return vector_case(
      k, variant, simd_lanes(), tol, 0,
      [=](size_t n) { return std::vector<Input>{{n, lo, hi}}; }, 1, 0.f, 0.f, 1.0,
      [](auto f, size_t n, const auto& in, float* o) { f(n, in[0], o); });
}

// backward(n, a, dy, dx): a (in [lo, hi]) is the forward input or output, dy the upstream
// gradient; dx may alias dy
KernelCase backward(const BackwardTwins& k, float lo, float hi, Tolerance tol) {
  return vector_case(
      k, "", simd_lanes(), tol, 1,
      [=](size_t n) { return std::vector<Input>{{n, lo, hi}, {n, -1.f, 1.f}}; }, 1, 0.f, 0.f,
      4.0, [](auto f, size_t n, const auto& in, float* o) { f(n, in[0], in[1], o); });
}

// A row kernel (rows, cols) at row_shapes(lanes): inputs(R, C) gives its inputs,
// out_size(R, C) its output floats, call(f, R, C, in, out) the call.
template <class F, class Inputs, class OutSize, class Call>
KernelCase row_case(const Twins<F>& k, Tolerance tol, int in_place_input, Shape bench,
                    double flops_per, Inputs inputs, OutSize out_size, Call call) {
  const size_t W = simd_lanes();
  KernelCase c = new_case(k.name, "", W, tol, in_place_input >= 0, row_shapes(W), {bench});
  c.make = [=](Shape s, uint32_t seed) -> std::unique_ptr<KernelRun> {
    const size_t R = s[0], C = s[1];
    auto fn = [=](F f) {
      return [=](const std::vector<float*>& in, float* o) { call(f, R, C, in, o); };
    };
    return std::make_unique<GenericRun>(inputs(R, C), out_size(R, C), 0.f, 0.f, in_place_input,
                                        flops_per * R * C, fn(k.ref), fn(k.simd), seed);
  };
  return c;
}

// int16 / int8-weight products: float inputs in [-1, 1] are quantized once (by the
// reference quantizers, so both twins see the same integers); a tenth of the values are
// exactly +-1, which quantize to +-qmax, and the first A row and first X row are all +1
// and -1: the largest products the range contract allows (int32 sums must not overflow).
// sparse: gemm_i8_sparse's case: 9 in 10 X values after the first row are 0 (pairs with one
// zero included) and A goes pair-interleaved (ldp = M rounded up to 8, the padding 0).
template <class W, class F>
class QuantGemmRun final : public KernelRun {
 public:
  QuantGemmRun(const Twins<F>& k, size_t n, size_t M, size_t K, uint32_t seed, bool sparse = false)
      : k_(k), n_(n), M_(M), K_(K), sparse_(sparse) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f), p(0.f, 1.f);
    auto fill = [&](std::vector<float>& v, size_t rows, float first_row) {
      v.resize(rows * K);
      for (float& x : v) x = p(rng) < 0.1f ? (p(rng) < 0.5f ? -1.f : 1.f) : u(rng);
      for (size_t i = 0; i < K; ++i) v[i] = first_row;
    };
    std::vector<float> a, x;
    fill(a, M, 1.f);
    fill(x, n, -1.f);
    if (sparse)
      for (size_t i = K; i < x.size(); ++i)
        if (p(rng) < 0.9f) x[i] = 0.f;
    A_.resize(M * K);
    X_.resize(n * K);
    as_.resize(M);
    xs_.resize(n);
    if constexpr (std::is_same<W, int8_t>::value)
      quantize_rows_i8_ref(M, K, a.data(), K, A_.data(), K, as_.data());
    else
      quantize_rows_i16_ref(M, K, a.data(), K, kQmaxWeight, A_.data(), K, as_.data());
    quantize_rows_i16_ref(n, K, x.data(), K, kQmaxInput, X_.data(), K, xs_.data());
    if (sparse) {  // P[p * 2 * ldp + 2 * m + j] = A[m, 2p + j]
      ld_ = (M + 15) / 16 * 16;
      std::vector<W> P(K * ld_, W(0));
      for (size_t m = 0; m < M; ++m)
        for (size_t kk = 0; kk < K; ++kk) P[(kk / 2) * 2 * ld_ + 2 * m + kk % 2] = A_[m * K + kk];
      A_.swap(P);
    }
    bias_.resize(M);
    for (float& b : bias_) b = u(rng);
    ref_.assign(n * M, 0.f);
    simd_.assign(n * M, 0.f);
  }
  void run_ref() override { go(k_.ref, ref_); }
  void run_simd() override { go(k_.simd, simd_); }
  double flops() const override { return 2.0 * n_ * M_ * K_; }
  std::array<std::vector<float>, 2> outputs(bool) override {
    run_ref();
    run_simd();
    return {ref_, simd_};
  }

 private:
  void go(F f, std::vector<float>& y) {
    f(n_, M_, K_, X_.data(), K_, xs_.data(), A_.data(), sparse_ ? ld_ : K_, as_.data(), bias_.data(),
      y.data(), M_);
  }
  Twins<F> k_;
  size_t n_, M_, K_, ld_ = 0;
  bool sparse_;
  std::vector<W> A_;
  std::vector<int16_t> X_;
  std::vector<float> as_, xs_, bias_, ref_, simd_;
};

// {n, M, K}: n input rows (beam hypotheses, a Transformer's source positions; tile: 2
// rows), M outputs (tile: 4 rows), K a multiple of 16; 1040 and 1104 cross the int8
// kernel's 1024-element int32 chunk
template <class W, class F>
KernelCase quant_gemm(const Twins<F>& k) {
  std::vector<Shape> shapes;
  for (size_t n : {size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{5}})
    for (size_t m : {size_t{1}, size_t{3}, size_t{4}, size_t{5}, size_t{9}})
      for (size_t kk : {size_t{16}, size_t{32}, size_t{48}, size_t{272}})
        shapes.push_back({n, m, kk});
  shapes.push_back({2, 5, 1040});
  shapes.push_back({3, 8, 1040});
  shapes.push_back({1, 4, 1104});
  KernelCase c = new_case(k.name, "", 4, {2e-5, 1e-5}, false, shapes,
                          {{1, 768, 256}, {4, 768, 256}, {8, 512, 128}});
  c.make = [k](Shape s, uint32_t seed) -> std::unique_ptr<KernelRun> {
    return std::make_unique<QuantGemmRun<W, F>>(k, s[0], s[1], s[2], seed);
  };
  return c;
}

// Per-row quantization to Q (int16 or int8): the output is the quantized values as floats
// (padding to a multiple of 16 included, prefilled with a value that must be overwritten)
// then the row scales; twins must agree exactly. call(f, R, C, x, q, ldq, scale).
template <class Q, class F, class Call>
KernelCase quantize(const Twins<F>& k, Call call) {
  std::vector<Shape> shapes;
  for (size_t rows : {size_t{1}, size_t{3}})
    for (size_t n : edge_sizes(8, false)) shapes.push_back({rows, n, 0});
  KernelCase c = new_case(k.name, "", 8, {0, 0}, false, shapes, {{1, 256, 0}});
  c.make = [=](Shape s, uint32_t seed) -> std::unique_ptr<KernelRun> {
    const size_t R = s[0], C = s[1], ldq = (C + 15) / 16 * 16;
    auto fn = [=](F f) {
      return [=](const std::vector<float*>& in, float* o) {
        std::vector<Q> q(R * ldq, Q(99));
        call(f, R, C, in[0], q.data(), ldq, o + R * ldq);
        for (size_t i = 0; i < q.size(); ++i) o[i] = q[i];
      };
    };
    return std::make_unique<GenericRun>(std::vector<Input>{{R * C, -3, 3}}, R * ldq + R, 0.f, 0.f,
                                        -1, 3.0 * R * C, fn(k.ref), fn(k.simd), seed);
  };
  return c;
}

using Cases = std::vector<KernelCase>;

// ---------------------------------------------------------------- the cases of each kernel

void cases_gemm(Cases& v, const gemm_twins& k) {
  for (auto [variant, ta, tb, beta] :
       {std::make_tuple("nn", false, false, 0.5f), std::make_tuple("nt", false, true, 0.5f),
        std::make_tuple("tn", true, false, 0.5f), std::make_tuple("tt", true, true, 0.5f),
        std::make_tuple("nn_beta0", false, false, 0.f)}) {
    const size_t MR = gemm_tile_m(), NR = gemm_tile_n(), W = simd_lanes();
    std::vector<Shape> shapes;
    for (size_t m : {size_t{1}, MR - 1, MR, MR + 1, 2 * MR + 1})
      for (size_t n : {size_t{1}, NR - 1, NR, NR + 1, 3 * NR})
        for (size_t kk : {size_t{1}, W + 1, size_t{17}})
          if (m > 0 && n > 0) shapes.push_back({m, n, kk});
    shapes.push_back({101, 523, 265});  // crosses the MC, NC and KC cache blocks
    shapes.push_back({64, 64, 64});
    KernelCase c = new_case(k.name, variant, NR, {3e-4, 1e-4}, false, shapes,
                            {{256, 256, 256}, {1, 256, 256}, {32, 64, 64}});
    c.every_gemm_tile = true;
    c.make = [k, ta = ta, tb = tb, beta = beta](Shape s,
                                                uint32_t seed) -> std::unique_ptr<KernelRun> {
      const size_t M = s[0], N = s[1], K = s[2];
      const size_t lda = ta ? M : K, ldb = tb ? K : N;
      const float nan = std::numeric_limits<float>::quiet_NaN();
      const float clo = beta == 0.f ? nan : -1.f, chi = beta == 0.f ? nan : 1.f;
      auto fn = [=](decltype(k.ref) g) {
        return [=](const std::vector<float*>& in, float* out) {
          g(ta, tb, M, N, K, 0.75f, in[0], lda, in[1], ldb, beta, out, N);
        };
      };
      return std::make_unique<GenericRun>(std::vector<Input>{{M * K, -1, 1}, {K * N, -1, 1}},
                                          M * N, clo, chi, -1, 2.0 * M * N * K, fn(k.ref),
                                          fn(k.simd), seed);
    };
    v.push_back(std::move(c));
  }
}

void cases_gemv(Cases& v, const gemv_twins& k) {
  const size_t W = simd_lanes();
  std::vector<Shape> shapes;
  for (size_t m : {size_t{1}, size_t{3}, size_t{4}, size_t{5}, size_t{9}})
    for (size_t n : edge_sizes(W, false)) shapes.push_back({m, n, 0});
  for (bool ta : {false, true}) {
    KernelCase c =
        new_case(k.name, ta ? "t" : "n", W, {3e-4, 1e-4}, false, shapes, {{256, 256, 0}});
    c.make = [k, ta](Shape s, uint32_t seed) -> std::unique_ptr<KernelRun> {
      const size_t M = s[0], N = s[1];
      const size_t nx = ta ? M : N, ny = ta ? N : M;
      auto fn = [=](decltype(k.ref) g) {
        return [=](const std::vector<float*>& in, float* out) {
          g(ta, M, N, 0.75f, in[0], N, in[1], 0.5f, out);
        };
      };
      return std::make_unique<GenericRun>(std::vector<Input>{{M * N, -1, 1}, {nx, -1, 1}}, ny,
                                          -1.f, 1.f, -1, 2.0 * M * N, fn(k.ref), fn(k.simd), seed);
    };
    v.push_back(std::move(c));
  }
}

// inputs of vector kernels: one or two vectors of n values in [-1, 1] or [-2, 2]
std::vector<Input> one_in_pm1(size_t n) { return {{n, -1, 1}}; }
std::vector<Input> two_in_pm1(size_t n) { return {{n, -1, 1}, {n, -1, 1}}; }
std::vector<Input> two_in_pm2(size_t n) { return {{n, -2, 2}, {n, -2, 2}}; }

void cases_dot(Cases& v, const dot_twins& k) {
  v.push_back(vector_case(
      k, "", 4 * simd_lanes(), {1e-5, 1e-5}, -1, two_in_pm1, 0, 0.f, 0.f, 2.0,
      [](auto f, size_t n, const auto& in, float* o) { *o = f(n, in[0], in[1]); }));
}
void cases_axpy(Cases& v, const axpy_twins& k) {
  v.push_back(vector_case(
      k, "", simd_lanes(), {1e-6, 1e-6}, -1, one_in_pm1, 1, -1.f, 1.f, 2.0,
      [](auto f, size_t n, const auto& in, float* o) { f(n, 0.3f, in[0], o); }));
}
void cases_scale(Cases& v, const scale_twins& k) {
  v.push_back(vector_case(
      k, "", simd_lanes(), {0, 1e-7}, 0, one_in_pm1, 1, 0.f, 0.f, 1.0,
      [](auto f, size_t n, const auto& in, float* o) { f(n, -1.7f, in[0], o); }));
}
// y += x is one rounding in both twins: they must agree exactly
void cases_add(Cases& v, const add_twins& k) {
  v.push_back(vector_case(
      k, "", simd_lanes(), {0, 0}, -1, one_in_pm1, 1, -1.f, 1.f, 1.0,
      [](auto f, size_t n, const auto& in, float* o) { f(n, in[0], o); }));
}
void cases_mul(Cases& v, const mul_twins& k) {
  v.push_back(vector_case(
      k, "", simd_lanes(), {0, 1e-7}, 0, two_in_pm2, 1, 0.f, 0.f, 1.0,
      [](auto f, size_t n, const auto& in, float* o) { f(n, in[0], in[1], o); }));
}
void cases_sum(Cases& v, const sum_twins& k) {
  v.push_back(vector_case(
      k, "", 2 * simd_lanes(), {1e-5, 1e-5}, -1, one_in_pm1, 0, 0.f, 0.f, 1.0,
      [](auto f, size_t n, const auto& in, float* o) { *o = f(n, in[0]); }));
}
void cases_max(Cases& v, const max_twins& k) {
  v.push_back(vector_case(
      k, "", simd_lanes(), {0, 0}, -1,
      [](size_t n) { return std::vector<Input>{{n, -100, 100}}; }, 0, 0.f, 0.f, 1.0,
      [](auto f, size_t n, const auto& in, float* o) { *o = f(n, in[0]); }, false));
}

void cases_softmax_rows(Cases& v, const softmax_rows_twins& k) {
  const size_t W = simd_lanes();
  for (auto [variant, range, p_mask, broadcast] :
       {std::make_tuple("", 8.f, 0.f, false), std::make_tuple("mask", 8.f, 0.3f, false),
        std::make_tuple("mask_bcast", 8.f, 0.5f, true), std::make_tuple("pm1e4", 1e4f, 0.f, false),
        std::make_tuple("fully_masked", 8.f, 0.97f, false)}) {
    KernelCase c = new_case(k.name, variant, W, {1e-7, 2e-5}, true, row_shapes(W), {{128, 128, 0}});
    // extra rows so some rows are fully masked at high mask probability
    if (p_mask > 0.f) c.test_shapes.push_back({64, 3, 0});
    c.make = [k, range = range, p_mask = p_mask, broadcast = broadcast](
                 Shape s, uint32_t seed) -> std::unique_ptr<KernelRun> {
      const size_t R = s[0], C = s[1];
      std::vector<Input> in{{R * C, -range, range}};
      if (p_mask > 0.f) in.push_back({broadcast ? C : R * C, 0.f, 0.f, p_mask});
      const size_t ms = broadcast ? 0 : C;
      auto fn = [=](decltype(k.ref) g) {
        return [=](const std::vector<float*>& x, float* out) {
          g(R, C, x[0], C, p_mask > 0.f ? x[1] : nullptr, ms, out, C);
        };
      };
      return std::make_unique<GenericRun>(in, R * C, 0.f, 0.f, 0, 5.0 * R * C, fn(k.ref),
                                          fn(k.simd), seed);
    };
    v.push_back(std::move(c));
  }
}

size_t rows_x_cols(size_t R, size_t C) { return R * C; }

void cases_softmax_rows_backward(Cases& v, const softmax_rows_backward_twins& k) {
  v.push_back(row_case(
      k, {1e-6, 1e-5}, 1, {128, 128, 0}, 4.0,
      [](size_t R, size_t C) { return std::vector<Input>{{R * C, 0, 1}, {R * C, -1, 1}}; },
      rows_x_cols,
      [](auto f, size_t R, size_t C, const auto& in, float* o) { f(R, C, in[0], in[1], o); }));
}
void cases_log_softmax_rows(Cases& v, const log_softmax_rows_twins& k) {
  v.push_back(row_case(
      k, {2e-6, 2e-6}, 0, {128, 128, 0}, 5.0,
      [](size_t R, size_t C) { return std::vector<Input>{{R * C, -20, 20}}; }, rows_x_cols,
      [](auto f, size_t R, size_t C, const auto& in, float* o) { f(R, C, in[0], o); }));
}

void cases_exp(Cases& v, const exp_twins& k) {
  v.push_back(unary(k, "", -90.f, 89.f, {3e-38, 3e-7}));
  v.push_back(unary(k, "small", -2.f, 2.f, {0, 3e-7}));
}
void cases_tanh(Cases& v, const tanh_twins& k) {
  v.push_back(unary(k, "", -12.f, 12.f, {3e-7, 3e-6}));
  v.push_back(unary(k, "small", -0.2f, 0.2f, {1e-8, 3e-6}));
}
void cases_sigmoid(Cases& v, const sigmoid_twins& k) {
  v.push_back(unary(k, "", -40.f, 40.f, {1e-7, 3e-6}));
}
void cases_relu(Cases& v, const relu_twins& k) { v.push_back(unary(k, "", -1.f, 1.f, {0, 0})); }
void cases_gelu(Cases& v, const gelu_twins& k) {
  v.push_back(unary(k, "", -8.f, 8.f, {4e-7, 2e-6}));
}
void cases_exp_backward(Cases& v, const exp_backward_twins& k) {
  v.push_back(backward(k, 0.f, 3.f, {0, 1e-7}));
}
void cases_tanh_backward(Cases& v, const tanh_backward_twins& k) {
  v.push_back(backward(k, -1.f, 1.f, {1e-7, 1e-6}));
}
void cases_sigmoid_backward(Cases& v, const sigmoid_backward_twins& k) {
  v.push_back(backward(k, 0.f, 1.f, {1e-7, 1e-6}));
}
void cases_relu_backward(Cases& v, const relu_backward_twins& k) {
  v.push_back(backward(k, -1.f, 1.f, {0, 0}));
}
void cases_gelu_backward(Cases& v, const gelu_backward_twins& k) {
  v.push_back(backward(k, -8.f, 8.f, {5e-7, 3e-6}));
}

// output: y (R*C), then mean (R), then rstd (R)
void cases_layernorm(Cases& v, const layernorm_twins& k) {
  v.push_back(row_case(
      k, {1e-5, 1e-5}, -1, {128, 256, 0}, 8.0,
      [](size_t R, size_t C) {
        return std::vector<Input>{{R * C, -3, 5}, {C, 0.5f, 1.5f}, {C, -1, 1}};
      },
      [](size_t R, size_t C) { return R * C + 2 * R; },
      [](auto f, size_t R, size_t C, const auto& in, float* o) {
        f(R, C, in[0], in[1], in[2], 1e-5f, o, o + R * C, o + R * C + R);
      }));
}

void cases_layernorm_backward(Cases& v, const layernorm_backward_twins& k) {
  const size_t W = simd_lanes();
  KernelCase c = new_case(k.name, "", W, {2e-5, 1e-4}, false, row_shapes(W), {{128, 256, 0}});
  c.make = [k](Shape s, uint32_t seed) -> std::unique_ptr<KernelRun> {
    const size_t R = s[0], C = s[1];
    // inputs: dy, x, gamma; mean/rstd come from x via the reference forward, once
    // per run (x never changes between calls), so timing sees only the backward
    auto stats = std::make_shared<std::vector<float>>();  // mean (R) then rstd (R)
    auto body = [=](decltype(k.ref) g) {
      return [=](const std::vector<float*>& in, float* o) {
        if (stats->empty()) {
          std::vector<float> y(R * C);
          stats->resize(2 * R);
          layernorm_ref(R, C, in[1], in[2], nullptr, 1e-5f, y.data(), stats->data(),
                        stats->data() + R);
        }
        g(R, C, in[0], in[1], in[2], stats->data(), stats->data() + R, o, o + R * C,
          o + R * C + C);
      };
    };
    return std::make_unique<GenericRun>(
        std::vector<Input>{{R * C, -1, 1}, {R * C, -3, 5}, {C, 0.5f, 1.5f}}, R * C + 2 * C, 0.f,
        0.f, -1, 12.0 * R * C, body(k.ref), body(k.simd), seed);
  };
  v.push_back(std::move(c));
}

void cases_quantize_rows_i16(Cases& v, const quantize_rows_i16_twins& k) {
  v.push_back(quantize<int16_t>(k, [](auto f, size_t R, size_t C, const float* x, int16_t* q,
                                      size_t ldq, float* sc) {
    f(R, C, x, C, kQmaxInput, q, ldq, sc);
  }));
}
void cases_gemm_i16(Cases& v, const gemm_i16_twins& k) { v.push_back(quant_gemm<int16_t>(k)); }
void cases_quantize_rows_i8(Cases& v, const quantize_rows_i8_twins& k) {
  v.push_back(quantize<int8_t>(k, [](auto f, size_t R, size_t C, const float* x, int8_t* q,
                                     size_t ldq, float* sc) { f(R, C, x, C, q, ldq, sc); }));
}
void cases_gemm_i8(Cases& v, const gemm_i8_twins& k) { v.push_back(quant_gemm<int8_t>(k)); }
// {n, M, K}: M across the block of 16 outputs and its blocks of 4, K even (pairs in fours
// and a rest) up to the 1024 of the contract
void cases_gemm_i8_sparse(Cases& v, const gemm_i8_sparse_twins& k) {
  std::vector<Shape> shapes;
  for (size_t n : {size_t{1}, size_t{2}, size_t{3}})
    for (size_t m : {size_t{1}, size_t{5}, size_t{15}, size_t{16}, size_t{17}, size_t{33}})
      for (size_t kk : {size_t{2}, size_t{6}, size_t{16}, size_t{34}, size_t{512}, size_t{1024}})
        shapes.push_back({n, m, kk});
  KernelCase c = new_case(k.name, "", 16, {2e-5, 1e-5}, false, shapes, {{1, 128, 512}, {8, 128, 512}});
  c.make = [k](Shape s, uint32_t seed) -> std::unique_ptr<KernelRun> {
    return std::make_unique<QuantGemmRun<int8_t, decltype(k.ref)>>(k, s[0], s[1], s[2], seed, true);
  };
  v.push_back(c);
}

// One call of cases_<name> per row of the list: a kernel without one does not compile.
Cases build_cases() {
  Cases v;
#define ATTNLAB_KERNEL(name, ret, params) \
  cases_##name(v, name##_twins{#name, &name##_ref, &attnlab::kernels::name});
#include "attnlab/kernels/kernel_list.def"
  return v;
}

}  // namespace

const std::vector<std::string>& kernel_names() {
  static const char* const list[] = {
#define ATTNLAB_KERNEL(name, ret, params) #name,
#include "attnlab/kernels/kernel_list.def"
  };
  static const std::vector<std::string> names(std::begin(list), std::end(list));
  return names;
}

const std::vector<KernelCase>& kernel_cases() {
  static const std::vector<KernelCase> cases = build_cases();
  return cases;
}

const KernelCase& kernel_case(const std::string& name) {
  for (const auto& c : kernel_cases())
    if (c.name == name) return c;
  throw Error("unknown kernel '" + name + "': see kernel_cases() for the list");
}

void check_case(const KernelCase& c, const std::vector<uint32_t>& seeds,
                const std::function<void(const CheckRecord&)>& report) {
  const int tiles = c.every_gemm_tile ? static_cast<int>(gemm_tile_count()) : 1;
  const int chosen = tiles > 1 ? gemm_selected_tile() : -1;
  for (int t = 0; t < tiles; ++t) {
    std::string label = c.name;
    if (tiles > 1) {
      gemm_select_tile(t);
      label += "@" + std::to_string(gemm_tile_m()) + "x" + std::to_string(gemm_tile_n());
    }
    for (const Shape& s : c.test_shapes)
      for (bool in_place : {false, true}) {
        if (in_place && !c.in_place) continue;
        for (uint32_t seed : seeds) {
          const auto out = c.make(s, seed)->outputs(in_place);
          report({label, s, seed, in_place, compare_outputs(out[0], out[1], c.tol)});
        }
      }
  }
  if (tiles > 1) {
    gemm_select_tile(chosen);
    gemm_release_tile();
  }
}

std::string run_kernel_selftest(uint32_t seed) {
  // JSON by hand with snprintf: a string stream would link the iostream machinery into the .wasm.
  char buf[512];
  std::snprintf(buf, sizeof buf, "{\"arch\":\"%s\",\"lanes\":%zu,\"cases\":[", simd_arch_name(),
                static_cast<size_t>(simd_lanes()));
  std::string os = buf;
  size_t failed = 0;
  bool first = true;
  for (const auto& c : kernel_cases()) {
    check_case(c, {seed}, [&](const CheckRecord& r) {
      const CheckResult& res = r.result;
      if (!res.passed()) ++failed;
      std::snprintf(buf, sizeof buf,
                    "%s{\"name\":\"%s\",\"shape\":[%zu,%zu,%zu],\"in_place\":%s,"
                    "\"max_abs_err\":%.17g,\"worst_ratio\":%.17g,\"passed\":%s}",
                    first ? "" : ",", r.label.c_str(), static_cast<size_t>(r.shape[0]),
                    static_cast<size_t>(r.shape[1]), static_cast<size_t>(r.shape[2]),
                    r.in_place ? "true" : "false",
                    std::isfinite(res.max_abs_err) ? double(res.max_abs_err) : -1.0,
                    std::isfinite(res.worst_ratio) ? double(res.worst_ratio) : 1e300,
                    res.passed() ? "true" : "false");
      os += buf;
      first = false;
    });
  }
  std::snprintf(buf, sizeof buf, "],\"failed\":%zu}", failed);
  os += buf;
  return os;
}

}  // namespace attnlab::kernels
