// attnlab kernels: raw pointers and sizes in, no allocation, no xtensor.
//
// Every kernel exists twice with the same signature:
//   name_ref(...)  plain scalar loops: the oracle for tests and the fallback;
//   name(...)      the xsimd version (SSE4.1 -> WebAssembly SIMD128 in the
//                  browser build, the widest ISA the compiler targets natively).
// Matrices are row-major with explicit leading dimensions. Unless a kernel
// says otherwise, output may alias input exactly (in place) but must not
// partially overlap it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace attnlab::kernels {

// ---------------------------------------------------------------- BLAS-like
// C(M,N) = alpha * op(A) * op(B) + beta * C, op(X) = X or X^T.
// op(A) is (M,K): A is (M,K) with lda >= K, or (K,M) with lda >= M if transA.
// op(B) is (K,N): B is (K,N) with ldb >= N, or (N,K) with ldb >= K if transB.
// beta == 0 never reads C (so C may hold garbage or NaN). C must not alias A/B.
void gemm(bool transA, bool transB, size_t M, size_t N, size_t K, float alpha,
          const float* A, size_t lda, const float* B, size_t ldb, float beta, float* C,
          size_t ldc) noexcept;
void gemm_ref(bool transA, bool transB, size_t M, size_t N, size_t K, float alpha,
              const float* A, size_t lda, const float* B, size_t ldb, float beta,
              float* C, size_t ldc) noexcept;

// y = alpha * op(A) * x + beta * y; A is (M,N) row-major with lda >= N.
// op(A) = A: x has N entries, y has M.  op(A) = A^T: x has M, y has N.
// beta == 0 never reads y.
void gemv(bool transA, size_t M, size_t N, float alpha, const float* A, size_t lda,
          const float* x, float beta, float* y) noexcept;
void gemv_ref(bool transA, size_t M, size_t N, float alpha, const float* A, size_t lda,
              const float* x, float beta, float* y) noexcept;

float dot(size_t n, const float* x, const float* y) noexcept;
float dot_ref(size_t n, const float* x, const float* y) noexcept;
// y += alpha * x
void axpy(size_t n, float alpha, const float* x, float* y) noexcept;
void axpy_ref(size_t n, float alpha, const float* x, float* y) noexcept;
// y = alpha * x (in place allowed)
void scale(size_t n, float alpha, const float* x, float* y) noexcept;
void scale_ref(size_t n, float alpha, const float* x, float* y) noexcept;
// y = x + y elementwise (in place: y += x)
void add(size_t n, const float* x, float* y) noexcept;
void add_ref(size_t n, const float* x, float* y) noexcept;
// z = x * y elementwise (z may alias x or y)
void mul(size_t n, const float* x, const float* y, float* z) noexcept;
void mul_ref(size_t n, const float* x, const float* y, float* z) noexcept;

// ---------------------------------------------------------------- reductions
float sum(size_t n, const float* x) noexcept;
float sum_ref(size_t n, const float* x) noexcept;
// max of n >= 1 values; NaN if any value is NaN is NOT guaranteed (use isfinite checks upstream)
float max(size_t n, const float* x) noexcept;
float max_ref(size_t n, const float* x) noexcept;

// ---------------------------------------------------------------- softmax
// Row softmax over x (rows, cols), row stride ldx; y has stride ldy (y may be x).
// mask (optional, nullptr = none) is ADDITIVE: 0 keeps a key, -inf removes it;
// mask row r starts at mask + r * mask_stride (mask_stride 0 broadcasts one
// row to all rows). A row whose entries are all -inf (fully masked) gives all
// zeros, never NaN. The row max is subtracted, so logits of +-1e4 stay finite.
void softmax_rows(size_t rows, size_t cols, const float* x, size_t ldx, const float* mask,
                  size_t mask_stride, float* y, size_t ldy) noexcept;
void softmax_rows_ref(size_t rows, size_t cols, const float* x, size_t ldx,
                      const float* mask, size_t mask_stride, float* y, size_t ldy) noexcept;
// dx = y * (dy - sum(dy * y)) per row; contiguous (rows, cols); dx may alias dy.
void softmax_rows_backward(size_t rows, size_t cols, const float* y, const float* dy,
                           float* dx) noexcept;
void softmax_rows_backward_ref(size_t rows, size_t cols, const float* y, const float* dy,
                               float* dx) noexcept;
// y = x - max - log(sum(exp(x - max))) per row; contiguous; y may be x.
// A fully -inf row gives all -inf.
void log_softmax_rows(size_t rows, size_t cols, const float* x, float* y) noexcept;
void log_softmax_rows_ref(size_t rows, size_t cols, const float* x, float* y) noexcept;

// ---------------------------------------------------------------- elementwise
// Forward: y = f(x) (y may be x). Backward: dx = dy * f'(.) (dx may alias dy);
// exp/tanh/sigmoid backward take the forward OUTPUT y, relu/gelu take the INPUT x.
// exp returns exactly 0 below about -87.3 (so exp(-inf) = 0) and +inf above 88.7.
// gelu is the exact erf form (PyTorch's default, approximate='none').
void exp(size_t n, const float* x, float* y) noexcept;
void exp_ref(size_t n, const float* x, float* y) noexcept;
void exp_backward(size_t n, const float* y, const float* dy, float* dx) noexcept;
void exp_backward_ref(size_t n, const float* y, const float* dy, float* dx) noexcept;
void tanh(size_t n, const float* x, float* y) noexcept;
void tanh_ref(size_t n, const float* x, float* y) noexcept;
void tanh_backward(size_t n, const float* y, const float* dy, float* dx) noexcept;
void tanh_backward_ref(size_t n, const float* y, const float* dy, float* dx) noexcept;
void sigmoid(size_t n, const float* x, float* y) noexcept;
void sigmoid_ref(size_t n, const float* x, float* y) noexcept;
void sigmoid_backward(size_t n, const float* y, const float* dy, float* dx) noexcept;
void sigmoid_backward_ref(size_t n, const float* y, const float* dy, float* dx) noexcept;
void relu(size_t n, const float* x, float* y) noexcept;
void relu_ref(size_t n, const float* x, float* y) noexcept;
void relu_backward(size_t n, const float* x, const float* dy, float* dx) noexcept;
void relu_backward_ref(size_t n, const float* x, const float* dy, float* dx) noexcept;
void gelu(size_t n, const float* x, float* y) noexcept;
void gelu_ref(size_t n, const float* x, float* y) noexcept;
void gelu_backward(size_t n, const float* x, const float* dy, float* dx) noexcept;
void gelu_backward_ref(size_t n, const float* x, const float* dy, float* dx) noexcept;

// ---------------------------------------------------------------- layer norm
// x, y: (rows, cols) contiguous; gamma, beta: (cols) (nullptr = 1 and 0);
// mean, rstd: (rows) outputs saved for backward (may be nullptr in inference).
void layernorm(size_t rows, size_t cols, const float* x, const float* gamma,
               const float* beta, float eps, float* y, float* mean, float* rstd) noexcept;
void layernorm_ref(size_t rows, size_t cols, const float* x, const float* gamma,
                   const float* beta, float eps, float* y, float* mean, float* rstd) noexcept;
// dx = d/dx (overwritten); dgamma, dbeta ACCUMULATE (+=) and may be nullptr.
void layernorm_backward(size_t rows, size_t cols, const float* dy, const float* x,
                        const float* gamma, const float* mean, const float* rstd,
                        float* dx, float* dgamma, float* dbeta) noexcept;
void layernorm_backward_ref(size_t rows, size_t cols, const float* dy, const float* x,
                            const float* gamma, const float* mean, const float* rstd,
                            float* dx, float* dgamma, float* dbeta) noexcept;

// ---------------------------------------------------------------- int16 inference
// For decoders whose weights do not fit the L2 cache as float (seq2seq): int16 weights
// halve the bytes streamed per step and one 16-bit multiply-add instruction
// (SSE2 pmaddwd = WebAssembly i32x4.dot_i16x8_s) does eight products. Raw SSE2
// intrinsics, because xsimd 8.1 has no 16-bit multiply-add; the fallback is the twin.
//
// Symmetric per-row quantization: scale[r] = max_j |x[r,j]| / qmax and
// q[r,j] = round_half_even(x[r,j] / scale[r]), so |q| <= qmax and x ~ q * scale.
// Columns cols..ldq-1 of each q row are set to 0 (padding up to a multiple of 16).
// A row of zeros gets scale 0 (and q = 0); a row holding NaN or +-inf gets scale NaN,
// so whatever it multiplies becomes NaN (the error is visible, never silently zero).
// qmax in [1, 32767]; use kQmaxWeight for matrices and kQmaxInput for vectors (below):
// 11585 = floor(sqrt(2^31 / 16)), so 16 products of two such values sum exactly in int32.
constexpr int kQmaxWeight = 11585;
constexpr int kQmaxInput = 11585;
void quantize_rows_i16(size_t rows, size_t cols, const float* x, size_t ldx, int qmax,
                       int16_t* q, size_t ldq, float* scale) noexcept;
void quantize_rows_i16_ref(size_t rows, size_t cols, const float* x, size_t ldx, int qmax,
                           int16_t* q, size_t ldq, float* scale) noexcept;
// Y(n,M) = X A^T, dequantized, plus an optional bias (nullptr = none):
//   Y[b*ldy + m] = x_scale[b] * a_scale[m] * sum_k X[b,k] * A[m,k] + bias[m]
// X: (n,K) int16, row stride ldx; A: (M,K) int16, row stride lda (a weight matrix, rows =
// outputs); K must be a multiple of 16 (quantize with ldq rounded up; the padding is 0).
// Range contract: |A| <= kQmaxWeight and |X| <= kQmaxInput. Then the products of 64
// consecutive k (16 per int32 lane) sum exactly in int32, and those sums in float.
// Each block of A rows is read once for all n rows of X (beam search: n hypotheses).
void gemm_i16(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx,
              const float* x_scale, const int16_t* A, size_t lda, const float* a_scale,
              const float* bias, float* Y, size_t ldy) noexcept;
void gemm_i16_ref(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx,
                  const float* x_scale, const int16_t* A, size_t lda, const float* a_scale,
                  const float* bias, float* Y, size_t ldy) noexcept;

// int8 weights, int16 inputs: a quarter of float32's bytes per weight. The same per-row
// quantization with qmax 127 into int8 (q, ldq as above; padding set to 0).
void quantize_rows_i8(size_t rows, size_t cols, const float* x, size_t ldx, int8_t* q,
                      size_t ldq, float* scale) noexcept;
void quantize_rows_i8_ref(size_t rows, size_t cols, const float* x, size_t ldx, int8_t* q,
                          size_t ldq, float* scale) noexcept;
// Y(n,M) = X A^T (+ bias) as gemm_i16, with A int8 (|A| <= 127) and X int16 (|X| <=
// kQmaxInput); K a multiple of 16. Products of up to 1024 consecutive k sum exactly in
// int32 (127 * 11585 * 512 < 2^31).
void gemm_i8(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx, const float* x_scale,
             const int8_t* A, size_t lda, const float* a_scale, const float* bias, float* Y,
             size_t ldy) noexcept;
void gemm_i8_ref(size_t n, size_t M, size_t K, const int16_t* X, size_t ldx,
                 const float* x_scale, const int8_t* A, size_t lda, const float* a_scale,
                 const float* bias, float* Y, size_t ldy) noexcept;

// ---------------------------------------------------------------- info
// Name of the SIMD instruction set the xsimd kernels were compiled for
// ("sse4.1", "avx512f", "wasm-simd128 (via sse4.1)", ...) and its float lanes.
const char* simd_arch_name() noexcept;
size_t simd_lanes() noexcept;
// GEMM register tile in use (rows x cols of C per micro-kernel call). Several
// tiles are compiled; the first large GEMM call times them (about 10 ms) and
// keeps the fastest, and the 200th large call times them again (in wasm the
// engine may still have been running baseline code the first time). All tiles
// give bit-identical results.
size_t gemm_tile_m() noexcept;
size_t gemm_tile_n() noexcept;
size_t gemm_tile_count() noexcept;
void gemm_select_tile(int index);  // 0..count-1 forces a tile, -1 re-runs the autotune
void gemm_release_tile() noexcept;          // keep the current tile but let the autotune revisit it
int gemm_selected_tile() noexcept;
// GFLOPS of the best GEMM micro-kernel alone on L1-resident packed panels
// (no packing, no memory traffic beyond L1): the ceiling GEMM is judged against.
double simd_peak_gflops(double min_ms);

}  // namespace attnlab::kernels
