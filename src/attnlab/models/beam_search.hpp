// Beam search over any autoregressive decoder (RNN seq2seq, Transformer): the decoder
// is seen through a step (log-probabilities of the next token for n hypotheses) and a
// reorder (keep the listed hypotheses). beam = 1 is greedy decoding.
//
// Scoring (GNMT): finished hypotheses are ranked by logp / ((5 + len) / 6)^alpha, len
// counting </s>; alpha = 0 ranks by logp. Each step keeps the best `beam` continuations
// of all alive hypotheses (ties broken by the lower token id, then by order); the beam
// shrinks as hypotheses finish. Tokens 0..2 (<pad> <unk> <s>) are never produced;
// </s> = 3 ends a hypothesis. At max_len only </s> may follow; hypotheses cut there are
// candidates without </s>. The result lists every finished hypothesis (and those cut at
// max_len), best first by that score; the best is element 0.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

namespace attnlab::models {

struct BeamStepper {
  size_t vocab = 0;  // V
  size_t width = 0;  // attention columns reported per step (e.g. the source length)
  // prev: (n) previous tokens (<s> first) -> weights: (n,width), logp: (n,V)
  std::function<void(size_t n, const int* prev, float* weights, float* logp)> step;
  // keep hypotheses parents[0..m) (indices into the last step's n), in that order
  std::function<void(const std::vector<size_t>& parents)> reorder;
};

struct BeamHyp {
  std::vector<int> ids;            // output tokens without </s>
  std::vector<float> probs;        // probability of each when chosen
  std::vector<float> attn;         // (ids.size(), width): the step's weights per token
  double logp = 0;                 // incl. </s>
  float eos_prob = 0;              // 0 when cut at max_len
  bool done = false;               // ended with </s>
  double score = 0;                // the ranking score: logp, GNMT-normalized when alpha > 0
};

std::vector<BeamHyp> beam_search(const BeamStepper& dec, size_t beam, size_t max_len, float length_alpha);

}  // namespace attnlab::models
