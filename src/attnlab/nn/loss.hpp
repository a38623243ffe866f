// Losses. Each returns the scalar loss and (optionally) writes the gradient
// of that scalar with respect to its first argument, so the caller can start
// backward from it. PyTorch semantics (reduction='mean').
#pragma once
#include <cmath>
#include <vector>

#include "attnlab/nn/tensor.hpp"

namespace attnlab::nn {

// logits: (N,C), targets: (N) in [0,C) or == ignore_index -> mean over the
// non-ignored rows of -sum_c q_c log p_c, q = (1-eps) onehot + eps/C (as
// torch.nn.functional.cross_entropy(..., ignore_index, label_smoothing)).
// dlogits (optional): (N,C), zero on ignored rows. If every row is ignored the
// loss is 0 and the gradient is zero (torch returns NaN there).
// count (optional) receives the number of non-ignored rows.
float cross_entropy(const Tensor& logits, const std::vector<int>& targets, Tensor* dlogits,
                    int ignore_index = -100, float label_smoothing = 0.f,
                    size_t* count = nullptr);
// Raw form: logits (N,C) contiguous; dlogits may be nullptr. With a teacher (N,C) (each
// non-ignored row a distribution: entries in [0, 1] summing to 1 within 1e-3, else an error)
// and teacher_weight lam in [0, 1], the target is q = (1-lam) ((1-eps) onehot + eps/C) +
// lam teacher (token-level distillation, Hinton et al. 2015); lam = 0 or no teacher: as above.
float cross_entropy(size_t N, size_t C, const float* logits, const int* targets,
                    float* dlogits, int ignore_index = -100, float label_smoothing = 0.f,
                    size_t* count = nullptr, const float* teacher = nullptr,
                    float teacher_weight = 0.f);

// pred, target: same shape -> mean((pred - target)^2); dpred = 2 (pred - target) / n
float mse(const Tensor& pred, const Tensor& target, Tensor* dpred);

// sigmoid(x) without overflow for either sign: 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below.
inline float stable_sigmoid(float x) {
  return x >= 0.f ? 1.f / (1.f + std::exp(-x)) : std::exp(x) / (1.f + std::exp(x));
}

// logits, target (in [0,1]): same shape -> mean(max(x,0) - x y + log(1 + exp(-|x|)))
// (the stable form); dlogits = (sigmoid(x) - y) / n
float bce_with_logits(const Tensor& logits, const Tensor& target, Tensor* dlogits);

}  // namespace attnlab::nn
