#include "attnlab/cli/train_scaffold.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "attnlab/core/error.hpp"

namespace attnlab::cli {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string join_args(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += " " + x;
  return s;
}

std::string read_input_file(const std::string& path) {
  std::ostringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read '" + path + "'");
    ss << in.rdbuf();
  }
  return ss.str();
}

std::string fnv1a64_hex(const void* bytes, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  const auto* p = static_cast<const unsigned char*>(bytes);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::string input_text(const Args& a, const std::string& missing) {
  std::string text = a.get("input");
  if (a.has("file") && !a.get("file").empty()) text += read_input_file(a.get("file"));
  for (const auto& p : a.positional()) text += (text.empty() ? "" : " ") + p;
  if (text.empty()) throw UsageError(missing);
  return text;
}

int example_command(const std::vector<std::string>& argv, const std::string& name,
                    std::vector<FlagSpec> flags, const std::string& usage, const std::string& about,
                    const std::function<std::string(const Args&)>& make) {
  flags.push_back({"out", "PATH", "", "file to write (default: stdout)"});
  Args a(name, std::move(flags));
  if (a.parse_or_help(argv, usage, about)) return 0;
  a.no_positional();
  const std::string text = make(a);
  if (a.get("out").empty())
    std::cout << text;
  else
    io::write_bytes(a.get("out"), std::vector<uint8_t>(text.begin(), text.end()));  // atomic
  return 0;
}

std::vector<FlagSpec> with_common_train_flags(std::vector<FlagSpec> f, const TrainFlagDefaults& d) {
  if (d.trainer) {
    std::vector<FlagSpec> t = {
        {"epochs", "N", d.trainer_flags.epochs, "passes over the training set"},
        {"batch-size", "N", d.trainer_flags.batch, "samples per step"},
        {"lr", "F", d.trainer_flags.lr, "peak learning rate"},
        {"warmup", "N", d.trainer_flags.warmup, "linear warm-up steps"},
        {"clip", "F", d.trainer_flags.clip, "clip gradients to this global L2 norm (0 = off)"},
    };
    f.insert(f.end(), t.begin(), t.end());
  }
  if (d.trainer || d.resumable) {
    std::vector<FlagSpec> t = {
        {"max-steps", "N", "0", d.max_steps_help},
        {"checkpoint", "PATH", "", "write a resumable checkpoint here"},
        {"checkpoint-every", "N", d.checkpoint_every, d.checkpoint_every_help},
        {"resume", "PATH", "", "continue from a checkpoint (use the same flags as the first run)"},
    };
    f.insert(f.end(), t.begin(), t.end());
  }
  std::vector<FlagSpec> r = {
      {"seed", "N", "1", d.seed_help},
      {"out", "PATH", d.out, d.out_help},
      {"dtype", "f32|f16", d.dtype, "storage type of the model file (f16 halves its size)"},
      json_flag("print JSON lines on stdout (one per evaluation, then a summary)"),
      {"quiet", "", "", "no progress bar and no per-evaluation lines"},
  };
  f.insert(f.end(), r.begin(), r.end());
  return f;
}

FlagSpec schedule_flag() {
  return {"schedule", "NAME", "cosine", "decay after warm-up: constant, cosine, linear or step"};
}
FlagSpec label_smoothing_flag(std::string def) {
  return {"label-smoothing", "F", std::move(def), "label smoothing of the token cross-entropy"};
}
FlagSpec eval_every_flag(std::string help) { return {"eval-every", "N", "0", std::move(help)}; }
FlagSpec init_from_flag() {
  return {"init-from", "PATH", "", "start from the weights of a model file with the same config (a new run: "
                                   "fresh optimizer and schedule; recorded in the file)"};
}

io::DType dtype_flag(const Args& a) {
  try {
    return io::dtype_from_string(a.get("dtype"));
  } catch (const Error& e) {
    throw UsageError(std::string("--dtype: ") + e.what());
  }
}

namespace {
// Whether the command declared the whole nn::Trainer flag set (with_common_train_flags
// with trainer = true); commands with their own loops may share some of the names.
bool has_trainer_flags(const Args& a) {
  for (const char* f : {"epochs", "batch-size", "lr", "warmup", "clip", "max-steps", "checkpoint",
                        "checkpoint-every", "resume"})
    if (!a.has(f)) return false;
  return true;
}
}  // namespace

TrainScaffold::TrainScaffold(const Args& a, std::string command)
    : command_(std::move(command)),
      json_(a.flag("json")),
      quiet_(a.flag("quiet")),
      trainer_flags_(has_trainer_flags(a)),
      seed_(a.u64("seed")),
      out_(a.get("out")),
      dtype_(dtype_flag(a)),
      start_(std::chrono::steady_clock::now()) {
  if (!trainer_flags_) return;
  epochs_ = a.u64("epochs", 1, 1000000);
  batch_ = a.u64("batch-size", 1, 1 << 20);
  lr_ = static_cast<float>(a.num("lr", 0, 10));
  warmup_ = a.u64("warmup");
  clip_ = static_cast<float>(a.num("clip", 0, 1e6));
  stop_at_ = a.u64("max-steps") ? a.u64("max-steps") : SIZE_MAX;
  checkpoint_path_ = a.get("checkpoint");
  checkpoint_every_ = a.u64("checkpoint-every");
  resume_path_ = a.get("resume");
}

nn::LrSchedule TrainScaffold::schedule(const Args& a) const {
  nn::LrSchedule sched;
  sched.base_lr = lr_;
  sched.warmup = warmup_;
  try {
    sched.decay = nn::decay_from_string(a.get("schedule"));
  } catch (const Error& e) {
    throw UsageError(std::string("--schedule: ") + e.what());
  }
  return sched;
}

nn::TrainOptions TrainScaffold::train_options(size_t batches_per_epoch) const {
  nn::TrainOptions to;
  to.epochs = epochs_;
  to.clip_norm = clip_;
  to.seed = seed_;
  to.checkpoint_every = checkpoint_path_.empty() ? 0
                        : checkpoint_every_      ? checkpoint_every_
                                                 : batches_per_epoch;
  return to;
}

void TrainScaffold::set_run_id(const nlohmann::json& what) { run_id_ = what.dump(); }

std::optional<io::SafeTensors> TrainScaffold::resume(nn::Trainer& trainer) {
  start_ = std::chrono::steady_clock::now();
  if (resume_path_.empty()) return std::nullopt;
  io::SafeTensors ck = io::read_file(resume_path_);
  if (ck.meta("run") != run_id_)
    throw Error("checkpoint '" + resume_path_ + "' was made by a different run:\n  saved: " +
                ck.meta("run") + "\n  now:   " + run_id_ +
                "\nrerun with the flags of the first run to resume it");
  trainer.restore(ck);
  prior_seconds_ = std::atof(ck.meta("train_seconds", "0").c_str());
  note("resumed from " + resume_path_ + " at step " + std::to_string(trainer.step()) + " (" +
       std::to_string(static_cast<long>(prior_seconds_)) + " s trained before)");
  start_ = std::chrono::steady_clock::now();
  return ck;
}

double TrainScaffold::elapsed() const {
  return prior_seconds_ +
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void TrainScaffold::write(const std::string& path, const std::vector<uint8_t>& bytes) const {
  io::write_bytes(path, bytes);
}

void TrainScaffold::checkpoint(const nn::Trainer& trainer) const {
  if (checkpoint_path_.empty()) return;
  write(checkpoint_path_,
        trainer.checkpoint({{"run", run_id_}, {"train_seconds", std::to_string(elapsed())}}));
}

nn::TrainHooks TrainScaffold::hooks(const nn::Trainer& trainer) const {
  nn::TrainHooks h;
  h.on_checkpoint = [this, &trainer](const std::vector<uint8_t>&, size_t) { checkpoint(trainer); };
  return h;
}

nn::ProgressBar& TrainScaffold::bar(size_t total) {
  if (!bar_) {
    const bool tty = isatty(fileno(stderr)) != 0;
    bar_ = std::make_unique<nn::ProgressBar>(&std::cerr, tty && chatty(), total);
  }
  return *bar_;
}

void TrainScaffold::run(nn::Trainer& trainer, const nn::TrainHooks& hooks) {
  trainer.run(hooks, &bar(std::min(trainer.total_steps(), stop_at_)), stop_at_);
  checkpoint(trainer);
}

bool TrainScaffold::run_with_budget(nn::Trainer& trainer, const nn::TrainHooks& hooks,
                                    size_t batches_per_epoch, double budget_s) {
  const size_t end = std::min(trainer.total_steps(), stop_at_);
  nn::ProgressBar& b = bar(end);
  bool out_of_time = false;
  while (trainer.step() < end) {
    const size_t epoch_end = (trainer.step() / batches_per_epoch + 1) * batches_per_epoch;
    trainer.run(hooks, &b, std::min(stop_at_, epoch_end));
    if (budget_s > 0 && elapsed() > budget_s && trainer.step() < trainer.total_steps()) {
      out_of_time = true;
      break;
    }
  }
  checkpoint(trainer);
  return out_of_time;
}

void TrainScaffold::emit(nlohmann::json fields, const char* event, const std::string& text) {
  if (json_) {
    nlohmann::json j = {{"event", event}};
    j.update(fields);
    if (!j.contains("seconds")) j["seconds"] = elapsed();
    std::cout << j.dump() << std::endl;
  } else if (!quiet_) {
    if (bar_ && bar_->enabled()) std::cerr << "\r\033[K";
    std::cout << text << std::endl;
  }
}

void TrainScaffold::event(nlohmann::json fields, const std::string& text) {
  emit(std::move(fields), "eval", text);
}

void TrainScaffold::done(nlohmann::json fields, const std::string& text) {
  emit(std::move(fields), "done", text);
}

void TrainScaffold::note(const std::string& text) const {
  if (chatty()) std::cerr << text << std::endl;
}

}  // namespace attnlab::cli
