#include "attnlab/nn/train.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <utility>

namespace attnlab::nn {

// ============================================================== progress bar
ProgressBar::ProgressBar(Sink out, bool enabled, size_t total_steps)
    : out_(std::move(out)), enabled_(enabled && out_), total_(total_steps) {
  start_ = last_ = std::chrono::steady_clock::now();
}

namespace {
std::string fmt_time(double s) {
  if (!std::isfinite(s) || s < 0) return "--:--";
  const long t = static_cast<long>(s + 0.5);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}
}  // namespace

void ProgressBar::update(size_t step, double loss, size_t samples) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && step < total_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  const double el = std::chrono::duration<double>(now - start_).count();
  const double sps = el > 0 ? samples / el : 0;
  const double frac = total_ ? static_cast<double>(step) / total_ : 0;
  const double eta = step > 0 ? el / step * (total_ - std::min(step, total_)) : -1;
  const int width = 24;
  const int fill = static_cast<int>(frac * width + 0.5);
  char buf[256];
  std::snprintf(buf, sizeof buf, "\r[%.*s%.*s] %zu/%zu loss %.4f  %.0f samples/s  ETA %s ", fill,
                "########################", width - fill, "........................", step,
                total_, loss, sps, fmt_time(eta).c_str());
  out_(buf);
}

void ProgressBar::finish() {
  if (enabled_ && drawn_) out_("\n");
  drawn_ = false;
}

// ============================================================== rng state
// Rng is trivially copyable: its state is its bytes. Only the members are
// saved (uint32_t s_[4], double spare_, bool has_spare_: 25 bytes), not the
// trailing padding, so equal states give equal strings.
static_assert(std::is_trivially_copyable<Rng>::value, "Rng must be trivially copyable");
static_assert(sizeof(Rng) == 32, "Rng layout changed: update the checkpoint rng encoding");
constexpr size_t kRngBytes = 25;

std::string rng_to_hex(const Rng& r) {
  unsigned char b[kRngBytes];
  std::memcpy(b, &r, kRngBytes);
  static const char* hx = "0123456789abcdef";
  std::string s;
  for (unsigned char c : b) {
    s.push_back(hx[c >> 4]);
    s.push_back(hx[c & 15]);
  }
  return s;
}

void rng_from_hex(Rng& r, const std::string& hex) {
  ATTNLAB_CHECK(hex.size() == 2 * kRngBytes, "checkpoint: rng state has ", hex.size(),
                " hex digits, expected ", 2 * kRngBytes, " (written by another build?)");
  unsigned char b[kRngBytes];
  auto nib = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw Error(std::string("checkpoint: rng state has a non-hex digit '") + c + "'");
  };
  for (size_t i = 0; i < kRngBytes; ++i)
    b[i] = static_cast<unsigned char>(nib(hex[2 * i]) * 16 + nib(hex[2 * i + 1]));
  std::memcpy(static_cast<void*>(&r), b, kRngBytes);
}

// ============================================================== trainer
Trainer::Trainer(const ParamList& params, Optimizer& opt, const LrSchedule& sched,
                 const data::Batcher& batcher, const TrainOptions& options)
    : params_(params), opt_(opt), sched_(sched), batcher_(batcher), options_(options),
      rng_(options.seed) {}

size_t Trainer::total_steps() const {
  const size_t full = options_.epochs * batcher_.num_batches();
  return options_.max_steps ? std::min(full, options_.max_steps) : full;
}

double Trainer::run(const TrainHooks& hooks, ProgressBar* bar, size_t stop_at) {
  ATTNLAB_CHECK(static_cast<bool>(hooks.step), "Trainer: a step hook is required");
  const size_t nb = batcher_.num_batches();
  const size_t total = total_steps();
  const size_t end = std::min(total, stop_at);
  const auto t0 = std::chrono::steady_clock::now();
  size_t samples = 0;
  double loss_sum = 0, epoch_loss = 0;
  size_t loss_n = 0, epoch_n = 0;
  while (step_ < end) {
    const size_t epoch = step_ / nb;
    const auto batches = batcher_.epoch(epoch);
    for (size_t bi = step_ % nb; bi < nb && step_ < end; ++bi) {
      opt_.lr = sched_.lr_at(step_);
      params_.zero_grad();
      const double loss = hooks.step(batches[bi], rng_);
      ATTNLAB_CHECK(std::isfinite(loss), "training diverged: loss is ", loss, " at step ", step_,
                    " (try a lower --lr or --clip)");
      if (options_.clip_norm > 0.f) clip_grad_norm(params_, options_.clip_norm);
      opt_.step();
      ++step_;
      samples += batches[bi].size();
      loss_sum += loss;
      ++loss_n;
      epoch_loss += loss;
      ++epoch_n;
      if (bar) bar->update(step_, loss_sum / loss_n, samples);
      const bool epoch_end = step_ % nb == 0 || step_ == total;
      const bool do_eval =
          options_.eval_every ? (step_ % options_.eval_every == 0 || step_ == total) : epoch_end;
      if (do_eval) {
        TrainEvent ev;
        ev.step = step_;
        ev.epoch = epoch;
        ev.loss = loss_sum / std::max<size_t>(loss_n, 1);
        ev.lr = opt_.lr;
        const double el =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        ev.samples_per_s = el > 0 ? samples / el : 0;
        if (hooks.evaluate) {
          ev.eval = hooks.evaluate();
          ev.has_eval = true;
        }
        history.push_back(ev);
        if (hooks.on_event) hooks.on_event(ev);
        loss_sum = 0;
        loss_n = 0;
      }
      if (options_.checkpoint_every && hooks.on_checkpoint &&
          (step_ % options_.checkpoint_every == 0 || step_ == total))
        hooks.on_checkpoint(checkpoint(options_.checkpoint_meta), step_);
      if (epoch_end && step_ < end) {
        epoch_loss = 0;
        epoch_n = 0;
      }
    }
  }
  if (bar) bar->finish();
  return epoch_n ? epoch_loss / epoch_n : 0.0;
}

std::vector<io::TensorView> training_state_views(const ParamList& params, Optimizer& opt) {
  std::vector<io::TensorView> views = io::param_views(params, "param.");
  for (auto& st : opt.state()) {
    const Tensor& t = *st.second;
    views.push_back({"optim." + st.first, std::vector<size_t>(t.shape().begin(), t.shape().end()),
                     t.data()});
  }
  return views;
}

void add_training_meta(std::map<std::string, std::string>& meta, size_t step, const Optimizer& opt) {
  meta["kind"] = "attnlab-checkpoint";
  meta["step"] = std::to_string(step);
  meta["optimizer"] = opt.name();
  meta["optimizer_steps"] = std::to_string(opt.steps);
}

size_t restore_training_state(const io::SafeTensors& ck, const ParamList& params, Optimizer& opt) {
  io::load_params(ck, params, "param.", true);
  for (auto& st : opt.state()) {
    const io::TensorData* t = ck.find("optim." + st.first);
    ATTNLAB_CHECK(t, "checkpoint: missing optimizer state 'optim.", st.first, "'");
    ATTNLAB_CHECK(t->data.size() == st.second->size(), "checkpoint: optimizer state 'optim.",
                  st.first, "' has ", t->data.size(), " values, expected ", st.second->size());
    std::copy(t->data.begin(), t->data.end(), st.second->data());
  }
  try {
    const size_t step = static_cast<size_t>(std::stoull(ck.meta("step")));
    opt.steps = std::stoll(ck.meta("optimizer_steps"));
    return step;
  } catch (const std::exception&) {
    throw Error("checkpoint: 'step' / 'optimizer_steps' metadata missing or not a number");
  }
}

std::vector<uint8_t> Trainer::checkpoint(const std::map<std::string, std::string>& extra) const {
  std::map<std::string, std::string> meta = options_.checkpoint_meta;
  for (auto& kv : extra) meta[kv.first] = kv.second;
  add_training_meta(meta, step_, opt_);
  meta["rng"] = rng_to_hex(rng_);
  meta["seed"] = std::to_string(options_.seed);
  return io::encode(training_state_views(params_, opt_), meta, io::DType::F32);
}

void Trainer::restore(const io::SafeTensors& ck) {
  ATTNLAB_CHECK(ck.meta("kind") == "attnlab-checkpoint", "checkpoint: expected kind ",
                "'attnlab-checkpoint', got '", ck.meta("kind"),
                "' (is this a model file rather than a checkpoint?)");
  ATTNLAB_CHECK(ck.meta("optimizer") == opt_.name(), "checkpoint: saved with optimizer '",
                ck.meta("optimizer"), "', this run uses '", opt_.name(), "'");
  step_ = restore_training_state(ck, params_, opt_);
  rng_from_hex(rng_, ck.meta("rng"));
}

}  // namespace attnlab::nn
