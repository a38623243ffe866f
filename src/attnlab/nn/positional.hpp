// Positional encodings added to token embeddings (Vaswani et al. 2017, section 3.5).
//
//   sinusoidal: PE[t, 2i] = sin(t / 10000^(2i/D)), PE[t, 2i+1] = cos(t / 10000^(2i/D))
//               (no parameters; any position; odd D: the last column is a sine)
//   learned:    a (max_len, D) table "weight", init N(0, 0.02^2) as in GPT-2 / BERT;
//               positions >= max_len are an error.
// forward ADDS the encoding of positions start .. start+T-1 to x (B,T,D) in place, so a
// decoder step at position t calls it with T = 1, start = t.
#pragma once
#include <string>
#include <vector>

#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"

namespace attnlab::nn {

enum class PosKind { Sinusoidal, Learned };
PosKind pos_kind_from_string(const std::string& s);  // "sinusoidal" | "learned"
const char* pos_kind_name(PosKind k);

class PositionalEncoding {
 public:
  PositionalEncoding() = default;
  PositionalEncoding(PosKind kind, size_t max_len, size_t dim, Rng& rng);
  // registers "weight" (learned only)
  void collect(ParamList& out, const std::string& prefix);

  // x: (B,T,D) -> x + PE[start .. start+T) broadcast over B (in place)
  void forward(size_t B, size_t T, float* x, size_t start = 0) const;
  // dy: (B,T,D) -> accumulates into weight.grad (learned); nothing to do for sinusoidal
  void backward(size_t B, size_t T, const float* dy, size_t start = 0);

  // the sinusoid of one position: out (D)
  static void sinusoid(size_t pos, size_t dim, float* out);

  PosKind kind = PosKind::Sinusoidal;
  size_t max_len = 0, dim = 0;
  Param weight;  // (max_len, D), learned only

 private:
  // sinusoidal: the first min(max_len, 256) positions (rows of D) computed once
  std::vector<float> table_;
};

}  // namespace attnlab::nn
