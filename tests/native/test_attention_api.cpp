// Attention API behaviour: fused == composed, mask semantics, weight rows sum to
// 1 (or 0 when fully masked, never NaN), bad input -> attnlab::Error, local
// windows, Transformer-XL against a naive formula and its segment memory.
#include "attention_test_util.hpp"
#include "error_test_util.hpp"
#include "rel_attention_ref.hpp"

#include <cmath>

#include "attnlab/attention/attention.hpp"

using namespace attn_test;

using attnlab::testing::error_of;

namespace {
#define EXPECT_ATTN_ERROR(stmt, substr)                                         \
  do {                                                                          \
    const std::string msg_ = error_of([&] { stmt; });                           \
    EXPECT_FALSE(msg_.empty()) << #stmt " did not throw attnlab::Error";        \
    EXPECT_NE(msg_.find(substr), std::string::npos) << "message: " << msg_;     \
  } while (0)

double max_abs_diff(const float* a, const float* b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(double(a[i]) - b[i]));
  return m;
}
}  // namespace

TEST(FusedScaledDot, EqualsComposedPath) {
  Rng rng(3);
  const size_t B = 2, Tq = kSdpaBlock + 6, S = 33, D = 16, Dv = 8;  // crosses a block edge
  Tensor3 q = randn3(B, Tq, D, rng), k = randn3(B, S, D, rng), v = randn3(B, S, Dv, rng);
  Attention composed({ScoreKind::ScaledDot, D, D}, rng);
  std::vector<AttendMask> masks(4);
  masks[1].lengths = {33, 17};
  masks[2].causal = true;
  masks[3].lengths = {20, 5};
  masks[3].ignore = xt::zeros<bool>({size_t(1), Tq, S});
  masks[3].ignore(0, 3, 2) = true;
  for (size_t j = 0; j < 5; ++j) masks[3].ignore(0, Tq - 3, j) = true;  // fully masked in item 1
  for (size_t mi = 0; mi < masks.size(); ++mi) {
    AttendResult a = composed.forward(q, k, v, masks[mi]);
    AttendResult f = scaled_dot_attention(q, k, v, masks[mi], true);
    AttendResult f2 = scaled_dot_attention(q, k, v, masks[mi], false);
    EXPECT_LE(max_abs_diff(a.out.data(), f.out.data(), a.out.size()), 1e-6) << "mask " << mi;
    EXPECT_LE(max_abs_diff(a.weights.data(), f.weights.data(), a.weights.size()), 1e-6);
    EXPECT_EQ(f2.weights.size(), 0u);
    EXPECT_LE(max_abs_diff(f.out.data(), f2.out.data(), f.out.size()), 0.0);
  }
}

TEST(Attend, WeightRowsSumToOneOrZero) {
  for (const std::string& kn : score_names()) {  // every score of the table
    Rng rng(5);
    const ScoreKind kind = parse_score_kind(kn);
    Attention att({kind, 4, 4, 3, 6}, rng);
    Tensor3 q = randn3(2, 3, 4, rng, 30.f), k = randn3(2, 6, 4, rng, 30.f),
            v = randn3(2, 6, 2, rng);  // large logits too
    AttendMask m;
    m.lengths = {6, 2};
    m.ignore = xt::zeros<bool>({2, 3, 6});
    for (size_t j = 0; j < 6; ++j) m.ignore(1, 1, j) = true;  // row (1,1) fully masked
    AttendResult r = att.forward(q, k, v, m);
    ASSERT_TRUE(all_finite(r.out.data(), r.out.size())) << kn;
    for (size_t b = 0; b < 2; ++b)
      for (size_t t = 0; t < 3; ++t) {
        double s = 0;
        for (size_t j = 0; j < 6; ++j) s += r.weights(b, t, j);
        const bool full = b == 1 && t == 1;
        EXPECT_NEAR(s, full ? 0.0 : 1.0, 1e-5) << kn << " row " << b << "," << t;
        if (b == 1) {
          for (size_t j = 2; j < 6; ++j) EXPECT_EQ(r.weights(b, t, j), 0.f) << kn;
        }
      }
    for (size_t c = 0; c < 2; ++c) EXPECT_EQ(r.out(1, 1, c), 0.f);  // the fully masked row
  }
}

TEST(Attend, CausalAndBoolMaskPolarity) {
  Rng rng(6);
  Attention att({ScoreKind::Dot, 3, 3}, rng);
  Tensor3 q = randn3(1, 4, 3, rng), k = randn3(1, 4, 3, rng), v = randn3(1, 4, 2, rng);
  AttendMask c;
  c.causal = true;
  AttendResult r = att.forward(q, k, v, c);
  for (size_t i = 0; i < 4; ++i)
    for (size_t j = 0; j < 4; ++j)
      if (j > i) EXPECT_EQ(r.weights(0, i, j), 0.f);
      else EXPECT_GT(r.weights(0, i, j), 0.f);
  AttendMask bm;  // true = ignore
  bm.ignore = xt::zeros<bool>({1, 4, 4});
  bm.ignore(0, 2, 1) = true;
  r = att.forward(q, k, v, bm);
  EXPECT_EQ(r.weights(0, 2, 1), 0.f);
  EXPECT_GT(r.weights(0, 2, 0), 0.f);
  EXPECT_GT(r.weights(0, 1, 1), 0.f);
}

TEST(Attend, BadInputGivesClearErrors) {
  Rng rng(8);
  Attention att({ScoreKind::General, 4, 5}, rng);
  Tensor3 q = randn3(2, 3, 4, rng), k = randn3(2, 6, 5, rng), v = randn3(2, 6, 2, rng);
  EXPECT_ATTN_ERROR(att.forward(randn3(2, 3, 3, rng), k, v), "expected query last dim 4");
  EXPECT_ATTN_ERROR(att.forward(q, randn3(2, 6, 4, rng), v), "expected key last dim 5");
  EXPECT_ATTN_ERROR(att.forward(q, k, randn3(2, 5, 2, rng)), "same length S");
  EXPECT_ATTN_ERROR(att.forward(q, randn3(1, 6, 5, rng), randn3(1, 6, 2, rng)), "batch");
  EXPECT_ATTN_ERROR(att.forward(q, Tensor3::from_shape({2, 0, 5}), Tensor3::from_shape({2, 0, 2})),
                    "zero-length keys");
  AttendMask m;
  m.lengths = {6, 7};
  EXPECT_ATTN_ERROR(att.forward(q, k, v, m), "exceeds the key count");
  m.lengths = {6};
  EXPECT_ATTN_ERROR(att.forward(q, k, v, m), "lengths: expected 2");
  AttendMask bm;
  bm.ignore = xt::zeros<bool>({2, 3, 5});
  EXPECT_ATTN_ERROR(att.forward(q, k, v, bm), "bool mask: expected shape");
  Tensor3 qn = q;
  qn(1, 2, 3) = std::nanf("");
  EXPECT_ATTN_ERROR(att.forward(qn, k, v), "finite");
  EXPECT_ATTN_ERROR(parse_score_kind("nope"), "expected one of");
  EXPECT_ATTN_ERROR(Attention({ScoreKind::Dot, 4, 5}, rng), "key_dim == query_dim");
  Attention loc({ScoreKind::Location, 4, 4, 0, 5}, rng);
  EXPECT_ATTN_ERROR(loc.forward(q, k, v), "at most max_keys = 5");
  EXPECT_ATTN_ERROR(scaled_dot_attention(q, k, v), "query dim == key dim");
}

TEST(MultiheadAttentionApi, ParameterNamesMatchPyTorch) {
  Rng rng(1);
  MultiheadAttention mha(8, 2, rng);
  ParamList pl;
  mha.collect(pl, "attn.");
  std::vector<std::string> names;
  for (auto& it : pl.items()) names.push_back(it.first);
  EXPECT_EQ(names, (std::vector<std::string>{"attn.in_proj_weight", "attn.in_proj_bias",
                                             "attn.out_proj.weight", "attn.out_proj.bias"}));
  EXPECT_EQ(mha.in_proj_weight.value.shape(0), 24u);
  EXPECT_EQ(mha.in_proj_weight.value.shape(1), 8u);
  EXPECT_EQ(xt::amax(xt::abs(mha.in_proj_bias.value))(), 0.f);  // torch inits biases to 0
}

TEST(MultiheadAttentionApi, PackedSelfPathEqualsSeparateAndWeightModesAgree) {
  Rng rng(2);
  MultiheadAttention mha(16, 4, rng);
  ParamList pl;
  mha.collect(pl, "");
  randomize(pl, rng, 0.3f);
  Tensor3 x = randn3(2, 5, 16, rng);
  Tensor3 x2 = x, x3 = x;  // different objects: the unpacked path
  MhaOptions o;
  o.is_causal = true;
  MhaResult a = mha.forward(x, x, x, o);
  MhaResult b = mha.forward(x, x2, x3, o);
  EXPECT_LE(max_abs_diff(a.out.data(), b.out.data(), a.out.size()), 1e-5);
  o.average_attn_weights = false;
  MhaResult h = mha.forward(x, x, x, o);
  ASSERT_EQ(h.head_weights.shape(1), 4u);
  EXPECT_EQ(h.weights.size(), 0u);
  for (size_t bb = 0; bb < 2; ++bb)
    for (size_t t = 0; t < 5; ++t)
      for (size_t s = 0; s < 5; ++s) {
        double m = 0;
        for (size_t hh = 0; hh < 4; ++hh) m += h.head_weights(bb, hh, t, s) / 4.0;
        EXPECT_NEAR(m, a.weights(bb, t, s), 1e-6);
      }
  o.need_weights = false;
  MhaResult n = mha.forward(x, x, x, o);
  EXPECT_EQ(n.weights.size() + n.head_weights.size(), 0u);
  EXPECT_LE(max_abs_diff(a.out.data(), n.out.data(), a.out.size()), 0.0);
}

TEST(MultiheadAttentionApi, FullyMaskedRowsGiveBiasNotNaN) {
  Rng rng(4);
  MultiheadAttention mha(8, 2, rng);
  ParamList pl;
  mha.collect(pl, "");
  randomize(pl, rng);
  Tensor3 q = randn3(2, 3, 8, rng), kv = randn3(2, 4, 8, rng);
  MhaOptions o;
  o.key_padding_mask = xt::zeros<bool>({2, 4});
  for (size_t s = 0; s < 4; ++s) o.key_padding_mask(1, s) = true;  // item 1: every key padded
  MultiheadAttention::Cache c;
  MhaResult r = mha.forward(q, kv, kv, o, &c);
  ASSERT_TRUE(all_finite(r.out.data(), r.out.size()));
  for (size_t t = 0; t < 3; ++t) {
    for (size_t e = 0; e < 8; ++e) EXPECT_FLOAT_EQ(r.out(1, t, e), mha.out_proj_bias.value(e));
    for (size_t s = 0; s < 4; ++s) EXPECT_EQ(r.weights(1, t, s), 0.f);
    double sum = 0;
    for (size_t s = 0; s < 4; ++s) sum += r.weights(0, t, s);
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  Tensor3 dq, dk, dv;
  mha.backward(randn3(2, 3, 8, rng), c, dq, dk, dv);
  EXPECT_TRUE(all_finite(dq.data(), dq.size()) && all_finite(dk.data(), dk.size()));
  for (size_t i = 0; i < 3 * 8; ++i) EXPECT_EQ(dq.data()[3 * 8 + i], 0.f);  // no path to output
}

TEST(MultiheadAttentionApi, BadInputGivesClearErrors) {
  Rng rng(5);
  MultiheadAttention mha(8, 2, rng);
  Tensor3 q = randn3(2, 3, 8, rng), kv = randn3(2, 4, 8, rng);
  EXPECT_ATTN_ERROR(MultiheadAttention(10, 3, rng), "divisible");
  EXPECT_ATTN_ERROR(mha.forward(randn3(2, 3, 6, rng), kv, kv), "expected last dim E = 8");
  EXPECT_ATTN_ERROR(mha.forward(q, kv, randn3(2, 5, 8, rng)), "same length S");
  EXPECT_ATTN_ERROR(mha.forward(q, Tensor3::from_shape({2, 0, 8}), Tensor3::from_shape({2, 0, 8})),
                    "zero-length keys");
  MhaOptions o;
  o.key_padding_mask = xt::zeros<bool>({2, 3});
  EXPECT_ATTN_ERROR(mha.forward(q, kv, kv, o), "key_padding_mask must be (2,4)");
  MhaOptions o2;
  o2.attn_mask_bool = xt::zeros<bool>({4, 3});
  EXPECT_ATTN_ERROR(mha.forward(q, kv, kv, o2), "attn_mask_bool must be (3,4) or (4,3,4)");
  o2.attn_mask_bool = xt::zeros<bool>({3, 4});
  o2.attn_mask_float = xt::zeros<float>({3, 4});
  EXPECT_ATTN_ERROR(mha.forward(q, kv, kv, o2), "not both");
  MhaOptions o3;
  o3.attn_mask_float = xt::zeros<float>({3, 4});
  o3.attn_mask_float(0, 0) = std::nanf("");
  EXPECT_ATTN_ERROR(mha.forward(q, kv, kv, o3), "finite values or -inf");
}

TEST(LocalAttentionApi, WindowsPositionsAndEdges) {
  Rng rng(11);
  const size_t T = 6, S = 8, Dq = 4;
  Tensor3 q = randn3(2, T, Dq, rng), k = randn3(2, S, Dq, rng), v = randn3(2, S, 3, rng);
  // local-m: window [t-D, t+D] clipped; weights outside are 0
  LocalConfig cm;
  cm.mode = LocalMode::Monotonic;
  cm.window = 1;
  cm.score = {ScoreKind::General, Dq, Dq};
  LocalAttention lm(cm, rng);
  LocalResult r = lm.forward(q, k, v, {8, 3});
  for (size_t b = 0; b < 2; ++b)
    for (size_t t = 0; t < T; ++t) {
      const size_t len = b == 0 ? 8 : 3;
      const double p = double(std::min(t, len - 1));
      EXPECT_EQ(r.positions(b, t), float(p));
      double sum = 0;
      for (size_t s = 0; s < S; ++s) {
        sum += r.weights(b, t, s);
        if (std::fabs(double(s) - p) > 1.0 || s >= len) {
          EXPECT_EQ(r.weights(b, t, s), 0.f);
        }
      }
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
  // window larger than the sequence: clipped, so local-m equals global attention (documented)
  cm.window = 50;
  Rng r1(12), r2(12);
  LocalAttention big(cm, r1);
  Attention glob(cm.score, r2);  // same seed -> same score weights
  LocalResult rb = big.forward(q, k, v, {8, 3});
  AttendMask m;
  m.lengths = {8, 3};
  AttendResult rg = glob.forward(q, k, v, m);
  EXPECT_LE(max_abs_diff(rb.out.data(), rg.out.data(), rg.out.size()), 1e-6);
  // local-p: p in [0, S_b], weights only inside [p-D, p+D], Gaussian makes rows sum <= 1
  LocalConfig cp = cm;
  cp.mode = LocalMode::Predictive;
  cp.window = 2;
  LocalAttention lp(cp, rng);
  LocalResult rp = lp.forward(q, k, v, {8, 3});
  for (size_t b = 0; b < 2; ++b)
    for (size_t t = 0; t < T; ++t) {
      const float p = rp.positions(b, t);
      EXPECT_GE(p, 0.f);
      EXPECT_LE(p, b == 0 ? 8.f : 3.f);
      double sum = 0;
      for (size_t s = 0; s < S; ++s) {
        sum += rp.weights(b, t, s);
        if (std::fabs(float(s) - p) > 2.f) {
          EXPECT_EQ(rp.weights(b, t, s), 0.f);
        }
      }
      EXPECT_GT(sum, 0.0);
      EXPECT_LE(sum, 1.0 + 1e-6);
    }
  cp.window = 100;  // larger than the sequence: finite, rows still <= 1
  LocalAttention lpb(cp, rng);
  LocalResult rpb = lpb.forward(q, k, v);
  EXPECT_TRUE(all_finite(rpb.out.data(), rpb.out.size()));
  // length 0: zero weights and output
  LocalResult r0 = lm.forward(q, k, v, {0, 3});
  for (size_t i = 0; i < T * 3; ++i) EXPECT_EQ(r0.out.data()[i], 0.f);
  cm.window = 0;
  EXPECT_ATTN_ERROR(LocalAttention(cm, rng), "window D must be >= 1");
  EXPECT_ATTN_ERROR(lm.forward(q, k, v, {9, 3}), "exceeds S");
}

TEST(ContextPoolingApi, LengthsAndEdgeCases) {
  Rng rng(13);
  ContextPooling pool(4, 3, rng);
  Tensor3 h = randn3(3, 5, 4, rng);
  PoolingResult r = pool.forward(h, {5, 2, 0});
  for (size_t b = 0; b < 3; ++b) {
    double s = 0;
    for (size_t t = 0; t < 5; ++t) s += r.weights(b, t);
    EXPECT_NEAR(s, b == 2 ? 0.0 : 1.0, 1e-5);
  }
  for (size_t t = 2; t < 5; ++t) EXPECT_EQ(r.weights(1, t), 0.f);
  for (size_t d = 0; d < 4; ++d) EXPECT_EQ(r.out(2, d), 0.f);  // length 0 -> zeros
  // out is the weighted sum of the inputs
  for (size_t d = 0; d < 4; ++d) {
    double s = 0;
    for (size_t t = 0; t < 5; ++t) s += double(r.weights(0, t)) * h(0, t, d);
    EXPECT_NEAR(r.out(0, d), s, 1e-5);
  }
  EXPECT_ATTN_ERROR(pool.forward(randn3(1, 5, 3, rng)), "expected input (B,T,4)");
  EXPECT_ATTN_ERROR(pool.forward(h, {5, 6, 1}), "exceeds T");
  EXPECT_ATTN_ERROR(pool.forward(Tensor3::from_shape({1, 0, 4})), "zero-length");
}

// Independent, direct evaluation of the Transformer-XL score formula (no shift trick).
TEST(RelMultiheadAttentionApi, MatchesNaiveFormula) {
  Rng rng(21);
  const size_t B = 2, T = 3, M = 2, E = 6, H = 2, Dh = 4, L = M + T;
  RelMultiheadAttention rel({E, H, Dh, 4}, rng);
  Tensor3 mem = randn3(B, M, E, rng), x = randn3(B, T, E, rng);
  rel.set_memory(mem);
  Tensor4 W;
  Tensor3 out = rel.forward(x, nullptr, true, &W);
  std::vector<double> ref_w;
  const std::vector<double> ref = attnlab::testing::naive_rel(rel, mem, x, &ref_w);
  for (size_t b = 0; b < B; ++b) {
    for (size_t h = 0; h < H; ++h)
      for (size_t i = 0; i < T; ++i)
        for (size_t j = 0; j < L; ++j)
          EXPECT_NEAR(W(b, h, i, j), ref_w[((b * H + h) * T + i) * L + j], 2e-5) << b << h << i << j;
    for (size_t i = 0; i < T; ++i)
      for (size_t e = 0; e < E; ++e) EXPECT_NEAR(out(b, i, e), ref[(b * T + i) * E + e], 5e-5);
  }
  // memory after the call = last mem_len (4) rows of [mem; x]
  ASSERT_EQ(rel.memory().shape(1), 4u);
  for (size_t e = 0; e < E; ++e) {
    EXPECT_EQ(rel.memory()(1, 0, e), mem(1, 1, e));
    EXPECT_EQ(rel.memory()(1, 3, e), x(1, 2, e));
  }
}

// One layer with memory covering the whole past equals running the concatenated
// sequence at once: the second segment's outputs must match.
TEST(RelMultiheadAttentionApi, SegmentMemoryEqualsFullSequence) {
  Rng rng(22);
  const size_t B = 2, T1 = 3, T2 = 4, E = 8;
  RelMultiheadAttention rel({E, 2, 0, 16}, rng);
  Tensor3 s1 = randn3(B, T1, E, rng), s2 = randn3(B, T2, E, rng);
  Tensor3 full = Tensor3::from_shape({B, T1 + T2, E});
  for (size_t b = 0; b < B; ++b) {
    for (size_t t = 0; t < T1; ++t)
      for (size_t e = 0; e < E; ++e) full(b, t, e) = s1(b, t, e);
    for (size_t t = 0; t < T2; ++t)
      for (size_t e = 0; e < E; ++e) full(b, T1 + t, e) = s2(b, t, e);
  }
  Tensor3 ref = rel.forward(full, nullptr, false);
  EXPECT_EQ(rel.memory().size(), 0u);
  Tensor3 o1 = rel.forward(s1);
  ASSERT_EQ(rel.memory().shape(1), T1);
  Tensor3 o2 = rel.forward(s2);
  ASSERT_EQ(rel.memory().shape(1), T1 + T2);
  for (size_t b = 0; b < B; ++b)
    for (size_t t = 0; t < T2; ++t)
      for (size_t e = 0; e < E; ++e) {
        EXPECT_NEAR(o2(b, t, e), ref(b, T1 + t, e), 2e-5);
        if (t < T1) {
          EXPECT_NEAR(o1(b, t, e), ref(b, t, e), 2e-5);
        }
      }
  // batch change with memory held -> error; reset fixes it
  EXPECT_ATTN_ERROR(rel.forward(randn3(3, 2, E, rng)), "reset_memory");
  rel.reset_memory();
  EXPECT_NO_THROW(rel.forward(randn3(3, 2, E, rng)));
  EXPECT_ATTN_ERROR(RelMultiheadAttention({7, 1, 0, 0}, rng), "even");
  EXPECT_ATTN_ERROR(rel.forward(randn3(3, 2, 6, rng)), "expected input (B,T,8)");
}

TEST(Checks, FiniteCheckHasNoFalsePositivesOnOverflowingSums) {
  std::vector<float> big(37, 3e38f);
  EXPECT_NO_THROW(attnlab::attention::detail::check_finite("big", big.data(), big.size()));
  big[30] = -INFINITY;
  EXPECT_ATTN_ERROR(attnlab::attention::detail::check_finite("big", big.data(), big.size()), "flat index 30");
  big[30] = 1.f;
  big[3] = std::nanf("");
  EXPECT_ATTN_ERROR(attnlab::attention::detail::check_finite("big", big.data(), big.size()), "flat index 3");
}
