#include "attnlab/nn/rnn.hpp"

#include <cmath>
#include <utility>

#include "attnlab/kernels/kernels.hpp"

namespace attnlab::nn {

namespace k = attnlab::kernels;

std::vector<size_t> resolve_lengths(const std::vector<size_t>& lengths, size_t B, size_t T,
                                    const char* who) {
  if (lengths.empty()) return std::vector<size_t>(B, T);
  ATTNLAB_CHECK(lengths.size() == B, who, ": expected ", B, " lengths (one per sequence), got ",
                lengths.size());
  for (size_t b = 0; b < B; ++b)
    ATTNLAB_CHECK(lengths[b] >= 1 && lengths[b] <= T, who, ": expected lengths in [1, ", T,
                  "], got ", lengths[b], " for sequence ", b);
  return lengths;
}

namespace {

void init_uniform(Param& p, float bound, Rng& rng) {
  for (size_t i = 0; i < p.size(); ++i) p.data()[i] = rng.uniform(-bound, bound);
}

// rows of y (n, cols) = bias
void fill_rows(size_t n, size_t cols, const float* bias, float* y) {
  for (size_t r = 0; r < n; ++r) std::copy(bias, bias + cols, y + r * cols);
}
// db += colsum(d) over n rows
void add_rows(size_t n, size_t cols, const float* d, float* db) {
  for (size_t r = 0; r < n; ++r) k::add(cols, d + r * cols, db);
}

struct Dims {
  size_t B, T, I, H;
};

Dims check_input(const Tensor& x, size_t I, size_t H, const char* who) {
  ATTNLAB_CHECK(x.dimension() == 3, who, ": expected input (B,T,", I, "), got ", shape_str(x));
  ATTNLAB_CHECK(x.shape()[2] == I, who, ": expected input (B,T,", I, "), got ", shape_str(x));
  ATTNLAB_CHECK(x.shape()[0] > 0 && x.shape()[1] > 0, who,
                ": expected a non-empty batch and sequence, got ", shape_str(x));
  return {x.shape()[0], x.shape()[1], I, H};
}

void check_state(const Tensor& s, size_t B, size_t H, const char* who) {
  ATTNLAB_CHECK(s.dimension() == 2 && s.shape()[0] == B && s.shape()[1] == H, who,
                ": expected state (", B, ",", H, "), got ", shape_str(s));
}

}  // namespace

// ============================================================== shared
RnnLayer::RnnLayer(size_t input, size_t hidden, size_t gates, Rng& rng, const char* who)
    : input_size(input),
      hidden_size(hidden),
      weight_ih({gates * hidden, input}),
      weight_hh({gates * hidden, hidden}),
      bias_ih({gates * hidden}),
      bias_hh({gates * hidden}) {
  ATTNLAB_CHECK(input > 0 && hidden > 0, who, ": expected positive sizes, got input=", input,
                " hidden=", hidden);
  const float bound = 1.f / std::sqrt(static_cast<float>(hidden));
  init_uniform(weight_ih, bound, rng);
  init_uniform(weight_hh, bound, rng);
  init_uniform(bias_ih, bound, rng);
  init_uniform(bias_hh, bound, rng);
}

void RnnLayer::collect(ParamList& out, const std::string& prefix, const std::string& suffix) {
  out.add(prefix + "weight_ih" + suffix, weight_ih);
  out.add(prefix + "weight_hh" + suffix, weight_hh);
  out.add(prefix + "bias_ih" + suffix, bias_ih);
  out.add(prefix + "bias_hh" + suffix, bias_hh);
}

void RnnLayer::project(size_t rows, const float* in, bool hidden, float* g) const {
  // g (rows,G) = in (rows,K) W^T + b
  const size_t G = gate_rows(), K = hidden ? hidden_size : input_size;
  const Param& w = hidden ? weight_hh : weight_ih;
  fill_rows(rows, G, (hidden ? bias_hh : bias_ih).value.data(), g);
  k::gemm(false, true, rows, G, K, 1.f, in, K, w.value.data(), K, 1.f, g, G);
}

Tensor RnnLayer::project_input(const Tensor& x, const char* who) const {
  // x: (B,T,I) -> gi: (B,T,G) = x W_ih^T + b_ih for every timestep at once
  const Dims d = check_input(x, input_size, hidden_size, who);
  Tensor gi = empty({d.B, d.T, gate_rows()});
  project(d.B * d.T, x.data(), false, gi.data());
  return gi;
}

Tensor RnnLayer::input_grad_from(const Tensor& dgi) const {
  // dgi: (B,T,G) -> dx: (B,T,I) = dgi W_ih
  const size_t I = input_size, G = gate_rows();
  ATTNLAB_CHECK(dgi.dimension() == 3 && dgi.shape()[2] == G,
                "RNN input gradient: expected gate grads (B,T,", G, "), got ", shape_str(dgi));
  const size_t B = dgi.shape()[0], T = dgi.shape()[1];
  Tensor dx = empty({B, T, I});
  k::gemm(false, false, B * T, I, G, 1.f, dgi.data(), G, weight_ih.value.data(), I, 0.f,
          dx.data(), I);
  return dx;
}

RnnLayer::Run RnnLayer::begin_forward(const Tensor& gi, const std::vector<size_t>& lengths,
                                      const RnnState* s0, CacheBase* cache,
                                      const char* who, const char* h_name) const {
  // gi: (B,T,G) the input projection -> h: (B,H) the initial state
  const size_t G = gate_rows(), H = hidden_size;
  ATTNLAB_CHECK(gi.dimension() == 3 && gi.shape()[2] == G && gi.shape()[0] > 0 &&
                    gi.shape()[1] > 0,
                who, ": expected a non-empty input projection (B,T,", G, "), got ", shape_str(gi));
  const size_t B = gi.shape()[0], T = gi.shape()[1];
  Run r{B, T, resolve_lengths(lengths, B, T, who), gi.data(), zeros({B, H})};
  if (s0 && !is_empty(s0->h)) {
    check_state(s0->h, B, H, (std::string(who) + " initial " + h_name).c_str());
    std::copy(s0->h.data(), s0->h.data() + B * H, r.h.data());
  }
  if (cache) {
    cache->B = B;
    cache->T = T;
    cache->lengths = r.len;
    cache->x = Tensor();  // forward() keeps it
    cache->hs = empty({T + 1, B, H});
    cache->gates = zeros({T, B, G});
    std::copy(r.h.data(), r.h.data() + B * H, cache->hs.data());
  }
  return r;
}

Tensor RnnLayer::begin_backward(const Tensor& dout, const RnnState& dsn, const CacheBase& cache,
                                const char* who, const char* h_name) const {
  const size_t B = cache.B, T = cache.T, H = hidden_size;
  ATTNLAB_CHECK(B > 0 && cache.hs.size() == (T + 1) * B * H, who,
                " backward: the cache does not come from a forward with a cache");
  if (!is_empty(dout))
    ATTNLAB_CHECK(dout.dimension() == 3 && dout.shape()[0] == B && dout.shape()[1] == T &&
                      dout.shape()[2] == H,
                  who, " backward: expected dout (", B, ",", T, ",", H, "), got ",
                  shape_str(dout));
  Tensor dh = zeros({B, H});
  if (!is_empty(dsn.h)) {
    check_state(dsn.h, B, H, (std::string(who) + " backward d(final " + h_name + ")").c_str());
    std::copy(dsn.h.data(), dsn.h.data() + B * H, dh.data());
  }
  return dh;
}

void RnnLayer::param_grads(const CacheBase& cache, const Tensor& dgi, const Tensor& dgh,
                           const float* dbhh_rows) {
  // dgi (B,T,G), dgh (T,B,G) -> dW_ih (G,I), dW_hh (G,H), db_ih, db_hh (G): one gemm each
  // over all timesteps, accumulated
  const size_t B = cache.B, T = cache.T, I = input_size, H = hidden_size, G = gate_rows();
  ATTNLAB_CHECK(cache.x.size() == B * T * I,
                "RNN backward: the cache comes from forward_gates (no input kept), which serves "
                "backward_gates and backward_input; run forward for parameter gradients");
  k::gemm(true, false, G, H, T * B, 1.f, dgh.data(), G, cache.hs.data(), H, 1.f,
          weight_hh.grad.data(), H);
  k::gemm(true, false, G, I, B * T, 1.f, dgi.data(), G, cache.x.data(), I, 1.f,
          weight_ih.grad.data(), I);
  add_rows(B * T, G, dgi.data(), bias_ih.grad.data());
  add_rows(B * T, G, dbhh_rows, bias_hh.grad.data());
}

void RnnLayer::project_step(size_t B, const float* x, const float* h, float* gi,
                            float* gh) const {
  project(B, x, false, gi);
  project(B, h, true, gh);
}

template <class CellFn, class EndFn>
void RnnLayer::forward_steps(Run& run, Tensor& out, CellFn&& cell, EndFn&& end_step) const {
  const size_t B = run.B, T = run.T, H = hidden_size, G = gate_rows();
  out = empty({B, T, H});
  Tensor gh = empty({B, G});
  for (size_t t = 0; t < T; ++t) {
    project(B, run.h.data(), true, gh.data());  // gh (B,G) = h W_hh^T + b_hh
    for (size_t b = 0; b < B; ++b) {
      float* ob = out.data() + (b * T + t) * H;
      if (t >= run.len[b]) {  // past the end: state frozen, output zero
        std::fill(ob, ob + H, 0.f);
        continue;
      }
      cell(t, b, run.gi + (b * T + t) * G, gh.data() + b * G, ob);
    }
    end_step(t);
  }
}

template <class CellFn>
void RnnLayer::backward_steps(const CacheBase& cache, const Tensor& dout, Tensor& dh, Tensor& dgi,
                              Tensor& dgh, CellFn&& cell) const {
  const size_t B = cache.B, T = cache.T, H = hidden_size, G = gate_rows();
  const bool has_dout = !is_empty(dout);
  Tensor dnext = empty({B, H});
  for (size_t t = T; t-- > 0;) {
    float* dg = dgh.data() + t * B * G;
    for (size_t b = 0; b < B; ++b) {
      float* dgib = dgi.data() + (b * T + t) * G;
      float* dghb = dg + b * G;
      float* dhb = dh.data() + b * H;
      float* dnb = dnext.data() + b * H;
      if (t >= cache.lengths[b]) {
        std::fill(dgib, dgib + G, 0.f);
        std::fill(dghb, dghb + G, 0.f);
        std::copy(dhb, dhb + H, dnb);
        continue;
      }
      if (has_dout) k::add(H, dout.data() + (b * T + t) * H, dhb);
      cell(t, b, dhb, dnb, dgib, dghb);
    }
    // dh_prev = (the cell's direct part) + dgh_t W_hh
    k::gemm(false, false, B, H, G, 1.f, dg, G, weight_hh.value.data(), H, 1.f, dnext.data(), H);
    std::swap(dh, dnext);
  }
}

// ============================================================== GRU and LSTM
template <class Layer, class CacheT>
void GatedRnn<Layer, CacheT>::forward(const Tensor& x, const std::vector<size_t>& lengths,
                                      const RnnState* s0, Tensor& out, RnnState& sn,
                                      Cache* cache) const {
  // x: (B,T,I), s0 (B,H) -> out: (B,T,H), sn (B,H)
  layer().forward_gates(project_input(x, Layer::kName), lengths, s0, out, sn, cache);
  if (cache) cache->x = x;
}

template <class Layer, class CacheT>
void GatedRnn<Layer, CacheT>::backward(const Tensor& dout, const RnnState& dsn, const Cache& cache,
                                       Tensor& dx, RnnState& ds0) {
  // dout: (B,T,H), dsn (B,H) -> dx: (B,T,I), ds0 (B,H); parameter grads accumulate
  Tensor dgi, dgh;
  layer().gate_grads(dout, dsn, cache, dgi, dgh, ds0);
  param_grads(cache, dgi, dgh, Layer::kBiasHhFromDgi ? dgi.data() : dgh.data());
  dx = input_grad_from(dgi);
}

template <class Layer, class CacheT>
void GatedRnn<Layer, CacheT>::backward_input(const Tensor& dout, const RnnState& dsn,
                                             const Cache& cache, Tensor& dx, RnnState& ds0) const {
  // dout: (B,T,H), dsn (B,H) -> dx: (B,T,I), ds0 (B,H); no parameter grads
  Tensor dgi;
  backward_gates(dout, dsn, cache, dgi, ds0);
  dx = input_grad_from(dgi);
}

template <class Layer, class CacheT>
void GatedRnn<Layer, CacheT>::backward_gates(const Tensor& dout, const RnnState& dsn,
                                             const Cache& cache, Tensor& dgi, RnnState& ds0) const {
  // dout: (B,T,H), dsn (B,H) -> dgi: (B,T,G) d/d(input projection), ds0 (B,H)
  Tensor dgh;
  layer().gate_grads(dout, dsn, cache, dgi, dgh, ds0);
}

// ============================================================== GRU
void GRU::forward_gates(const Tensor& gi, const std::vector<size_t>& lengths, const RnnState* s0,
                        Tensor& out, RnnState& sn, Cache* cache) const {
  // gi: (B,T,G) = x W_ih^T + b_ih, s0.h: (B,H) -> out: (B,T,H), sn.h: (B,H)
  Run run = begin_forward(gi, lengths, s0, cache, "GRU", "state");
  const size_t B = run.B, T = run.T, H = hidden_size, G = 3 * H;
  Tensor& h = run.h;
  if (cache) cache->hn_pre = zeros({T, B, H});
  std::vector<float> gbuf(G);
  auto cell = [&](size_t t, size_t b, const float* gib, const float* ghb, float* ob) {
    float* hb = h.data() + b * H;
    float* g = cache ? cache->gates.data() + (t * B + b) * G : gbuf.data();
    for (size_t j = 0; j < 2 * H; ++j) g[j] = gib[j] + ghb[j];
    k::sigmoid(2 * H, g, g);  // r, z
    const float* r = g;
    const float* z = g + H;
    float* n = g + 2 * H;
    const float* hn = ghb + 2 * H;  // Whn h + bhn
    if (cache) std::copy(hn, hn + H, cache->hn_pre.data() + (t * B + b) * H);
    for (size_t j = 0; j < H; ++j) n[j] = gib[2 * H + j] + r[j] * hn[j];
    k::tanh(H, n, n);
    for (size_t j = 0; j < H; ++j) {
      const float v = n[j] + z[j] * (hb[j] - n[j]);
      hb[j] = v;
      ob[j] = v;
    }
  };
  forward_steps(run, out, cell, [&](size_t t) {
    if (cache) std::copy(h.data(), h.data() + B * H, cache->hs.data() + (t + 1) * B * H);
  });
  sn.h = std::move(h);
  sn.c = Tensor();
}

// dout: (B,T,H), dsn.h: (B,H) -> dgi: (B,T,G), dgh: (T,B,G) gate grads, ds0.h (B,H)
void GRU::gate_grads(const Tensor& dout, const RnnState& dsn, const Cache& cache, Tensor& dgi,
                     Tensor& dgh, RnnState& ds0) const {
  Tensor dh = begin_backward(dout, dsn, cache, "GRU", "state");
  const size_t B = cache.B, T = cache.T, H = hidden_size, G = 3 * H;
  dgi = empty({B, T, G});   // d(input pre-activations), batch-major
  dgh = empty({T, B, G});   // d(hidden pre-activations), time-major
  auto cell = [&](size_t t, size_t b, const float* dhb, float* dnb, float* dgib, float* dghb) {
    const float* g = cache.gates.data() + (t * B + b) * G;
    const float* r = g;
    const float* z = g + H;
    const float* n = g + 2 * H;
    const float* hp = cache.hs.data() + (t * B + b) * H;
    const float* hn = cache.hn_pre.data() + (t * B + b) * H;
    for (size_t j = 0; j < H; ++j) {
      const float dv = dhb[j];
      const float dn = dv * (1.f - z[j]);
      const float dz = dv * (hp[j] - n[j]);
      dnb[j] = dv * z[j];
      const float dan = dn * (1.f - n[j] * n[j]);
      const float dar = dan * hn[j] * r[j] * (1.f - r[j]);
      const float daz = dz * z[j] * (1.f - z[j]);
      dgib[j] = dar;
      dgib[H + j] = daz;
      dgib[2 * H + j] = dan;
      dghb[j] = dar;
      dghb[H + j] = daz;
      dghb[2 * H + j] = dan * r[j];
    }
  };
  backward_steps(cache, dout, dh, dgi, dgh, cell);  // dh_prev = dh * z + dgh_t W_hh
  ds0.h = std::move(dh);
  ds0.c = Tensor();
}

void gru_update(size_t H, const float* gi, const float* gh, const float* h, float* hout,
                float* a) {
  for (size_t j = 0; j < 2 * H; ++j) a[j] = gi[j] + gh[j];
  k::sigmoid(2 * H, a, a);  // r, z
  for (size_t j = 0; j < H; ++j) a[2 * H + j] = gi[2 * H + j] + a[j] * gh[2 * H + j];
  k::tanh(H, a + 2 * H, a + 2 * H);
  for (size_t j = 0; j < H; ++j) {
    const float n = a[2 * H + j];
    hout[j] = n + a[H + j] * (h[j] - n);
  }
}

void GRU::step(size_t B, const float* x, const float* h, float* hout) const {
  // x: (B,I), h: (B,H) -> hout: (B,H)
  const size_t H = hidden_size, G = 3 * H;
  std::vector<float> gi(B * G), gh(B * G);
  project_step(B, x, h, gi.data(), gh.data());
  for (size_t b = 0; b < B; ++b)
    gru_update(H, gi.data() + b * G, gh.data() + b * G, h + b * H, hout + b * H, gi.data() + b * G);
}

// ============================================================== LSTM
namespace {
// pre (4H) -> activated gates i,f,g,o in place
inline void lstm_activate(size_t H, float* g) {
  k::sigmoid(2 * H, g, g);
  k::tanh(H, g + 2 * H, g + 2 * H);
  k::sigmoid(H, g + 3 * H, g + 3 * H);
}
}  // namespace

void LSTM::forward_gates(const Tensor& gi, const std::vector<size_t>& lengths, const RnnState* s0,
                         Tensor& out, RnnState& sn, Cache* cache) const {
  // gi: (B,T,G) = x W_ih^T + b_ih, s0: h,c (B,H) -> out: (B,T,H), sn: h,c (B,H)
  Run run = begin_forward(gi, lengths, s0, cache, "LSTM", "h");
  const size_t B = run.B, T = run.T, H = hidden_size, G = 4 * H;
  Tensor& h = run.h;
  Tensor c = zeros({B, H});
  if (s0 && !is_empty(s0->c)) {
    check_state(s0->c, B, H, "LSTM initial c");
    std::copy(s0->c.data(), s0->c.data() + B * H, c.data());
  }
  if (cache) {
    cache->cs = empty({T + 1, B, H});
    cache->tcs = zeros({T, B, H});
    std::copy(c.data(), c.data() + B * H, cache->cs.data());
  }
  std::vector<float> gbuf(G), tbuf(H);
  auto cell = [&](size_t t, size_t b, const float* gib, const float* ghb, float* ob) {
    float* hb = h.data() + b * H;
    float* cb = c.data() + b * H;
    float* g = cache ? cache->gates.data() + (t * B + b) * G : gbuf.data();
    float* tc = cache ? cache->tcs.data() + (t * B + b) * H : tbuf.data();
    for (size_t j = 0; j < G; ++j) g[j] = gib[j] + ghb[j];
    lstm_activate(H, g);
    for (size_t j = 0; j < H; ++j) cb[j] = g[H + j] * cb[j] + g[j] * g[2 * H + j];
    k::tanh(H, cb, tc);
    for (size_t j = 0; j < H; ++j) {
      const float v = g[3 * H + j] * tc[j];
      hb[j] = v;
      ob[j] = v;
    }
  };
  forward_steps(run, out, cell, [&](size_t t) {
    if (!cache) return;
    std::copy(h.data(), h.data() + B * H, cache->hs.data() + (t + 1) * B * H);
    std::copy(c.data(), c.data() + B * H, cache->cs.data() + (t + 1) * B * H);
  });
  sn.h = std::move(h);
  sn.c = std::move(c);
}

// dout: (B,T,H), dsn: h,c (B,H) -> dgi: (B,T,G), dga: (T,B,G) gate grads, ds0: h,c (B,H)
void LSTM::gate_grads(const Tensor& dout, const RnnState& dsn, const Cache& cache, Tensor& dgi,
                      Tensor& dga, RnnState& ds0) const {
  Tensor dh = begin_backward(dout, dsn, cache, "LSTM", "h");
  const size_t B = cache.B, T = cache.T, H = hidden_size, G = 4 * H;
  Tensor dc = zeros({B, H});
  if (!is_empty(dsn.c)) {
    check_state(dsn.c, B, H, "LSTM backward d(final c)");
    std::copy(dsn.c.data(), dsn.c.data() + B * H, dc.data());
  }
  dgi = empty({B, T, G});  // batch-major
  dga = empty({T, B, G});  // time-major copy for dW_hh
  auto cell = [&](size_t t, size_t b, const float* dhb, float* dnb, float* dgib, float* dgb) {
    float* dcb = dc.data() + b * H;
    const float* g = cache.gates.data() + (t * B + b) * G;
    const float* tc = cache.tcs.data() + (t * B + b) * H;
    const float* cp = cache.cs.data() + (t * B + b) * H;
    for (size_t j = 0; j < H; ++j) {
      const float i = g[j], f = g[H + j], gg = g[2 * H + j], o = g[3 * H + j];
      const float dv = dhb[j];
      const float dov = dv * tc[j];
      const float dcv = dcb[j] + dv * o * (1.f - tc[j] * tc[j]);
      dcb[j] = dcv * f;  // dc_prev
      dnb[j] = 0.f;
      dgb[j] = dcv * gg * i * (1.f - i);
      dgb[H + j] = dcv * cp[j] * f * (1.f - f);
      dgb[2 * H + j] = dcv * i * (1.f - gg * gg);
      dgb[3 * H + j] = dov * o * (1.f - o);
    }
    std::copy(dgb, dgb + G, dgib);
  };
  backward_steps(cache, dout, dh, dgi, dga, cell);
  ds0.h = std::move(dh);
  ds0.c = std::move(dc);
}

void lstm_update(size_t H, const float* gi, const float* gh, const float* c, float* hout,
                 float* cout, float* a) {
  for (size_t j = 0; j < 4 * H; ++j) a[j] = gi[j] + gh[j];
  lstm_activate(H, a);
  for (size_t j = 0; j < H; ++j) cout[j] = a[H + j] * c[j] + a[j] * a[2 * H + j];
  k::tanh(H, cout, a + 4 * H);
  for (size_t j = 0; j < H; ++j) hout[j] = a[3 * H + j] * a[4 * H + j];
}

void LSTM::step(size_t B, const float* x, const float* h, const float* c, float* hout,
                float* cout) const {
  // x: (B,I), h,c: (B,H) -> hout, cout: (B,H)
  const size_t H = hidden_size, G = 4 * H;
  std::vector<float> gi(B * G), gh(B * G), a(5 * H);
  project_step(B, x, h, gi.data(), gh.data());
  for (size_t b = 0; b < B; ++b)
    lstm_update(H, gi.data() + b * G, gh.data() + b * G, c + b * H, hout + b * H, cout + b * H,
                a.data());
}

template class GatedRnn<GRU, GruCache>;
template class GatedRnn<LSTM, LstmCache>;

// ============================================================== bidirectional
// x: (B,T,D) -> y: (B,T,D) reversed within each valid prefix, zero past it
Tensor reverse_valid(const Tensor& x, const std::vector<size_t>& lengths) {
  check_rank(x, 3, "reverse_valid", "(B,T,D)");
  const size_t B = x.shape()[0], T = x.shape()[1], D = x.shape()[2];
  ATTNLAB_CHECK(lengths.size() == B, "reverse_valid: expected ", B, " lengths, got ",
                lengths.size());
  Tensor y = zeros({B, T, D});
  for (size_t b = 0; b < B; ++b) {
    const size_t L = lengths[b];
    for (size_t t = 0; t < L; ++t) {
      const float* src = x.data() + (b * T + (L - 1 - t)) * D;
      std::copy(src, src + D, y.data() + (b * T + t) * D);
    }
  }
  return y;
}

template <class RNN>
void Bidirectional<RNN>::forward(const Tensor& x, const std::vector<size_t>& lengths,
                                 const RnnState* s0, Tensor& out, RnnState sn[2],
                                 Cache* cache) const {
  // x: (B,T,I) -> out: (B,T,2H), sn: {fwd, bwd} (B,H)
  check_rank(x, 3, "Bidirectional RNN input", "(B,T,I)");
  const size_t B = x.shape()[0], T = x.shape()[1];
  const std::vector<size_t> len = resolve_lengths(lengths, B, T, "Bidirectional RNN");
  Tensor of, obr;
  fwd.forward(x, len, s0 ? &s0[0] : nullptr, of, sn[0], cache ? &cache->fwd : nullptr);
  bwd.forward(reverse_valid(x, len), len, s0 ? &s0[1] : nullptr, obr, sn[1],
              cache ? &cache->bwd : nullptr);
  out = merge_out(of, obr, len);
  if (cache) cache->lengths = len;
}

template <class RNN>
Tensor Bidirectional<RNN>::merge_out(const Tensor& of, const Tensor& obr,
                                     const std::vector<size_t>& len) {
  // of (B,T,H), obr (B,T,H) reversed within each sequence -> out (B,T,2H)
  const size_t B = of.shape()[0], T = of.shape()[1], H = of.shape()[2];
  const Tensor ob = reverse_valid(obr, len);
  Tensor out = empty({B, T, 2 * H});
  for (size_t r = 0; r < B * T; ++r) {
    std::copy(of.data() + r * H, of.data() + (r + 1) * H, out.data() + r * 2 * H);
    std::copy(ob.data() + r * H, ob.data() + (r + 1) * H, out.data() + r * 2 * H + H);
  }
  return out;
}

template <class RNN>
void Bidirectional<RNN>::project_input(const Tensor& x, Tensor gi[2]) const {
  // x: (B,T,I) -> gi[0] = x W_f^T + b_f, gi[1] = x W_b^T + b_b: (B,T,G) each, input order
  gi[0] = fwd.project_input(x, "Bidirectional RNN");
  gi[1] = bwd.project_input(x, "Bidirectional RNN");
}

template <class RNN>
void Bidirectional<RNN>::forward_gates(const Tensor gi[2], const std::vector<size_t>& lengths,
                                       const RnnState* s0, Tensor& out, RnnState sn[2],
                                       Cache* cache) const {
  // gi[2]: (B,T,G) in input order -> out: (B,T,2H), sn: {fwd, bwd} (B,H)
  check_rank(gi[0], 3, "Bidirectional RNN input projection", "(B,T,G)");
  ATTNLAB_CHECK(gi[1].shape() == gi[0].shape(),
                "Bidirectional RNN: expected both directions' projections of one shape, got ",
                shape_str(gi[0]), " and ", shape_str(gi[1]));
  const size_t B = gi[0].shape()[0], T = gi[0].shape()[1];
  const std::vector<size_t> len = resolve_lengths(lengths, B, T, "Bidirectional RNN");
  Tensor of, obr;
  fwd.forward_gates(gi[0], len, s0 ? &s0[0] : nullptr, of, sn[0], cache ? &cache->fwd : nullptr);
  bwd.forward_gates(reverse_valid(gi[1], len), len, s0 ? &s0[1] : nullptr, obr, sn[1],
                    cache ? &cache->bwd : nullptr);
  out = merge_out(of, obr, len);
  if (cache) cache->lengths = len;
}

// dout: (B,T,2H) or empty -> dof, dob: (B,T,H) each (dob reversed within each sequence, as the
// backward direction saw its input), both empty when dout is
template <class RNN>
void Bidirectional<RNN>::split_dout(const Tensor& dout, const Cache& cache, Tensor& dof,
                                    Tensor& dob) const {
  const size_t B = cache.fwd.B, T = cache.fwd.T, H = fwd.hidden_size;
  if (is_empty(dout)) return;
  ATTNLAB_CHECK(dout.dimension() == 3 && dout.shape()[0] == B && dout.shape()[1] == T &&
                    dout.shape()[2] == 2 * H,
                "Bidirectional RNN backward: expected dout (", B, ",", T, ",", 2 * H, "), got ",
                shape_str(dout));
  dof = empty({B, T, H});
  Tensor dobv = empty({B, T, H});
  for (size_t r = 0; r < B * T; ++r) {
    std::copy(dout.data() + r * 2 * H, dout.data() + r * 2 * H + H, dof.data() + r * H);
    std::copy(dout.data() + r * 2 * H + H, dout.data() + (r + 1) * 2 * H, dobv.data() + r * H);
  }
  dob = reverse_valid(dobv, cache.lengths);
}

// dxf, dxr (B,T,I) from the two directions -> dx = dxf + reverse(dxr)
template <class RNN>
Tensor Bidirectional<RNN>::merge_dx(Tensor dxf, const Tensor& dxr, const Cache& cache) {
  const Tensor dxb = reverse_valid(dxr, cache.lengths);
  k::add(dxf.size(), dxb.data(), dxf.data());
  return dxf;
}

// dout: (B,T,2H), dsn[2] -> dx = dxf + reverse(dxr), ds0[2] through step(d, dout_d, dsn[d],
// cache_d, dx_d, ds0[d]) of each direction d (0 = fwd, 1 = bwd)
template <class RNN>
template <class Step>
void Bidirectional<RNN>::backward_both(Step step, const Tensor& dout, const RnnState dsn[2],
                                       const Cache& cache, Tensor& dx, RnnState ds0[2]) const {
  Tensor dof, dob, dxf, dxr;
  split_dout(dout, cache, dof, dob);
  step(0, dof, dsn[0], cache.fwd, dxf, ds0[0]);
  step(1, dob, dsn[1], cache.bwd, dxr, ds0[1]);
  dx = merge_dx(std::move(dxf), dxr, cache);
}

// parameter grads accumulate
template <class RNN>
void Bidirectional<RNN>::backward(const Tensor& dout, const RnnState dsn[2], const Cache& cache,
                                  Tensor& dx, RnnState ds0[2]) {
  backward_both([this](size_t d, auto&&... a) { (d ? bwd : fwd).backward(a...); }, dout, dsn,
                cache, dx, ds0);
}

// no parameter grads
template <class RNN>
void Bidirectional<RNN>::backward_input(const Tensor& dout, const RnnState dsn[2],
                                        const Cache& cache, Tensor& dx, RnnState ds0[2]) const {
  backward_both([this](size_t d, auto&&... a) { (d ? bwd : fwd).backward_input(a...); }, dout,
                dsn, cache, dx, ds0);
}

// dout: (B,T,2H), dsn[2] -> dgi[2]: (B,T,G) each in input order, ds0[2]; no parameter grads
template <class RNN>
void Bidirectional<RNN>::backward_gates(const Tensor& dout, const RnnState dsn[2],
                                        const Cache& cache, Tensor dgi[2], RnnState ds0[2]) const {
  Tensor dof, dob, dgr;
  split_dout(dout, cache, dof, dob);
  fwd.backward_gates(dof, dsn[0], cache.fwd, dgi[0], ds0[0]);
  bwd.backward_gates(dob, dsn[1], cache.bwd, dgr, ds0[1]);
  dgi[1] = reverse_valid(dgr, cache.lengths);
}

template <class RNN>
Tensor Bidirectional<RNN>::input_grad_from(const Tensor dgi[2]) const {
  // dgi[2]: (B,T,G) in input order -> dx: (B,T,I) = dgi[0] W_f + dgi[1] W_b
  Tensor dx = fwd.input_grad_from(dgi[0]);
  const Tensor dxb = bwd.input_grad_from(dgi[1]);
  ATTNLAB_CHECK(dxb.shape() == dx.shape(),
                "Bidirectional RNN input gradient: expected both directions' gate grads of one "
                "shape");
  k::add(dx.size(), dxb.data(), dx.data());
  return dx;
}

template class Bidirectional<GRU>;
template class Bidirectional<LSTM>;

}  // namespace attnlab::nn
