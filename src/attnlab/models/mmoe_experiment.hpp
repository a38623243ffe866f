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
  int sine_terms = 10;
  MMoEConfig model;  // sizes (gate is set per run)
};

struct MMoERun {
  GateKind gate;
  float p;
  uint64_t seed;
  float test_mse[2];
  size_t best_epoch;
  double seconds;
};

struct MMoESummaryRow {
  GateKind gate;
  float p;
  size_t runs;
  double mean[2], std[2];  // per task; std is the sample standard deviation
  double mean_total, std_total;  // of the per-run task-average
};

// One run: generate the data for (p, seed), train `gate` with early stopping on
// the validation split, restore the best epoch's parameters, score the test split.
struct MMoETrained {
  std::unique_ptr<MMoE> model;
  float test_mse[2];
  size_t best_epoch;
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
std::string summary_table(const std::vector<MMoESummaryRow>& rows);  // markdown
// Plot of the task-average test MSE against p, one line per model, error bars = 1 std.
std::string summary_svg(const std::vector<MMoESummaryRow>& rows);

}  // namespace attnlab::models
