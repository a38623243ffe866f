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

FunctionalReturn scaled_dot_attention(const LayerArray& q, const LayerArray& k, const LayerArray& v,
                                      const LayerMask& mask, bool causal, double scale,
                                      bool need_weights) {
  const char* who = "attention.scaledDot";
  const Qkv x = read_qkv(q, k, v, who);
  const size_t D = x.q.shape(2), Dv = x.v.shape(2);
  ATTNLAB_CHECK(x.k.shape(2) == D, who, ": q and k must have the same last dimension, got ",
                shape_str(q.shape), " and ", shape_str(k.shape));
  at::Tensor3 add;
  const bool has_mask = !mask.empty();
  if (has_mask) add = functional_mask(mask, x, who, true);
  const float sc = scale > 0 ? static_cast<float>(scale) : 1.f / std::sqrt(static_cast<float>(D));
  at::Tensor3 out = at::Tensor3::from_shape({x.B, x.T, Dv});
  at::Tensor3 w = need_weights ? at::Tensor3::from_shape({x.B, x.T, x.S}) : at::Tensor3();
  std::vector<float> m;
  std::vector<float> work(at::sdpa_workspace_size(x.S));
  for (size_t b = 0; b < x.B; ++b) {
    const float* mp = nullptr;
    if (has_mask || causal) {
      m.assign(x.T * x.S, 0.f);
      if (has_mask) {
        const float* src = add.data() + (add.shape(0) == 1 ? 0 : b) * x.T * x.S;
        std::copy_n(src, x.T * x.S, m.data());
      }
      if (causal)
        for (size_t t = 0; t < x.T; ++t)
          for (size_t s = t + 1; s < x.S; ++s) m[t * x.S + s] = at::kNegInf;
      mp = m.data();
    }
    at::sdpa_raw(x.T, x.S, D, Dv, sc, x.q.data() + b * x.T * D, D, x.k.data() + b * x.S * D, D,
                 x.v.data() + b * x.S * Dv, Dv, mp, mp ? x.S : 0, out.data() + b * x.T * Dv, Dv,
                 need_weights ? w.data() + b * x.T * x.S : nullptr, x.S, work.data());
  }
  FunctionalReturn r = functional_out(out, w, x, need_weights);
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
