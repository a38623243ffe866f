// Embind glue for the attention playground: one call runs a score function
// (global or Luong-local) or multi-head self-attention on given vectors and
// returns every intermediate the page draws. Marshalling only.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>

#include "attnlab/attention/attention.hpp"
#include "common.hpp"

using namespace emscripten;
using namespace attnlab::bindings;
namespace at = attnlab::attention;

namespace {

// Inputs are finite and at most 1e6 in magnitude (documented): beyond that a
// dot product of two rows can overflow float and the weights would be NaN.
constexpr float kMaxAbsInput = 1e6f;

at::Tensor3 tensor3(const std::vector<float>& v, size_t a, size_t b, size_t c, const char* what) {
  for (size_t i = 0; i < v.size(); ++i)
    ATTNLAB_CHECK(std::fabs(v[i]) <= kMaxAbsInput, what, ": values must be at most ", kMaxAbsInput,
                  " in magnitude (larger ones overflow the scores), got ", v[i], " at index ", i);
  const size_t want = attnlab::checked_product(what, {a, b, c});
  ATTNLAB_CHECK(v.size() == want, what, ": expected ", b, " x ", c, " = ", want, " values, got ",
                v.size());
  at::Tensor3 t = at::Tensor3::from_shape({a, b, c});
  std::copy(v.begin(), v.end(), t.data());
  return t;
}

// The vectors a playground call runs on: its options checked, T (at most 256) and the width
// named `dim` (at most max_dim) required, x (T x width finite floats) as a (1,T,width) tensor.
struct Vectors {
  size_t T, width;
  at::Tensor3 x;
};
Vectors read_vectors(val o, const std::string& call, const char* dim, size_t max_dim) {
  check_options(o, ("playground." + call + " options").c_str());
  ATTNLAB_CHECK(has_opt(o, "T") && has_opt(o, dim), "playground.", call, ": T and ", dim, " are required");
  const size_t T = opt_size(o, "T", 1, 256, 0), W = opt_size(o, dim, 1, max_dim, 0);
  return {T, W, tensor3(to_floats(o["x"], "x", /*finite=*/true), 1, T, W, "x")};
}

// {score, mode: 'global'|'local-m'|'local-p', x: Float32Array (T*D), T, D,
//  validKeys (<= T), causal, window, seed}
// -> {scores (T,T), mask (T,T) 0/1 allowed, weights (T,T), out (T,D), positions (T)?}
val attend(val o) {
  return guard([&] {
    const Vectors in = read_vectors(o, "attend", "D", 512);
    const size_t T = in.T, D = in.width;
    const at::Tensor3& q = in.x;
    const std::string score = opt_string(o, "score", "scaled_dot");
    const std::string mode = opt_enum(o, "mode", {"global", "local-m", "local-p"}, "global");
    const size_t valid = opt_size(o, "validKeys", 1, T, T);
    const bool causal = opt_bool(o, "causal", false);
    attnlab::Rng rng(opt_seed(o, "seed", 1));
    at::ScoreConfig sc;
    sc.kind = at::parse_score_kind(score);
    sc.query_dim = D;
    sc.key_dim = D;
    sc.attn_dim = D;
    sc.max_keys = T;
    val out = val::object();
    // raw scores for display (before mask and softmax)
    at::Score sfn(sc, rng);
    const at::Tensor3 scores = sfn.forward(q, q, nullptr);
    out.set("scores", from_floats(scores.data(), scores.size()));
    std::vector<float> allowed(T * T);
    for (size_t i = 0; i < T; ++i)
      for (size_t j = 0; j < T; ++j) allowed[i * T + j] = (j < valid && (!causal || j <= i)) ? 1.f : 0.f;
    if (mode == "global") {
      at::Attention att;
      att.score = sfn;
      at::AttendMask m;
      m.lengths = {valid};
      m.causal = causal;
      const at::AttendResult r = att.forward(q, q, q, m);
      out.set("weights", from_floats(r.weights.data(), r.weights.size()));
      out.set("out", from_floats(r.out.data(), r.out.size()));
    } else {
      ATTNLAB_CHECK(!causal, "local attention here has no causal option: its window already limits the keys");
      at::LocalConfig lc;
      lc.mode = mode == "local-m" ? at::LocalMode::Monotonic : at::LocalMode::Predictive;
      lc.window = opt_size(o, "window", 0, 256, 2);
      lc.score = sc;
      attnlab::Rng rng2(opt_seed(o, "seed", 1));
      at::LocalAttention la(lc, rng2);
      la.score = sfn;
      const at::LocalResult r = la.forward(q, q, q, {valid});
      out.set("weights", from_floats(r.weights.data(), r.weights.size()));
      out.set("out", from_floats(r.out.data(), r.out.size()));
      out.set("positions", from_floats(r.positions.data(), r.positions.size()));
      allowed = at::local_window_allowed(lc, r, T, T, valid);
    }
    out.set("mask", from_floats(allowed));
    return out;
  });
}

// {x: (T*E), T, E, heads, causal, validKeys, seed}
// -> {heads: (H,T,T), weights: (T,T) averaged, out (T,E), disagreement: {subspace, position, output}}
val multihead(val o) {
  return guard([&] {
    const Vectors in = read_vectors(o, "multihead", "E", 1024);
    const size_t T = in.T, E = in.width;
    const at::Tensor3& q = in.x;
    const size_t H = opt_size(o, "heads", 1, 16, 4);
    ATTNLAB_CHECK(E % H == 0, "heads: the embedding size ", E, " must be divisible by the number of heads, got ", H);
    attnlab::Rng rng(opt_seed(o, "seed", 1));
    at::MultiheadAttention mha(E, H, rng);
    at::MhaOptions opt;
    opt.is_causal = opt_bool(o, "causal", false);
    const size_t valid = opt_size(o, "validKeys", 1, T, T);
    if (valid < T) {
      opt.key_padding_mask = at::BoolTensor2::from_shape({1, T});
      for (size_t j = 0; j < T; ++j) opt.key_padding_mask(0, j) = j >= valid;
    }
    opt.average_attn_weights = false;
    at::MultiheadAttention::Cache cache;
    const at::MhaResult r = mha.forward(q, q, q, opt, &cache);
    const at::DisagreementTerms d = mha.disagreement(cache);
    val out = val::object();
    out.set("heads", from_floats(r.head_weights.data(), r.head_weights.size()));
    const at::Tensor3 avg = at::mean_over_heads(r.head_weights);
    out.set("weights", from_floats(avg.data(), avg.size()));
    out.set("out", from_floats(r.out.data(), r.out.size()));
    val dis = val::object();
    dis.set("subspace", d.subspace);
    dis.set("position", d.position);
    dis.set("output", d.output);
    out.set("disagreement", dis);
    return out;
  });
}

// The score table: [{name, aliases, formula, sameDims, usesAttnDim, usesMaxKeys, usesKeys}]
val score_kinds() {
  return guard([&] {
    val arr = val::array();
    for (const at::ScoreSpec& s : at::score_table()) {
      val o = val::object(), aliases = val::array();
      for (const std::string& a : s.aliases) aliases.call<void>("push", a);
      o.set("name", std::string(s.name));
      o.set("aliases", aliases);
      o.set("formula", std::string(s.formula));
      o.set("sameDims", s.same_dims);
      o.set("usesAttnDim", s.uses_attn_dim);
      o.set("usesMaxKeys", s.uses_max_keys);
      o.set("usesKeys", s.uses_keys);
      arr.call<void>("push", o);
    }
    return arr;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_playground) {
  function("scoreKinds", &score_kinds);
  function("playgroundAttend", &attend);
  function("playgroundMultihead", &multihead);
}
