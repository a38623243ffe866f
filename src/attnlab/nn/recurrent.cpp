#include "attnlab/nn/recurrent.hpp"

#include <algorithm>

#include "attnlab/core/error.hpp"
#include "attnlab/kernels/kernels.hpp"

namespace attnlab::nn {

namespace k = attnlab::kernels;

namespace {
// a (B,H), b (B,H) -> (B,2H) = [a; b]
Tensor concat_cols(const Tensor& a, const Tensor& b) {
  const size_t B = a.shape()[0], H = a.shape()[1];
  Tensor o = empty({B, 2 * H});
  for (size_t r = 0; r < B; ++r) {
    std::copy(a.data() + r * H, a.data() + (r + 1) * H, o.data() + r * 2 * H);
    std::copy(b.data() + r * H, b.data() + (r + 1) * H, o.data() + r * 2 * H + H);
  }
  return o;
}
// (B,2H) -> halves
void split_cols(const Tensor& x, Tensor& a, Tensor& b) {
  const size_t B = x.shape()[0], H = x.shape()[1] / 2;
  a = empty({B, H});
  b = empty({B, H});
  for (size_t r = 0; r < B; ++r) {
    std::copy(x.data() + r * 2 * H, x.data() + r * 2 * H + H, a.data() + r * H);
    std::copy(x.data() + r * 2 * H + H, x.data() + (r + 1) * 2 * H, b.data() + r * H);
  }
}
bool given(const Tensor& t) { return t.size() > 0; }
}  // namespace

Recurrent::Kind Recurrent::parse_kind(const std::string& s) {
  if (s == "gru") return Kind::GRU;
  if (s == "lstm") return Kind::LSTM;
  throw Error("recurrent layer: expected 'gru' or 'lstm', got '" + s + "'");
}

Recurrent::Recurrent(Kind kind, bool bidirectional, size_t input, size_t hidden, Rng& rng)
    : kind_(kind), bi_(bidirectional), input_(input), hidden_(hidden) {
  if (bi_) {
    if (lstm()) blstm_ = BiLSTM(input, hidden, rng);
    else bgru_ = BiGRU(input, hidden, rng);
  } else {
    if (lstm()) lstm_ = LSTM(input, hidden, rng);
    else gru_ = GRU(input, hidden, rng);
  }
}

void Recurrent::collect(ParamList& out, const std::string& prefix) {
  if (bi_) {
    if (lstm()) blstm_.collect(out, prefix);
    else bgru_.collect(out, prefix);
  } else {
    if (lstm()) lstm_.collect(out, prefix);
    else gru_.collect(out, prefix);
  }
}

void Recurrent::forward(const Tensor& x, const std::vector<size_t>& lengths, const RnnState* s0,
                        Tensor& out, RnnState& sn, Cache* c) const {
  // x: (B,T,I) -> out: (B,T,D*H), sn: (B,D*H)
  if (!bi_) {
    if (lstm()) lstm_.forward(x, lengths, s0, out, sn, c ? &c->lstm : nullptr);
    else gru_.forward(x, lengths, s0, out, sn, c ? &c->gru : nullptr);
    return;
  }
  RnnState init[2], last[2];
  if (s0) {
    split_cols(s0->h, init[0].h, init[1].h);
    if (lstm()) split_cols(s0->c, init[0].c, init[1].c);
  }
  if (lstm()) blstm_.forward(x, lengths, s0 ? init : nullptr, out, last, c ? &c->blstm : nullptr);
  else bgru_.forward(x, lengths, s0 ? init : nullptr, out, last, c ? &c->bgru : nullptr);
  sn.h = concat_cols(last[0].h, last[1].h);
  if (lstm()) sn.c = concat_cols(last[0].c, last[1].c);
}

void Recurrent::backward(const Tensor& dout, const RnnState& dsn, const Cache& c, Tensor& dx,
                         RnnState& ds0) {
  // dout: (B,T,D*H), dsn: (B,D*H) -> dx: (B,T,I), ds0: (B,D*H)
  if (!bi_) {
    if (lstm()) lstm_.backward(dout, dsn, c.lstm, dx, ds0);
    else gru_.backward(dout, dsn, c.gru, dx, ds0);
    return;
  }
  RnnState d[2], d0[2];
  if (given(dsn.h)) split_cols(dsn.h, d[0].h, d[1].h);
  if (lstm() && given(dsn.c)) split_cols(dsn.c, d[0].c, d[1].c);
  if (lstm()) blstm_.backward(dout, d, c.blstm, dx, d0);
  else bgru_.backward(dout, d, c.bgru, dx, d0);
  ds0.h = concat_cols(d0[0].h, d0[1].h);
  if (lstm()) ds0.c = concat_cols(d0[0].c, d0[1].c);
}

Recurrent::Weights Recurrent::weights(size_t d) const {
  ATTNLAB_CHECK(d < directions(), "recurrent layer: direction ", d, " of ", directions());
  auto of = [](const auto& r) {
    return Weights{r.weight_ih.value.data(), r.weight_hh.value.data(), r.bias_ih.value.data(),
                   r.bias_hh.value.data()};
  };
  if (bi_) {
    if (lstm()) return of(d == 0 ? blstm_.fwd : blstm_.bwd);
    return of(d == 0 ? bgru_.fwd : bgru_.bwd);
  }
  return lstm() ? of(lstm_) : of(gru_);
}

void Recurrent::cell(size_t d, const float* gi, const float* h, const float* c, float* hout,
                     float* cout, float* work) const {
  // gi: (G*H) -> hout, cout: (H); work: (2G+1)*H
  const size_t H = hidden_, G = gates() * H;
  const Weights w = weights(d);
  std::copy(w.b_hh, w.b_hh + G, work);
  k::gemv(false, G, H, 1.f, w.w_hh, H, h, 1.f, work);  // gh = W_hh h + b_hh
  if (lstm()) lstm_update(H, gi, work, c, hout, cout, work + G);
  else gru_update(H, gi, work, h, hout, work + G);
}

}  // namespace attnlab::nn
