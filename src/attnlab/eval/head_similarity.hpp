// How alike the heads of one multi-head attention are (the head-diversity measure of
// the disagreement experiment; Li et al. 2018 regularize these quantities).
//
// head_pair_cosine: H arrays of n floats (head h at x + h * n, e.g. its flattened
// (rows, cols) attention map or its (rows, Dh) output); returns the mean over the
// H(H-1)/2 pairs of DISTINCT heads of cos(x_i, x_j): 1 = the same direction, 0 =
// orthogonal (for attention maps: no position attended by both). A head whose norm is
// below 1e-12 counts as cosine 0 with every other head. H < 2 is an error.
//
// distinct_from_all_pairs: the similarities the training penalties compute average
// cos over all H^2 ordered pairs including i == j (each 1); this converts such a mean
// to the mean over distinct pairs: (H * s - 1) / (H - 1).
#pragma once
#include <cstddef>

namespace attnlab::eval {

double head_pair_cosine(size_t H, size_t n, const float* x);
double distinct_from_all_pairs(size_t H, double all_pairs_mean);

// A running mean of head similarities, one per attention (encoder self, decoder self,
// cross), each over layers and examples.
struct MeanAccumulator {
  double sum = 0;
  size_t count = 0;
  void add(double v) { sum += v; ++count; }
  double mean() const { return count ? sum / double(count) : 0.0; }
};

}  // namespace attnlab::eval
