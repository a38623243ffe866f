// Disagreement regularization for multi-head attention (Li et al. 2018,
// "Multi-Head Attention with Disagreement Regularization", arXiv 1810.10183).
//
// The paper adds lambda * D to the training objective it MAXIMIZES, where the
// disagreement D is the negative of a mean pairwise similarity between heads.
// attnlab computes the similarities themselves (higher = heads agree more):
//   subspace  S_sub = 1/H^2 sum_{i,j} cos(V^i, V^j)    V^h: head h's value projection (S,Dh)
//   position  S_pos = 1/H^2 sum_{i,j} sum(A^i * A^j)   A^h: head h's attention matrix (T,S)
//   output    S_out = 1/H^2 sum_{i,j} cos(O^i, O^j)    O^h: head h's output before out_proj (T,Dh)
// (cos of matrices = cosine of the flattened matrices; i == j terms included, as in
// the paper; each term is averaged over the batch). To encourage disagreement,
// MINIMIZE loss + w_sub*S_sub + w_pos*S_pos + w_out*S_out (= loss - w.D).
// MultiheadAttention::disagreement() gives the values and its backward() takes
// DisagreementWeights and adds their gradients.
#pragma once
#include <cstddef>

namespace attnlab::attention {

struct DisagreementWeights {
  float subspace = 0.f;
  float position = 0.f;
  float output = 0.f;
  bool any() const { return subspace != 0.f || position != 0.f || output != 0.f; }
};

struct DisagreementTerms {
  float subspace = 0.f;
  float position = 0.f;
  float output = 0.f;
  float weighted(const DisagreementWeights& w) const {
    return w.subspace * subspace + w.position * position + w.output * output;
  }
};

// H matrices of (rows, cols); head h starts at x + h * head_offset, row stride ld.
// Returns 1/H^2 sum_{i,j} cos(x_i, x_j) (norms clamped at 1e-8). If dx != nullptr,
// ADDS scale * d(value)/dx_h into dx (same layout as x).
float mean_pairwise_cosine(size_t H, size_t rows, size_t cols, const float* x, size_t head_offset,
                           size_t ld, float* dx, float scale);

// H contiguous arrays of n floats; head h at a + h * head_offset.
// Returns 1/H^2 sum_{i,j} sum_e a_i[e] a_j[e]. If da != nullptr, ADDS scale * gradient.
float mean_pairwise_product(size_t H, size_t n, const float* a, size_t head_offset, float* da,
                            float scale);

}  // namespace attnlab::attention
