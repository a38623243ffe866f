// Feed-forward layers: Linear, Embedding, LayerNorm, Dropout, activations, MLP.
//
// Conventions (README, "Architecture"): row-major float tensors; parameters are
// attnlab::Param registered by PyTorch-compatible names (so a torch
// state_dict maps 1:1); forward and backward sit side by side; backward
// ACCUMULATES parameter gradients into Param::grad and returns input grads.
// Any leading dimensions are allowed where a layer acts on the last axis.
#pragma once
#include <string>
#include <vector>

#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/nn/tensor.hpp"

namespace attnlab::nn {

// y = x W^T + b; weight (out,in), bias (out) as torch.nn.Linear.
class Linear {
 public:
  Linear() = default;
  // torch init: weight and bias ~ U(-1/sqrt(in), 1/sqrt(in))
  Linear(size_t in, size_t out, Rng& rng, bool bias = true);
  static uint64_t param_count(size_t in, size_t out, bool bias = true) {
    return uint64_t(in) * out + (bias ? out : 0);
  }
  void collect(ParamList& out, const std::string& prefix);

  // x: (..., in) -> y: (..., out)
  Tensor forward(const Tensor& x) const;
  // dy: (..., out), x: the forward input -> dx: (..., in); accumulates dW, db
  Tensor backward(const Tensor& x, const Tensor& dy);

  // Raw forms for hot paths: x (n,in) -> y (n,out); backward overwrites dx
  // (n,in) unless dx == nullptr, and accumulates dW, db.
  void forward(size_t n, const float* x, float* y) const;
  void backward(size_t n, const float* x, const float* dy, float* dx);
  // backward() without the parameter grads: dy (n,out) -> dx (n,in) = dy W only
  void backward_input(size_t n, const float* dy, float* dx) const;

  size_t in_features = 0, out_features = 0;
  bool has_bias = true;
  Param weight, bias;
};

// Row lookup; weight (num, dim). padding_idx (>= 0) gets a zero row at init
// and never receives a gradient; its output is the stored row (as torch).
class Embedding {
 public:
  Embedding() = default;
  // torch init: weight ~ N(0, 1), padding row zeroed
  Embedding(size_t num, size_t dim, Rng& rng, int padding_idx = -1);
  static uint64_t param_count(size_t num, size_t dim) { return uint64_t(num) * dim; }
  void collect(ParamList& out, const std::string& prefix);

  // ids: n indices in [0, num) (any layout, e.g. (B,T) flattened) -> out: (n, dim)
  void forward(size_t n, const int* ids, float* out) const;
  // ids: (n), dy: (n, dim); accumulates into weight.grad except the padding row
  void backward(size_t n, const int* ids, const float* dy);
  // ids with shape `shape` -> (shape..., dim)
  Tensor forward(const std::vector<int>& ids, const Shape& shape) const;
  void backward(const std::vector<int>& ids, const Tensor& dy);

  size_t num = 0, dim = 0;
  int padding_idx = -1;
  Param weight;
};

// y = (x - mean) / sqrt(var + eps) * weight + bias over the last axis.
class LayerNorm {
 public:
  struct Cache {
    std::vector<float> mean, rstd;
  };
  LayerNorm() = default;
  explicit LayerNorm(size_t dim, float eps = 1e-5f);
  void collect(ParamList& out, const std::string& prefix);

  // x: (..., dim) -> y: (..., dim); cache (optional) keeps mean/rstd for backward
  Tensor forward(const Tensor& x, Cache* cache = nullptr) const;
  // dy: (..., dim), x: forward input -> dx; accumulates dweight, dbias
  Tensor backward(const Tensor& x, const Tensor& dy, const Cache& cache);

  size_t dim = 0;
  float eps = 1e-5f;
  Param weight, bias;
};

// Inverted dropout: in training, zero each value with probability p and scale
// the rest by 1/(1-p); identity in eval (or p == 0). Draws from the caller's Rng.
class Dropout {
 public:
  explicit Dropout(float p = 0.f);
  // x: any -> y: same; mask (optional, filled in training) holds 0 or 1/(1-p)
  Tensor forward(const Tensor& x, Rng& rng, bool training, Tensor* mask) const;
  // dy, mask from forward -> dx (dy unchanged when the mask is empty: eval)
  Tensor backward(const Tensor& dy, const Tensor& mask) const;
  float p = 0.f;
};

enum class Act { Identity, ReLU, Tanh, Sigmoid, GELU };
Act act_from_string(const std::string& name);  // "relu", "tanh", "sigmoid", "gelu", "identity"
const char* act_name(Act a);

// Elementwise activations via kernels. x: any -> y: same.
struct Activation {
  // y = f(x) (y may be x)
  static void forward(Act a, size_t n, const float* x, float* y);
  // dx = dy * f'(x); needs the forward input x and output y (dx may alias dy)
  static void backward(Act a, size_t n, const float* x, const float* y, const float* dy,
                       float* dx);
  static Tensor forward(Act a, const Tensor& x);
  static Tensor backward(Act a, const Tensor& x, const Tensor& y, const Tensor& dy);
};

// Linear -> act -> [dropout] -> Linear ... -> Linear (no activation after the
// last). Names follow torch nn.Sequential indices ("0.weight", "2.weight", ...).
class MLP {
 public:
  struct Cache {
    std::vector<Tensor> inputs;  // input of each Linear
    std::vector<Tensor> pre;     // output of each hidden Linear (before act)
    std::vector<Tensor> post;    // after act
    std::vector<Tensor> masks;   // dropout masks
  };
  MLP() = default;
  // dims = {in, hidden..., out}
  MLP(const std::vector<size_t>& dims, Act act, Rng& rng, float dropout = 0.f);
  void collect(ParamList& out, const std::string& prefix);

  // x: (..., dims.front()) -> y: (..., dims.back()); rng used only if training with dropout
  Tensor forward(const Tensor& x, Cache* cache = nullptr, Rng* rng = nullptr,
                 bool training = false) const;
  // dy: (..., dims.back()) -> dx: (..., dims.front())
  Tensor backward(const Tensor& dy, const Cache& cache);

  std::vector<Linear> layers;
  Act act = Act::ReLU;
  Dropout drop;
};

}  // namespace attnlab::nn
