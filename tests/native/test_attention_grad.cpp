// Finite-difference gradient checks for every attention mechanism, every input
// and every parameter, at several shapes incl. length 1 and partly masked rows.
// Loss = sum(out * R) (+ sum(weights * RW) where the API takes a weights gradient).
#include "attention_test_util.hpp"

#include "attnlab/attention/attend.hpp"
#include "attnlab/attention/local.hpp"
#include "attnlab/attention/multihead.hpp"
#include "attnlab/attention/pooling.hpp"
#include "attnlab/attention/relative.hpp"

using namespace attn_test;

static ::testing::Environment* const kSummary =
    ::testing::AddGlobalTestEnvironment(new GradSummary);

namespace {

struct AttShape {
  size_t B, Tq, S;
  std::vector<size_t> lengths;
  bool causal;
  bool bool_mask;  // a (B,Tq,S) ignore mask with one fully masked row
  std::string label() const {
    return "B" + std::to_string(B) + "T" + std::to_string(Tq) + "S" + std::to_string(S) +
           (lengths.empty() ? "" : "+len") + (causal ? "+causal" : "") + (bool_mask ? "+bool" : "");
  }
};

const std::vector<AttShape> kAttShapes = {
    {2, 3, 5, {5, 3}, false, false},
    {1, 1, 1, {}, false, false},
    {2, 4, 4, {4, 2}, true, false},
    {2, 3, 4, {}, false, true},
};

AttendMask make_mask(const AttShape& s) {
  AttendMask m;
  m.lengths = s.lengths;
  m.causal = s.causal;
  if (s.bool_mask) {
    m.ignore = xt::zeros<bool>({s.B, s.Tq, s.S});
    m.ignore(0, 0, 1) = true;
    m.ignore(0, 1, 0) = true;
    for (size_t j = 0; j < s.S; ++j) m.ignore(1, 2, j) = true;  // fully masked row
  }
  return m;
}

}  // namespace

class AttendGrad : public ::testing::TestWithParam<std::string> {};

TEST_P(AttendGrad, EveryInputAndParameter) {
  const ScoreKind kind = parse_score_kind(GetParam());
  for (const AttShape& sh : kAttShapes) {
    Rng rng(7 + sh.B * 13 + sh.S);
    const size_t Dq = 4, Dv = 3;
    const size_t Dk = (kind == ScoreKind::General || kind == ScoreKind::Additive) ? 6 : Dq;
    Attention att({kind, Dq, Dk, 5, 6}, rng);
    ParamList pl;
    att.collect(pl, "");
    randomize(pl, rng);
    Tensor3 q = randn3(sh.B, sh.Tq, Dq, rng), k = randn3(sh.B, sh.S, Dk, rng),
            v = randn3(sh.B, sh.S, Dv, rng);
    Tensor3 R = randn3(sh.B, sh.Tq, Dv, rng), RW = randn3(sh.B, sh.Tq, sh.S, rng);
    const AttendMask mask = make_mask(sh);
    auto loss = [&] {
      AttendResult r = att.forward(q, k, v, mask);
      return dotd(r.out, R) + dotd(r.weights, RW);
    };
    Attention::Cache cache;
    AttendResult r = att.forward(q, k, v, mask, &cache);
    ASSERT_TRUE(all_finite(r.out.data(), r.out.size()));
    pl.zero_grad();
    Tensor3 dq, dk, dv;
    att.backward(R, cache, dq, dk, dv, &RW);
    const std::string tag = std::string(score_kind_name(kind)) + " " + sh.label();
    check_grad(tag + " dq", q.data(), dq.data(), q.size(), loss);
    check_grad(tag + " dk", k.data(), dk.data(), k.size(), loss);
    check_grad(tag + " dv", v.data(), dv.data(), v.size(), loss);
    for (auto& it : pl.items())
      check_grad(tag + " d" + it.first, it.second->data(), it.second->gdata(), it.second->size(),
                 loss);
  }
}

INSTANTIATE_TEST_SUITE_P(Scores, AttendGrad, ::testing::ValuesIn(score_names()));  // the score table

struct LocalCase {
  LocalMode mode;
  ScoreKind kind;
  size_t B, T, S, D;
  std::vector<size_t> lengths;
};

TEST(LocalAttentionGrad, MonotonicAndPredictive) {
  const std::vector<LocalCase> cases = {
      {LocalMode::Monotonic, ScoreKind::General, 2, 4, 6, 1, {6, 4}},
      {LocalMode::Monotonic, ScoreKind::ScaledDot, 1, 1, 1, 1, {}},
      {LocalMode::Monotonic, ScoreKind::Additive, 2, 5, 3, 1, {}},
      {LocalMode::Predictive, ScoreKind::General, 2, 4, 7, 2, {7, 4}},
      {LocalMode::Predictive, ScoreKind::Additive, 2, 3, 5, 1, {}},
      {LocalMode::Predictive, ScoreKind::Dot, 1, 1, 1, 1, {}},
      {LocalMode::Predictive, ScoreKind::Cosine, 1, 2, 9, 3, {}},
  };
  int ci = 0;
  for (const LocalCase& lc : cases) {
    Rng rng(100 + ci++);
    const size_t Dq = 4, Dv = 3;
    const size_t Dk = (lc.kind == ScoreKind::General || lc.kind == ScoreKind::Additive) ? 5 : Dq;
    LocalConfig cfg;
    cfg.mode = lc.mode;
    cfg.window = lc.D;
    cfg.score = {lc.kind, Dq, Dk, 4, 0};
    cfg.predictor_dim = 3;
    LocalAttention la(cfg, rng);
    ParamList pl;
    la.collect(pl, "");
    randomize(pl, rng, 0.7f);
    Tensor3 q = randn3(lc.B, lc.T, Dq, rng), k = randn3(lc.B, lc.S, Dk, rng),
            v = randn3(lc.B, lc.S, Dv, rng), R = randn3(lc.B, lc.T, Dv, rng);
    auto loss = [&] { return dotd(la.forward(q, k, v, lc.lengths).out, R); };
    LocalAttention::Cache cache;
    la.forward(q, k, v, lc.lengths, &cache);
    pl.zero_grad();
    Tensor3 dq, dk, dv;
    la.backward(R, cache, dq, dk, dv);
    const std::string tag = std::string(lc.mode == LocalMode::Monotonic ? "local-m " : "local-p ") +
                            score_kind_name(lc.kind) + " B" + std::to_string(lc.B) + "T" +
                            std::to_string(lc.T) + "S" + std::to_string(lc.S);
    // small eps: the window edges move with p_t (piecewise constant), stay away from them
    const float eps = lc.mode == LocalMode::Predictive ? 2e-3f : 1e-2f;
    check_grad(tag + " dq", q.data(), dq.data(), q.size(), loss, eps);
    check_grad(tag + " dk", k.data(), dk.data(), k.size(), loss, eps);
    check_grad(tag + " dv", v.data(), dv.data(), v.size(), loss, eps);
    for (auto& it : pl.items())
      check_grad(tag + " d" + it.first, it.second->data(), it.second->gdata(), it.second->size(),
                 loss, eps);
  }
}

TEST(ContextPoolingGrad, WithLengthsAndWeights) {
  struct C { size_t B, T, D, A; std::vector<size_t> len; };
  for (const C& c : {C{2, 4, 3, 5, {4, 2}}, C{1, 1, 2, 3, {}}, C{3, 5, 4, 2, {1, 5, 3}}}) {
    Rng rng(31 + c.T);
    ContextPooling pool(c.D, c.A, rng);
    ParamList pl;
    pool.collect(pl, "");
    randomize(pl, rng);
    Tensor3 h = randn3(c.B, c.T, c.D, rng);
    Tensor2 R = randn2(c.B, c.D, rng), RW = randn2(c.B, c.T, rng);
    auto loss = [&] {
      PoolingResult r = pool.forward(h, c.len);
      return dotd(r.out, R) + dotd(r.weights, RW);
    };
    ContextPooling::Cache cache;
    pool.forward(h, c.len, &cache);
    pl.zero_grad();
    Tensor3 dh;
    pool.backward(R, cache, dh, &RW);
    // the input-gradient-only form: the same dh bit for bit, parameter grads untouched
    std::vector<float> before;
    for (auto& it : pl.items()) before.insert(before.end(), it.second->gdata(), it.second->gdata() + it.second->size());
    Tensor3 dh_in;
    pool.backward_input(R, cache, dh_in, &RW);
    ASSERT_EQ(dh_in.shape(), dh.shape());
    for (size_t i = 0; i < dh.size(); ++i) ASSERT_EQ(dh_in.data()[i], dh.data()[i]) << "dh at " << i;
    std::vector<float> after;
    for (auto& it : pl.items()) after.insert(after.end(), it.second->gdata(), it.second->gdata() + it.second->size());
    EXPECT_EQ(after, before);
    const std::string tag = "pooling B" + std::to_string(c.B) + "T" + std::to_string(c.T);
    check_grad(tag + " dh", h.data(), dh.data(), h.size(), loss);
    check_grad(tag + " dh (backward_input)", h.data(), dh_in.data(), h.size(), loss);
    for (auto& it : pl.items())
      check_grad(tag + " d" + it.first, it.second->data(), it.second->gdata(), it.second->size(),
                 loss);
  }
}

namespace {
struct MhaCase {
  std::string name;
  size_t B, T, S, E, H;
  bool self;
  bool kpm, bool_mask, float_mask_heads, causal, average;
  DisagreementWeights reg;
};

void run_mha_grad(const MhaCase& mc) {
  Rng rng(555 + mc.T * 3 + mc.H);
  MultiheadAttention mha(mc.E, mc.H, rng);
  ParamList pl;
  mha.collect(pl, "");
  randomize(pl, rng);
  Tensor3 q = randn3(mc.B, mc.T, mc.E, rng), k = randn3(mc.B, mc.S, mc.E, rng),
          v = randn3(mc.B, mc.S, mc.E, rng), R = randn3(mc.B, mc.T, mc.E, rng);
  MhaOptions opt;
  opt.average_attn_weights = mc.average;
  opt.is_causal = mc.causal;
  if (mc.kpm) {
    opt.key_padding_mask = xt::zeros<bool>({mc.B, mc.S});
    opt.key_padding_mask(mc.B - 1, mc.S - 1) = true;
  }
  if (mc.bool_mask) {
    opt.attn_mask_bool = xt::zeros<bool>({mc.T, mc.S});
    opt.attn_mask_bool(0, 0) = true;
  }
  if (mc.float_mask_heads) {
    xt::xarray<float> fm = xt::zeros<float>({mc.B * mc.H, mc.T, mc.S});
    for (auto& x : fm) x = rng.normal(0.f, 1.f);
    fm(0, 0, 0) = kNegInf;
    opt.attn_mask_float = fm;
  }
  const Tensor3& kk = mc.self ? q : k;
  const Tensor3& vv = mc.self ? q : v;
  // loss also reads the returned weights (averaged or per head) through RW
  xt::xarray<float> RW = mc.average ? xt::xarray<float>::from_shape({mc.B, mc.T, mc.S})
                                    : xt::xarray<float>::from_shape({mc.B, mc.H, mc.T, mc.S});
  for (auto& e : RW) e = rng.normal(0.f, 1.f);
  auto wloss = [&](const MhaResult& r) {
    return mc.average ? dotd(r.weights.data(), RW.data(), RW.size())
                      : dotd(r.head_weights.data(), RW.data(), RW.size());
  };
  auto loss = [&] {
    MultiheadAttention::Cache c;
    MhaResult r = mha.forward(q, kk, vv, opt, &c);
    return dotd(r.out, R) + wloss(r) + double(mha.disagreement(c).weighted(mc.reg));
  };
  MultiheadAttention::Cache cache;
  mha.forward(q, kk, vv, opt, &cache);
  pl.zero_grad();
  Tensor3 dq, dk, dv;
  mha.backward(R, cache, dq, dk, dv, mc.reg.any() ? &mc.reg : nullptr, &RW);
  if (mc.self) {
    Tensor3 dx = dq;
    for (size_t i = 0; i < dx.size(); ++i) dx.data()[i] += dk.data()[i] + dv.data()[i];
    check_grad(mc.name + " dx", q.data(), dx.data(), q.size(), loss);
  } else {
    check_grad(mc.name + " dquery", q.data(), dq.data(), q.size(), loss);
    check_grad(mc.name + " dkey", k.data(), dk.data(), k.size(), loss);
    check_grad(mc.name + " dvalue", v.data(), dv.data(), v.size(), loss);
  }
  for (auto& it : pl.items())
    check_grad(mc.name + " d" + it.first, it.second->data(), it.second->gdata(), it.second->size(),
               loss);
}
}  // namespace

TEST(MultiheadAttentionGrad, MasksAndModes) {
  const std::vector<MhaCase> cases = {
      {"mha cross kpm+bool avg", 2, 3, 4, 8, 2, false, true, true, false, false, true, {}},
      {"mha self kpm+causal heads", 2, 4, 4, 6, 3, true, true, false, false, true, false, {}},
      {"mha cross float-per-head", 2, 2, 3, 4, 2, false, false, false, true, false, true, {}},
      {"mha length-1", 1, 1, 1, 4, 2, false, false, false, false, false, true, {}},
      {"mha self 1 head", 1, 3, 3, 4, 1, true, false, false, false, true, true, {}},
  };
  for (const auto& c : cases) run_mha_grad(c);
}

TEST(MultiheadAttentionGrad, DisagreementRegularization) {
  const std::vector<MhaCase> cases = {
      {"reg subspace", 2, 3, 4, 8, 2, false, true, false, false, false, true, {0.7f, 0.f, 0.f}},
      {"reg position", 2, 3, 4, 8, 4, false, true, false, false, true, true, {0.f, 0.9f, 0.f}},
      {"reg output", 2, 3, 4, 6, 3, false, false, false, false, false, true, {0.f, 0.f, 1.3f}},
      {"reg all self", 2, 4, 4, 8, 2, true, true, false, false, true, true, {0.5f, 0.5f, 0.5f}},
  };
  for (const auto& c : cases) run_mha_grad(c);
}

TEST(DisagreementGrad, RawTermsOnStridedHeads) {
  Rng rng(9);
  const size_t H = 3, rows = 4, cols = 2, ld = H * cols + 1;
  std::vector<float> x(rows * ld), dx(rows * ld, 0.f);
  for (auto& e : x) e = rng.normal(0.f, 1.f);
  auto fcos = [&] { return double(mean_pairwise_cosine(H, rows, cols, x.data(), cols, ld, nullptr, 0.f)); };
  mean_pairwise_cosine(H, rows, cols, x.data(), cols, ld, dx.data(), 1.f);
  // padding column (index ld-1) is not part of any head: its grad must stay 0
  for (size_t r = 0; r < rows; ++r) EXPECT_EQ(dx[r * ld + ld - 1], 0.f);
  check_grad("mean_pairwise_cosine", x.data(), dx.data(), x.size(), fcos);
  // cosine of a head with itself is 1: H identical heads give exactly 1
  std::vector<float> same(rows * cols * H);
  for (size_t h = 0; h < H; ++h)
    for (size_t i = 0; i < rows * cols; ++i) same[h * rows * cols + i] = float(i) + 1.f;
  EXPECT_NEAR(mean_pairwise_cosine(H, rows, cols * 1, same.data(), rows * cols, cols, nullptr, 0.f),
              1.0, 1e-6);
  std::vector<float> a(H * 6), da(H * 6, 0.f);
  for (auto& e : a) e = rng.uniform(0.f, 1.f);
  auto fprod = [&] { return double(mean_pairwise_product(H, 6, a.data(), 6, nullptr, 0.f)); };
  mean_pairwise_product(H, 6, a.data(), 6, da.data(), 1.f);
  check_grad("mean_pairwise_product", a.data(), da.data(), a.size(), fprod);
}

TEST(RelMultiheadAttentionGrad, WithAndWithoutMemory) {
  struct C { size_t B, T, M, E, H, Dh; };
  for (const C& c : {C{2, 3, 2, 8, 2, 0}, C{1, 1, 0, 4, 1, 0}, C{2, 2, 3, 6, 2, 5}, C{1, 4, 0, 4, 2, 2}}) {
    Rng rng(77 + c.T + c.M);
    RelMultiheadAttention rel({c.E, c.H, c.Dh, 8}, rng);
    ParamList pl;
    rel.collect(pl, "");
    randomize(pl, rng);
    if (c.M) rel.set_memory(randn3(c.B, c.M, c.E, rng));
    Tensor3 x = randn3(c.B, c.T, c.E, rng), R = randn3(c.B, c.T, c.E, rng);
    const Tensor3 mem_before = rel.memory();
    auto loss = [&] { return dotd(rel.forward(x, nullptr, false), R); };
    RelMultiheadAttention::Cache cache;
    rel.forward(x, &cache, false);
    pl.zero_grad();
    Tensor3 dx;
    rel.backward(R, cache, dx);
    const std::string tag = "relxl B" + std::to_string(c.B) + "T" + std::to_string(c.T) + "M" +
                            std::to_string(c.M) + "Dh" + std::to_string(c.Dh);
    check_grad(tag + " dx", x.data(), dx.data(), x.size(), loss);
    for (auto& it : pl.items())
      check_grad(tag + " d" + it.first, it.second->data(), it.second->gdata(), it.second->size(),
                 loss);
    EXPECT_EQ(rel.memory(), mem_before) << "forward with update_memory=false changed the memory";
  }
}
