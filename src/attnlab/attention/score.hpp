// Score functions: how well query s_t matches key h_i (Lilian Weng's table).
//   dot          score = s . h                                (Dq == Dk)
//   scaled_dot   score = s . h / sqrt(Dk)                     (Dq == Dk)
//   general      score = s^T W h        W: "weight" (Dq,Dk)   (Luong "general", bilinear)
//   additive     score = v^T tanh(W1 s + W2 h)                (Bahdanau "concat")
//                W1: "query_proj.weight" (A,Dq), W2: "key_proj.weight" (A,Dk), v: "v" (A)
//   cosine       score = s . h / (max(|s|,eps) max(|h|,eps))  (Graves "content-based"), eps = 1e-8
//   location     score = (W s)[i]       W: "weight" (max_keys,Dq): depends only on the query;
//                rows [0,S) of W are used, so S <= max_keys (Luong "location")
// Every score has forward and backward (grads for query, keys and parameters).
#pragma once
#include <string>
#include <vector>

#include "attnlab/attention/common.hpp"
#include "attnlab/attention/score_list.hpp"

namespace attnlab::attention {

#define ATTNLAB_SCORE_ENUM(id, name) id,
enum class ScoreKind { ATTNLAB_SCORE_LIST(ATTNLAB_SCORE_ENUM) };
#undef ATTNLAB_SCORE_ENUM
// A name or alias from the table ("dot", "scaled_dot", "general"/"bilinear",
// "additive"/"concat", "cosine", "location"); anything else is an Error listing them.
ScoreKind parse_score_kind(const std::string& name);
const char* score_kind_name(ScoreKind k);

struct ScoreConfig {
  ScoreKind kind = ScoreKind::ScaledDot;
  size_t query_dim = 0;  // Dq
  size_t key_dim = 0;    // Dk
  size_t attn_dim = 0;   // A, additive only
  size_t max_keys = 0;   // location only
};

class Score;

// What a score's forward keeps for its backward.
struct ScoreCache {
  Tensor3 q, k;       // inputs
  Tensor3 kw;         // general: k W^T (B,S,Dq)
  Tensor3 qa, ka;     // additive: q W1^T (B,Tq,A), k W2^T (B,S,A)
  Tensor4 hidden;     // additive: tanh(qa_t + ka_s) (B,Tq,S,A)
  Tensor2 qn, kn;     // cosine: clamped norms (B,Tq), (B,S)
  Tensor3 scores;     // cosine: the scores (B,Tq,S)
};

// One row of the score table: what a score is and its code.
struct ScoreSpec {
  ScoreKind kind;
  const char* name;
  std::vector<std::string> aliases;
  const char* formula;   // as in the header comment, for docs and the page
  bool same_dims;        // query_dim must equal key_dim
  bool uses_attn_dim;    // additive's A
  bool uses_max_keys;    // location's rows
  bool uses_keys;        // false: depends only on the query (location)
  // creates the parameters for a validated config; registers them by name
  void (*init)(Score& s, Rng& rng);
  void (*collect)(Score& s, ParamList& out, const std::string& prefix);
  // how many parameter values init creates for a config (checked before building)
  uint64_t (*param_count)(const ScoreConfig& cfg);
  void (*check)(const Score& s, const Tensor3& q, const Tensor3& k);
  // q: (B,Tq,Dq) k: (B,S,Dk) -> sc: (B,Tq,S) (preallocated)
  void (*forward)(const Score& s, const Tensor3& q, const Tensor3& k, Tensor3& sc,
                  ScoreCache* cache);
  // dsc: (B,Tq,S) -> dq, dk (zeroed on entry); parameter grads accumulate
  void (*backward)(Score& s, const Tensor3& dsc, const ScoreCache& c, Tensor3& dq, Tensor3& dk);
  // width of one prepared key row (0: the raw keys are used as they are)
  size_t (*key_width)(const ScoreConfig& cfg);
  // keys (S,Dk) -> prepared (S, key_width) (general: k W^T; additive: k W2^T)
  void (*prepare_keys)(const Score& s, size_t S, const float* keys, float* prepared);
  // one query q (Dq) against S keys -> scores (S). qproj: the query's projection
  // W1 q (A) for additive (computed here if nullptr); scratch: S * A floats.
  void (*score_query)(const Score& s, size_t S, const float* q, const float* qproj,
                      const float* keys, const float* prepared, float* scores, float* scratch);
};
// Every score, in list order.
const std::vector<ScoreSpec>& score_table();
const ScoreSpec& score_spec(ScoreKind kind);
std::vector<std::string> score_names();

class Score {
 public:
  using Cache = ScoreCache;

  Score() = default;
  Score(const ScoreConfig& cfg, Rng& rng);
  const ScoreConfig& config() const { return cfg_; }
  ScoreKind kind() const { return cfg_.kind; }
  // registers this score's parameters (none for dot/scaled_dot/cosine)
  void collect(ParamList& out, const std::string& prefix);

  // q: (B,Tq,Dq) k: (B,S,Dk) -> scores: (B,Tq,S). cache may be nullptr (inference).
  Tensor3 forward(const Tensor3& q, const Tensor3& k, Cache* cache) const;
  // dscores: (B,Tq,S) -> dq: (B,Tq,Dq), dk: (B,S,Dk) (overwritten); parameter grads accumulate.
  void backward(const Tensor3& dscores, const Cache& cache, Tensor3& dq, Tensor3& dk);

  // Decoders score one query at a time against keys fixed for the whole
  // sequence: prepare the keys once (prepared_width() floats per key; 0 = none
  // needed), then score each query. Same numbers as forward().
  size_t prepared_width() const { return spec().key_width(cfg_); }
  // keys: (S,Dk) -> prepared: (S, prepared_width())
  void prepare_keys(size_t S, const float* keys, float* prepared) const;
  // q: (Dq) -> scores: (S). qproj: additive's W1 q (A) if the caller has it (else
  // nullptr); scratch: at least scratch_size(S) floats.
  void score_query(size_t S, const float* q, const float* qproj, const float* keys,
                   const float* prepared, float* scores, float* scratch) const;
  size_t scratch_size(size_t S) const { return spec().uses_attn_dim ? S * cfg_.attn_dim : 0; }
  const ScoreSpec& spec() const { return score_spec(cfg_.kind); }

  Param weight;        // general (Dq,Dk) / location (max_keys,Dq)
  Param query_weight;  // additive W1 (A,Dq)
  Param key_weight;    // additive W2 (A,Dk)
  Param v;             // additive v (A)

 private:
  ScoreConfig cfg_;
};

}  // namespace attnlab::attention
