// A recurrent layer whose kind is chosen at run time, from a model's config: GRU or LSTM,
// one direction or both (PyTorch's nn.GRU / nn.LSTM with bidirectional=...). A model
// holds one Recurrent where it would otherwise hold one member per kind and branch on
// the kind at every use; the branches live here, once.
//
// States are h (B, D*H) and, for LSTM, c (B, D*H): with D = 2 directions the final
// states of the forward and the backward direction side by side (the layout a decoder
// initialised from a bidirectional encoder takes). Parameter names are PyTorch's
// (weight_ih_l0, ..., "_l0_reverse" for the backward direction).
#pragma once
#include <string>
#include <vector>

#include "attnlab/nn/rnn.hpp"

namespace attnlab::nn {

class Recurrent {
 public:
  enum class Kind { GRU, LSTM };
  // "gru" | "lstm"; anything else is an Error naming both
  static Kind parse_kind(const std::string& s);

  struct Cache {
    GRU::Cache gru;
    LSTM::Cache lstm;
    BiGRU::Cache bgru;
    BiLSTM::Cache blstm;
  };
  // The raw parameters of one direction, for inference paths that run the cells themselves.
  struct Weights {
    const float* w_ih;  // (G*H, I)
    const float* w_hh;  // (G*H, H)
    const float* b_ih;  // (G*H)
    const float* b_hh;  // (G*H)
  };

  Recurrent() = default;
  Recurrent(Kind kind, bool bidirectional, size_t input, size_t hidden, Rng& rng);
  // weight_ih (G,I), weight_hh (G,H), two biases (G) per direction, G = gates * H
  static uint64_t param_count(Kind kind, bool bidirectional, size_t input, size_t hidden) {
    const uint64_t G = uint64_t(kind == Kind::LSTM ? 4 : 3) * hidden;
    return (bidirectional ? 2 : 1) * G * (uint64_t(input) + hidden + 2);
  }
  void collect(ParamList& out, const std::string& prefix);

  // x: (B,T,I), lengths (B) or empty, s0: (B, D*H) states or nullptr (zeros)
  //   -> out: (B,T,D*H), sn: (B, D*H)
  void forward(const Tensor& x, const std::vector<size_t>& lengths, const RnnState* s0,
               Tensor& out, RnnState& sn, Cache* cache) const;
  // dout: (B,T,D*H) or empty, dsn: (B, D*H) (c empty for GRU) -> dx: (B,T,I), ds0: (B, D*H)
  void backward(const Tensor& dout, const RnnState& dsn, const Cache& cache, Tensor& dx,
                RnnState& ds0);

  // ---- inference on raw pointers
  Weights weights(size_t direction) const;
  // One cell update of a direction: gi (G*H) = W_ih x + b_ih, computed by the caller;
  // h, c (H) -> hout, cout (H) (may alias h, c; c, cout unused for GRU); work: (2G+1)*H floats.
  void cell(size_t direction, const float* gi, const float* h, const float* c, float* hout,
            float* cout, float* work) const;

  Kind kind() const { return kind_; }
  bool lstm() const { return kind_ == Kind::LSTM; }
  bool bidirectional() const { return bi_; }
  size_t directions() const { return bi_ ? 2 : 1; }
  size_t gates() const { return lstm() ? LSTM::kGates : GRU::kGates; }
  size_t input_size() const { return input_; }
  size_t hidden_size() const { return hidden_; }  // per direction
  size_t output_size() const { return directions() * hidden_; }

 private:
  Kind kind_ = Kind::GRU;
  bool bi_ = false;
  size_t input_ = 0, hidden_ = 0;
  GRU gru_;
  LSTM lstm_;
  BiGRU bgru_;
  BiLSTM blstm_;
};

}  // namespace attnlab::nn
