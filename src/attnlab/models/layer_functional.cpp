// The functional attention calls of the layer API (see layer_file.hpp): scaled-dot and
// additive attention on the caller's query, key and value arrays, without a layer file.
#include <cmath>

#include "attnlab/attention/attend.hpp"
#include "attnlab/core/checked.hpp"
#include "attnlab/models/layer_file.hpp"
#include "attnlab/models/layer_file_detail.hpp"

namespace attnlab::models {

namespace at = attention;
using layer_detail::check_array;
using layer_detail::plain;
using layer_detail::shape_str;

namespace {
// rank 3 (B,T,D) or rank 2 (T,D) -> (B,T,D)
at::Tensor3 batched(const LayerArray& a, const char* what, bool* unbatched) {
  check_array(a, what);
  ATTNLAB_CHECK(a.shape.size() == 3 || a.shape.size() == 2, what,
                ": expected shape (B,T,D) or an unbatched (T,D), got ", shape_str(a.shape));
  if (unbatched) *unbatched = a.shape.size() == 2;
  const std::vector<size_t> sh = a.shape.size() == 2 ? std::vector<size_t>{1, a.shape[0], a.shape[1]} : a.shape;
  for (size_t i = 0; i < 3; ++i)
    ATTNLAB_CHECK(sh[i] > 0, what, ": every dimension must be > 0, got ", shape_str(a.shape));
  at::Tensor3 t = at::Tensor3::from_shape({sh[0], sh[1], sh[2]});
  std::copy(a.data.begin(), a.data.end(), t.data());
  return t;
}

struct Qkv {
  at::Tensor3 q, k, v;
  bool unb = false;
  size_t B = 0, T = 0, S = 0;
};
Qkv read_qkv(const LayerArray& q, const LayerArray& k, const LayerArray& v, const char* who) {
  Qkv r;
  bool uk = false, uv = false;
  const std::string a = std::string(who) + ": q", b = std::string(who) + ": k",
                    c = std::string(who) + ": v";
  r.q = batched(q, a.c_str(), &r.unb);
  r.k = batched(k, b.c_str(), &uk);
  r.v = batched(v, c.c_str(), &uv);
  ATTNLAB_CHECK(uk == r.unb && uv == r.unb, who,
                ": q, k and v must all be batched (rank 3) or all unbatched (rank 2), got ",
                shape_str(q.shape), ", ", shape_str(k.shape), ", ", shape_str(v.shape));
  ATTNLAB_CHECK(r.k.shape(0) == r.q.shape(0) && r.v.shape(0) == r.q.shape(0) &&
                    r.k.shape(1) == r.v.shape(1),
                who, ": q ", shape_str(q.shape), ", k ", shape_str(k.shape), " and v ",
                shape_str(v.shape), " disagree on the batch or the key length");
  r.B = r.q.shape(0);
  r.T = r.q.shape(1);
  r.S = r.k.shape(1);
  return r;
}

// mask (T,S) or (B,T,S), bool true = not attended -> additive (B,T,S) or (1,T,S)
at::Tensor3 functional_mask(const LayerMask& m, const Qkv& x, const char* who, bool allow_float) {
  check_array(LayerArray{m.shape, m.data}, who);
  const auto& sh = m.shape;
  const bool ok = (sh.size() == 2 && sh[0] == x.T && sh[1] == x.S) ||
                  (sh.size() == 3 && sh[0] == x.B && sh[1] == x.T && sh[2] == x.S && !x.unb);
  ATTNLAB_CHECK(ok, who, ": mask: expected shape ", shape_str({x.T, x.S}),
                x.unb ? std::string() : " or " + shape_str({x.B, x.T, x.S}), ", got ", shape_str(sh));
  ATTNLAB_CHECK(m.boolean || allow_float, who, ": mask: expected a bool mask (true = not attended)");
  const size_t n = sh.size() == 3 ? x.B : 1;
  at::Tensor3 t = at::Tensor3::from_shape({n, x.T, x.S});
  for (size_t i = 0; i < m.data.size(); ++i) {
    if (m.boolean) {
      t.data()[i] = m.data[i] != 0.f ? at::kNegInf : 0.f;
    } else {
      ATTNLAB_CHECK(!std::isnan(m.data[i]) && m.data[i] != INFINITY, who,
                    ": mask: additive values must be finite or -Infinity, got ", m.data[i],
                    " at index ", i);
      t.data()[i] = m.data[i];
    }
  }
  return t;
}

FunctionalReturn functional_out(const at::Tensor3& out, const at::Tensor3& w, const Qkv& x,
                                bool with_weights = true) {
  FunctionalReturn r;
  const size_t Dv = out.shape(2);
  r.out = x.unb ? plain({x.T, Dv}, out.data()) : plain({x.B, x.T, Dv}, out.data());
  if (with_weights)
    r.weights = x.unb ? plain({x.T, x.S}, w.data()) : plain({x.B, x.T, x.S}, w.data());
  return r;
}
}  // namespace

namespace {
// q, k, v views -> (B,T,S,D,Dv) and whether unbatched; every check of the call
struct SdpaDims {
  size_t B = 0, T = 0, S = 0, D = 0, Dv = 0;
  bool unb = false;
};
SdpaDims sdpa_dims(const ScaledDotCall& c) {
  const char* who = "attention.scaledDot";
  SdpaDims d;
  size_t sh[3][3];
  bool unb[3];
  const ArrayView* in[3] = {&c.q, &c.k, &c.v};
  const char* names[3] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i) {
    const std::string what = std::string(who) + ": " + names[i];
    check_array(in[i]->shape, in[i]->size, what.c_str());
    const auto& s = in[i]->shape;
    ATTNLAB_CHECK(s.size() == 3 || s.size() == 2, what,
                  ": expected shape (B,T,D) or an unbatched (T,D), got ", shape_str(s));
    unb[i] = s.size() == 2;
    sh[i][0] = unb[i] ? 1 : s[0];
    sh[i][1] = s[s.size() - 2];
    sh[i][2] = s[s.size() - 1];
    for (size_t j = 0; j < 3; ++j)
      ATTNLAB_CHECK(sh[i][j] > 0, what, ": every dimension must be > 0, got ", shape_str(s));
  }
  ATTNLAB_CHECK(unb[1] == unb[0] && unb[2] == unb[0], who,
                ": q, k and v must all be batched (rank 3) or all unbatched (rank 2), got ",
                shape_str(c.q.shape), ", ", shape_str(c.k.shape), ", ", shape_str(c.v.shape));
  ATTNLAB_CHECK(sh[1][0] == sh[0][0] && sh[2][0] == sh[0][0] && sh[1][1] == sh[2][1], who, ": q ",
                shape_str(c.q.shape), ", k ", shape_str(c.k.shape), " and v ", shape_str(c.v.shape),
                " disagree on the batch or the key length");
  d.unb = unb[0];
  d.B = sh[0][0];
  d.T = sh[0][1];
  d.S = sh[1][1];
  d.D = sh[0][2];
  d.Dv = sh[2][2];
  ATTNLAB_CHECK(sh[1][2] == d.D, who, ": q and k must have the same last dimension, got ",
                shape_str(c.q.shape), " and ", shape_str(c.k.shape));
  return d;
}
}  // namespace

FunctionalShapes scaled_dot_shapes(const ScaledDotCall& c) {
  const SdpaDims d = sdpa_dims(c);
  if (!c.mask.empty()) {
    Qkv x;
    x.B = d.B;
    x.T = d.T;
    x.S = d.S;
    x.unb = d.unb;
    functional_mask(c.mask, x, "attention.scaledDot", true);
  }
  FunctionalShapes r;
  r.out = d.unb ? std::vector<size_t>{d.T, d.Dv} : std::vector<size_t>{d.B, d.T, d.Dv};
  if (c.need_weights)
    r.weights = d.unb ? std::vector<size_t>{d.T, d.S} : std::vector<size_t>{d.B, d.T, d.S};
  return r;
}

void scaled_dot_into(const ScaledDotCall& c, float* out, float* weights) {
  const SdpaDims d = sdpa_dims(c);
  Qkv x;
  x.B = d.B;
  x.T = d.T;
  x.S = d.S;
  x.unb = d.unb;
  at::Tensor3 add;
  const bool has_mask = !c.mask.empty();
  if (has_mask) add = functional_mask(c.mask, x, "attention.scaledDot", true);
  const float sc = c.scale > 0 ? static_cast<float>(c.scale) : 1.f / std::sqrt(static_cast<float>(d.D));
  const size_t T = d.T, S = d.S, D = d.D, Dv = d.Dv;
  std::vector<float> m;
  std::vector<float> work(at::sdpa_workspace_size(S));
  for (size_t b = 0; b < d.B; ++b) {
    const float* mp = nullptr;
    if (has_mask || c.causal) {
      m.assign(T * S, 0.f);
      if (has_mask) std::copy_n(add.data() + (add.shape(0) == 1 ? 0 : b) * T * S, T * S, m.data());
      if (c.causal)
        for (size_t t = 0; t < T; ++t)
          for (size_t s = t + 1; s < S; ++s) m[t * S + s] = at::kNegInf;
      mp = m.data();
    }
    at::sdpa_raw(T, S, D, Dv, sc, c.q.data + b * T * D, D, c.k.data + b * S * D, D,
                 c.v.data + b * S * Dv, Dv, mp, mp ? S : 0, out + b * T * Dv, Dv,
                 c.need_weights && weights ? weights + b * T * S : nullptr, S, work.data());
  }
}

FunctionalReturn scaled_dot_attention(const LayerArray& q, const LayerArray& k, const LayerArray& v,
                                      const LayerMask& mask, bool causal, double scale,
                                      bool need_weights) {
  auto view = [](const LayerArray& a) { return ArrayView{a.shape, a.data.data(), a.data.size()}; };
  ScaledDotCall c{view(q), view(k), view(v), mask, causal, scale, need_weights};
  const FunctionalShapes sh = scaled_dot_shapes(c);
  FunctionalReturn r;
  r.out.shape = sh.out;
  r.out.data.resize(checked_product("attention.scaledDot: out", sh.out));
  if (need_weights) {
    r.weights.shape = sh.weights;
    r.weights.data.resize(checked_product("attention.scaledDot: weights", sh.weights));
  }
  scaled_dot_into(c, r.out.data.data(), need_weights ? r.weights.data.data() : nullptr);
  return r;
}

FunctionalReturn additive_attention(const LayerArray& q, const LayerArray& k, const LayerArray& v,
                                    const LayerArray& w_q, const LayerArray& w_k,
                                    const LayerArray& v_a, const LayerMask& mask, bool causal) {
  const char* who = "attention.additive";
  const Qkv x = read_qkv(q, k, v, who);
  const size_t Dq = x.q.shape(2), Dk = x.k.shape(2);
  check_array(w_q, "attention.additive: wq");
  check_array(w_k, "attention.additive: wk");
  check_array(v_a, "attention.additive: va");
  ATTNLAB_CHECK(v_a.shape.size() == 1 && v_a.shape[0] > 0, who, ": va: expected shape (A), got ",
                shape_str(v_a.shape));
  const size_t A = v_a.shape[0];
  ATTNLAB_CHECK(w_q.shape == (std::vector<size_t>{A, Dq}), who, ": wq: expected shape ",
                shape_str({A, Dq}), " (A, query dim), got ", shape_str(w_q.shape));
  ATTNLAB_CHECK(w_k.shape == (std::vector<size_t>{A, Dk}), who, ": wk: expected shape ",
                shape_str({A, Dk}), " (A, key dim), got ", shape_str(w_k.shape));
  checked_product("attention.additive: B x Tq x S x A", {x.B, x.T, x.S, A});
  at::ScoreConfig sc;
  sc.kind = at::ScoreKind::Additive;
  sc.query_dim = Dq;
  sc.key_dim = Dk;
  sc.attn_dim = A;
  Rng rng(0);
  at::Attention att(sc, rng);
  std::copy(w_q.data.begin(), w_q.data.end(), att.score.query_weight.value.data());
  std::copy(w_k.data.begin(), w_k.data.end(), att.score.key_weight.value.data());
  std::copy(v_a.data.begin(), v_a.data.end(), att.score.v.value.data());
  at::AttendMask am;
  am.causal = causal;
  if (!mask.empty()) {
    const at::Tensor3 add = functional_mask(mask, x, who, false);
    am.ignore = at::BoolTensor3::from_shape({add.shape(0), x.T, x.S});
    for (size_t i = 0; i < add.size(); ++i) am.ignore.data()[i] = add.data()[i] != 0.f;
  }
  const at::AttendResult r = att.forward(x.q, x.k, x.v, am);
  return functional_out(r.out, r.weights, x);
}

}  // namespace attnlab::models
