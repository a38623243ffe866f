#include "attnlab/attention/din.hpp"

#include <cmath>

#include "attnlab/kernels/kernels.hpp"

namespace attnlab::attention {

namespace k = attnlab::kernels;

ActivationUnit::ActivationUnit(size_t dim, size_t hidden, Rng& rng, bool normalize)
    : D_(dim), H_(hidden), normalize_(normalize) {
  ATTNLAB_CHECK(dim > 0 && hidden > 0, "ActivationUnit: dim and hidden must be > 0, got ", dim,
                ", ", hidden);
  const float b1 = 1.f / std::sqrt(float(4 * dim)), b2 = 1.f / std::sqrt(float(hidden));
  detail::init_uniform(fc1_weight, {H_, 4 * D_}, b1, rng);
  detail::init_uniform(fc1_bias, {H_}, b1, rng);
  alpha = Param({H_});
  alpha.value.fill(0.25f);  // PyTorch's nn.PReLU default slope
  detail::init_uniform(fc2_weight, {1, H_}, b2, rng);
  detail::init_uniform(fc2_bias, {1}, b2, rng);
}

void ActivationUnit::collect(ParamList& out, const std::string& prefix) {
  out.add(prefix + "fc1.weight", fc1_weight);
  out.add(prefix + "fc1.bias", fc1_bias);
  out.add(prefix + "prelu.alpha", alpha);
  out.add(prefix + "fc2.weight", fc2_weight);
  out.add(prefix + "fc2.bias", fc2_bias);
}

// ---------------------------------------------------------------- forward
ActivationUnitResult ActivationUnit::forward(const Tensor3& e, const Tensor2& v,
                                             const std::vector<size_t>& lengths,
                                             Cache* cache) const {
  // e: (B,T,D), v: (B,D), lengths (B) -> out: (B,D), weights: (B,T)
  ATTNLAB_CHECK(D_ > 0, "ActivationUnit: not initialized");
  ATTNLAB_CHECK(e.shape(2) == D_, "ActivationUnit: expected behaviours (B,T,", D_, "), got ",
                detail::shape_of(e));
  const size_t B = e.shape(0), T = e.shape(1), D = D_, H = H_, F = 4 * D_;
  ATTNLAB_CHECK(T > 0, "ActivationUnit: zero-length behaviour sequence (T = 0), got ",
                detail::shape_of(e));
  ATTNLAB_CHECK(v.shape(0) == B && v.shape(1) == D, "ActivationUnit: expected candidate (", B,
                ",", D, ") for behaviours ", detail::shape_of(e), ", got ", detail::shape_of(v));
  std::vector<size_t> len = detail::valid_lengths("ActivationUnit", lengths, B, T, "T");
  detail::check_finite("ActivationUnit behaviours", e.data(), e.size());
  detail::check_finite("ActivationUnit candidate", v.data(), v.size());
  detail::check_param_shape("fc1.weight", fc1_weight, {H, F});
  detail::check_param_shape("fc2.weight", fc2_weight, {1, H});

  const size_t BT = B * T;
  std::vector<float> z(BT * F), pre(BT * H), act(BT * H);
  for (size_t b = 0; b < B; ++b) {
    const float* vb = v.data() + b * D;
    for (size_t t = 0; t < T; ++t) {
      const float* et = e.data() + (b * T + t) * D;
      float* zr = z.data() + (b * T + t) * F;
      for (size_t d = 0; d < D; ++d) {
        zr[d] = et[d];
        zr[D + d] = vb[d];
        zr[2 * D + d] = et[d] - vb[d];
      }
      k::mul(D, et, vb, zr + 3 * D);
    }
  }
  detail::linear_forward(BT, F, H, z.data(), F, fc1_weight.value.data(), fc1_bias.value.data(),
                         pre.data(), H);
  const float* al = alpha.value.data();
  for (size_t r = 0; r < BT; ++r)
    for (size_t h = 0; h < H; ++h) {
      const float x = pre[r * H + h];
      act[r * H + h] = x > 0.f ? x : al[h] * x;
    }
  ActivationUnitResult res;
  res.weights = Tensor2::from_shape({B, T});
  float* w = res.weights.data();
  k::gemv(false, BT, H, 1.f, act.data(), H, fc2_weight.value.data(), 0.f, w);
  const float b2 = fc2_bias.value(0);
  std::vector<float> mask(T);
  for (size_t b = 0; b < B; ++b) {
    float* wb = w + b * T;
    for (size_t t = 0; t < T; ++t) wb[t] += b2;
    if (normalize_) {
      for (size_t t = 0; t < T; ++t) mask[t] = t < len[b] ? 0.f : kNegInf;
      k::softmax_rows(1, T, wb, T, mask.data(), 0, wb, T);
    } else {
      for (size_t t = len[b]; t < T; ++t) wb[t] = 0.f;
    }
  }
  res.out = Tensor2::from_shape({B, D});
  for (size_t b = 0; b < B; ++b)
    k::gemv(true, T, D, 1.f, e.data() + b * T * D, D, w + b * T, 0.f, res.out.data() + b * D);
  if (cache) {
    cache->e = e;
    cache->v = v;
    cache->len = std::move(len);
    cache->z = std::move(z);
    cache->pre = std::move(pre);
    cache->act = std::move(act);
    cache->w = res.weights;
  }
  return res;
}

// ---------------------------------------------------------------- backward
void ActivationUnit::backward(const Tensor2& dout, const Cache& c, Tensor3& de, Tensor2& dv,
                              const Tensor2* dweights) {
  // dout: (B,D), dweights: (B,T) -> de: (B,T,D), dv: (B,D)
  const size_t B = c.e.shape(0), T = c.e.shape(1), D = D_, H = H_, F = 4 * D_, BT = B * T;
  ATTNLAB_CHECK(dout.shape(0) == B && dout.shape(1) == D, "ActivationUnit backward: expected dout (",
                B, ",", D, "), got ", detail::shape_of(dout));
  ATTNLAB_CHECK(!dweights || (dweights->shape(0) == B && dweights->shape(1) == T),
                "ActivationUnit backward: expected dweights (", B, ",", T, "), got ",
                dweights ? detail::shape_of(*dweights) : std::string());
  de = Tensor3::from_shape({B, T, D});
  dv = Tensor2::from_shape({B, D});
  dv.fill(0.f);
  // out = sum_t w_t e_t: dw_t = dout . e_t, de_t = w_t dout
  std::vector<float> dscore(BT, 0.f);
  for (size_t b = 0; b < B; ++b) {
    const float* db = dout.data() + b * D;
    for (size_t t = 0; t < T; ++t) {
      const size_t r = b * T + t;
      k::scale(D, c.w(b, t), db, de.data() + r * D);
      if (t < c.len[b])
        dscore[r] = k::dot(D, db, c.e.data() + r * D) + (dweights ? (*dweights)(b, t) : 0.f);
    }
    if (normalize_) k::softmax_rows_backward(1, T, c.w.data() + b * T, dscore.data() + b * T,
                                             dscore.data() + b * T);
  }
  // w = act W2^T + b2
  float db2 = 0.f;
  for (float x : dscore) db2 += x;
  fc2_bias.grad(0) += db2;
  k::gemv(true, BT, H, 1.f, c.act.data(), H, dscore.data(), 1.f, fc2_weight.grad.data());
  // PReLU
  std::vector<float> dpre(BT * H);
  const float* w2 = fc2_weight.value.data();
  const float* al = alpha.value.data();
  float* dal = alpha.grad.data();
  for (size_t r = 0; r < BT; ++r) {
    const float ds = dscore[r];
    if (ds == 0.f) {
      std::fill(dpre.begin() + static_cast<std::ptrdiff_t>(r * H),
                dpre.begin() + static_cast<std::ptrdiff_t>((r + 1) * H), 0.f);
      continue;
    }
    for (size_t h = 0; h < H; ++h) {
      const float x = c.pre[r * H + h], g = ds * w2[h];
      if (x > 0.f) {
        dpre[r * H + h] = g;
      } else {
        dpre[r * H + h] = g * al[h];
        dal[h] += g * x;
      }
    }
  }
  // pre = z W1^T + b1
  std::vector<float> dz(BT * F);
  detail::linear_backward(BT, F, H, c.z.data(), F, fc1_weight.value.data(), dpre.data(), H,
                          dz.data(), F, false, fc1_weight.grad.data(), fc1_bias.grad.data());
  // z = [e, v, e - v, e * v]
  for (size_t b = 0; b < B; ++b) {
    const float* vb = c.v.data() + b * D;
    float* dvb = dv.data() + b * D;
    for (size_t t = 0; t < T; ++t) {
      const size_t r = b * T + t;
      const float* dzr = dz.data() + r * F;
      const float* et = c.e.data() + r * D;
      float* det = de.data() + r * D;
      for (size_t d = 0; d < D; ++d) {
        const float gp = dzr[3 * D + d];
        det[d] += dzr[d] + dzr[2 * D + d] + gp * vb[d];
        dvb[d] += dzr[D + d] - dzr[2 * D + d] + gp * et[d];
      }
    }
  }
}

}  // namespace attnlab::attention
