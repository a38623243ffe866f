#include "attnlab/nn/quantized.hpp"

#include <algorithm>

#include "attnlab/kernels/kernels.hpp"

namespace attnlab::nn {

namespace k = attnlab::kernels;

QuantMatrix::QuantMatrix(bool int8, size_t cols, const std::vector<Part>& parts)
    : cols_(cols), ld_((cols + 15) / 16 * 16), int8_(int8) {
  for (const Part& p : parts) rows_ += p.rows;
  (int8_ ? q8_.assign(rows_ * ld_, 0) : q16_.assign(rows_ * ld_, 0));
  scale_.assign(rows_, 0.f);
  bias_.assign(rows_, 0.f);
  size_t r = 0;
  for (const Part& p : parts) {
    if (int8_)
      k::quantize_rows_i8(p.rows, cols_, p.w, p.ldw, q8_.data() + r * ld_, ld_, scale_.data() + r);
    else
      k::quantize_rows_i16(p.rows, cols_, p.w, p.ldw, k::kQmaxWeight, q16_.data() + r * ld_, ld_,
                           scale_.data() + r);
    if (p.bias) std::copy(p.bias, p.bias + p.rows, bias_.begin() + long(r));
    r += p.rows;
  }
}

void QuantMatrix::apply(size_t n, const float* x, size_t ldx, float* y, size_t ldy,
                        std::vector<int16_t>& qx, std::vector<float>& sx) const {
  // grown, never shrunk: a buffer reused across matrices of different widths is not
  // refilled each time (quantize_rows_i16 writes every element it reads)
  if (qx.size() < n * ld_) qx.resize(n * ld_);
  if (sx.size() < n) sx.resize(n);
  k::quantize_rows_i16(n, cols_, x, ldx, k::kQmaxInput, qx.data(), ld_, sx.data());
  if (int8_)
    k::gemm_i8(n, rows_, ld_, qx.data(), ld_, sx.data(), q8_.data(), ld_, scale_.data(),
               bias_.data(), y, ldy);
  else
    k::gemm_i16(n, rows_, ld_, qx.data(), ld_, sx.data(), q16_.data(), ld_, scale_.data(),
                bias_.data(), y, ldy);
}

void QuantMatrix::apply(size_t n, const float* x, size_t ldx, float* y, size_t ldy) const {
  std::vector<int16_t> qx;
  std::vector<float> sx;
  apply(n, x, ldx, y, ldy, qx, sx);
}

size_t QuantMatrix::bytes() const {
  return q8_.size() + q16_.size() * 2 + (scale_.size() + bias_.size()) * sizeof(float);
}

}  // namespace attnlab::nn
