// Training loop utilities: a progress bar, checkpoints (parameters +
// optimizer state + step + RNG state in one safetensors file) and a Trainer
// that runs epochs of batches from a data::Batcher with an LR schedule,
// gradient clipping and evaluation/checkpoint hooks. A run resumed from a
// checkpoint continues exactly as the uninterrupted run would have.
// No threads and no OS calls here: callers decide where bytes go.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/data/batching.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/nn/optim.hpp"

namespace attnlab::nn {

// One-line progress on a stream (stderr in the CLI): step, loss, samples/s,
// ETA. Disabled (prints nothing) when `enabled` is false, e.g. not a TTY or
// --quiet. Redraws at most every 100 ms. The stream is written through a
// callback made here, in the caller's code, so the library (and the .wasm,
// which never draws a bar) does not link the iostream machinery.
class ProgressBar {
 public:
  using Sink = std::function<void(const char*)>;
  ProgressBar(Sink out, bool enabled, size_t total_steps);
  ProgressBar(std::ostream* out, bool enabled, size_t total_steps)
      : ProgressBar(out ? Sink([out](const char* s) { *out << s << std::flush; }) : Sink(),
                    enabled && out != nullptr, total_steps) {}
  void update(size_t step, double loss, size_t samples);
  void finish();
  bool enabled() const { return enabled_; }

 private:
  Sink out_;
  bool enabled_;
  size_t total_;
  std::chrono::steady_clock::time_point start_, last_;
  bool drawn_ = false;
};

// Rng state <-> hex string (Rng is trivially copyable).
std::string rng_to_hex(const Rng& r);
void rng_from_hex(Rng& r, const std::string& hex);

// What every training checkpoint holds (Trainer's, models::CharLMTrainer's): the parameters as
// "param.<name>" and the optimizer's state tensors as "optim.<name>.<slot>" views, and the
// metadata kind, step, optimizer and optimizer_steps.
std::vector<io::TensorView> training_state_views(const ParamList& params, Optimizer& opt);
void add_training_meta(std::map<std::string, std::string>& meta, size_t step, const Optimizer& opt);
// Restores what those wrote (names and sizes checked): the parameters, the optimizer's state
// and steps; returns the step.
size_t restore_training_state(const io::SafeTensors& ck, const ParamList& params, Optimizer& opt);

struct TrainOptions {
  size_t epochs = 1;
  size_t max_steps = 0;          // 0 = epochs * batches per epoch
  float clip_norm = 0.f;         // 0 = no clipping
  size_t eval_every = 0;         // in steps; 0 = at the end of each epoch
  size_t checkpoint_every = 0;   // in steps; 0 = never (the caller can still call checkpoint())
  uint64_t seed = 0;             // seeds the training Rng (dropout etc.)
  std::map<std::string, std::string> checkpoint_meta;  // added to every checkpoint's metadata
};

struct TrainEvent {
  size_t step = 0, epoch = 0;
  double loss = 0;        // mean training loss since the previous event
  double eval = 0;        // evaluation metric (when has_eval)
  bool has_eval = false;
  float lr = 0;
  double samples_per_s = 0;
};

struct TrainHooks {
  // forward + backward of one batch (grads are zeroed before); returns the loss
  std::function<double(const std::vector<size_t>& batch, Rng& rng)> step;
  // optional: evaluation metric (lower or higher is better: the caller decides)
  std::function<double()> evaluate;
  // optional: receives checkpoint bytes every checkpoint_every steps
  std::function<void(const std::vector<uint8_t>& bytes, size_t step)> on_checkpoint;
  // optional: one event per evaluation
  std::function<void(const TrainEvent&)> on_event;
};

class Trainer {
 public:
  Trainer(const ParamList& params, Optimizer& opt, const LrSchedule& sched,
          const data::Batcher& batcher, const TrainOptions& options);
  // Runs from the current step to the end (or until stop_at steps, for tests
  // and time budgets). Returns the mean loss of the last epoch's steps.
  double run(const TrainHooks& hooks, ProgressBar* bar = nullptr, size_t stop_at = SIZE_MAX);
  size_t total_steps() const;
  size_t step() const { return step_; }
  Rng& rng() { return rng_; }

  // params ("param.<name>"), optimizer state ("optim.<name>.<slot>"), and in
  // __metadata__: step, optimizer steps, rng, seed, plus `extra`.
  std::vector<uint8_t> checkpoint(const std::map<std::string, std::string>& extra = {}) const;
  // Restores everything checkpoint() saved; validates names and shapes.
  void restore(const io::SafeTensors& ckpt);

  std::vector<TrainEvent> history;

 private:
  ParamList params_;
  Optimizer& opt_;
  LrSchedule sched_;
  const data::Batcher& batcher_;
  TrainOptions options_;
  Rng rng_;
  size_t step_ = 0;
};

}  // namespace attnlab::nn
