// The MMoE paper's synthetic experiment (Ma et al. 2018, figure 4), extended
// with attention gates: for each task correlation p and seed, generate data,
// train each model with early stopping on a validation split, and record the
// test MSE of both tasks. Summaries give mean and standard deviation per
// (model, p); writers produce a CSV and an SVG plot of loss against p.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/data/mmoe_synthetic.hpp"
#include "attnlab/models/mmoe.hpp"

namespace attnlab::models {

struct MMoEExperimentConfig {
  std::vector<float> ps = {0.5f, 0.8f, 0.9f, 1.0f};
  std::vector<GateKind> models = {GateKind::SharedBottom, GateKind::OMoE, GateKind::Softmax,
                                  GateKind::Attention};
  size_t seeds = 10;
  uint64_t first_seed = 1;
  size_t n_train = 10000, n_val = 2000, n_test = 2000;
  size_t epochs = 60, patience = 8, batch = 128;
  float lr = 1e-3f;
  // If non-empty: per run, train once per learning rate (same data, same initialisation) and
  // keep the one with the lowest validation loss; the test split is scored only for that one.
  std::vector<float> lr_grid;
  int sine_terms = 10;
  data::SineShape sine_shape = data::SineShape::Index;
  float scale = 1.f;     // c
  float noise = 0.01f;   // std of eps
  MMoEConfig model;  // sizes (gate is set per run)
};

struct MMoERun {
  GateKind gate;
  float p;
  uint64_t seed;
  float test_mse[2];
  size_t best_epoch;
  double seconds;
  float lr = 0.f;        // the learning rate used (chosen on validation if a grid was given)
  float val_mse = 0.f;   // task-average validation MSE at the best epoch
};

struct MMoESummaryRow {
  GateKind gate;
  float p;
  size_t runs;
  double mean[2], std[2];  // per task; std is the sample standard deviation
  double mean_total, std_total;  // of the per-run task-average
  double median_total = 0;       // median of the per-run task-average (robust to a stuck run)
};

// One run: generate the data for (p, seed), train `gate` with early stopping on
// the validation split, restore the best epoch's parameters, score the test split.
struct MMoETrained {
  std::unique_ptr<MMoE> model;
  float test_mse[2];
  size_t best_epoch;
  float lr = 0.f;
  float val_mse = 0.f;  // task-average
};
MMoETrained train_mmoe_run(const MMoEExperimentConfig& cfg, GateKind gate, float p, uint64_t seed,
                           const std::function<void(size_t epoch, const std::vector<float>& train_loss)>&
                               on_epoch = nullptr);

// Runs everything; progress(done, total, last run) after each run.
std::vector<MMoERun> run_mmoe_experiment(
    const MMoEExperimentConfig& cfg,
    const std::function<void(size_t, size_t, const MMoERun&)>& progress = nullptr);
std::vector<MMoESummaryRow> summarize(const std::vector<MMoERun>& runs);
std::string runs_csv(const std::vector<MMoERun>& runs);
// Reads runs_csv() output back (older files without the lr / val_mse columns too).
std::vector<MMoERun> parse_runs_csv(const std::string& csv);

// Paired statistics over seeds: seed s draws the same tasks and samples for every model and
// both p, so differences are taken per seed, then averaged. The loss of a run is the
// task-average test MSE. sd is the sample standard deviation of the per-seed differences,
// se = sd / sqrt(pairs).
struct MMoEPairedStat {
  std::string measure;   // "spread": loss(p_low) - loss(p_high) of `model`
                         // "spread_minus": spread(model) - spread(versus)
                         // "diff": loss(model) - loss(versus) at p_low (= p_high)
  GateKind model, versus;
  float p_low, p_high;
  size_t pairs;
  double mean, sd, se;
};
// Spread of every model between the smallest and the largest p of the runs; for every pair of
// models (model, versus) with `versus` earlier in GateKind order (shared-bottom, omoe, softmax,
// attention, attention-x), the paired difference of their spreads and, per p, of their losses.
// Seeds missing a run are left out of that statistic.
std::vector<MMoEPairedStat> paired_stats(const std::vector<MMoERun>& runs);
std::string paired_stats_csv(const std::vector<MMoEPairedStat>& stats);
std::string paired_stats_table(const std::vector<MMoEPairedStat>& stats);  // markdown
std::string summary_table(const std::vector<MMoESummaryRow>& rows);  // markdown
// Plot of the task-average test MSE against p, one line per model, error bars = 1 std.
std::string summary_svg(const std::vector<MMoESummaryRow>& rows);

}  // namespace attnlab::models
