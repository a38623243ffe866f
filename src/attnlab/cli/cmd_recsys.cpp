// The click-through models: attnlab train din | train autoint on their seeded
// synthetic data (the library's split, as the web page trains: models::
// din_synthetic_split / ctr_synthetic_split), and eval on their model files,
// which record that data (test seed 2000 + s, AutoInt's planted table s).
#include <cmath>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/cli/commands.hpp"
#include "attnlab/cli/train_scaffold.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/data/behavior_synthetic.hpp"
#include "attnlab/eval/class_metrics.hpp"
#include "attnlab/data/ctr_synthetic.hpp"
#include "attnlab/io/config_fields.hpp"
#include "attnlab/models/recsys_fit.hpp"
#include "attnlab/models/registry.hpp"

namespace attnlab::cli {

namespace {
using json = nlohmann::json;

std::vector<FlagSpec> recsys_flags(const char* epochs, std::vector<FlagSpec> own) {
  own.insert(own.end(), {{"train", "N", "12000", "training samples"},
                         {"test", "N", "3000", "test samples (scored after every epoch)"},
                         {"epochs", "N", epochs, "passes over the training samples"},
                         {"batch-size", "N", "64", "samples per step"},
                         {"lr", "F", "0.003", "Adam learning rate"}});
  return own;
}

models::RecsysFitOptions fit_options(const Args& a, uint64_t seed) {
  models::RecsysFitOptions o;
  o.epochs = a.u64("epochs", 1, 10000);
  o.batch = a.u64("batch-size", 1, 1 << 16);
  o.lr = static_cast<float>(a.num("lr", 1e-6, 10));
  o.seed = seed;
  return o;
}

// The fitted epochs as events, and the last one's AUC.
double report_epochs(TrainScaffold& run, const std::vector<models::RecsysEpoch>& hist) {
  for (const auto& e : hist) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "epoch %zu  loss %.4f  test_auc %.4f", e.epoch, e.loss, e.test_auc);
    run.event({{"epoch", e.epoch}, {"loss", e.loss}, {"test_auc", e.test_auc}}, buf);
  }
  return hist.empty() ? 0.0 : hist.back().test_auc;
}

double logloss(const std::vector<int>& y, const std::vector<double>& p) {
  double s = 0;
  for (size_t i = 0; i < y.size(); ++i) s -= std::log(std::min(std::max(y[i] ? p[i] : 1 - p[i], 1e-12), 1.0));
  return y.empty() ? 0 : s / static_cast<double>(y.size());
}

// What a DIN / AutoInt model file records of its data, enough to draw the training run's test
// set again: written by train as the "data" metadata (with "generator"), read back by eval,
// through one list each (io/config_fields.hpp).
struct DinRecord {
  size_t test = 0, test_seed = 0, world_seed = data::BehaviorOptions{}.world_seed;
};
constexpr auto kDinRecord = std::make_tuple(io::field("test", &DinRecord::test).in(1, 1 << 20),
                                            io::field("test_seed", &DinRecord::test_seed),
                                            io::field("world_seed", &DinRecord::world_seed));
struct AutoIntRecord {
  size_t test = 0, test_seed = 0, task_seed = 0;
  size_t field_a = data::CtrSyntheticConfig{}.field_a, field_b = data::CtrSyntheticConfig{}.field_b;
};
constexpr auto kAutoIntRecord = std::make_tuple(
    io::field("test", &AutoIntRecord::test).in(1, 1 << 20),
    io::field("test_seed", &AutoIntRecord::test_seed), io::field("task_seed", &AutoIntRecord::task_seed),
    io::field("field_a", &AutoIntRecord::field_a), io::field("field_b", &AutoIntRecord::field_b));

// The "data" metadata of a recsys model file: {"seed", "test", ...generator options}.
json recorded(const models::ModelFile& f) {
  auto it = f.info.extra.find("data");
  if (it == f.info.extra.end())
    throw Error(f.source + ": the file does not record its data ('data' in its metadata); "
                "files written by 'attnlab train " + f.info.kind + "' do");
  try {
    return json::parse(it->second);
  } catch (const std::exception& e) {
    throw Error(f.source + ": 'data' in the metadata is not JSON: " + e.what());
  }
}

int print_eval(const Args& a, const models::ModelFile& f, size_t n, const std::vector<int>& y,
               const std::vector<double>& p) {
  const double auc = eval::roc_auc(y, p), ll = logloss(y, p);
  if (a.flag("json"))
    std::cout << json({{"model", f.source}, {"kind", f.info.kind}, {"samples", n},
                       {"roc_auc", auc}, {"logloss", ll}})
                     .dump()
              << std::endl;
  else
    std::printf("%s (%s): ROC-AUC %.4f  log-loss %.4f on %zu test samples\n", f.source.c_str(),
                f.info.kind.c_str(), auc, ll, n);
  return 0;
}

std::vector<FlagSpec> eval_flags(const char* what) {
  return {{"model", "PATH", "", what},
          {"samples", "N", "0", "fresh test samples (0 = the recorded test set)"},
          {"seed", "N", "12345", "seed of fresh samples"},
          json_flag()};
}

}  // namespace

// ---------------------------------------------------------------- DIN
// Writes the trained model with the data it was tested on (so eval can reproduce
// the test AUC) and reports the end of the run.
template <class M>
int save_and_report(TrainScaffold& run, const M& m, const json& rec, double auc, uint64_t seed) {
  run.write(run.out(), m.save(io::SaveOptions{run.dtype(), {{"data", rec.dump()},
                                                           {"test_auc", std::to_string(auc)},
                                                           {"seed", std::to_string(seed)}}}));
  char buf[256];
  std::snprintf(buf, sizeof buf, "saved %s (%zu parameters)  test ROC-AUC %.4f  %.1fs",
                run.out().c_str(), m.params().count(), auc, run.elapsed());
  run.done({{"model", run.out()}, {"test_auc", auc}, {"params", m.params().count()}}, buf);
  return 0;
}

int cmd_train_din(const Argv& argv) {
  TrainFlagDefaults d;
  d.trainer = false;
  d.out = "din.safetensors";
  Args a("train din",
         with_common_train_flags(
             recsys_flags("6", {{"pooling", "NAME", "attention",
                                 "attention (the paper's DIN), softmax (normalized) or sum (Base)"}}),
             d));
  if (a.parse_or_help(argv, "attnlab train din [flags]",
                            "Trains a Deep Interest Network on synthetic behaviour data whose click\n"
                            "label depends on how many behaviours share the candidate's category;\n"
                            "reports the test ROC-AUC after every epoch and saves the model.")) return 0;
  a.no_positional();
  TrainScaffold run(a, "train din");
  const std::string pooling = a.get("pooling");
  if (pooling != "attention" && pooling != "softmax" && pooling != "sum")
    throw UsageError("--pooling must be attention, softmax or sum, got '" + pooling + "'");
  const models::RecsysFitOptions fo = fit_options(a, run.seed());
  const data::BehaviorOptions bo;
  const size_t n_test = a.u64("test", 1, 1 << 20);
  const models::DinData split = models::din_synthetic_split(a.u64("train", 1, 1 << 22), n_test, bo, fo.seed);
  const data::BehaviorData& train = split.train;
  const data::BehaviorData& test = split.test;
  models::DIN m(models::din_config_for(bo, pooling), fo.seed);
  const double auc = report_epochs(run, models::fit_din(m, train, test, fo));
  json rec = io::fields_json(DinRecord{n_test, 2000 + fo.seed, bo.world_seed}, kDinRecord);
  rec["generator"] = "behavior";
  return save_and_report(run, m, rec, auc, fo.seed);
}

int cmd_eval_din(const models::ModelFile& f, const Argv& argv) {
  Args a("eval", eval_flags("DIN model file written by 'attnlab train din'"));
  if (a.parse_or_help(argv, "attnlab eval --model DIN.safetensors [flags]",
                            "ROC-AUC and log-loss of a DIN model on the synthetic behaviour data its\n"
                            "file records: the training run's test set, or fresh samples.")) return 0;
  const auto m = models::DIN::load(f.tensors);
  DinRecord rec;
  io::read_fields(io::ConfigReader::of(recorded(f), "DIN data"), rec, kDinRecord);
  data::BehaviorOptions bo;
  size_t n = rec.test, seed = rec.test_seed;
  bo.world_seed = rec.world_seed;
  if (a.u64("samples", 0, 1 << 20)) n = a.u64("samples"), seed = a.u64("seed");
  const data::BehaviorData test = data::make_behavior_data(n, bo, seed);
  return print_eval(a, f, n, test.label, models::din_predict(*m, test));
}

// ---------------------------------------------------------------- AutoInt
int cmd_train_autoint(const Argv& argv) {
  TrainFlagDefaults d;
  d.trainer = false;
  d.out = "autoint.safetensors";
  Args a("train autoint",
         with_common_train_flags(recsys_flags("5", {{"fields", "N", "6", "categorical fields"},
                                                    {"vocab", "N", "8", "values per field"},
                                                    {"layers", "N", "2", "interacting layers"},
                                                    {"heads", "N", "2", "attention heads"},
                                                    {"head-dim", "N", "8", "size per head"},
                                                    {"embed-dim", "N", "16", "field embedding size"},
                                                    {"no-residual", "", "", "no residual connection"}}),
                                 d));
  if (a.parse_or_help(argv, "attnlab train autoint [flags]",
                            "Trains AutoInt on synthetic CTR data whose label depends on one pair of\n"
                            "fields (fields 1 and 4) through a planted table; reports the test ROC-AUC\n"
                            "after every epoch and saves the model.")) return 0;
  a.no_positional();
  TrainScaffold run(a, "train autoint");
  if (run.seed() == 0)  // the generator reads task seed 0 as "use the sample seed"
    throw UsageError("--seed must be at least 1 for autoint (it also seeds the planted table)");
  const models::RecsysFitOptions fo = fit_options(a, run.seed());
  const size_t F = a.u64("fields", 2, 32);
  data::CtrSyntheticConfig dc;
  dc.vocab.assign(F, a.u64("vocab", 2, 1000));
  dc.field_a = 1;
  dc.field_b = std::min<size_t>(4, F - 1);
  const models::CtrData split =
      models::ctr_synthetic_split(a.u64("train", 1, 1 << 22), a.u64("test", 1, 1 << 20), dc, fo.seed);
  const data::CtrSyntheticData& train = split.train;
  const data::CtrSyntheticData& test = split.test;
  models::AutoIntConfig cfg;
  cfg.vocab = dc.vocab;
  cfg.layers = a.u64("layers", 0, 64);
  cfg.heads = a.u64("heads", 1, 256);
  cfg.head_dim = a.u64("head-dim", 1, 4096);
  cfg.embed_dim = a.u64("embed-dim", 1, 4096);
  cfg.residual = !a.flag("no-residual");
  models::AutoInt m(cfg, fo.seed);
  const double auc = report_epochs(run, models::fit_autoint(m, train, test, fo));
  json rec = io::fields_json(
      AutoIntRecord{test.n, 2000 + fo.seed, fo.seed, dc.field_a, dc.field_b}, kAutoIntRecord);
  rec["generator"] = "ctr";
  return save_and_report(run, m, rec, auc, fo.seed);
}

int cmd_eval_autoint(const models::ModelFile& f, const Argv& argv) {
  Args a("eval", eval_flags("AutoInt model file written by 'attnlab train autoint'"));
  if (a.parse_or_help(argv, "attnlab eval --model AUTOINT.safetensors [flags]",
                            "ROC-AUC and log-loss of an AutoInt model on the synthetic CTR data its\n"
                            "file records: the training run's test set, or fresh samples of the same\n"
                            "planted table.")) return 0;
  const auto m = models::AutoInt::load(f.tensors);
  AutoIntRecord rec;
  io::read_fields(io::ConfigReader::of(recorded(f), "AutoInt data"), rec, kAutoIntRecord);
  data::CtrSyntheticConfig dc;
  dc.vocab = m->config().vocab;
  dc.field_a = rec.field_a;
  dc.field_b = rec.field_b;
  size_t n = rec.test, seed = rec.test_seed, task = rec.task_seed;
  if (a.u64("samples", 0, 1 << 20)) n = a.u64("samples"), seed = a.u64("seed");
  dc.n = n;
  dc.seed = seed;
  dc.task_seed = task;
  const data::CtrSyntheticData test = data::make_ctr_synthetic(dc);
  std::vector<int> y(test.labels.begin(), test.labels.end());
  return print_eval(a, f, n, y, models::autoint_predict(*m, test));
}

}  // namespace attnlab::cli
