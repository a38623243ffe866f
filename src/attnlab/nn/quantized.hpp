// A weight matrix quantized for inference: int8 or int16 values with one scale per
// row (rows = outputs, cols = inputs), applied with kernels::gemm_i8 / gemm_i16 to
// inputs quantized to int16 per row at each call. Used by the decoders' int8/int16
// paths (seq2seq RNN decoder, Transformer encoder and decoder).
//
// Storage: q (rows, ld) with ld = cols rounded up to 16 (the padding is 0), scale
// (rows), bias (rows; zeros where a block has none). With sparse_input (int8, cols <= 1024:
// for inputs that are mostly zero, such as ReLU outputs) q is kept pair-interleaved
// instead and applied with kernels::gemm_i8_sparse, whose result is gemm_i8's bit for bit
// at a cost proportional to the input's nonzero pairs. Rows may be stacked from several
// float blocks sharing the input width (e.g. W_q, W_k, W_v of an attention).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attnlab::nn {

class QuantMatrix {
 public:
  struct Part {
    size_t rows;
    const float* w;     // (rows, cols) float, row stride ldw
    size_t ldw;
    const float* bias;  // (rows) or nullptr
  };
  QuantMatrix() = default;
  QuantMatrix(bool int8, size_t cols, const std::vector<Part>& parts, bool sparse_input = false);

  // x: (n, cols) float, row stride ldx -> y: (n, rows), row stride ldy (overwritten).
  // qx, sx: scratch (resized to n * ld int16 and n floats).
  void apply(size_t n, const float* x, size_t ldx, float* y, size_t ldy, std::vector<int16_t>& qx,
             std::vector<float>& sx) const;
  // Same with internal scratch (allocates).
  void apply(size_t n, const float* x, size_t ldx, float* y, size_t ldy) const;

  size_t rows() const { return rows_; }
  size_t cols() const { return cols_; }
  bool empty() const { return rows_ == 0; }
  size_t bytes() const;  // weights + scales + bias

 private:
  size_t rows_ = 0, cols_ = 0, ld_ = 0;
  bool int8_ = false, sparse_ = false;
  size_t ldp_ = 0;  // sparse_: rows rounded up to 16
  std::vector<int16_t> q16_;
  std::vector<int8_t> q8_;
  std::vector<float> scale_, bias_;
};

}  // namespace attnlab::nn
