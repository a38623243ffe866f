#include "attnlab/nn/quantized.hpp"

#include <algorithm>

#include "attnlab/kernels/kernels.hpp"

namespace attnlab::nn {

namespace k = attnlab::kernels;

QuantMatrix::QuantMatrix(bool int8, size_t cols, const std::vector<Part>& parts, bool sparse_input)
    : cols_(cols), ld_((cols + 15) / 16 * 16), int8_(int8), sparse_(sparse_input && int8 && ld_ <= 1024) {
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
  if (sparse_) {  // gemm_i8_sparse's layout: P[p * 2 * ldp + 2 * m + j] = q[m, 2p + j]
    ldp_ = (rows_ + 15) / 16 * 16;
    std::vector<int8_t> packed(ld_ * ldp_, 0);
    for (size_t m = 0; m < rows_; ++m)
      for (size_t j = 0; j < ld_; ++j) packed[(j / 2) * 2 * ldp_ + 2 * m + j % 2] = q8_[m * ld_ + j];
    q8_.swap(packed);
  }
}

void QuantMatrix::apply(size_t n, const float* x, size_t ldx, float* y, size_t ldy,
                        std::vector<int16_t>& qx, std::vector<float>& sx) const {
  // grown, never shrunk: a buffer reused across matrices of different widths is not
  // refilled each time (quantize_rows_i16 writes every element it reads)
  if (qx.size() < n * ld_) qx.resize(n * ld_);
  if (sx.size() < n) sx.resize(n);
  k::quantize_rows_i16(n, cols_, x, ldx, k::kQmaxInput, qx.data(), ld_, sx.data());
  if (sparse_)
    k::gemm_i8_sparse(n, rows_, ld_, qx.data(), ld_, sx.data(), q8_.data(), ldp_, scale_.data(),
                      bias_.data(), y, ldy);
  else if (int8_)
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
