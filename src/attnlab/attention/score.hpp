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

namespace attnlab::attention {

enum class ScoreKind { Dot, ScaledDot, General, Additive, Cosine, Location };
// "dot", "scaled_dot", "general", "additive" (alias "concat"), "cosine", "location"
ScoreKind parse_score_kind(const std::string& name);
const char* score_kind_name(ScoreKind k);

struct ScoreConfig {
  ScoreKind kind = ScoreKind::ScaledDot;
  size_t query_dim = 0;  // Dq
  size_t key_dim = 0;    // Dk
  size_t attn_dim = 0;   // A, additive only
  size_t max_keys = 0;   // location only
};

class Score {
 public:
  struct Cache {
    Tensor3 q, k;       // inputs
    Tensor3 kw;         // general: k W^T (B,S,Dq)
    Tensor3 qa, ka;     // additive: q W1^T (B,Tq,A), k W2^T (B,S,A)
    Tensor4 hidden;     // additive: tanh(qa_t + ka_s) (B,Tq,S,A)
    Tensor2 qn, kn;     // cosine: clamped norms (B,Tq), (B,S)
    Tensor3 scores;     // cosine: the scores (B,Tq,S)
  };

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

  Param weight;        // general (Dq,Dk) / location (max_keys,Dq)
  Param query_weight;  // additive W1 (A,Dq)
  Param key_weight;    // additive W2 (A,Dk)
  Param v;             // additive v (A)

 private:
  void check_inputs(const Tensor3& q, const Tensor3& k) const;
  ScoreConfig cfg_;
};

}  // namespace attnlab::attention
