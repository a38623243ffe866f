#include "attnlab/attention/disagreement.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "attnlab/kernels/kernels.hpp"

namespace attnlab::attention {

namespace k = attnlab::kernels;

float mean_pairwise_cosine(size_t H, size_t rows, size_t cols, const float* x, size_t head_offset,
                           size_t ld, float* dx, float scale) {
  // With u_h = x_h / |x_h| and U = sum_h u_h:  value = |U|^2 / H^2,
  // d value / d x_h = 2/H^2 * (U - (u_h . U) u_h) / |x_h|.
  if (H == 0 || rows * cols == 0) return 0.f;
  constexpr float eps = 1e-8f;
  std::vector<float> U(rows * cols, 0.f), n(H);
  for (size_t h = 0; h < H; ++h) {
    const float* xh = x + h * head_offset;
    double ss = 0;
    for (size_t r = 0; r < rows; ++r) ss += k::dot(cols, xh + r * ld, xh + r * ld);
    n[h] = std::max(float(std::sqrt(ss)), eps);
    for (size_t r = 0; r < rows; ++r) k::axpy(cols, 1.f / n[h], xh + r * ld, U.data() + r * cols);
  }
  const float val = k::dot(U.size(), U.data(), U.data()) / float(H * H);
  if (dx) {
    const float c = 2.f * scale / float(H * H);
    for (size_t h = 0; h < H; ++h) {
      const float* xh = x + h * head_offset;
      float* dh = dx + h * head_offset;
      float uU = 0.f;
      for (size_t r = 0; r < rows; ++r) uU += k::dot(cols, xh + r * ld, U.data() + r * cols);
      uU /= n[h];
      const bool clamped = !(n[h] > eps);
      for (size_t r = 0; r < rows; ++r) {
        k::axpy(cols, c / n[h], U.data() + r * cols, dh + r * ld);
        if (!clamped) k::axpy(cols, -c * uU / (n[h] * n[h]), xh + r * ld, dh + r * ld);
      }
    }
  }
  return val;
}

float mean_pairwise_product(size_t H, size_t n, const float* a, size_t head_offset, float* da,
                            float scale) {
  // value = |sum_h a_h|^2 / H^2, gradient 2/H^2 sum_h a_h for every head.
  if (H == 0 || n == 0) return 0.f;
  std::vector<float> sum(n, 0.f);
  for (size_t h = 0; h < H; ++h) k::add(n, a + h * head_offset, sum.data());
  const float val = k::dot(n, sum.data(), sum.data()) / float(H * H);
  if (da)
    for (size_t h = 0; h < H; ++h)
      k::axpy(n, 2.f * scale / float(H * H), sum.data(), da + h * head_offset);
  return val;
}

}  // namespace attnlab::attention
