// The Score layer: checks and dispatch through the score table. Each score's
// own code is its struct in score_kinds.cpp.
#include "attnlab/attention/score.hpp"

namespace attnlab::attention {

const ScoreSpec& score_spec(ScoreKind kind) {
  for (const ScoreSpec& s : score_table())
    if (s.kind == kind) return s;
  throw Error("score kind: not in the score table");
}

std::vector<std::string> score_names() {
  std::vector<std::string> n;
  for (const ScoreSpec& s : score_table()) n.push_back(s.name);
  return n;
}

ScoreKind parse_score_kind(const std::string& n) {
  std::string all;
  for (const ScoreSpec& s : score_table()) {
    if (n == s.name) return s.kind;
    for (const std::string& a : s.aliases)
      if (n == a) return s.kind;
    all += (all.empty() ? "" : ", ") + std::string(s.name);
  }
  throw Error("score kind: expected one of " + all + "; got '" + n + "'");
}

const char* score_kind_name(ScoreKind kind) { return score_spec(kind).name; }

Score::Score(const ScoreConfig& cfg, Rng& rng) : cfg_(cfg) {
  const ScoreSpec& sp = spec();
  ATTNLAB_CHECK(cfg.query_dim > 0, "Score: query_dim must be > 0, got ", cfg.query_dim);
  if (sp.same_dims)
    ATTNLAB_CHECK(cfg.key_dim == cfg.query_dim, "Score ", sp.name,
                  ": expected key_dim == query_dim, got key_dim ", cfg.key_dim, " and query_dim ",
                  cfg.query_dim);
  if (sp.uses_keys && !sp.same_dims)
    ATTNLAB_CHECK(cfg.key_dim > 0, "Score ", sp.name, ": key_dim must be > 0");
  if (sp.uses_attn_dim)
    ATTNLAB_CHECK(cfg.attn_dim > 0, "Score ", sp.name, ": attn_dim must be > 0, got ", cfg.attn_dim);
  if (sp.uses_max_keys)
    ATTNLAB_CHECK(cfg.max_keys > 0, "Score ", sp.name, ": max_keys must be > 0");
  sp.init(*this, rng);
}

void Score::collect(ParamList& out, const std::string& prefix) { spec().collect(*this, out, prefix); }

Tensor3 Score::forward(const Tensor3& q, const Tensor3& kk, Cache* cache) const {
  // q: (B,Tq,Dq) k: (B,S,Dk) -> scores: (B,Tq,S)
  const ScoreSpec& sp = spec();
  ATTNLAB_CHECK(q.shape(0) == kk.shape(0), "Score: query batch ", q.shape(0), " != key batch ",
                kk.shape(0));
  ATTNLAB_CHECK(q.shape(2) == cfg_.query_dim, "Score ", sp.name, ": expected query last dim ",
                cfg_.query_dim, ", got query ", detail::shape_of(q));
  if (sp.uses_keys)
    ATTNLAB_CHECK(kk.shape(2) == cfg_.key_dim, "Score ", sp.name, ": expected key last dim ",
                  cfg_.key_dim, ", got keys ", detail::shape_of(kk));
  ATTNLAB_CHECK(kk.shape(1) > 0, "Score: zero-length keys (S = 0) cannot be attended; got keys ",
                detail::shape_of(kk));
  sp.check(*this, q, kk);
  Tensor3 sc = Tensor3::from_shape({q.shape(0), q.shape(1), kk.shape(1)});
  if (cache) {
    cache->q = q;
    cache->k = kk;
  }
  sp.forward(*this, q, kk, sc, cache);
  return sc;
}

void Score::backward(const Tensor3& dsc, const Cache& c, Tensor3& dq, Tensor3& dk) {
  const size_t B = c.q.shape(0), Tq = c.q.shape(1), S = c.k.shape(1);
  ATTNLAB_CHECK(dsc.shape(0) == B && dsc.shape(1) == Tq && dsc.shape(2) == S,
                "Score backward: expected dscores (", B, ",", Tq, ",", S, "), got ",
                detail::shape_of(dsc));
  dq = xt::zeros<float>({B, Tq, c.q.shape(2)});
  dk = xt::zeros<float>({B, S, c.k.shape(2)});
  spec().backward(*this, dsc, c, dq, dk);
}

void Score::prepare_keys(size_t S, const float* keys, float* prepared) const {
  if (prepared_width() > 0) spec().prepare_keys(*this, S, keys, prepared);
}

void Score::score_query(size_t S, const float* q, const float* qproj, const float* keys,
                        const float* prepared, float* scores, float* scratch) const {
  spec().score_query(*this, S, q, qproj, keys, prepared, scores, scratch);
}

}  // namespace attnlab::attention
