// Seeded synthetic click-through data whose label depends ONLY on a pairwise
// interaction between two fields (for AutoInt, models/autoint.hpp):
//   F categorical fields, field f uniform over [0, vocab[f]);
//   logit = scale * T[x_a][x_b] + bias + eps,  eps ~ N(0, noise^2)
//   y ~ Bernoulli(sigmoid(logit))
// T (vocab[a] x vocab[b]) is a random N(0,1) table, then double-centred (every
// row and every column sums to 0) and rescaled to unit RMS. So averaged over
// the other field, each value of field a (and of b) has logit mean `bias`:
// no single field carries the signal by itself, only the pair (a, b) does;
// the other F-2 fields are pure distractors.
// The table is drawn from task_seed (0 = seed), the samples from seed, so one
// task_seed with several seeds gives train/test sets of the same task.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attnlab::data {

struct CtrSyntheticConfig {
  size_t n = 10000;                         // samples
  std::vector<size_t> vocab = {8, 8, 8, 8, 8, 8};  // F fields and their vocabulary sizes
  size_t field_a = 1, field_b = 4;          // the interacting pair (a != b)
  float scale = 3.f;                        // RMS of the planted interaction logit
  float bias = 0.f;                         // global logit offset
  float noise = 0.3f;                       // std of the logit noise eps
  uint64_t seed = 0;                        // draws the samples
  uint64_t task_seed = 0;                   // draws the table T; 0 = use seed
};

struct CtrSyntheticData {
  size_t n = 0, fields = 0;
  std::vector<int> ids;        // (n, F) row-major field values
  std::vector<float> labels;   // (n) 0 or 1
  std::vector<float> prob;     // (n) the true P(y=1 | x) = sigmoid(scale*T + bias) (noise-free)
  std::vector<float> table;    // (vocab[a], vocab[b]) the unit-RMS table T
};

// Throws attnlab::Error for n == 0, fewer than 2 fields, a vocabulary of size 0,
// field_a/field_b out of range or equal, non-finite or negative scale/noise.
CtrSyntheticData make_ctr_synthetic(const CtrSyntheticConfig& cfg);

}  // namespace attnlab::data
