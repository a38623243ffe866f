// GRU / LSTM / cells / bidirectional: finite-difference gradient checks at
// several shapes (T=1, partly padded batches, with and without initial state), of backward and
// of backward_input (the input gradient alone, equal to backward's bit for bit), of the split
// entry points (project_input / forward_gates, backward_gates / input_grad_from)
// and parity with PyTorch (nn.GRU / nn.LSTM + pack_padded_sequence) on the
// committed fixture tests/fixtures/nn_rnn.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attnlab/nn/rnn.hpp"
#include "nn_test_util.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using namespace attnlab::testutil;

namespace {

// every parameter's grad, concatenated
std::vector<float> all_grads(ParamList& ps) {
  std::vector<float> g;
  for (auto& it : ps.items()) g.insert(g.end(), it.second->gdata(), it.second->gdata() + it.second->size());
  return g;
}
void expect_same(const Tensor& a, const Tensor& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.data()[i], b.data()[i]) << what << " at " << i;
}
void expect_close(const Tensor& a, const Tensor& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a.data()[i], b.data()[i], 1e-6 * (1 + std::fabs(b.data()[i]))) << what << " at " << i;
}

struct Shape4 {
  size_t B, T, I, H;
  std::vector<size_t> lengths;
  bool with_s0;
};

const std::vector<Shape4> kShapes = {
    {2, 1, 3, 4, {}, false},           // length 1
    {3, 5, 4, 6, {5, 2, 1}, true},     // partly padded, initial state
    {2, 4, 5, 3, {4, 4}, false},       // full lengths
    {4, 6, 3, 5, {3, 6, 1, 4}, true},  // unsorted lengths
};

template <class RNN>
double gradcheck_uni(const Shape4& s, uint64_t seed) {
  Rng rng(seed);
  RNN rnn(s.I, s.H, rng);
  ParamList ps;
  rnn.collect(ps, "");
  Tensor x = random_tensor({s.B, s.T, s.I}, rng);
  RnnState s0;
  if (s.with_s0) {
    s0.h = random_tensor({s.B, s.H}, rng, 0.5f);
    if (RNN::kHasCell) s0.c = random_tensor({s.B, s.H}, rng, 0.5f);
  }
  const Tensor R = random_tensor({s.B, s.T, s.H}, rng);
  const Tensor Rh = random_tensor({s.B, s.H}, rng);
  const Tensor Rc = random_tensor({s.B, s.H}, rng);
  // sum(out * R) plus the final state times Rh (and Rc)
  auto projected = [&](const Tensor& out, const RnnState& sn) {
    double l = dot_sum(out, R) + dot_sum(sn.h, Rh);
    if (RNN::kHasCell) l += dot_sum(sn.c, Rc);
    return l;
  };
  auto loss = [&]() {
    Tensor out;
    RnnState sn;
    rnn.forward(x, s.lengths, s.with_s0 ? &s0 : nullptr, out, sn, nullptr);
    return projected(out, sn);
  };
  typename RNN::Cache cache;
  Tensor out, dx;
  RnnState sn, ds0, dsn;
  rnn.forward(x, s.lengths, s.with_s0 ? &s0 : nullptr, out, sn, &cache);
  // outputs past each length are exactly zero
  for (size_t b = 0; b < s.B; ++b)
    for (size_t t = s.lengths.empty() ? s.T : s.lengths[b]; t < s.T; ++t)
      for (size_t j = 0; j < s.H; ++j) EXPECT_EQ(out(b, t, j), 0.f);
  ps.zero_grad();
  dsn.h = Rh;
  if (RNN::kHasCell) dsn.c = Rc;
  rnn.backward(R, dsn, cache, dx, ds0);
  // the input-gradient-only form: the same dx and ds0, bit for bit, and no parameter grads
  const std::vector<float> grads_before = all_grads(ps);
  Tensor dx_in;
  RnnState ds0_in;
  rnn.backward_input(R, dsn, cache, dx_in, ds0_in);
  expect_same(dx_in, dx, "backward_input dx");
  expect_same(ds0_in.h, ds0.h, "backward_input ds0.h");
  if (RNN::kHasCell) expect_same(ds0_in.c, ds0.c, "backward_input ds0.c");
  EXPECT_EQ(all_grads(ps), grads_before) << "backward_input changed a parameter grad";
  // the split entry points: forward = forward_gates(project_input(x)) and backward_input =
  // input_grad_from(backward_gates), bit for bit; d/d(gi) against finite differences below
  Tensor gi = rnn.project_input(x);
  typename RNN::Cache gcache;
  Tensor gout, dgi;
  RnnState gsn, ds0_g;
  rnn.forward_gates(gi, s.lengths, s.with_s0 ? &s0 : nullptr, gout, gsn, &gcache);
  expect_same(gout, out, "forward_gates out");
  expect_same(gsn.h, sn.h, "forward_gates sn.h");
  rnn.backward_gates(R, dsn, gcache, dgi, ds0_g);
  expect_same(rnn.input_grad_from(dgi), dx_in, "input_grad_from(backward_gates)");
  expect_same(ds0_g.h, ds0.h, "backward_gates ds0.h");
  {  // a forward_gates cache has no input: backward (dW_ih) is an Error, grads untouched
    Tensor dxx;
    RnnState dd;
    EXPECT_THROW(rnn.backward(R, dsn, gcache, dxx, dd), Error);
    EXPECT_EQ(all_grads(ps), grads_before) << "a failed backward changed a parameter grad";
  }
  auto gate_loss = [&]() {
    Tensor o;
    RnnState sg;
    rnn.forward_gates(gi, s.lengths, s.with_s0 ? &s0 : nullptr, o, sg, nullptr);
    return projected(o, sg);
  };
  std::vector<GradTarget> tg_gates = {tensor_target("gi (backward_gates)", gi, dgi)};
  const double worst_gates = check_grads(gate_loss, tg_gates);
  std::vector<GradTarget> tg;
  tg.push_back(tensor_target("x", x, dx));
  tg.push_back(tensor_target("x (backward_input)", x, dx_in));
  if (s.with_s0) {
    tg.push_back(tensor_target("h0", s0.h, ds0.h));
    if (RNN::kHasCell) tg.push_back(tensor_target("c0", s0.c, ds0.c));
  }
  for (auto& it : ps.items()) tg.push_back(param_target(it.first, *it.second));
  return std::max(worst_gates, check_grads(loss, tg));
}

template <class RNN>
double gradcheck_bi(const Shape4& s, uint64_t seed) {
  Rng rng(seed);
  Bidirectional<RNN> rnn(s.I, s.H, rng);
  ParamList ps;
  rnn.collect(ps, "");
  Tensor x = random_tensor({s.B, s.T, s.I}, rng);
  RnnState s0[2];
  for (auto& st : s0) {
    st.h = random_tensor({s.B, s.H}, rng, 0.5f);
    if (RNN::kHasCell) st.c = random_tensor({s.B, s.H}, rng, 0.5f);
  }
  const Tensor R = random_tensor({s.B, s.T, 2 * s.H}, rng);
  Tensor Rh[2] = {random_tensor({s.B, s.H}, rng), random_tensor({s.B, s.H}, rng)};
  Tensor Rc[2] = {random_tensor({s.B, s.H}, rng), random_tensor({s.B, s.H}, rng)};
  // sum(out * R) plus each direction's final state times Rh (and Rc)
  auto projected = [&](const Tensor& out, const RnnState (&sn)[2]) {
    double l = dot_sum(out, R);
    for (int d = 0; d < 2; ++d) {
      l += dot_sum(sn[d].h, Rh[d]);
      if (RNN::kHasCell) l += dot_sum(sn[d].c, Rc[d]);
    }
    return l;
  };
  auto loss = [&]() {
    Tensor out;
    RnnState sn[2];
    rnn.forward(x, s.lengths, s.with_s0 ? s0 : nullptr, out, sn, nullptr);
    return projected(out, sn);
  };
  typename Bidirectional<RNN>::Cache cache;
  Tensor out, dx;
  RnnState sn[2], ds0[2], dsn[2];
  rnn.forward(x, s.lengths, s.with_s0 ? s0 : nullptr, out, sn, &cache);
  ps.zero_grad();
  for (int d = 0; d < 2; ++d) {
    dsn[d].h = Rh[d];
    if (RNN::kHasCell) dsn[d].c = Rc[d];
  }
  rnn.backward(R, dsn, cache, dx, ds0);
  const std::vector<float> grads_before = all_grads(ps);
  Tensor dx_in;
  RnnState ds0_in[2];
  rnn.backward_input(R, dsn, cache, dx_in, ds0_in);
  expect_same(dx_in, dx, "bidirectional backward_input dx");
  for (int d = 0; d < 2; ++d) {
    expect_same(ds0_in[d].h, ds0[d].h, "bidirectional backward_input ds0.h");
    if (RNN::kHasCell) expect_same(ds0_in[d].c, ds0[d].c, "bidirectional backward_input ds0.c");
  }
  EXPECT_EQ(all_grads(ps), grads_before) << "backward_input changed a parameter grad";
  // the split entry points, both directions' projections in input order: forward_gates gives
  // forward's output bit for bit; input_grad_from(backward_gates) gives backward_input's dx (to
  // rounding: the reverse direction's rows meet the gemm in another order)
  Tensor gi[2];
  rnn.project_input(x, gi);
  typename Bidirectional<RNN>::Cache gcache;
  Tensor gout, dgi[2];
  RnnState gsn[2], ds0_g[2];
  rnn.forward_gates(gi, s.lengths, s.with_s0 ? s0 : nullptr, gout, gsn, &gcache);
  expect_same(gout, out, "bidirectional forward_gates out");
  rnn.backward_gates(R, dsn, gcache, dgi, ds0_g);
  expect_close(rnn.input_grad_from(dgi), dx_in, "bidirectional input_grad_from(backward_gates)");
  for (int d = 0; d < 2; ++d) expect_same(ds0_g[d].h, ds0[d].h, "bidirectional backward_gates ds0.h");
  auto gate_loss = [&]() {
    Tensor o;
    RnnState sg[2];
    rnn.forward_gates(gi, s.lengths, s.with_s0 ? s0 : nullptr, o, sg, nullptr);
    return projected(o, sg);
  };
  std::vector<GradTarget> tg_gates = {tensor_target("gi fwd (backward_gates)", gi[0], dgi[0]),
                                      tensor_target("gi bwd (backward_gates)", gi[1], dgi[1])};
  const double worst_gates = check_grads(gate_loss, tg_gates);
  std::vector<GradTarget> tg;
  tg.push_back(tensor_target("x", x, dx));
  tg.push_back(tensor_target("x (backward_input)", x, dx_in));
  if (s.with_s0)
    for (int d = 0; d < 2; ++d) {
      tg.push_back(tensor_target("h0", s0[d].h, ds0[d].h));
      if (RNN::kHasCell) tg.push_back(tensor_target("c0", s0[d].c, ds0[d].c));
    }
  for (auto& it : ps.items()) tg.push_back(param_target(it.first, *it.second));
  return std::max(worst_gates, check_grads(loss, tg));
}

}  // namespace

// one row per layer kind: its gradient check over every shape, seeds from seed0
struct GradKind {
  const char* name;
  double (*check)(const Shape4&, uint64_t);
  uint64_t seed0;
};
const GradKind kGradKinds[] = {{"GRU", gradcheck_uni<GRU>, 10},
                               {"LSTM", gradcheck_uni<LSTM>, 20},
                               {"BiGRU", gradcheck_bi<GRU>, 30},
                               {"BiLSTM", gradcheck_bi<LSTM>, 40}};

class NnRnnGradKinds : public ::testing::TestWithParam<GradKind> {};

TEST_P(NnRnnGradKinds, EveryShape) {
  const GradKind& g = GetParam();
  double w = 0;
  for (size_t i = 0; i < kShapes.size(); ++i) w = std::max(w, g.check(kShapes[i], g.seed0 + i));
  std::printf("[grad] %s worst relative error %.3g\n", g.name, w);
}
INSTANTIATE_TEST_SUITE_P(NnRnnGrad, NnRnnGradKinds, ::testing::ValuesIn(kGradKinds),
                         [](const ::testing::TestParamInfo<GradKind>& i) { return i.param.name; });

template <class CellT, bool kLstm>
double gradcheck_cell(uint64_t seed) {
  Rng rng(seed);
  const size_t B = 3, I = 4, H = 5;
  CellT cell(I, H, rng);
  ParamList ps;
  cell.collect(ps, "cell.");
  EXPECT_NO_THROW(ps.get("cell.weight_ih"));  // torch nn.GRUCell / nn.LSTMCell names
  Tensor x = random_tensor({B, I}, rng);
  RnnState s;
  s.h = random_tensor({B, H}, rng);
  if (kLstm) s.c = random_tensor({B, H}, rng);
  const Tensor Rh = random_tensor({B, H}, rng), Rc = random_tensor({B, H}, rng);
  auto loss = [&]() {
    RnnState o = cell.forward(x, &s, nullptr);
    return dot_sum(o.h, Rh) + (kLstm ? dot_sum(o.c, Rc) : 0.0);
  };
  typename CellT::Cache cache;
  cell.forward(x, &s, &cache);
  ps.zero_grad();
  RnnState dsn, ds;
  dsn.h = Rh;
  if (kLstm) dsn.c = Rc;
  Tensor dx = cell.backward(dsn, cache, ds);
  EXPECT_EQ(dx.dimension(), 2u);
  std::vector<GradTarget> tg{tensor_target("x", x, dx), tensor_target("h", s.h, ds.h)};
  if (kLstm) tg.push_back(tensor_target("c", s.c, ds.c));
  for (auto& it : ps.items()) tg.push_back(param_target(it.first, *it.second));
  return check_grads(loss, tg);
}

TEST(NnRnnGrad, Cells) {
  const double a = gradcheck_cell<GRUCell, false>(5);
  const double b = gradcheck_cell<LSTMCell, true>(6);
  std::printf("[grad] GRUCell %.3g LSTMCell %.3g\n", a, b);
}

// step() (the inference path) matches the sequence forward step by step
TEST(NnRnn, StepMatchesForward) {
  Rng rng(3);
  const size_t B = 2, T = 4, I = 3, H = 5;
  GRU gru(I, H, rng);
  LSTM lstm(I, H, rng);
  const Tensor x = random_tensor({B, T, I}, rng);
  Tensor og, ol;
  RnnState sg, sl;
  gru.forward(x, {}, nullptr, og, sg, nullptr);
  lstm.forward(x, {}, nullptr, ol, sl, nullptr);
  std::vector<float> h(B * H, 0.f), hl(B * H, 0.f), cl(B * H, 0.f), xt(B * I);
  for (size_t t = 0; t < T; ++t) {
    for (size_t b = 0; b < B; ++b)
      for (size_t i = 0; i < I; ++i) xt[b * I + i] = x(b, t, i);
    gru.step(B, xt.data(), h.data(), h.data());
    lstm.step(B, xt.data(), hl.data(), cl.data(), hl.data(), cl.data());
    for (size_t b = 0; b < B; ++b)
      for (size_t j = 0; j < H; ++j) {
        EXPECT_NEAR(h[b * H + j], og(b, t, j), 1e-5);
        EXPECT_NEAR(hl[b * H + j], ol(b, t, j), 1e-5);
      }
  }
}

TEST(NnRnn, Errors) {
  Rng rng(1);
  GRU gru(3, 4, rng);
  Tensor out;
  RnnState sn;
  try {
    gru.forward(zeros({2, 5, 7}), {}, nullptr, out, sn, nullptr);
    FAIL() << "no error for a wrong input width";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected input (B,T,3)"), std::string::npos) << e.what();
  }
  try {
    gru.forward(zeros({2, 5, 3}), {5, 0}, nullptr, out, sn, nullptr);
    FAIL() << "no error for a zero length";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lengths in [1, 5]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gru.forward(zeros({2, 5, 3}), {5, 6}, nullptr, out, sn, nullptr), Error);
  EXPECT_THROW(gru.forward(zeros({2, 5, 3}), {5}, nullptr, out, sn, nullptr), Error);
  RnnState bad;
  bad.h = zeros({3, 4});
  EXPECT_THROW(gru.forward(zeros({2, 5, 3}), {}, &bad, out, sn, nullptr), Error);
}

// ------------------------------------------------------------ PyTorch parity
namespace {
void load_params(ParamList& ps, const json& params) {
  for (auto it = params.begin(); it != params.end(); ++it) {
    Param& p = ps.get(it.key());
    Tensor v = tensor_of(it.value());
    ASSERT_EQ(v.shape(), p.value.shape()) << it.key();
    p.value = v;
  }
  ASSERT_EQ(params.size(), ps.items().size());
}

template <class RNN>
void parity_case(const json& c, double& worst_out, double& worst_grad) {
  const size_t B = c["B"], I = c["I"], H = c["H"];
  const bool bi = c["bidirectional"];
  const std::vector<size_t> len = c["lengths"].get<std::vector<size_t>>();
  const Tensor x = tensor_of(c["x"]);
  const Tensor R = tensor_of(c["R"]), Rh = tensor_of(c["Rh"]);
  Tensor Rc;
  if (c.contains("Rc")) Rc = tensor_of(c["Rc"]);
  const size_t D = bi ? 2 : 1;
  // split torch's (D,B,H) tensors per direction
  auto dir = [&](const Tensor& t, size_t d) {
    Tensor o = empty({B, H});
    std::copy(t.data() + d * B * H, t.data() + (d + 1) * B * H, o.data());
    return o;
  };
  RnnState s0[2];
  const bool has_h0 = c.contains("h0");
  if (has_h0)
    for (size_t d = 0; d < D; ++d) {
      s0[d].h = dir(tensor_of(c["h0"]), d);
      if (c.contains("c0")) s0[d].c = dir(tensor_of(c["c0"]), d);
    }
  Rng rng(0);
  Tensor out, dx;
  RnnState sn[2], dsn[2], ds0[2];
  for (size_t d = 0; d < D; ++d) {
    dsn[d].h = dir(Rh, d);
    if (!is_empty(Rc)) dsn[d].c = dir(Rc, d);
  }
  ParamList ps;
  Bidirectional<RNN> birnn(I, H, rng);
  RNN unirnn(I, H, rng);
  if (bi) {
    auto& rnn = birnn;
    rnn.collect(ps, "");
    load_params(ps, c["params"]);
    typename Bidirectional<RNN>::Cache cache;
    rnn.forward(x, len, has_h0 ? s0 : nullptr, out, sn, &cache);
    ps.zero_grad();
    rnn.backward(R, dsn, cache, dx, ds0);
  } else {
    auto& rnn = unirnn;
    rnn.collect(ps, "");
    load_params(ps, c["params"]);
    typename RNN::Cache cache;
    rnn.forward(x, len, has_h0 ? s0 : nullptr, out, sn[0], &cache);
    ps.zero_grad();
    rnn.backward(R, dsn[0], cache, dx, ds0[0]);
  }
  auto stack = [&](const RnnState* s, bool cell) {
    Tensor o = empty({D, B, H});
    for (size_t d = 0; d < D; ++d) {
      const Tensor& t = cell ? s[d].c : s[d].h;
      std::copy(t.data(), t.data() + B * H, o.data() + d * B * H);
    }
    return o;
  };
  const double eo = std::max(max_err(out, c["out"]), max_err(stack(sn, false), c["hn"]));
  EXPECT_LT(eo, 2e-5) << c["kind"] << " bi=" << bi << " outputs";
  double eg = max_err(dx, c["dx"]);
  if (c.contains("cn")) {
    EXPECT_LT(max_err(stack(sn, true), c["cn"]), 2e-5);
  }
  if (has_h0) eg = std::max(eg, max_err(stack(ds0, false), c["dh0"]));
  if (c.contains("dc0")) eg = std::max(eg, max_err(stack(ds0, true), c["dc0"]));
  for (auto& it : ps.items()) {
    const double e = max_err(it.second->grad, c["grads"][it.first]);
    EXPECT_LT(e, 1e-4) << it.first;
    eg = std::max(eg, e);
  }
  EXPECT_LT(eg, 1e-4) << c["kind"] << " bi=" << bi << " grads";
  worst_out = std::max(worst_out, eo);
  worst_grad = std::max(worst_grad, eg);
}
}  // namespace

TEST(NnRnnParity, TorchGRUandLSTM) {
  const json fx = load_fixture("nn_rnn.json");
  double wo[2] = {0, 0}, wg[2] = {0, 0};
  size_t n = 0;
  for (const json& c : fx["cases"]) {
    if (c["kind"] == "gru") {
      parity_case<GRU>(c, wo[0], wg[0]);
    } else {
      parity_case<LSTM>(c, wo[1], wg[1]);
    }
    ++n;
  }
  EXPECT_EQ(n, 8u);
  std::printf("[parity] GRU max err out %.3g grad %.3g; LSTM out %.3g grad %.3g\n", wo[0], wg[0],
              wo[1], wg[1]);
}
