#include "attnlab/eval/head_similarity.hpp"

#include <cmath>
#include <vector>

#include "attnlab/core/error.hpp"

namespace attnlab::eval {

double head_pair_cosine(size_t H, size_t n, const float* x) {
  ATTNLAB_CHECK(H >= 2, "head similarity needs at least 2 heads (got ", H, ")");
  ATTNLAB_CHECK(n > 0 && x != nullptr, "head similarity: empty head arrays");
  std::vector<double> norm(H);
  for (size_t h = 0; h < H; ++h) {
    double s = 0;
    for (size_t e = 0; e < n; ++e) s += double(x[h * n + e]) * x[h * n + e];
    norm[h] = std::sqrt(s);
  }
  double total = 0;
  for (size_t i = 0; i < H; ++i)
    for (size_t j = i + 1; j < H; ++j) {
      if (norm[i] < 1e-12 || norm[j] < 1e-12) continue;
      double d = 0;
      for (size_t e = 0; e < n; ++e) d += double(x[i * n + e]) * x[j * n + e];
      total += d / (norm[i] * norm[j]);
    }
  return total / (double(H) * double(H - 1) / 2.0);
}

double distinct_from_all_pairs(size_t H, double s) {
  ATTNLAB_CHECK(H >= 2, "head similarity needs at least 2 heads (got ", H, ")");
  return (double(H) * s - 1.0) / double(H - 1);
}

}  // namespace attnlab::eval
