// DIN local activation unit (Zhou et al., "Deep Interest Network for
// Click-Through Rate Prediction", KDD 2018, section 4.3 and figure 2):
// the candidate item v is the query, the user's behaviours e_1..e_T are keys
// and values, and a small MLP scores each behaviour against the candidate:
//
//   z_j = [e_j, v, e_j - v, e_j * v]             (4D; the paper's figure feeds the
//                                                 outer product, public DIN code and
//                                                 most reimplementations use this form)
//   a_j = PReLU(W1 z_j + b1)                     (H hidden units, slope per unit)
//   w_j = W2 a_j + b2                            (a scalar per behaviour)
//   out = sum_{j < len} w_j e_j                  (B,D)
//
// The weights are NOT normalised by default: the paper drops the softmax "to
// reserve the intensity of user interests" (sum_j w_j grows with the number of
// relevant behaviours). `normalize = true` puts a softmax over the valid
// behaviours instead (the weights then sum to 1 like every other attention
// here). Dice, the paper's data-adaptive activation, needs batch statistics
// and is not implemented; PReLU is the paper's other choice.
//
// Lengths are valid counts: behaviours [0, len) are attended, [len, T) are
// padding and get weight 0 and no gradient. A row with len 0 gives a zero
// output and zero weights (never NaN).
//
// Parameters: "fc1.weight" (H,4D), "fc1.bias" (H), "prelu.alpha" (H),
// "fc2.weight" (1,H), "fc2.bias" (1).
#pragma once
#include "attnlab/attention/common.hpp"

namespace attnlab::attention {

struct ActivationUnitResult {
  Tensor2 out;      // (B,D)
  Tensor2 weights;  // (B,T) activation weights (0 on padding)
};

class ActivationUnit {
 public:
  struct Cache {
    Tensor3 e;              // (B,T,D)
    Tensor2 v;              // (B,D)
    std::vector<size_t> len;
    std::vector<float> z;   // (B*T,4D)
    std::vector<float> pre; // (B*T,H) before PReLU
    std::vector<float> act; // (B*T,H) after PReLU
    Tensor2 w;              // (B,T) final weights
  };
  ActivationUnit() = default;
  ActivationUnit(size_t dim, size_t hidden, Rng& rng, bool normalize = false);
  void collect(ParamList& out, const std::string& prefix);
  size_t dim() const { return D_; }
  size_t hidden() const { return H_; }
  bool normalize() const { return normalize_; }

  // e: (B,T,D) behaviours, v: (B,D) candidate, lengths (B) or empty (= all T)
  //   -> out (B,D), weights (B,T)
  ActivationUnitResult forward(const Tensor3& e, const Tensor2& v,
                               const std::vector<size_t>& lengths = {},
                               Cache* cache = nullptr) const;
  // dout (B,D), dweights (optional, (B,T)) -> de (B,T,D), dv (B,D) overwritten;
  // parameter grads accumulate
  void backward(const Tensor2& dout, const Cache& cache, Tensor3& de, Tensor2& dv,
                const Tensor2* dweights = nullptr);

  Param fc1_weight;  // (H,4D)
  Param fc1_bias;    // (H)
  Param alpha;       // (H) PReLU slopes
  Param fc2_weight;  // (1,H)
  Param fc2_bias;    // (1)

 private:
  size_t D_ = 0, H_ = 0;
  bool normalize_ = false;
};

}  // namespace attnlab::attention
