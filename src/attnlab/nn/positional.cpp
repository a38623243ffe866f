#include "attnlab/nn/positional.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "attnlab/core/checked.hpp"
#include "attnlab/kernels/kernels.hpp"

namespace attnlab::nn {

namespace k = attnlab::kernels;

PosKind pos_kind_from_string(const std::string& s) {
  if (s == "sinusoidal") return PosKind::Sinusoidal;
  if (s == "learned") return PosKind::Learned;
  throw Error("unknown positional encoding '" + s + "': expected sinusoidal or learned");
}
const char* pos_kind_name(PosKind k) { return k == PosKind::Learned ? "learned" : "sinusoidal"; }

PositionalEncoding::PositionalEncoding(PosKind kind_, size_t max_len_, size_t dim_, Rng& rng)
    : kind(kind_), max_len(max_len_), dim(dim_) {
  ATTNLAB_CHECK(dim > 0 && max_len > 0, "PositionalEncoding: expected max_len, dim > 0, got ",
                max_len, ", ", dim);
  if (kind == PosKind::Learned) {
    weight = Param({max_len, dim});
    for (size_t i = 0; i < weight.size(); ++i) weight.data()[i] = rng.normal(0.f, 0.02f);
  } else {
    // decoding adds one position per step: look the first positions up instead of
    // evaluating 2 x dim transcendental functions every time
    const size_t rows = std::min<size_t>(max_len, 256);
    table_.resize(checked_product("sinusoid table", {rows, dim}));
    for (size_t t = 0; t < rows; ++t) sinusoid(t, dim, table_.data() + t * dim);
  }
}

void PositionalEncoding::collect(ParamList& out, const std::string& prefix) {
  if (kind == PosKind::Learned) out.add(prefix + "weight", weight);
}

void PositionalEncoding::sinusoid(size_t pos, size_t D, float* out) {
  // out (D): sin at even columns, cos at odd, frequency 10000^(-2i/D), i = column / 2
  for (size_t c = 0; c < D; ++c) {
    const size_t i2 = c & ~size_t(1);
    const double f = std::pow(10000.0, -double(i2) / double(D));
    out[c] = float((c & 1) ? std::cos(double(pos) * f) : std::sin(double(pos) * f));
  }
}

void PositionalEncoding::forward(size_t B, size_t T, float* x, size_t start) const {
  // x: (B,T,D) += PE[start..start+T)
  ATTNLAB_CHECK(dim > 0, "PositionalEncoding: not initialized");
  ATTNLAB_CHECK(start + T <= max_len, "PositionalEncoding: positions up to ", start + T,
                " requested, this encoding holds ", max_len, " (max_len)");
  std::vector<float> row(dim);
  for (size_t t = 0; t < T; ++t) {
    const float* pe = row.data();
    if (kind == PosKind::Learned) pe = weight.value.data() + (start + t) * dim;
    else if ((start + t + 1) * dim <= table_.size()) pe = table_.data() + (start + t) * dim;
    else sinusoid(start + t, dim, row.data());
    for (size_t b = 0; b < B; ++b) k::add(dim, pe, x + (b * T + t) * dim);
  }
}

void PositionalEncoding::backward(size_t B, size_t T, const float* dy, size_t start) {
  // dy: (B,T,D) -> dweight[start+t] += sum_b dy[b,t]
  if (kind != PosKind::Learned) return;
  ATTNLAB_CHECK(start + T <= max_len, "PositionalEncoding backward: positions up to ", start + T,
                " exceed max_len ", max_len);
  float* g = weight.grad.data();
  for (size_t t = 0; t < T; ++t)
    for (size_t b = 0; b < B; ++b) k::add(dim, dy + (b * T + t) * dim, g + (start + t) * dim);
}

}  // namespace attnlab::nn
