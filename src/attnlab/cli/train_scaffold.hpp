// The scaffold every `attnlab train <model>` command is built on: the flags all
// training commands share, the run identity that --resume checks, elapsed time
// across resumptions, atomic writes of every output and checkpoint, one
// progress bar, and one form of events (--json lines on stdout, or text lines;
// --quiet silences both the bar and the text). A command keeps only what is
// its own: its model flags, data, run identity, step/evaluate hooks and lines.
//
//   Args a("train foo", with_common_train_flags(foo_flags(), {"foo.safetensors"}));
//   a.parse(argv);
//   TrainScaffold run(a, "attnlab train foo");
//   ... build model, optimizer, batcher ...
//   nn::TrainOptions to = run.train_options(batcher.num_batches());
//   run.set_run_id({{"model", "foo"}, {"config", ...}, {"seed", run.seed()}, ...});
//   nn::Trainer trainer(ps, opt, sched, batcher, to);
//   run.resume(trainer);                 // no-op without --resume
//   nn::TrainHooks hooks = run.hooks(trainer);   // checkpoints wired; add step/evaluate/on_event
//   run.run(trainer, hooks);             // progress bar, --max-steps, final checkpoint
//   run.write(run.out(), model.save(...));      // atomic
//   run.done({{"model", run.out()}, ...}, "saved ...");
#pragma once
#include <chrono>
#include <functional>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/nn/train.hpp"

namespace attnlab::cli {

// Defaults of the flags of commands trained by nn::Trainer, in the order of the flags:
// --epochs --batch-size --lr --warmup --clip. A command sets them together, e.g.
// `d.trainer_flags = {"8", "32", "0.002", "50"};` (clip stays 5).
struct TrainerFlagDefaults {
  std::string epochs = "10", batch = "32", lr = "0.01", warmup = "20", clip = "5";
};

// Defaults of the shared flags that differ between commands.
struct TrainFlagDefaults {
  std::string out;                 // --out
  std::string out_help = "where to write the trained model";
  std::string dtype = "f32";       // --dtype
  std::string seed_help = "seed for data, initialisation and shuffling";
  // Flags of commands trained by nn::Trainer (false: only seed/out/dtype/json/quiet).
  bool trainer = true;
  TrainerFlagDefaults trainer_flags;
  std::string checkpoint_every = "0";
  std::string checkpoint_every_help = "steps between checkpoints (0 = every epoch)";
  // With trainer false: the resumable-run flags all the same (a command with its own loop).
  bool resumable = false;
  std::string max_steps_help =
      "stop after this many steps; the schedule still spans all epochs, so --resume continues "
      "the same run (0 = run to the end)";
};

// The command's own flags followed by the shared ones:
//   always:   --seed --out --dtype --json --quiet
//   trainer:  --epochs --batch-size --lr --warmup --clip
//   trainer or resumable: --max-steps --checkpoint --checkpoint-every --resume
std::vector<FlagSpec> with_common_train_flags(std::vector<FlagSpec> own,
                                              const TrainFlagDefaults& d);

// Flags of several training commands, each with its usual help line: --schedule (read by
// TrainScaffold::schedule), --label-smoothing and --eval-every (nn::TrainOptions::eval_every).
FlagSpec schedule_flag();
FlagSpec label_smoothing_flag(std::string def);
FlagSpec eval_every_flag(std::string help = "validate every N steps (0 = every epoch)");
// --init-from PATH (seq2seq models: the weights of a model file with this run's config)
FlagSpec init_from_flag();

// A usage error for a bad --dtype.
io::DType dtype_flag(const Args& a);

// Helpers the commands share.
// seconds of steady time since t0
double seconds_since(std::chrono::steady_clock::time_point t0);
// " a1 a2 ...": the arguments as appended to a command in run ids and events
std::string join_args(const std::vector<std::string>& v);
// the text of --file PATH ("-" = stdin); a file that cannot be read is an Error
std::string read_input_file(const std::string& path);
// FNV-1a (64 bit) of bytes as 16 hex digits: what a run id records of a file it reads
std::string fnv1a64_hex(const void* bytes, size_t n);
// A predict command's text: --input, then the text of --file (if the command has the flag),
// then the positional arguments, each joined by a space; none of them: a UsageError `missing`.
std::string input_text(const Args& a, const std::string& missing);
// example-pairs / example-docs: the command's flags and --out parsed (no positional arguments;
// --help prints usage and about), then the text make(args) generates written to --out PATH
// (atomic) or, without --out, to stdout. Returns the exit code.
int example_command(const std::vector<std::string>& argv, const std::string& name,
                    std::vector<FlagSpec> flags, const std::string& usage, const std::string& about,
                    const std::function<std::string(const Args&)>& make);

class TrainScaffold {
 public:
  // Reads the shared flags (a must be parsed); `command` is recorded in events.
  TrainScaffold(const Args& a, std::string command);

  bool json() const { return json_; }
  bool quiet() const { return quiet_; }
  bool chatty() const { return !json_ && !quiet_; }  // text lines and notes wanted
  uint64_t seed() const { return seed_; }
  const std::string& out() const { return out_; }
  io::DType dtype() const { return dtype_; }
  size_t epochs() const { return epochs_; }
  size_t batch() const { return batch_; }
  float lr() const { return lr_; }
  size_t warmup() const { return warmup_; }
  size_t stop_at() const { return stop_at_; }  // --max-steps, or SIZE_MAX

  // --lr, --warmup and the command's --schedule (constant, cosine, linear, step) as a
  // schedule; the command sets what is its own (min_lr, step_size, total)
  nn::LrSchedule schedule(const Args& a) const;
  // epochs, clip, seed and the checkpoint interval (--checkpoint-every, 0 = every epoch)
  nn::TrainOptions train_options(size_t batches_per_epoch) const;

  // What must match between a run and its resumption (kept as compact JSON text).
  void set_run_id(const nlohmann::json& what);
  const std::string& run_id() const { return run_id_; }

  // With --resume: reads the checkpoint, refuses one made by another run (saying
  // both ids and what to do), restores the trainer and the elapsed time. Returns
  // the checkpoint, or nothing without --resume.
  std::optional<io::SafeTensors> resume(nn::Trainer& trainer);
  double elapsed() const;  // seconds of training, including runs before a resume

  // Atomic write (temporary file + rename) of an output.
  void write(const std::string& path, const std::vector<uint8_t>& bytes) const;
  // With --checkpoint: writes trainer's checkpoint (run id, elapsed time) atomically.
  void checkpoint(const nn::Trainer& trainer) const;
  // Hooks with on_checkpoint wired to checkpoint(); the command adds step, evaluate, on_event.
  nn::TrainHooks hooks(const nn::Trainer& trainer) const;

  // Runs to the end or --max-steps with the progress bar, then writes a final checkpoint.
  void run(nn::Trainer& trainer, const nn::TrainHooks& hooks);
  // The same, epoch by epoch, stopping after the epoch that passes `budget_s` seconds of
  // training (0 = no budget). Returns true if the budget stopped it.
  bool run_with_budget(nn::Trainer& trainer, const nn::TrainHooks& hooks,
                       size_t batches_per_epoch, double budget_s);

  // One evaluation: with --json, `fields` + {"event": "eval", "seconds"} as one line on
  // stdout; otherwise `text` on stdout (unless --quiet), after clearing the progress bar.
  void event(nlohmann::json fields, const std::string& text);
  // The end of the run: {"event": "done", ...} or `text`, the same way.
  void done(nlohmann::json fields, const std::string& text);
  // A note on stderr (not with --json or --quiet).
  void note(const std::string& text) const;
  // The run's one progress bar (stderr, only on a terminal and without --json / --quiet),
  // made on first use with `total` steps; for commands that drive their own loop.
  nn::ProgressBar& bar(size_t total);

 private:
  void emit(nlohmann::json fields, const char* event, const std::string& text);
  std::string command_;
  bool json_, quiet_, trainer_flags_;
  uint64_t seed_;
  std::string out_;
  io::DType dtype_;
  size_t epochs_ = 1, batch_ = 1, warmup_ = 0, checkpoint_every_ = 0, stop_at_ = SIZE_MAX;
  float lr_ = 0, clip_ = 0;
  std::string checkpoint_path_, resume_path_;
  std::string run_id_;
  double prior_seconds_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::unique_ptr<nn::ProgressBar> bar_;
};

}  // namespace attnlab::cli
