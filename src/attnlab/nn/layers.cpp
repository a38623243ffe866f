#include "attnlab/nn/layers.hpp"

#include <cmath>

#include "attnlab/core/enum_names.hpp"
#include "attnlab/kernels/kernels.hpp"

namespace attnlab::nn {

namespace k = attnlab::kernels;

namespace {
Shape with_last(const Tensor& x, size_t last) {
  Shape s(x.shape().begin(), x.shape().end());
  s.back() = last;
  return s;
}
}  // namespace

// ============================================================== Linear
Linear::Linear(size_t in, size_t out, Rng& rng, bool bias_)
    : in_features(in), out_features(out), has_bias(bias_), weight({out, in}) {
  ATTNLAB_CHECK(in > 0 && out > 0, "Linear: expected positive sizes, got in=", in, " out=", out);
  const float bound = 1.f / std::sqrt(static_cast<float>(in));
  for (size_t i = 0; i < weight.size(); ++i) weight.data()[i] = rng.uniform(-bound, bound);
  if (has_bias) {
    bias = Param({out});
    for (size_t i = 0; i < out; ++i) bias.data()[i] = rng.uniform(-bound, bound);
  }
}

void Linear::collect(ParamList& out, const std::string& prefix) {
  out.add(prefix + "weight", weight);
  if (has_bias) out.add(prefix + "bias", bias);
}

void Linear::forward(size_t n, const float* x, float* y) const {
  // x: (n,in) -> y: (n,out)
  if (n == 0) return;
  if (has_bias) {
    for (size_t r = 0; r < n; ++r)
      std::copy(bias.value.data(), bias.value.data() + out_features, y + r * out_features);
  }
  k::gemm(false, true, n, out_features, in_features, 1.f, x, in_features, weight.value.data(),
          in_features, has_bias ? 1.f : 0.f, y, out_features);
}
// dy: (n,out) -> dx: (n,in); dW += dy^T x, db += colsum(dy)
void Linear::backward(size_t n, const float* x, const float* dy, float* dx) {
  if (n == 0) return;
  k::gemm(true, false, out_features, in_features, n, 1.f, dy, out_features, x, in_features, 1.f,
          weight.grad.data(), in_features);
  if (has_bias)
    for (size_t r = 0; r < n; ++r) k::add(out_features, dy + r * out_features, bias.grad.data());
  if (dx)
    k::gemm(false, false, n, in_features, out_features, 1.f, dy, out_features,
            weight.value.data(), in_features, 0.f, dx, in_features);
}

void Linear::backward_input(size_t n, const float* dy, float* dx) const {
  // dy (n,out) -> dx (n,in) = dy W
  if (n == 0) return;
  k::gemm(false, false, n, in_features, out_features, 1.f, dy, out_features, weight.value.data(),
          in_features, 0.f, dx, in_features);
}

Tensor Linear::forward(const Tensor& x) const {
  // x: (..., in) -> y: (..., out)
  ATTNLAB_CHECK(x.dimension() >= 1 && x.shape().back() == in_features,
                "Linear: expected input (..., ", in_features, "), got ", shape_str(x));
  Tensor y = empty(with_last(x, out_features));
  forward(x.size() / in_features, x.data(), y.data());
  return y;
}
Tensor Linear::backward(const Tensor& x, const Tensor& dy) {
  ATTNLAB_CHECK(dy.dimension() == x.dimension() && dy.shape().back() == out_features &&
                    dy.size() / out_features == x.size() / in_features,
                "Linear backward: expected dy ", shape_str(with_last(x, out_features)), ", got ",
                shape_str(dy));
  Tensor dx = empty(Shape(x.shape().begin(), x.shape().end()));
  backward(x.size() / in_features, x.data(), dy.data(), dx.data());
  return dx;
}

// ============================================================== Embedding
Embedding::Embedding(size_t num_, size_t dim_, Rng& rng, int padding_idx_)
    : num(num_), dim(dim_), padding_idx(padding_idx_), weight({num_, dim_}) {
  ATTNLAB_CHECK(num > 0 && dim > 0, "Embedding: expected positive sizes, got num=", num,
                " dim=", dim);
  ATTNLAB_CHECK(padding_idx < static_cast<int>(num), "Embedding: padding_idx ", padding_idx,
                " must be < num ", num, " (or -1 for none)");
  for (size_t i = 0; i < weight.size(); ++i) weight.data()[i] = rng.normal(0.f, 1.f);
  if (padding_idx >= 0)
    std::fill(weight.data() + padding_idx * dim, weight.data() + (padding_idx + 1) * dim, 0.f);
}

void Embedding::collect(ParamList& out, const std::string& prefix) {
  out.add(prefix + "weight", weight);
}

void Embedding::forward(size_t n, const int* ids, float* out) const {
  // ids: (n) -> out: (n,dim)
  const float* w = weight.value.data();
  for (size_t i = 0; i < n; ++i) {
    const int id = ids[i];
    ATTNLAB_CHECK(id >= 0 && static_cast<size_t>(id) < num, "Embedding: expected ids in [0, ",
                  num, "), got ", id, " at position ", i);
    std::copy(w + id * dim, w + (id + 1) * dim, out + i * dim);
  }
}
// dy: (n,dim); dW[id] += dy[i] except the padding row
void Embedding::backward(size_t n, const int* ids, const float* dy) {
  float* g = weight.grad.data();
  for (size_t i = 0; i < n; ++i) {
    const int id = ids[i];
    if (id == padding_idx) continue;
    ATTNLAB_CHECK(id >= 0 && static_cast<size_t>(id) < num, "Embedding: expected ids in [0, ",
                  num, "), got ", id);
    k::add(dim, dy + i * dim, g + id * dim);
  }
}

Tensor Embedding::forward(const std::vector<int>& ids, const Shape& shape) const {
  // ids: shape (...) -> out: (..., dim)
  size_t n = 1;
  for (size_t s : shape) n *= s;
  ATTNLAB_CHECK(n == ids.size(), "Embedding: ids shape ", shape_str(shape), " holds ", n,
                " values, got ", ids.size(), " ids");
  Shape os = shape;
  os.push_back(dim);
  Tensor out = empty(os);
  forward(n, ids.data(), out.data());
  return out;
}
void Embedding::backward(const std::vector<int>& ids, const Tensor& dy) {
  ATTNLAB_CHECK(dy.size() == ids.size() * dim, "Embedding backward: expected dy with ",
                ids.size(), "x", dim, " values, got ", shape_str(dy));
  backward(ids.size(), ids.data(), dy.data());
}

// ============================================================== LayerNorm
LayerNorm::LayerNorm(size_t dim_, float eps_) : dim(dim_), eps(eps_), weight({dim_}), bias({dim_}) {
  ATTNLAB_CHECK(dim > 0, "LayerNorm: expected dim > 0");
  weight.value.fill(1.f);
}
void LayerNorm::collect(ParamList& out, const std::string& prefix) {
  out.add(prefix + "weight", weight);
  out.add(prefix + "bias", bias);
}

Tensor LayerNorm::forward(const Tensor& x, Cache* cache) const {
  // x: (..., dim) -> y: (..., dim)
  ATTNLAB_CHECK(x.dimension() >= 1 && x.shape().back() == dim,
                "LayerNorm: expected input (..., ", dim, "), got ", shape_str(x));
  const size_t rows = x.size() / dim;
  Tensor y = empty(Shape(x.shape().begin(), x.shape().end()));
  if (cache) {
    cache->mean.resize(rows);
    cache->rstd.resize(rows);
  }
  k::layernorm(rows, dim, x.data(), weight.value.data(), bias.value.data(), eps, y.data(),
               cache ? cache->mean.data() : nullptr, cache ? cache->rstd.data() : nullptr);
  return y;
}
Tensor LayerNorm::backward(const Tensor& x, const Tensor& dy, const Cache& cache) {
  const size_t rows = x.size() / dim;
  ATTNLAB_CHECK(dy.size() == x.size() && cache.mean.size() == rows,
                "LayerNorm backward: expected dy ", shape_str(x), " and a forward cache of ",
                rows, " rows, got ", shape_str(dy), " and ", cache.mean.size());
  Tensor dx = empty(Shape(x.shape().begin(), x.shape().end()));
  k::layernorm_backward(rows, dim, dy.data(), x.data(), weight.value.data(), cache.mean.data(),
                        cache.rstd.data(), dx.data(), weight.grad.data(), bias.grad.data());
  return dx;
}

// ============================================================== Dropout
Dropout::Dropout(float p_) : p(p_) {
  ATTNLAB_CHECK(p >= 0.f && p < 1.f, "Dropout: expected p in [0, 1), got ", p);
}
Tensor Dropout::forward(const Tensor& x, Rng& rng, bool training, Tensor* mask) const {
  // x: any -> y: same
  if (!training || p == 0.f) {
    if (mask) *mask = Tensor();
    return x;
  }
  Tensor m = empty(Shape(x.shape().begin(), x.shape().end()));
  const float keep = 1.f / (1.f - p);
  for (size_t i = 0; i < m.size(); ++i) m.data()[i] = rng.uniform() < p ? 0.f : keep;
  Tensor y = empty(Shape(x.shape().begin(), x.shape().end()));
  k::mul(x.size(), x.data(), m.data(), y.data());
  if (mask) *mask = std::move(m);
  return y;
}
Tensor Dropout::backward(const Tensor& dy, const Tensor& mask) const {
  if (is_empty(mask)) return dy;
  ATTNLAB_CHECK(mask.size() == dy.size(), "Dropout backward: mask ", shape_str(mask),
                " does not match dy ", shape_str(dy));
  Tensor dx = empty(Shape(dy.shape().begin(), dy.shape().end()));
  k::mul(dy.size(), dy.data(), mask.data(), dx.data());
  return dx;
}

// ============================================================== activations
namespace {
constexpr EnumName<Act> kActs[] = {{Act::ReLU, "relu"},         {Act::Tanh, "tanh"},
                                   {Act::Sigmoid, "sigmoid"},   {Act::GELU, "gelu"},
                                   {Act::Identity, "identity"}, {Act::Identity, "none"}};
}  // namespace

Act act_from_string(const std::string& name) {
  return enum_parse(kActs, name, "activation", "one of relu, tanh, sigmoid, gelu, identity");
}
const char* act_name(Act a) { return enum_name(kActs, a, "identity"); }

void Activation::forward(Act a, size_t n, const float* x, float* y) {
  // x: (n) -> y: (n)
  switch (a) {
    case Act::ReLU: k::relu(n, x, y); break;
    case Act::Tanh: k::tanh(n, x, y); break;
    case Act::Sigmoid: k::sigmoid(n, x, y); break;
    case Act::GELU: k::gelu(n, x, y); break;
    case Act::Identity:
      if (y != x) std::copy(x, x + n, y);
      break;
  }
}
void Activation::backward(Act a, size_t n, const float* x, const float* y, const float* dy,
                          float* dx) {
  switch (a) {
    case Act::ReLU: k::relu_backward(n, x, dy, dx); break;
    case Act::Tanh: k::tanh_backward(n, y, dy, dx); break;
    case Act::Sigmoid: k::sigmoid_backward(n, y, dy, dx); break;
    case Act::GELU: k::gelu_backward(n, x, dy, dx); break;
    case Act::Identity:
      if (dx != dy) std::copy(dy, dy + n, dx);
      break;
  }
}
Tensor Activation::forward(Act a, const Tensor& x) {
  // x: any -> y: same
  Tensor y = empty(Shape(x.shape().begin(), x.shape().end()));
  forward(a, x.size(), x.data(), y.data());
  return y;
}
Tensor Activation::backward(Act a, const Tensor& x, const Tensor& y, const Tensor& dy) {
  ATTNLAB_CHECK(x.size() == dy.size() && y.size() == dy.size(),
                "Activation backward: expected x, y, dy of one shape, got ", shape_str(x), ", ",
                shape_str(y), ", ", shape_str(dy));
  Tensor dx = empty(Shape(dy.shape().begin(), dy.shape().end()));
  backward(a, dy.size(), x.data(), y.data(), dy.data(), dx.data());
  return dx;
}

// ============================================================== MLP
MLP::MLP(const std::vector<size_t>& dims, Act act_, Rng& rng, float dropout)
    : act(act_), drop(dropout) {
  ATTNLAB_CHECK(dims.size() >= 2, "MLP: expected at least {in, out} dims, got ", dims.size());
  for (size_t i = 0; i + 1 < dims.size(); ++i) layers.emplace_back(dims[i], dims[i + 1], rng);
}
void MLP::collect(ParamList& out, const std::string& prefix) {
  // torch nn.Sequential numbering: Linear, act, [Dropout], Linear, ...
  const size_t stride = drop.p > 0.f ? 3 : 2;
  for (size_t i = 0; i < layers.size(); ++i)
    layers[i].collect(out, prefix + std::to_string(i * stride) + ".");
}

Tensor MLP::forward(const Tensor& x, Cache* cache, Rng* rng, bool training) const {
  // x: (..., in) -> y: (..., out)
  if (cache) *cache = Cache();
  Tensor h = x;
  for (size_t i = 0; i < layers.size(); ++i) {
    if (cache) cache->inputs.push_back(h);
    Tensor z = layers[i].forward(h);
    if (i + 1 == layers.size()) return z;
    Tensor a = Activation::forward(act, z);
    if (cache) {
      cache->pre.push_back(std::move(z));
      cache->post.push_back(a);
    }
    if (training && drop.p > 0.f) {
      ATTNLAB_CHECK(rng != nullptr, "MLP: training with dropout needs an Rng");
      Tensor m;
      a = drop.forward(a, *rng, true, &m);
      if (cache) cache->masks.push_back(std::move(m));
    } else if (cache) {
      cache->masks.emplace_back();
    }
    h = std::move(a);
  }
  return h;
}
Tensor MLP::backward(const Tensor& dy, const Cache& cache) {
  ATTNLAB_CHECK(cache.inputs.size() == layers.size(),
                "MLP backward: the cache does not come from a forward with a cache");
  Tensor d = dy;
  for (size_t i = layers.size(); i-- > 0;) {
    d = layers[i].backward(cache.inputs[i], d);
    if (i > 0) {
      d = drop.backward(d, cache.masks[i - 1]);
      d = Activation::backward(act, cache.pre[i - 1], cache.post[i - 1], d);
    }
  }
  return d;
}

}  // namespace attnlab::nn
