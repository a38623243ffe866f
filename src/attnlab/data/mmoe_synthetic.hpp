// The synthetic two-task regression data of the MMoE paper (Ma et al., KDD
// 2018, section 3.2), with the task correlation p under our control:
//   u1, u2 orthogonal unit vectors in R^d;  w1 = c u1,  w2 = c (p u1 + sqrt(1-p^2) u2)
//   x ~ N(0, I_d)
//   y_k = w_k^T x + sum_{i=1..m} sin(alpha_i w_k^T x + beta_i) + eps,  eps ~ N(0, noise^2)
// The paper leaves c, m, alpha, beta and the noise open; the defaults are a
// public generator's: c = 1, m = 10, alpha_i = i, beta_i = i^2, noise 0.01.
// With the sine terms off (m = 0, noise 0), corr(y1, y2) = p exactly in expectation.
// Sine shapes (alpha_i, beta_i), shared by both tasks:
//   Index   alpha_i = i, beta_i = i^2 (the default)
//   Random  alpha_i, beta_i ~ N(0, 1), drawn per task pair from the task seed (after u1, u2),
//           so every seed brings its own smooth nonlinearity (|alpha| mostly < 2)
//   explicit lists `alpha`, `beta` (m values each) override both.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attnlab::data {

enum class SineShape { Index, Random };

struct MMoESyntheticConfig {
  size_t n = 10000;      // samples
  size_t dim = 100;      // d
  float p = 0.5f;        // task correlation (cosine of w1, w2), in [-1, 1]
  float c = 1.f;
  int m = 10;            // number of sine terms
  float noise = 0.01f;   // std of eps
  SineShape shape = SineShape::Index;
  std::vector<float> alpha, beta;  // if non-empty: m values each, used as given
  uint64_t seed = 0;       // draws the samples x, eps
  uint64_t task_seed = 0;  // draws u1, u2 (the task pair); 0 = use `seed`. Same task_seed and
                           // another seed: the same two tasks, fresh samples.
};

struct MMoESyntheticData {
  size_t n = 0, dim = 0;
  std::vector<float> x;      // (n, dim)
  std::vector<float> y;      // (n, 2): y1, y2 per sample
  std::vector<float> w1, w2; // (dim) each
  std::vector<float> alpha, beta;  // (m) each: the sine shapes used
};

// Throws attnlab::Error for n == 0, dim < 2, |p| > 1, m < 0, noise < 0, non-finite values,
// or alpha/beta lists whose length is not m.
MMoESyntheticData make_mmoe_synthetic(const MMoESyntheticConfig& cfg);

// Pearson correlation of two equally long sequences (with strides).
double pearson(const float* a, const float* b, size_t n, size_t stride_a = 1, size_t stride_b = 1);

}  // namespace attnlab::data
