#include "attnlab/nn/optim.hpp"

#include <cmath>

#include "attnlab/kernels/kernels.hpp"

namespace attnlab::nn {

namespace k = attnlab::kernels;

Optimizer::Optimizer(const ParamList& params, float lr_) : lr(lr_), params_(params) {
  ATTNLAB_CHECK(lr_ >= 0.f && std::isfinite(lr_), "optimizer: expected a finite lr >= 0, got ",
                lr_);
}

namespace {
std::vector<Tensor> zeros_like_params(const ParamList& ps) {
  std::vector<Tensor> out;
  for (auto& it : ps.items()) out.push_back(zeros(Shape(it.second->value.shape().begin(),
                                                        it.second->value.shape().end())));
  return out;
}
}  // namespace

// ============================================================== SGD
SGD::SGD(const ParamList& params, float lr_, float momentum_, float weight_decay_,
         bool nesterov_, float dampening_)
    : Optimizer(params, lr_),
      momentum(momentum_),
      weight_decay(weight_decay_),
      dampening(dampening_),
      nesterov(nesterov_) {
  ATTNLAB_CHECK(momentum >= 0.f, "SGD: expected momentum >= 0, got ", momentum);
  ATTNLAB_CHECK(!nesterov || (momentum > 0.f && dampening == 0.f),
                "SGD: nesterov needs momentum > 0 and dampening 0");
  if (momentum > 0.f) buf_ = zeros_like_params(params_);
}

void SGD::step() {
  for_each_param([&](size_t pi, size_t n, float* w, const float* gr) {
    float* b = momentum > 0.f ? buf_[pi].data() : nullptr;
    for (size_t i = 0; i < n; ++i) {
      float g = gr[i] + weight_decay * w[i];
      if (b) {
        b[i] = steps == 0 ? g : momentum * b[i] + (1.f - dampening) * g;
        g = nesterov ? g + momentum * b[i] : b[i];
      }
      w[i] -= lr * g;
    }
  });
  ++steps;
}

std::vector<std::pair<std::string, Tensor*>> SGD::state() {
  std::vector<std::pair<std::string, Tensor*>> out;
  if (momentum > 0.f)
    for (size_t i = 0; i < buf_.size(); ++i)
      out.emplace_back(params_.items()[i].first + ".momentum_buffer", &buf_[i]);
  return out;
}

// ============================================================== Adam / AdamW
Adam::Adam(const ParamList& params, float lr_, float beta1_, float beta2_, float eps_,
           float weight_decay_, bool decoupled_)
    : Optimizer(params, lr_),
      beta1(beta1_),
      beta2(beta2_),
      eps(eps_),
      weight_decay(weight_decay_),
      decoupled(decoupled_) {
  ATTNLAB_CHECK(beta1 >= 0.f && beta1 < 1.f && beta2 >= 0.f && beta2 < 1.f,
                "Adam: expected betas in [0, 1), got ", beta1, ", ", beta2);
  m_ = zeros_like_params(params_);
  v_ = zeros_like_params(params_);
}

void Adam::step() {
  ++steps;
  const double t = static_cast<double>(steps);
  const float bc1 = static_cast<float>(1.0 - std::pow(static_cast<double>(beta1), t));
  const float bc2 = static_cast<float>(1.0 - std::pow(static_cast<double>(beta2), t));
  const float step_size = lr / bc1;
  const float bc2_sqrt = std::sqrt(bc2);
  for_each_param([&](size_t pi, size_t n, float* w, const float* gr) {
    float* m = m_[pi].data();
    float* v = v_[pi].data();
    if (decoupled && weight_decay != 0.f) k::scale(n, 1.f - lr * weight_decay, w, w);
    for (size_t i = 0; i < n; ++i) {
      const float g = decoupled ? gr[i] : gr[i] + weight_decay * w[i];
      m[i] = beta1 * m[i] + (1.f - beta1) * g;
      v[i] = beta2 * v[i] + (1.f - beta2) * g * g;
      const float denom = std::sqrt(v[i]) / bc2_sqrt + eps;
      w[i] -= step_size * m[i] / denom;
    }
  });
}

std::vector<std::pair<std::string, Tensor*>> Adam::state() {
  std::vector<std::pair<std::string, Tensor*>> out;
  for (size_t i = 0; i < m_.size(); ++i) {
    out.emplace_back(params_.items()[i].first + ".exp_avg", &m_[i]);
    out.emplace_back(params_.items()[i].first + ".exp_avg_sq", &v_[i]);
  }
  return out;
}

// ============================================================== clipping
float clip_grad_norm(const ParamList& params, float max_norm) {
  double ss = 0.0;
  for (auto& it : params.items()) {
    const float* g = it.second->grad.data();
    for (size_t i = 0; i < it.second->size(); ++i) ss += static_cast<double>(g[i]) * g[i];
  }
  const float norm = static_cast<float>(std::sqrt(ss));
  const float coef = max_norm / (norm + 1e-6f);
  if (coef < 1.f)
    for (auto& it : params.items())
      k::scale(it.second->size(), coef, it.second->grad.data(), it.second->grad.data());
  return norm;
}

// ============================================================== schedules
float LrSchedule::lr_at(size_t step) const {
  if (warmup > 0 && step < warmup)
    return base_lr * static_cast<float>(step + 1) / static_cast<float>(warmup);
  const size_t s = step - warmup;
  switch (decay) {
    case Decay::Constant: return base_lr;
    case Decay::Step:
      return base_lr * std::pow(gamma, static_cast<float>(s / (step_size ? step_size : 1)));
    case Decay::Cosine:
    case Decay::Linear: {
      const size_t span = total > warmup ? total - warmup : 1;
      const float p = std::min(1.f, static_cast<float>(s) / static_cast<float>(span));
      const float f = decay == Decay::Cosine ? 0.5f * (1.f + std::cos(3.14159265358979f * p))
                                             : 1.f - p;
      return min_lr + (base_lr - min_lr) * f;
    }
  }
  return base_lr;
}

LrSchedule::Decay decay_from_string(const std::string& s) {
  if (s == "constant" || s == "none") return LrSchedule::Decay::Constant;
  if (s == "cosine") return LrSchedule::Decay::Cosine;
  if (s == "linear") return LrSchedule::Decay::Linear;
  if (s == "step") return LrSchedule::Decay::Step;
  throw Error("unknown lr schedule '" + s + "': expected constant, cosine, linear or step");
}

}  // namespace attnlab::nn
