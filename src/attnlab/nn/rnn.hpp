// Recurrent layers: GRU and LSTM (full sequences and single cells), and a
// bidirectional wrapper. PyTorch semantics and parameter layouts:
//   GRU  weight_ih (3H,I), weight_hh (3H,H), bias_ih/bias_hh (3H), gates r,z,n
//        r = s(Wir x + bir + Whr h + bhr), z = s(Wiz x + biz + Whz h + bhz)
//        n = tanh(Win x + bin + r * (Whn h + bhn)), h' = (1 - z) * n + z * h
//   LSTM weight_ih (4H,I), weight_hh (4H,H), biases (4H), gates i,f,g,o
//        c' = f * c + i * g, h' = o * tanh(c')
// Sequences are batch_first (B,T,I) with per-sequence lengths in [1,T] (as
// torch pack_padded_sequence): outputs past a sequence's length are zero and
// the final state is the state after its last valid step.
// Speed: the input projection of all timesteps is ONE gemm over B*T rows;
// each step is one gemm for the hidden projection plus kernel activations.
#pragma once
#include <string>
#include <vector>

#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/nn/tensor.hpp"

namespace attnlab::nn {

// Recurrent state: h (B,H); c (B,H) for LSTM only (empty for GRU).
struct RnnState {
  Tensor h, c;
};

// Checks lengths against (B,T): empty means all T; returns the filled list.
std::vector<size_t> resolve_lengths(const std::vector<size_t>& lengths, size_t B, size_t T,
                                    const char* who);

// The parameters of a recurrent layer with G = gates * H gate rows and the gemm
// steps every such layer shares (the gate arithmetic is each layer's own).
class RnnLayer {
 public:
  RnnLayer() = default;
  // torch init: every weight and bias ~ U(-1/sqrt(H), 1/sqrt(H))
  RnnLayer(size_t input, size_t hidden, size_t gates, Rng& rng, const char* who);
  // names: prefix + "weight_ih" + suffix, ... (suffix "_l0" as nn.GRU, "" as nn.GRUCell)
  void collect(ParamList& out, const std::string& prefix, const std::string& suffix = "_l0");

  size_t input_size = 0, hidden_size = 0;
  Param weight_ih, weight_hh, bias_ih, bias_hh;

  // forward's first step, split out so callers can form input projections themselves (by
  // linearity: the projection of b + a (x - b) is P(b) + a (P(x) - P(b)), one axpy per point):
  // x (B,T,I) -> gi (B,T,G) = x W_ih^T + b_ih, every timestep in one gemm
  Tensor project_input(const Tensor& x, const char* who = "RNN input projection") const;
  // backward's last step: the input projection's gradient dgi (B,T,G) -> dx (B,T,I) = dgi W_ih
  // (linear in dgi: a sum of gradients needs one gemm)
  Tensor input_grad_from(const Tensor& dgi) const;

  // What a cache of every recurrent layer holds.
  struct CacheBase {
    size_t B = 0, T = 0;
    std::vector<size_t> lengths;
    Tensor x;      // (B,T,I) the input
    Tensor hs;     // (T+1,B,H) time-major: hidden state before step t; hs[0] = h0
    Tensor gates;  // (T,B,G) the gates after activation
  };

 protected:
  size_t gate_rows() const { return weight_ih.value.shape()[0]; }
  // rows of g (rows, G) = in (rows, K) W^T + b, for W_ih (K = I) or W_hh (K = H)
  void project(size_t rows, const float* in, bool hidden, float* g) const;
  // the shared checks and set-up of forward from the input projection gi (B,T,G): the sizes,
  // the lengths, the initial hidden state h (B,H) and, with a cache, its common part (all but
  // the input x, which forward() keeps); who and h_name name the layer and its hidden state
  // in error messages
  struct Run {
    size_t B, T;
    std::vector<size_t> len;
    const float* gi;
    Tensor h;
  };
  Run begin_forward(const Tensor& gi, const std::vector<size_t>& lengths, const RnnState* s0,
                    CacheBase* cache, const char* who, const char* h_name) const;
  // the shared checks of backward; returns dh (B,H) from dsn.h (zeros when empty)
  Tensor begin_backward(const Tensor& dout, const RnnState& dsn, const CacheBase& cache,
                        const char* who, const char* h_name) const;
  // parameter grads (accumulated) from the gate grads: dgi (B,T,G) batch-major, dgh (T,B,G)
  // time-major; db_hh sums the B*T rows of dbhh_rows (either of the two); needs cache.x (a
  // cache of forward(), not of forward_gates())
  void param_grads(const CacheBase& cache, const Tensor& dgi, const Tensor& dgh,
                   const float* dbhh_rows);
  // The time loop of forward: per step gh (B,G) = h W_hh^T + b_hh, then
  // cell(t, b, gi_row, gh_row, out_row) for each sequence still running (the others
  // output zeros and keep their state), then end_step(t). out: (B,T,H).
  template <class CellFn, class EndFn>
  void forward_steps(Run& run, Tensor& out, CellFn&& cell, EndFn&& end_step) const;
  // The time loop of backward, from t = T-1 down: adds dout's row to dh, then
  // cell(t, b, dh_row, dh_prev_row, dgi_row, dgh_row) for each running sequence (the
  // others pass dh on and get zero gate grads), then dh_prev += dgh_t W_hh.
  template <class CellFn>
  void backward_steps(const CacheBase& cache, const Tensor& dout, Tensor& dh, Tensor& dgi,
                      Tensor& dgh, CellFn&& cell) const;
  // one inference step's projections: gi, gh (B,G)
  void project_step(size_t B, const float* x, const float* h, float* gi, float* gh) const;
};

// The caches of GRU and LSTM.
struct GruCache : RnnLayer::CacheBase {  // gates: r, z, n
  Tensor hn_pre;  // (T,B,H)  Whn h + bhn
};
struct LstmCache : RnnLayer::CacheBase {  // gates: i, f, g, o
  Tensor cs;   // (T+1,B,H) cell before step t
  Tensor tcs;  // (T,B,H) tanh(c')
};

// The sequence API of GRU and LSTM, the same for both around each layer's own gate arithmetic
// (Layer's forward_gates and gate_grads; Layer::kName names it in error messages). States are
// h (B,H), and c (B,H) for the LSTM only (kHasCell).
template <class Layer, class CacheT>
class GatedRnn : public RnnLayer {
 public:
  using Cache = CacheT;
  GatedRnn() = default;
  GatedRnn(size_t input, size_t hidden, Rng& rng)
      : RnnLayer(input, hidden, Layer::kGates, rng, Layer::kName) {}

  // x: (B,T,I), lengths: (B) or empty, s0: (B,H) states or nullptr (zeros)
  //   -> out: (B,T,H), sn (B,H); cache (optional) for backward.
  // forward() is project_input() then Layer::forward_gates(gi, lengths, s0, out, sn, cache),
  // which runs from the input projection gi (B,T,G); forward_gates' cache keeps no input, so it
  // serves backward_gates() / backward_input(), not backward()
  void forward(const Tensor& x, const std::vector<size_t>& lengths, const RnnState* s0,
               Tensor& out, RnnState& sn, Cache* cache) const;
  // dout: (B,T,H) or empty, dsn: (B,H) states (entries may be empty) -> dx: (B,T,I), ds0 (B,H);
  // parameter grads accumulate
  void backward(const Tensor& dout, const RnnState& dsn, const Cache& cache, Tensor& dx,
                RnnState& ds0);
  // backward() without the parameter grads (no dW gemms, no bias sums): dx and ds0 only, the
  // same values; for gradients with respect to the input (attribution)
  void backward_input(const Tensor& dout, const RnnState& dsn, const Cache& cache, Tensor& dx,
                      RnnState& ds0) const;
  // backward_input() without its last gemm: dgi (B,T,G) = d/d(input projection), ds0;
  // backward_input's dx = input_grad_from(dgi)
  void backward_gates(const Tensor& dout, const RnnState& dsn, const Cache& cache, Tensor& dgi,
                      RnnState& ds0) const;

 private:
  const Layer& layer() const { return static_cast<const Layer&>(*this); }
};

class GRU : public GatedRnn<GRU, GruCache> {
 public:
  static constexpr size_t kGates = 3;
  static constexpr bool kHasCell = false;
  static constexpr const char* kName = "GRU";
  GRU() = default;
  GRU(size_t input, size_t hidden, Rng& rng) : GatedRnn(input, hidden, rng) {}

  // gi: (B,T,G) = project_input(x), s0: h (B,H) or nullptr -> out: (B,T,H), sn: h (B,H)
  void forward_gates(const Tensor& gi, const std::vector<size_t>& lengths, const RnnState* s0,
                     Tensor& out, RnnState& sn, Cache* cache) const;
  // Inference step without cache: x (B,I), h (B,H) -> hout (B,H) (may alias h).
  void step(size_t B, const float* x, const float* h, float* hout) const;

 private:
  friend class GatedRnn<GRU, GruCache>;
  // the gate grads dgi (B,T,G), dgh (T,B,G) of every backward form, and ds0; db_hh sums dgh
  void gate_grads(const Tensor& dout, const RnnState& dsn, const Cache& cache, Tensor& dgi,
                  Tensor& dgh, RnnState& ds0) const;
  static constexpr bool kBiasHhFromDgi = false;
};

// One cell update from the two projections (PyTorch gate order), for inference paths that
// compute the projections themselves (decoders with precomputed tables or int8 products).
// GRU: gi, gh (3H) include their biases; h (H) -> hout (H) (may alias h); a: 3H scratch
//   (may alias gi). r, z = sigmoid(gi + gh); n = tanh(gi_n + r gh_n); h' = n + z (h - n).
void gru_update(size_t H, const float* gi, const float* gh, const float* h, float* hout,
                float* a);
// LSTM: gi, gh (4H) include their biases; c (H) -> hout, cout (H) (cout may alias c);
//   a: 5H scratch (may alias gi). i, f, g, o; c' = f c + i g; h' = o tanh(c').
void lstm_update(size_t H, const float* gi, const float* gh, const float* c, float* hout,
                 float* cout, float* a);

class LSTM : public GatedRnn<LSTM, LstmCache> {
 public:
  static constexpr size_t kGates = 4;
  static constexpr bool kHasCell = true;
  static constexpr const char* kName = "LSTM";
  LSTM() = default;
  LSTM(size_t input, size_t hidden, Rng& rng) : GatedRnn(input, hidden, rng) {}

  // gi: (B,T,G) = project_input(x), s0: h,c (B,H) or nullptr -> out: (B,T,H), sn: h,c (B,H)
  void forward_gates(const Tensor& gi, const std::vector<size_t>& lengths, const RnnState* s0,
                     Tensor& out, RnnState& sn, Cache* cache) const;
  // Inference step: x (B,I), h,c (B,H) -> hout, cout (B,H) (may alias h, c).
  void step(size_t B, const float* x, const float* h, const float* c, float* hout,
            float* cout) const;

 private:
  friend class GatedRnn<LSTM, LstmCache>;
  // the gate grads dgi (B,T,G), dga (T,B,G) (the same rows, time-major) of every backward
  // form, and ds0; db_hh sums dgi's rows
  void gate_grads(const Tensor& dout, const RnnState& dsn, const Cache& cache, Tensor& dgi,
                  Tensor& dga, RnnState& ds0) const;
  static constexpr bool kBiasHhFromDgi = true;
};

extern template class GatedRnn<GRU, GruCache>;
extern template class GatedRnn<LSTM, LstmCache>;

// Single-step cells with torch nn.GRUCell / nn.LSTMCell names (no "_l0").
template <class RNN>
class Cell {
 public:
  using Cache = typename RNN::Cache;
  Cell() = default;
  Cell(size_t input, size_t hidden, Rng& rng) : rnn(input, hidden, rng) {}
  void collect(ParamList& out, const std::string& prefix) { rnn.collect(out, prefix, ""); }
  // x: (B,I), s: (B,H) (or nullptr = zeros) -> returns s': (B,H)
  RnnState forward(const Tensor& x, const RnnState* s, Cache* cache) const {
    check_rank(x, 2, "RNN cell input", "(B,I)");
    Tensor x3 = x;
    x3.reshape({x.shape()[0], size_t(1), x.shape()[1]});
    Tensor out;
    RnnState sn;
    rnn.forward(x3, {}, s, out, sn, cache);
    return sn;
  }
  // ds': (B,H) -> dx: (B,I), ds: (B,H)
  Tensor backward(const RnnState& dsn, const Cache& cache, RnnState& ds) {
    Tensor dx;
    rnn.backward(Tensor(), dsn, cache, dx, ds);
    dx.reshape({cache.B, rnn.input_size});
    return dx;
  }
  RNN rnn;
};
using GRUCell = Cell<GRU>;
using LSTMCell = Cell<LSTM>;

// x (B,T,D) -> y with y[b,t] = x[b, len_b - 1 - t] for t < len_b, else 0.
// Its own inverse on the valid part (used for forward and backward).
Tensor reverse_valid(const Tensor& x, const std::vector<size_t>& lengths);

// Bidirectional wrapper as nn.GRU/LSTM(bidirectional=True): the reverse
// direction reads each sequence's valid part backwards; outputs concatenate
// (fwd, bwd) on the last axis; states are {fwd, bwd} (torch h_n[0], h_n[1]).
template <class RNN>
class Bidirectional {
 public:
  struct Cache {
    typename RNN::Cache fwd, bwd;
    std::vector<size_t> lengths;
  };
  Bidirectional() = default;
  Bidirectional(size_t input, size_t hidden, Rng& rng)
      : fwd(input, hidden, rng), bwd(input, hidden, rng) {}
  void collect(ParamList& out, const std::string& prefix) {
    fwd.collect(out, prefix, "_l0");
    bwd.collect(out, prefix, "_l0_reverse");
  }
  // x: (B,T,I), lengths (B) or empty, s0: {fwd, bwd} states or nullptr
  //   -> out: (B,T,2H), sn: {fwd, bwd} each (B,H)
  void forward(const Tensor& x, const std::vector<size_t>& lengths, const RnnState* s0,
               Tensor& out, RnnState sn[2], Cache* cache) const;
  // dout: (B,T,2H) or empty, dsn: {fwd, bwd} (entries may be empty) -> dx, ds0[2]
  void backward(const Tensor& dout, const RnnState dsn[2], const Cache& cache, Tensor& dx,
                RnnState ds0[2]);
  // backward() without the parameter grads: dx and ds0 only
  void backward_input(const Tensor& dout, const RnnState dsn[2], const Cache& cache, Tensor& dx,
                      RnnState ds0[2]) const;

  // The same split as the single direction's (forward = project_input + forward_gates,
  // backward_input = backward_gates + input_grad_from), both directions' projections in input
  // order (the reverse direction reverses its own within each sequence):
  // x (B,T,I) -> gi[2]: {fwd, bwd} (B,T,G) each
  void project_input(const Tensor& x, Tensor gi[2]) const;
  // gi[2] (B,T,G) -> out (B,T,2H), sn[2] as forward(); the cache serves backward_gates() and
  // backward_input(), not backward()
  void forward_gates(const Tensor gi[2], const std::vector<size_t>& lengths, const RnnState* s0,
                     Tensor& out, RnnState sn[2], Cache* cache) const;
  // dout: (B,T,2H), dsn[2] -> dgi[2]: d/d(gi[2]) (B,T,G) each, in input order; ds0[2]
  void backward_gates(const Tensor& dout, const RnnState dsn[2], const Cache& cache, Tensor dgi[2],
                      RnnState ds0[2]) const;
  // dgi[2] (B,T,G) -> dx (B,T,I) = dgi[0] W_ih(fwd) + dgi[1] W_ih(bwd)
  Tensor input_grad_from(const Tensor dgi[2]) const;
  RNN fwd, bwd;

 private:
  // of (B,T,H) and obr (B,T,H) in reversed order -> out (B,T,2H)
  static Tensor merge_out(const Tensor& of, const Tensor& obr, const std::vector<size_t>& len);
  void split_dout(const Tensor& dout, const Cache& cache, Tensor& dof, Tensor& dob) const;
  static Tensor merge_dx(Tensor dxf, const Tensor& dxr, const Cache& cache);
  // backward() and backward_input() through each direction's `step` (see rnn.cpp)
  template <class Step>
  void backward_both(Step step, const Tensor& dout, const RnnState dsn[2], const Cache& cache,
                     Tensor& dx, RnnState ds0[2]) const;
};
using BiGRU = Bidirectional<GRU>;
using BiLSTM = Bidirectional<LSTM>;

extern template class Bidirectional<GRU>;
extern template class Bidirectional<LSTM>;

}  // namespace attnlab::nn
