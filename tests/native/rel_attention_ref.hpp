// A naive reference of Transformer-XL relative attention with memory, written from the
// paper's formula (explicit relative distance per query/key pair, no shift trick), in double.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "attnlab/attention/relative.hpp"

namespace attnlab::testing {

// out (B,T,E) of a.forward(x) with the memory mem (B,M,E; may be empty), row-major; with
// weights, also the attention probabilities (B,H,T,M+T), zero for the keys a query cannot see.
inline std::vector<double> naive_rel(const attention::RelMultiheadAttention& a, const attention::Tensor3& mem,
                                     const attention::Tensor3& x, std::vector<double>* weights = nullptr) {
  const size_t B = x.shape(0), T = x.shape(1), E = x.shape(2), M = mem.size() ? mem.shape(1) : 0;
  const size_t H = a.config().n_head, Dh = a.config().d_head, I = H * Dh, L = M + T;
  const auto& Wq = a.qkv_weight.value;
  std::vector<double> out(B * T * E, 0.0);
  if (weights) weights->assign(B * H * T * L, 0.0);
  auto row = [&](size_t b, size_t j, size_t e) { return j < M ? mem(b, j, e) : x(b, j - M, e); };
  for (size_t b = 0; b < B; ++b) {
    std::vector<double> q(T * I), k(L * I), v(L * I);
    for (size_t c = 0; c < I; ++c) {
      for (size_t i = 0; i < T; ++i) {
        double s = 0;
        for (size_t e = 0; e < E; ++e) s += double(Wq(c, e)) * x(b, i, e);
        q[i * I + c] = s;
      }
      for (size_t j = 0; j < L; ++j) {
        double sk = 0, sv = 0;
        for (size_t e = 0; e < E; ++e) {
          sk += double(Wq(I + c, e)) * row(b, j, e);
          sv += double(Wq(2 * I + c, e)) * row(b, j, e);
        }
        k[j * I + c] = sk;
        v[j * I + c] = sv;
      }
    }
    std::vector<double> ctx(T * I, 0.0);
    for (size_t h = 0; h < H; ++h)
      for (size_t i = 0; i < T; ++i) {
        std::vector<double> sc(M + i + 1);
        double mx = -1e300;
        for (size_t j = 0; j <= M + i; ++j) {
          const double dist = double(M + i - j);
          double s = 0;
          for (size_t d = 0; d < Dh; ++d) {
            double rd = 0;  // (W_r R_dist)_d
            for (size_t e = 0; e < E / 2; ++e) {
              const double f = std::pow(10000.0, -2.0 * double(e) / double(E));
              rd += double(a.r_weight.value(h * Dh + d, e)) * std::sin(dist * f) +
                    double(a.r_weight.value(h * Dh + d, E / 2 + e)) * std::cos(dist * f);
            }
            const double qd = q[i * I + h * Dh + d];
            s += (qd + a.r_w_bias.value(h, d)) * k[j * I + h * Dh + d] +
                 (qd + a.r_r_bias.value(h, d)) * rd;
          }
          sc[j] = s / std::sqrt(double(Dh));
          mx = std::max(mx, sc[j]);
        }
        double z = 0;
        for (double& s : sc) z += (s = std::exp(s - mx));
        for (size_t j = 0; j <= M + i; ++j) {
          if (weights) (*weights)[((b * H + h) * T + i) * L + j] = sc[j] / z;
          for (size_t d = 0; d < Dh; ++d) ctx[i * I + h * Dh + d] += sc[j] / z * v[j * I + h * Dh + d];
        }
      }
    for (size_t i = 0; i < T; ++i)
      for (size_t e = 0; e < E; ++e) {
        double o = 0;
        for (size_t c = 0; c < I; ++c) o += double(a.o_weight.value(e, c)) * ctx[i * I + c];
        out[(b * T + i) * E + e] = o;
      }
  }
  return out;
}

}  // namespace attnlab::testing
