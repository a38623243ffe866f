// Local attention (Luong, Pham & Manning 2015, "Effective Approaches to
// Attention-based Neural Machine Translation", section 3.2).
//
// For query t (target state h_t) a window [p_t - D, p_t + D] of source
// positions is attended, clipped at the sequence edges [0, S_b - 1] (S_b = the
// batch item's length, or S):
//   local-m (monotonic): p_t = min(t, S_b - 1); a_t = softmax over the window of
//     score(h_t, h_s) (no Gaussian, as in the paper).
//   local-p (predictive): p_t = S_b * sigmoid(v_p^T tanh(W_p h_t)),
//     a_t(s) = softmax_window(score(h_t, h_s)) * exp(-(s - p_t)^2 / (2 sigma^2)),
//     sigma = D / 2; the window is the integers s with |s - p_t| <= D. Gradients
//     flow through p_t (the Gaussian) into W_p, v_p and h_t; the window edges
//     are piecewise constant in p_t (zero gradient), as in the paper.
// Parameters: the score's (prefix "score.") plus, for local-p,
//   "predictor.weight" W_p (A,Dq) and "predictor.v" v_p (A).
// Documented edge cases: a window larger than the sequence (D >= S) is clipped,
// so local-m with D >= S is exactly global attention; a length-0 item gives zero
// weights and zero outputs. D must be >= 1.
#pragma once
#include "attnlab/attention/attend.hpp"

namespace attnlab::attention {

enum class LocalMode { Monotonic, Predictive };  // local-m, local-p

struct LocalConfig {
  LocalMode mode = LocalMode::Predictive;
  size_t window = 2;         // D
  ScoreConfig score;         // any score kind
  size_t predictor_dim = 0;  // A for W_p (local-p); 0 = query_dim
};

struct LocalResult {
  Tensor3 out;        // (B,T,Dv)
  Tensor3 weights;    // (B,T,S) (local-p: softmax times Gaussian, so rows sum to <= 1)
  Tensor2 positions;  // (B,T) p_t
};

class LocalAttention {
 public:
  struct Cache {
    Score::Cache score;
    Tensor3 align;    // (B,T,S) window softmax
    Tensor3 weights;  // (B,T,S)
    Tensor2 p;        // (B,T)
    Tensor3 hid;      // (B,T,A) tanh(W_p h_t)
    Tensor2 sig;      // (B,T) sigmoid(.)
    Tensor3 q, v;
    std::vector<size_t> len;  // S_b
  };
  LocalAttention() = default;
  LocalAttention(const LocalConfig& cfg, Rng& rng);
  static uint64_t param_count(const LocalConfig& cfg);  // the score's and the predictor's
  const LocalConfig& config() const { return cfg_; }
  void collect(ParamList& out, const std::string& prefix);

  // q: (B,T,Dq) k: (B,S,Dk) v: (B,S,Dv), lengths (B) or empty -> out: (B,T,Dv), weights: (B,T,S)
  LocalResult forward(const Tensor3& q, const Tensor3& k, const Tensor3& v,
                      const std::vector<size_t>& lengths = {}, Cache* cache = nullptr) const;
  // dout: (B,T,Dv) -> dq, dk, dv (overwritten); parameter grads accumulate.
  void backward(const Tensor3& dout, const Cache& cache, Tensor3& dq, Tensor3& dk, Tensor3& dv);

  // Predictive mode, one query, inference (decoders): hid (A) = W_p q, overwritten with
  // its tanh; w (S) = the scores on entry, the weights on return (window softmax times
  // the Gaussian around p = S sigmoid(v . tanh(W_p q))). mask: scratch, resized to S.
  void predictive_weights(size_t S, float* hid, float* w, std::vector<float>& mask) const;

  Score score;
  Param pred_weight;  // (A,Dq)
  Param pred_v;       // (A)

 private:
  LocalConfig cfg_;
};

// The (T,S) picture of which keys query i may see for batch row 0 of r: 1 when
// key j is valid (j < valid) and inside the window |j - p_i| <= D (+ 0.5 for
// local-p's real-valued centre), 0 otherwise; p_i = i (local-m) or r.positions.
std::vector<float> local_window_allowed(const LocalConfig& cfg, const LocalResult& r, size_t T,
                                        size_t S, size_t valid);

}  // namespace attnlab::attention
