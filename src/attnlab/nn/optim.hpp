// Optimizers over a ParamList with torch.optim semantics (SGD, Adam, AdamW),
// global-norm gradient clipping and learning-rate schedules. Optimizer state
// is exposed as named tensors (plus the step count) for checkpoints.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/core/param.hpp"
#include "attnlab/nn/tensor.hpp"

namespace attnlab::nn {

class Optimizer {
 public:
  Optimizer(const ParamList& params, float lr);
  virtual ~Optimizer() = default;
  // One update from the parameters' current .grad.
  virtual void step() = 0;
  void zero_grad() { params_.zero_grad(); }
  // Named state tensors ("<param>.<slot>"), allocated at construction, for
  // checkpoints; write into them to restore (and set `steps`).
  virtual std::vector<std::pair<std::string, Tensor*>> state() = 0;
  virtual const char* name() const = 0;
  const ParamList& params() const { return params_; }

  float lr;
  int64_t steps = 0;  // number of step() calls made

 protected:
  // f(i, n, w, g) for every parameter i in order: its n values w and their gradients g
  template <class F>
  void for_each_param(F&& f) {
    const auto& items = params_.items();
    for (size_t i = 0; i < items.size(); ++i) {
      Param& p = *items[i].second;
      f(i, p.size(), p.value.data(), static_cast<const float*>(p.grad.data()));
    }
  }
  ParamList params_;
};

// torch.optim.SGD: g += wd p; buf = momentum buf + (1 - dampening) g (buf = g
// on the first step); g = nesterov ? g + momentum buf : buf; p -= lr g.
class SGD : public Optimizer {
 public:
  SGD(const ParamList& params, float lr, float momentum = 0.f, float weight_decay = 0.f,
      bool nesterov = false, float dampening = 0.f);
  void step() override;
  std::vector<std::pair<std::string, Tensor*>> state() override;
  const char* name() const override { return "sgd"; }
  float momentum, weight_decay, dampening;
  bool nesterov;

 private:
  std::vector<Tensor> buf_;
};

// torch.optim.Adam (decoupled = false: weight decay added to the gradient) and
// torch.optim.AdamW (decoupled = true: p *= 1 - lr wd before the Adam update).
class Adam : public Optimizer {
 public:
  Adam(const ParamList& params, float lr = 1e-3f, float beta1 = 0.9f, float beta2 = 0.999f,
       float eps = 1e-8f, float weight_decay = 0.f, bool decoupled = false);
  void step() override;
  std::vector<std::pair<std::string, Tensor*>> state() override;
  const char* name() const override { return decoupled ? "adamw" : "adam"; }
  float beta1, beta2, eps, weight_decay;
  bool decoupled;

 private:
  std::vector<Tensor> m_, v_;
};

class AdamW : public Adam {
 public:
  AdamW(const ParamList& params, float lr_ = 1e-3f, float beta1_ = 0.9f, float beta2_ = 0.999f,
        float eps_ = 1e-8f, float weight_decay_ = 1e-2f)
      : Adam(params, lr_, beta1_, beta2_, eps_, weight_decay_, true) {}
};

// Scales every gradient by max_norm / (norm + 1e-6) when the global L2 norm of
// all gradients exceeds max_norm (torch.nn.utils.clip_grad_norm_). Returns the
// norm before clipping.
float clip_grad_norm(const ParamList& params, float max_norm);

// Linear warm-up from base_lr/warmup to base_lr over `warmup` steps, then a
// decay over the remaining steps up to `total` (cosine/linear to min_lr,
// or step: times gamma every step_size steps). step is 0-based.
struct LrSchedule {
  enum class Decay { Constant, Cosine, Linear, Step };
  float base_lr = 1e-3f;
  size_t warmup = 0;
  size_t total = 0;
  Decay decay = Decay::Constant;
  float min_lr = 0.f;
  size_t step_size = 1000;
  float gamma = 0.1f;
  float lr_at(size_t step) const;
};
LrSchedule::Decay decay_from_string(const std::string& s);  // constant|cosine|linear|step

}  // namespace attnlab::nn
