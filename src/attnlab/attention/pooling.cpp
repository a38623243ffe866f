#include "attnlab/attention/pooling.hpp"

#include <cmath>

#include "attnlab/kernels/kernels.hpp"

namespace attnlab::attention {

namespace k = attnlab::kernels;

ContextPooling::ContextPooling(size_t input_dim, size_t attn_dim, Rng& rng)
    : D_(input_dim), A_(attn_dim) {
  ATTNLAB_CHECK(input_dim > 0 && attn_dim > 0, "ContextPooling: dims must be > 0, got ", input_dim,
                ", ", attn_dim);
  const float bd = 1.f / std::sqrt(float(input_dim));
  detail::init_uniform(weight, {A_, D_}, bd, rng);
  detail::init_uniform(bias, {A_}, bd, rng);
  detail::init_uniform(context, {A_}, 1.f / std::sqrt(float(A_)), rng);
}

void ContextPooling::collect(ParamList& out, const std::string& prefix) {
  out.add(prefix + "proj.weight", weight);
  out.add(prefix + "proj.bias", bias);
  out.add(prefix + "context", context);
}

PoolingResult ContextPooling::forward(const Tensor3& h, const std::vector<size_t>& lengths,
                                      Cache* cache) const {
  // h: (B,T,D) -> out: (B,D), weights: (B,T)
  ATTNLAB_CHECK(D_ > 0, "ContextPooling: not initialized");
  ATTNLAB_CHECK(h.shape(2) == D_, "ContextPooling: expected input (B,T,", D_, "), got ",
                detail::shape_of(h));
  const size_t B = h.shape(0), T = h.shape(1), D = D_, A = A_;
  ATTNLAB_CHECK(T > 0, "ContextPooling: zero-length input (T = 0), got ", detail::shape_of(h));
  ATTNLAB_CHECK(lengths.empty() || lengths.size() == B, "ContextPooling: lengths must have ", B,
                " entries, got ", lengths.size());
  detail::check_finite("ContextPooling input", h.data(), h.size());
  detail::check_param_shape("proj.weight", weight, {A, D});
  Tensor3 u = Tensor3::from_shape({B, T, A});
  detail::linear_forward(B * T, D, A, h.data(), D, weight.value.data(), bias.value.data(),
                         u.data(), A);
  k::tanh(u.size(), u.data(), u.data());
  PoolingResult r;
  r.weights = Tensor2::from_shape({B, T});
  k::gemv(false, B * T, A, 1.f, u.data(), A, context.value.data(), 0.f, r.weights.data());
  std::vector<float> mask(T);
  for (size_t b = 0; b < B; ++b) {
    const size_t L = lengths.empty() ? T : lengths[b];
    ATTNLAB_CHECK(L <= T, "ContextPooling: lengths[", b, "] = ", L, " exceeds T = ", T);
    for (size_t t = 0; t < T; ++t) mask[t] = t < L ? 0.f : kNegInf;
    k::softmax_rows(1, T, r.weights.data() + b * T, T, mask.data(), 0, r.weights.data() + b * T, T);
  }
  r.out = Tensor2::from_shape({B, D});
  for (size_t b = 0; b < B; ++b)
    k::gemv(true, T, D, 1.f, h.data() + b * T * D, D, r.weights.data() + b * T, 0.f,
            r.out.data() + b * D);
  if (cache) {
    cache->h = h;
    cache->u = std::move(u);
    cache->a = r.weights;
  }
  return r;
}

void ContextPooling::backward(const Tensor2& dout, const Cache& c, Tensor3& dh,
                              const Tensor2* dweights) {
  backward_into(dout, c, dh, dweights, context.grad.data(), weight.grad.data(), bias.grad.data());
}

void ContextPooling::backward_input(const Tensor2& dout, const Cache& c, Tensor3& dh,
                                    const Tensor2* dweights) const {
  backward_into(dout, c, dh, dweights, nullptr, nullptr, nullptr);
}

void ContextPooling::backward_into(const Tensor2& dout, const Cache& c, Tensor3& dh,
                                   const Tensor2* dweights, float* dctx, float* dW,
                                   float* db) const {
  // dout: (B,D) -> dh: (B,T,D); dctx (A), dW (A,D), db (A) accumulate unless null
  const size_t B = c.h.shape(0), T = c.h.shape(1), D = D_, A = A_;
  ATTNLAB_CHECK(dout.shape(0) == B && dout.shape(1) == D, "ContextPooling backward: expected dout (",
                B, ",", D, "), got ", detail::shape_of(dout));
  Tensor2 da = Tensor2::from_shape({B, T});
  if (dweights) {
    ATTNLAB_CHECK(dweights->shape() == c.a.shape(), "ContextPooling backward: dweights shape ",
                  detail::shape_of(*dweights), " != (", B, ",", T, ")");
    da = *dweights;
  } else {
    da.fill(0.f);
  }
  dh = Tensor3::from_shape({B, T, D});
  for (size_t b = 0; b < B; ++b) {
    // out = h^T a: da += h dout, dh = a dout^T
    k::gemv(false, T, D, 1.f, c.h.data() + b * T * D, D, dout.data() + b * D, 1.f,
            da.data() + b * T);
    for (size_t t = 0; t < T; ++t)
      k::scale(D, c.a(b, t), dout.data() + b * D, dh.data() + (b * T + t) * D);
  }
  k::softmax_rows_backward(B, T, c.a.data(), da.data(), da.data());  // da -> dscore
  // score = u . ctx
  if (dctx) k::gemv(true, B * T, A, 1.f, c.u.data(), A, da.data(), 1.f, dctx);
  Tensor3 dpre = Tensor3::from_shape({B, T, A});
  for (size_t i = 0; i < B * T; ++i)
    k::scale(A, da.data()[i], context.value.data(), dpre.data() + i * A);
  k::tanh_backward(dpre.size(), c.u.data(), dpre.data(), dpre.data());
  detail::linear_backward(B * T, D, A, c.h.data(), D, weight.value.data(), dpre.data(), A,
                          dh.data(), D, true, dW, db);
}

}  // namespace attnlab::attention
