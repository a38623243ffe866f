// Training an RNN seq2seq model on text pairs held in memory, a few optimizer steps per
// call: what the JS package's Seq2Seq.create(config) / fit(pairs, options) run in a Worker,
// stoppable between calls and resumed by calling again (the model, the Adam state and the
// position in the epoch's batch order are kept). The CLI's `attnlab train seq2seq` trains the
// same model kind from a file with the training scaffold; both encode pairs through
// data::encode_training_pairs, so a model from either loads and tokenizes the same way.
//
//   PairsTrainer t(cfg, pairs, opts);        // vocabularies from the training part of `pairs`
//   while (...) t.run(50);                    // 50 steps (or to the end of the epoch)
//   PairsEval e = t.evaluate(200);            // greedy exact match on the held-out pairs
//   t.model().translate("forty two", {});
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/data/batching.hpp"
#include "attnlab/data/pair_encoding.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/nn/optim.hpp"

namespace attnlab::models {

// The largest model PairsTrainer builds: 2^24 parameters (64 MiB of float32; with the gradients
// and Adam's two moments 256 MiB), checked before each tensor is allocated.
inline constexpr uint64_t kMaxFitParams = uint64_t{1} << 24;

struct PairsTrainOptions {
  data::PairEncodingOptions tokens;  // tokenization, min count, length limits (0 = from the data)
  double valid_fraction = 0.1;       // held-out sources (seeded split by source text), [0, 0.5]
  size_t batch = 32;
  float lr = 2e-3f;                  // Adam; linear warm-up over `warmup` steps, then constant
  size_t warmup = 100;
  float clip = 1.f;                  // global gradient norm (0 = off)
  float label_smoothing = 0.f;
  uint64_t seed = 1;                 // initialisation, split and batch order
  void check() const;                // Error naming the bad option
};

struct PairsStep {
  size_t steps = 0;          // optimizer steps run by this call
  size_t step = 0, epoch = 0;  // after the call: total steps, epochs completed
  size_t steps_per_epoch = 0;
  bool epoch_end = false;    // the call ended an epoch
  double loss = 0;           // mean token cross-entropy of this call's steps
};

struct PairsEval {
  size_t pairs = 0, exact = 0;  // greedy outputs equal to the reference
  size_t edits = 0, ref_tokens = 0;
  double exact_match() const { return pairs ? double(exact) / double(pairs) : 0.0; }
  double token_error_rate() const { return ref_tokens ? double(edits) / double(ref_tokens) : 0.0; }
};

class PairsTrainer {
 public:
  // cfg: the architecture (rnn, score, sizes); its token, length and vocabulary fields are
  // set from `o.tokens` and the training pairs. Errors: no pairs, no training pairs left
  // after the split, bad options, or a config that does not validate.
  PairsTrainer(Seq2SeqConfig cfg, const std::vector<data::TextPair>& pairs, const PairsTrainOptions& o);

  // Runs up to `max_steps` optimizer steps, stopping early at the end of an epoch.
  PairsStep run(size_t max_steps);
  // Greedy decoding of the held-out pairs (the first `limit`; 0 = all).
  PairsEval evaluate(size_t limit = 0) const;

  const Seq2Seq& model() const { return *model_; }
  Seq2Seq& model() { return *model_; }  // for handles that translate while training goes on
  size_t train_pairs() const { return src_.size(); }
  size_t valid_pairs() const { return valid_.size(); }
  size_t too_long() const { return too_long_; }
  size_t step() const { return step_; }
  size_t params() const { return ps_.count(); }
  // the model file (F32 or F16), with the training's settings and progress in __metadata__
  std::vector<uint8_t> save(io::DType dtype = io::DType::F32) const;

 private:
  PairsTrainOptions o_;
  std::unique_ptr<Seq2Seq> model_;
  ParamList ps_;
  std::unique_ptr<nn::Adam> opt_;
  std::vector<std::vector<int>> src_, tgt_;
  std::vector<data::TextPair> valid_;
  std::unique_ptr<data::Batcher> batcher_;
  std::vector<std::vector<size_t>> batches_;  // the current epoch's order
  size_t step_ = 0, too_long_ = 0;
};

}  // namespace attnlab::models
