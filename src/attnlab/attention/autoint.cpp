#include "attnlab/attention/autoint.hpp"

#include <cmath>

#include "attnlab/attention/attend.hpp"
#include "attnlab/kernels/kernels.hpp"

namespace attnlab::attention {

namespace k = attnlab::kernels;

InteractingLayer::InteractingLayer(size_t input_dim, const InteractingOptions& opt, Rng& rng)
    : D_(input_dim), opt_(opt) {
  ATTNLAB_CHECK(input_dim > 0, "InteractingLayer: input_dim must be > 0, got ", input_dim);
  ATTNLAB_CHECK(opt.heads > 0 && opt.head_dim > 0,
                "InteractingLayer: heads and head_dim must be > 0, got heads = ", opt.heads,
                ", head_dim = ", opt.head_dim);
  const size_t HD = opt.heads * opt.head_dim;
  const float bound = 1.f / std::sqrt(float(D_));
  detail::init_uniform(query, {HD, D_}, bound, rng);
  detail::init_uniform(key, {HD, D_}, bound, rng);
  detail::init_uniform(value, {HD, D_}, bound, rng);
  if (opt.residual) detail::init_uniform(residual, {HD, D_}, bound, rng);
}

void InteractingLayer::collect(ParamList& out, const std::string& prefix) {
  out.add(prefix + "query.weight", query);
  out.add(prefix + "key.weight", key);
  out.add(prefix + "value.weight", value);
  if (opt_.residual) out.add(prefix + "residual.weight", residual);
}

size_t InteractingLayer::param_count() const {
  return (opt_.residual ? 4 : 3) * output_dim() * D_;
}

InteractingResult InteractingLayer::forward(const xt::xarray<float>& e, Cache* cache) const {
  ATTNLAB_CHECK(e.dimension() == 3, "InteractingLayer: expected fields e of rank 3 (B,M,", D_,
                "), got rank ", e.dimension(), " with shape ",
                detail::shape_str(std::vector<size_t>(e.shape().begin(), e.shape().end())));
  Tensor3 e3 = Tensor3::from_shape({e.shape()[0], e.shape()[1], e.shape()[2]});
  std::copy(e.data(), e.data() + e.size(), e3.data());
  return forward(e3, cache);
}

InteractingResult InteractingLayer::forward(const Tensor3& e, Cache* cache) const {
  // e: (B,M,D) -> out: (B,M,H*d'), weights: (B,H,M,M)
  ATTNLAB_CHECK(D_ > 0, "InteractingLayer: not initialized");
  ATTNLAB_CHECK(e.shape(2) == D_, "InteractingLayer: expected fields e (B,M,", D_,
                "), got ", detail::shape_of(e), " (last dim ", e.shape(2), " != D = ", D_, ")");
  ATTNLAB_CHECK(e.shape(1) > 0, "InteractingLayer: expected at least one field (M >= 1), got ",
                detail::shape_of(e));
  detail::check_finite("InteractingLayer input e", e.data(), e.size());
  const size_t H = opt_.heads, d = opt_.head_dim, HD = H * d, D = D_;
  detail::check_param_shape("query.weight", query, {HD, D});
  detail::check_param_shape("key.weight", key, {HD, D});
  detail::check_param_shape("value.weight", value, {HD, D});
  if (opt_.residual) detail::check_param_shape("residual.weight", residual, {HD, D});
  const size_t B = e.shape(0), M = e.shape(1), rows = B * M, ld = 3 * HD;

  // ---- projections: proj row r = [W_Q e_r | W_K e_r | W_V e_r]
  std::vector<float> local;
  std::vector<float>& proj = cache ? cache->proj : local;
  proj.resize(rows * ld);
  detail::linear_forward(rows, D, HD, e.data(), D, query.value.data(), nullptr, proj.data(), ld);
  detail::linear_forward(rows, D, HD, e.data(), D, key.value.data(), nullptr, proj.data() + HD, ld);
  detail::linear_forward(rows, D, HD, e.data(), D, value.value.data(), nullptr,
                         proj.data() + 2 * HD, ld);

  // ---- per (sample, head): alpha = softmax(scale Q K^T), e~ = alpha V, into pre
  InteractingResult r;
  r.weights = Tensor4::from_shape({B, H, M, M});
  Tensor3 pre = Tensor3::from_shape({B, M, HD});
  const float scale = opt_.scaled ? 1.f / std::sqrt(float(d)) : 1.f;
  for (size_t b = 0; b < B; ++b) {
    const float* pb = proj.data() + b * M * ld;
    for (size_t h = 0; h < H; ++h)
      sdpa_raw(M, M, d, d, scale, pb + h * d, ld, pb + HD + h * d, ld, pb + 2 * HD + h * d, ld,
               nullptr, 0, pre.data() + b * M * HD + h * d, HD,
               r.weights.data() + (b * H + h) * M * M, M, nullptr);
  }
  // ---- residual and ReLU
  if (opt_.residual) {
    std::vector<float> res(rows * HD);
    detail::linear_forward(rows, D, HD, e.data(), D, residual.value.data(), nullptr, res.data(),
                           HD);
    k::add(rows * HD, res.data(), pre.data());
  }
  r.out = Tensor3::from_shape({B, M, HD});
  k::relu(rows * HD, pre.data(), r.out.data());
  if (cache) {
    cache->e = e;
    cache->P = r.weights;
    cache->pre = std::move(pre);
  }
  return r;
}

void InteractingLayer::backward(const Tensor3& dout, const Cache& c, Tensor3& de,
                                const Tensor4* dweights) {
  const size_t H = opt_.heads, d = opt_.head_dim, HD = H * d, D = D_;
  ATTNLAB_CHECK(c.e.dimension() == 3 && c.e.shape(2) == D && c.P.shape(1) == H,
                "InteractingLayer backward: the cache is not from this layer's forward()");
  const size_t B = c.e.shape(0), M = c.e.shape(1), rows = B * M, ld = 3 * HD;
  ATTNLAB_CHECK(dout.shape(0) == B && dout.shape(1) == M && dout.shape(2) == HD,
                "InteractingLayer backward: expected dout (", B, ",", M, ",", HD, "), got ",
                detail::shape_of(dout));
  if (dweights)
    ATTNLAB_CHECK(dweights->shape() == c.P.shape(), "InteractingLayer backward: expected dweights (",
                  B, ",", H, ",", M, ",", M, "), got ", detail::shape_of(*dweights));

  // ---- ReLU; the residual branch writes de first (overwrite)
  std::vector<float> dpre(rows * HD);
  k::relu_backward(rows * HD, c.pre.data(), dout.data(), dpre.data());
  de = Tensor3::from_shape({B, M, D});
  if (opt_.residual)
    detail::linear_backward(rows, D, HD, c.e.data(), D, residual.value.data(), dpre.data(), HD,
                            de.data(), D, false, residual.grad.data(), nullptr);
  else
    de.fill(0.f);

  // ---- attention per (sample, head): dpre's head slice is d e~^h
  std::vector<float> dproj(rows * ld), dP(M * M);
  const float scale = opt_.scaled ? 1.f / std::sqrt(float(d)) : 1.f;
  for (size_t b = 0; b < B; ++b) {
    const float* pb = c.proj.data() + b * M * ld;
    float* dpb = dproj.data() + b * M * ld;
    for (size_t h = 0; h < H; ++h) {
      const float* Pbh = c.P.data() + (b * H + h) * M * M;
      const float* g = dpre.data() + b * M * HD + h * d;
      const float* Qh = pb + h * d;
      const float* Kh = pb + HD + h * d;
      const float* Vh = pb + 2 * HD + h * d;
      // dP = g V^T (+ dweights); dV = P^T g
      k::gemm(false, true, M, M, d, 1.f, g, HD, Vh, ld, 0.f, dP.data(), M);
      if (dweights) k::add(M * M, dweights->data() + (b * H + h) * M * M, dP.data());
      k::gemm(true, false, M, d, M, 1.f, Pbh, M, g, HD, 0.f, dpb + 2 * HD + h * d, ld);
      // dS = softmax'(dP); dQ = scale dS K; dK = scale dS^T Q
      k::softmax_rows_backward(M, M, Pbh, dP.data(), dP.data());
      k::gemm(false, false, M, d, M, scale, dP.data(), M, Kh, ld, 0.f, dpb + h * d, ld);
      k::gemm(true, false, M, d, M, scale, dP.data(), M, Qh, ld, 0.f, dpb + HD + h * d, ld);
    }
  }

  // ---- projections (de accumulates)
  detail::linear_backward(rows, D, HD, c.e.data(), D, query.value.data(), dproj.data(), ld,
                          de.data(), D, true, query.grad.data(), nullptr);
  detail::linear_backward(rows, D, HD, c.e.data(), D, key.value.data(), dproj.data() + HD, ld,
                          de.data(), D, true, key.grad.data(), nullptr);
  detail::linear_backward(rows, D, HD, c.e.data(), D, value.value.data(), dproj.data() + 2 * HD,
                          ld, de.data(), D, true, value.grad.data(), nullptr);
}

}  // namespace attnlab::attention
