#include "attnlab/nn/loss.hpp"

#include <cmath>

#include "attnlab/kernels/kernels.hpp"

namespace attnlab::nn {

namespace k = attnlab::kernels;

// logits: (N,C), targets: (N), teacher: (N,C) or null -> scalar; dlogits: (N,C)
float cross_entropy(size_t N, size_t C, const float* logits, const int* targets, float* dlogits,
                    int ignore_index, float label_smoothing, size_t* count, const float* teacher,
                    float teacher_weight) {
  ATTNLAB_CHECK(C > 0, "cross_entropy: expected at least one class");
  ATTNLAB_CHECK(label_smoothing >= 0.f && label_smoothing <= 1.f,
                "cross_entropy: expected label_smoothing in [0, 1], got ", label_smoothing);
  ATTNLAB_CHECK(teacher_weight >= 0.f && teacher_weight <= 1.f,
                "cross_entropy: expected teacher_weight in [0, 1], got ", teacher_weight);
  const float lam = teacher ? teacher_weight : 0.f;
  size_t n = 0;
  for (size_t i = 0; i < N; ++i) {
    if (targets[i] == ignore_index) continue;
    ATTNLAB_CHECK(targets[i] >= 0 && static_cast<size_t>(targets[i]) < C,
                  "cross_entropy: expected targets in [0, ", C, ") or ignore_index ",
                  ignore_index, ", got ", targets[i], " at row ", i);
    if (lam > 0.f) {  // a teacher row must be a distribution (checked before anything is written)
      double s = 0.0;
      for (size_t c = 0; c < C; ++c) {
        const float q = teacher[i * C + c];
        ATTNLAB_CHECK(q >= 0.f && q <= 1.f, "cross_entropy: teacher probability ", q,
                      " outside [0, 1] at row ", i, ", class ", c);
        s += q;
      }
      ATTNLAB_CHECK(std::fabs(s - 1.0) < 1e-3, "cross_entropy: teacher row ", i,
                    " sums to ", s, ", expected 1");
    }
    ++n;
  }
  if (count) *count = n;
  if (dlogits) std::fill(dlogits, dlogits + N * C, 0.f);
  if (n == 0) return 0.f;
  const float eps = label_smoothing;
  const double inv_n = 1.0 / static_cast<double>(n);
  std::vector<float> lp(C);
  double total = 0.0;
  for (size_t i = 0; i < N; ++i) {
    const int y = targets[i];
    if (y == ignore_index) continue;
    const float* x = logits + i * C;
    k::log_softmax_rows(1, C, x, lp.data());
    // q = (1 - lam) ((1 - eps) onehot(y) + eps / C) + lam teacher
    const float* tq = lam > 0.f ? teacher + i * C : nullptr;
    double row = -(1.0 - lam) * (1.0 - eps) * lp[y];
    if (eps > 0.f) {
      double s = 0.0;
      for (size_t c = 0; c < C; ++c) s += lp[c];
      row -= (1.0 - lam) * eps * s / static_cast<double>(C);
    }
    if (tq)
      for (size_t c = 0; c < C; ++c) row -= double(lam) * tq[c] * lp[c];
    total += row;
    if (dlogits) {
      // d/dx = softmax - q, scaled by 1/n
      float* d = dlogits + i * C;
      const float sc = static_cast<float>(inv_n);
      const float off = (1.f - lam) * eps / static_cast<float>(C);
      for (size_t c = 0; c < C; ++c) d[c] = (std::exp(lp[c]) - off - (tq ? lam * tq[c] : 0.f)) * sc;
      d[y] -= (1.f - lam) * (1.f - eps) * sc;
    }
  }
  return static_cast<float>(total * inv_n);
}

float cross_entropy(const Tensor& logits, const std::vector<int>& targets, Tensor* dlogits,
                    int ignore_index, float label_smoothing, size_t* count) {
  check_rank(logits, 2, "cross_entropy logits", "(N,C)");
  const size_t N = logits.shape()[0], C = logits.shape()[1];
  ATTNLAB_CHECK(targets.size() == N, "cross_entropy: expected ", N, " targets (one per row of ",
                shape_str(logits), "), got ", targets.size());
  if (dlogits) *dlogits = empty({N, C});
  return cross_entropy(N, C, logits.data(), targets.data(), dlogits ? dlogits->data() : nullptr,
                       ignore_index, label_smoothing, count);
}

namespace {
// The checks of an elementwise mean loss of x (named x_name in errors) against target, and its
// gradient's tensor (when dx); returns the element count.
size_t begin_elementwise(const char* who, const char* x_name, const Tensor& x, const Tensor& target,
                         Tensor* dx) {
  ATTNLAB_CHECK(x.shape() == target.shape(), who, ": expected ", x_name,
                " and target of one shape, got ", shape_str(x), " and ", shape_str(target));
  const size_t n = x.size();
  ATTNLAB_CHECK(n > 0, who, ": expected a non-empty input");
  if (dx) *dx = empty(Shape(x.shape().begin(), x.shape().end()));
  return n;
}
}  // namespace

// pred, target: (...) -> scalar
float mse(const Tensor& pred, const Tensor& target, Tensor* dpred) {
  const size_t n = begin_elementwise("mse", "pred", pred, target, dpred);
  double s = 0.0;
  const float g = 2.f / static_cast<float>(n);
  for (size_t i = 0; i < n; ++i) {
    const float d = pred.data()[i] - target.data()[i];
    s += static_cast<double>(d) * d;
    if (dpred) dpred->data()[i] = g * d;
  }
  return static_cast<float>(s / static_cast<double>(n));
}

// logits, target: (...) -> scalar
float bce_with_logits(const Tensor& logits, const Tensor& target, Tensor* dlogits) {
  const size_t n = begin_elementwise("bce_with_logits", "logits", logits, target, dlogits);
  double s = 0.0;
  const float inv = 1.f / static_cast<float>(n);
  for (size_t i = 0; i < n; ++i) {
    const float x = logits.data()[i], y = target.data()[i];
    s += std::max(x, 0.f) - x * y + std::log1p(std::exp(-std::fabs(x)));
    if (dlogits) {
      const float sg = stable_sigmoid(x);
      dlogits->data()[i] = (sg - y) * inv;
    }
  }
  return static_cast<float>(s / static_cast<double>(n));
}

}  // namespace attnlab::nn
