#include "attnlab/attention/common.hpp"

#include <cmath>

#include "attnlab/kernels/kernels.hpp"

namespace attnlab::attention {

Tensor3 additive_mask(const AttendMask& m, size_t B, size_t Tq, size_t S) {
  Tensor3 out = xt::zeros<float>({B, Tq, S});
  if (!m.lengths.empty()) {
    ATTNLAB_CHECK(m.lengths.size() == B, "lengths: expected ", B, " entries (one per batch item), got ",
                  m.lengths.size());
    for (size_t b = 0; b < B; ++b) {
      ATTNLAB_CHECK(m.lengths[b] <= S, "lengths[", b, "] = ", m.lengths[b],
                    " exceeds the key count S = ", S);
      for (size_t t = 0; t < Tq; ++t) {
        float* row = &out(b, t, 0);
        for (size_t s = m.lengths[b]; s < S; ++s) row[s] = kNegInf;
      }
    }
  }
  if (m.ignore.size() != 0) {
    const auto& sh = m.ignore.shape();
    ATTNLAB_CHECK((sh[0] == B || sh[0] == 1) && sh[1] == Tq && sh[2] == S,
                  "bool mask: expected shape (", B, " or 1,", Tq, ",", S, "), got ",
                  detail::shape_of(m.ignore));
    const bool* mk = m.ignore.data();
    for (size_t b = 0; b < B; ++b) {
      const bool* mb = mk + (sh[0] == 1 ? 0 : b) * Tq * S;
      float* ob = &out(b, 0, 0);
      for (size_t i = 0; i < Tq * S; ++i)
        if (mb[i]) ob[i] = kNegInf;
    }
  }
  if (m.causal) {
    for (size_t b = 0; b < B; ++b)
      for (size_t t = 0; t < Tq; ++t) {
        float* row = &out(b, t, 0);
        for (size_t s = t + 1; s < S; ++s) row[s] = kNegInf;
      }
  }
  return out;
}

namespace detail {

std::string shape_str(const std::vector<size_t>& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + ")";
}

std::vector<size_t> valid_lengths(const char* who, const std::vector<size_t>& lengths, size_t B,
                                  size_t n, const char* axis) {
  ATTNLAB_CHECK(lengths.empty() || lengths.size() == B, who, ": lengths must have ", B,
                " entries, got ", lengths.size());
  std::vector<size_t> len(B, n);
  for (size_t b = 0; b < lengths.size(); ++b) {
    ATTNLAB_CHECK(lengths[b] <= n, who, ": lengths[", b, "] = ", lengths[b], " exceeds ", axis,
                  " = ", n);
    len[b] = lengths[b];
  }
  return len;
}

void check_finite(const char* what, const float* x, size_t n) {
  // fast path: any NaN/inf makes the SIMD sum non-finite; a non-finite sum of finite
  // values (overflow) falls through to the exact scan, which then finds nothing
  if (std::isfinite(kernels::sum(n, x))) return;
  for (size_t i = 0; i < n; ++i)
    ATTNLAB_CHECK(std::isfinite(x[i]), what, ": expected finite values, got ", x[i],
                  " at flat index ", i);
}

void check_param_shape(const char* what, const Param& p, const std::vector<size_t>& shape) {
  const std::vector<size_t> got(p.value.shape().begin(), p.value.shape().end());
  ATTNLAB_CHECK(got == shape, "parameter ", what, ": expected shape ", shape_str(shape), ", got ",
                shape_str(got));
  ATTNLAB_CHECK(p.grad.size() == p.value.size(), "parameter ", what, ": grad has ",
                p.grad.size(), " entries, value has ", p.value.size());
}

void init_uniform(Param& p, const std::vector<size_t>& shape, float bound, Rng& rng) {
  p = Param(shape);
  float* v = p.data();
  for (size_t i = 0; i < p.size(); ++i) v[i] = rng.uniform(-bound, bound);
}

void linear_forward(size_t rows, size_t in, size_t out, const float* x, size_t ldx,
                    const float* W, const float* b, float* y, size_t ldy) {
  if (rows == 0 || out == 0) return;
  if (b) {
    for (size_t r = 0; r < rows; ++r)
      for (size_t o = 0; o < out; ++o) y[r * ldy + o] = b[o];
    kernels::gemm(false, true, rows, out, in, 1.f, x, ldx, W, in, 1.f, y, ldy);
  } else {
    kernels::gemm(false, true, rows, out, in, 1.f, x, ldx, W, in, 0.f, y, ldy);
  }
}

void linear_backward(size_t rows, size_t in, size_t out, const float* x, size_t ldx,
                     const float* W, const float* dy, size_t ldd, float* dx, size_t lddx,
                     bool accumulate_dx, float* dW, float* db) {
  if (rows == 0) return;
  if (dx) kernels::gemm(false, false, rows, in, out, 1.f, dy, ldd, W, in,
                        accumulate_dx ? 1.f : 0.f, dx, lddx);
  if (dW) kernels::gemm(true, false, out, in, rows, 1.f, dy, ldd, x, ldx, 1.f, dW, in);
  if (db) add_colsum(rows, out, dy, ldd, db);
}

void add_colsum(size_t rows, size_t cols, const float* x, size_t ld, float* out) {
  for (size_t r = 0; r < rows; ++r) kernels::add(cols, x + r * ld, out);
}

}  // namespace detail
}  // namespace attnlab::attention
