// attnlab::attention common types and helpers shared by every mechanism.
//
// Tensors are row-major float, (B,T,D). Inputs are xt::xtensor; the hot loops
// call kernels on raw pointers.
//
// MASK POLARITY (read this once, it holds for the whole attention/ folder):
//   * bool masks are "ignore" masks, PyTorch style: true = the key is NOT
//     attended (masked out), false = allowed. This holds for
//     AttendMask::ignore, MultiheadAttention's key_padding_mask and bool
//     attn_mask.
//   * float masks are ADDITIVE: the value is added to the score before the
//     softmax; 0 keeps a key, -inf removes it (as in PyTorch's float attn_mask).
//   * lengths are valid counts: keys [0, len) are attended, [len, S) ignored.
//   * causal = key j is allowed for query i only if j <= i (top-left aligned,
//     as torch.tril(ones(T,S))).
// A query row whose keys are ALL masked gets all-zero attention weights and an
// all-zero output (never NaN; PyTorch would give NaN there). Its gradient is 0.
#pragma once
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"

namespace attnlab::attention {

using Tensor1 = xt::xtensor<float, 1>;
using Tensor2 = xt::xtensor<float, 2>;
using Tensor3 = xt::xtensor<float, 3>;
using Tensor4 = xt::xtensor<float, 4>;
using BoolTensor2 = xt::xtensor<bool, 2>;
using BoolTensor3 = xt::xtensor<bool, 3>;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Masks for attend() / LocalAttention / ContextPooling-like APIs. All parts
// are optional and combine (a key is attended only if every part allows it).
struct AttendMask {
  std::vector<size_t> lengths;  // (B) valid key count per batch item; empty = all valid
  BoolTensor3 ignore;           // (B,Tq,S) or (1,Tq,S); true = NOT attended; size 0 = none
  bool causal = false;          // key j allowed for query i only if j <= i
  bool empty() const { return lengths.empty() && ignore.size() == 0 && !causal; }
};

// Builds the additive mask (B,Tq,S): 0 = keep, -inf = masked. Validates shapes.
Tensor3 additive_mask(const AttendMask& m, size_t B, size_t Tq, size_t S);

namespace detail {

std::string shape_str(const std::vector<size_t>& s);
template <class T>
std::string shape_of(const T& t) {
  return shape_str(std::vector<size_t>(t.shape().begin(), t.shape().end()));
}
// throws if any value is NaN or +-inf
void check_finite(const char* what, const float* x, size_t n);
// throws unless p.value has exactly this shape
void check_param_shape(const char* what, const Param& p, const std::vector<size_t>& shape);
// lengths checked (B entries, each at most n) and filled in (empty = n for every item); who
// names the layer and axis the length's axis (e.g. "T") in errors
std::vector<size_t> valid_lengths(const char* who, const std::vector<size_t>& lengths, size_t B,
                                  size_t n, const char* axis);

// Fills p with U(-bound, bound) and zeroes its grad.
void init_uniform(Param& p, const std::vector<size_t>& shape, float bound, Rng& rng);

// Linear map y = x W^T + b over `rows` rows. x: (rows, in) stride ldx, W: (out, in),
// b: (out) or nullptr, y: (rows, out) stride ldy.
void linear_forward(size_t rows, size_t in, size_t out, const float* x, size_t ldx,
                    const float* W, const float* b, float* y, size_t ldy);
// Backward of linear_forward. dy: (rows, out) stride ldd.
// dx (nullable): (rows, in) stride lddx; overwritten if !accumulate_dx, else added to.
// dW (out,in), db (out): ACCUMULATED (nullable).
void linear_backward(size_t rows, size_t in, size_t out, const float* x, size_t ldx,
                     const float* W, const float* dy, size_t ldd, float* dx, size_t lddx,
                     bool accumulate_dx, float* dW, float* db);

// Column sums of a (rows, cols) matrix with stride ld, ADDED to out (cols).
void add_colsum(size_t rows, size_t cols, const float* x, size_t ld, float* out);

}  // namespace detail
}  // namespace attnlab::attention
