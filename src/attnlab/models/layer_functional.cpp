// The functional attention calls of the layer API (see layer_file.hpp): scaled-dot and
// additive attention on the caller's query, key and value arrays, without a layer file.
#include <cmath>
#include <memory>
#include <utility>

#include "attnlab/attention/attend.hpp"
#include "attnlab/core/checked.hpp"
#include "attnlab/models/layer_file.hpp"
#include "attnlab/models/layer_file_detail.hpp"

namespace attnlab::models {

namespace at = attention;
using layer_detail::check_array;
using layer_detail::join_name;
using layer_detail::plain;
using layer_detail::shape_str;

namespace {
ArrayView view_of(const LayerArray& a) { return ArrayView{a.shape, a.data.data(), a.data.size()}; }

// The sizes of a q, k, v call: each rank 3 (B,T,D) or all rank 2 (T,D) (unbatched, B = 1),
// every dimension > 0, q, k, v on the same batch and k, v on the same length S.
struct QkvDims {
  size_t B = 0, T = 0, S = 0, Dq = 0, Dk = 0, Dv = 0;
  bool unb = false;
};
QkvDims qkv_dims(const ArrayView& q, const ArrayView& k, const ArrayView& v, const char* who) {
  size_t sh[3][3];
  bool unb[3];
  const ArrayView* in[3] = {&q, &k, &v};
  const char* names[3] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i) {
    char buf[64];
    const char* what = join_name(buf, who, ": ", names[i]);
    const auto& s = in[i]->shape;
    check_array(s, in[i]->size, what);
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
                shape_str(q.shape), ", ", shape_str(k.shape), ", ", shape_str(v.shape));
  ATTNLAB_CHECK(sh[1][0] == sh[0][0] && sh[2][0] == sh[0][0] && sh[1][1] == sh[2][1], who, ": q ",
                shape_str(q.shape), ", k ", shape_str(k.shape), " and v ", shape_str(v.shape),
                " disagree on the batch or the key length");
  return QkvDims{sh[0][0], sh[0][1], sh[1][1], sh[0][2], sh[1][2], sh[2][2], unb[0]};
}

// q, k, v checked (qkv_dims) and copied as (B,T,D) tensors
struct Qkv {
  QkvDims d;
  at::Tensor3 q, k, v;
};
Qkv read_qkv(const LayerArray& q, const LayerArray& k, const LayerArray& v, const char* who) {
  Qkv r;
  r.d = qkv_dims(view_of(q), view_of(k), view_of(v), who);
  auto tensor = [&](const LayerArray& a, size_t T, size_t D) {
    at::Tensor3 t = at::Tensor3::from_shape({r.d.B, T, D});
    std::copy(a.data.begin(), a.data.end(), t.data());
    return t;
  };
  r.q = tensor(q, r.d.T, r.d.Dq);
  r.k = tensor(k, r.d.S, r.d.Dk);
  r.v = tensor(v, r.d.S, r.d.Dv);
  return r;
}

// mask (T,S) or (B,T,S), bool true = not attended -> additive (B,T,S) or (1,T,S)
at::Tensor3 functional_mask(const LayerMask& m, const QkvDims& x, const char* who, bool allow_float) {
  check_array(m.shape, m.data.size(), who);
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

// the shapes of out (B,T,Dv) and weights (B,T,S), without B when unbatched
FunctionalShapes functional_shapes(const QkvDims& x, bool with_weights) {
  FunctionalShapes r;
  r.out = x.unb ? std::vector<size_t>{x.T, x.Dv} : std::vector<size_t>{x.B, x.T, x.Dv};
  if (with_weights)
    r.weights = x.unb ? std::vector<size_t>{x.T, x.S} : std::vector<size_t>{x.B, x.T, x.S};
  return r;
}

FunctionalReturn functional_out(const at::Tensor3& out, const at::Tensor3& w, const QkvDims& x) {
  const FunctionalShapes sh = functional_shapes(x, true);
  return FunctionalReturn{plain(sh.out, out.data()), plain(sh.weights, w.data())};
}
}  // namespace

void scaled_dot_attention(const ScaledDotCall& c, const OutputsFor& outputs) {
  const char* who = "attention.scaledDot";
  const QkvDims d = qkv_dims(c.q, c.k, c.v, who);
  ATTNLAB_CHECK(d.Dk == d.Dq, who, ": q and k must have the same last dimension, got ",
                shape_str(c.q.shape), " and ", shape_str(c.k.shape));
  at::Tensor3 add;
  const bool has_mask = !c.mask.empty();
  if (has_mask) add = functional_mask(c.mask, d, who, true);
  // every check done: the storage of the results
  const std::pair<float*, float*> o = outputs(functional_shapes(d, c.need_weights));
  const float sc = c.scale > 0 ? static_cast<float>(c.scale) : 1.f / std::sqrt(static_cast<float>(d.Dq));
  const size_t T = d.T, S = d.S, D = d.Dq, Dv = d.Dv;
  std::vector<float> m;
  const std::unique_ptr<float[]> work(new float[at::sdpa_workspace_size(S)]);  // scratch: not zeroed
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
                 c.v.data + b * S * Dv, Dv, mp, mp ? S : 0, o.first + b * T * Dv, Dv,
                 o.second ? o.second + b * T * S : nullptr, S, work.get());
  }
}

FunctionalReturn scaled_dot_attention(const LayerArray& q, const LayerArray& k, const LayerArray& v,
                                      const LayerMask& mask, bool causal, double scale,
                                      bool need_weights) {
  FunctionalReturn r;
  scaled_dot_attention(
      ScaledDotCall{view_of(q), view_of(k), view_of(v), mask, causal, scale, need_weights},
      [&](const FunctionalShapes& sh) {
        r.out.shape = sh.out;
        r.out.data.resize(checked_product("attention.scaledDot: out", sh.out));
        r.weights.shape = sh.weights;
        if (!sh.weights.empty())
          r.weights.data.resize(checked_product("attention.scaledDot: weights", sh.weights));
        return std::pair<float*, float*>(r.out.data.data(),
                                         sh.weights.empty() ? nullptr : r.weights.data.data());
      });
  return r;
}

FunctionalReturn additive_attention(const LayerArray& q, const LayerArray& k, const LayerArray& v,
                                    const LayerArray& w_q, const LayerArray& w_k,
                                    const LayerArray& v_a, const LayerMask& mask, bool causal) {
  const char* who = "attention.additive";
  const Qkv x = read_qkv(q, k, v, who);
  const size_t Dq = x.d.Dq, Dk = x.d.Dk;
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
  checked_product("attention.additive: B x Tq x S x A", {x.d.B, x.d.T, x.d.S, A});
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
    const at::Tensor3 add = functional_mask(mask, x.d, who, false);
    am.ignore = at::BoolTensor3::from_shape({add.shape(0), x.d.T, x.d.S});
    for (size_t i = 0; i < add.size(); ++i) am.ignore.data()[i] = add.data()[i] != 0.f;
  }
  const at::AttendResult r = att.forward(x.q, x.k, x.v, am);
  return functional_out(r.out, r.weights, x.d);
}

}  // namespace attnlab::models
