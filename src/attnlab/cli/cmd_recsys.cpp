// The click-through models: attnlab train din | train autoint on their seeded
// synthetic data (the library's split, as the web page trains: models::
// din_synthetic_split / ctr_synthetic_split), and eval on their model files,
// which record that data (test seed 2000 + s, AutoInt's planted table s).
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <functional>

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

// train din / train autoint: the model's own flags, the data and fit ones, then the shared ones
// (--out KIND.safetensors), parsed, and the run's scaffold made; then train(a, run) does the
// model's own part. 0 after --help.
int train_recsys(const Argv& argv, const std::string& kind, const char* epochs,
                 std::vector<FlagSpec> own, const std::string& about,
                 const std::function<int(const Args&, TrainScaffold&)>& train) {
  TrainFlagDefaults d;
  d.trainer = false;
  d.out = kind + ".safetensors";
  Args a("train " + kind, with_common_train_flags(recsys_flags(epochs, std::move(own)), d));
  if (a.parse_or_help(argv, "attnlab train " + kind + " [flags]", about)) return 0;
  a.no_positional();
  TrainScaffold run(a, "train " + kind);
  return train(a, run);
}

// The test set eval scores: the training run's (the record's test samples of its test seed),
// or --samples fresh ones of --seed.
struct TestSet {
  size_t n, seed;
};

// eval of a `model` (DIN, AutoInt) file written by train `kind`: the flags, the model, the data
// record the file holds (read through `fields`) and the test set; score(model, record, test set)
// returns the labels and the predicted probabilities.
template <class Model, class Record, class Fields, class Score>
int eval_file(const models::ModelFile& f, const Argv& argv, const std::string& model,
              const std::string& kind, const std::string& about, const Fields& fields, Score score) {
  Args a("eval", {model_flag(model + " model file written by 'attnlab train " + kind + "'"),
                  {"samples", "N", "0", "fresh test samples (0 = the recorded test set)"},
                  eval_seed_flag("seed of fresh samples"),
                  json_flag()});
  std::string file = kind;
  for (char& c : file) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (a.parse_or_help(argv, "attnlab eval --model " + file + ".safetensors [flags]", about)) return 0;
  const auto m = Model::load(f.tensors);
  Record rec;
  io::read_fields(io::ConfigReader::of(recorded(f), model + " data"), rec, fields);
  TestSet t{rec.test, rec.test_seed};
  if (a.u64("samples", 0, 1 << 20)) t = {a.u64("samples"), a.u64("seed")};
  const auto [y, p] = score(*m, rec, t);
  return print_eval(a, f, t.n, y, p);
}

// The end of train din / train autoint: the fitted epochs reported, the model saved with the
// data it was tested on (`rec` and the generator's name, so eval can reproduce the test AUC).
template <class M>
int save_and_report(TrainScaffold& run, const M& m, const std::vector<models::RecsysEpoch>& hist,
                    json rec, const char* generator, uint64_t seed) {
  const double auc = report_epochs(run, hist);
  rec["generator"] = generator;
  run.write(run.out(), m.save(io::SaveOptions{run.dtype(), {{"data", rec.dump()},
                                                           {"test_auc", std::to_string(auc)},
                                                           {"seed", std::to_string(seed)}}}));
  char buf[256];
  std::snprintf(buf, sizeof buf, "saved %s (%zu parameters)  test ROC-AUC %.4f  %.1fs",
                run.out().c_str(), m.params().count(), auc, run.elapsed());
  run.done({{"model", run.out()}, {"test_auc", auc}, {"params", m.params().count()}}, buf);
  return 0;
}

}  // namespace

// ---------------------------------------------------------------- DIN

int cmd_train_din(const Argv& argv) {
  return train_recsys(
      argv, "din", "6",
      {{"pooling", "NAME", "attention", "attention (the paper's DIN), softmax (normalized) or sum (Base)"}},
      "Trains a Deep Interest Network on synthetic behaviour data whose click\n"
      "label depends on how many behaviours share the candidate's category;\n"
      "reports the test ROC-AUC after every epoch and saves the model.",
      [](const Args& a, TrainScaffold& run) {
        const std::string pooling = a.get("pooling");
        if (pooling != "attention" && pooling != "softmax" && pooling != "sum")
          throw UsageError("--pooling must be attention, softmax or sum, got '" + pooling + "'");
        const models::RecsysFitOptions fo = fit_options(a, run.seed());
        const data::BehaviorOptions bo;
        const size_t n_test = a.u64("test", 1, 1 << 20);
        const models::DinData split =
            models::din_synthetic_split(a.u64("train", 1, 1 << 22), n_test, bo, fo.seed);
        models::DIN m(models::din_config_for(bo, pooling), fo.seed);
        return save_and_report(run, m, models::fit_din(m, split.train, split.test, fo),
                               io::fields_json(DinRecord{n_test, 2000 + fo.seed, bo.world_seed}, kDinRecord),
                               "behavior", fo.seed);
      });
}

int cmd_eval_din(const models::ModelFile& f, const Argv& argv) {
  return eval_file<models::DIN, DinRecord>(
      f, argv, "DIN", "din",
      "ROC-AUC and log-loss of a DIN model on the synthetic behaviour data its\n"
      "file records: the training run's test set, or fresh samples.",
      kDinRecord, [](const models::DIN& m, const DinRecord& rec, TestSet t) {
        data::BehaviorOptions bo;
        bo.world_seed = rec.world_seed;
        const data::BehaviorData test = data::make_behavior_data(t.n, bo, t.seed);
        return std::make_pair(test.label, models::din_predict(m, test));
      });
}

// ---------------------------------------------------------------- AutoInt
int cmd_train_autoint(const Argv& argv) {
  return train_recsys(
      argv, "autoint", "5",
      {{"fields", "N", "6", "categorical fields"},
       {"vocab", "N", "8", "values per field"},
       {"layers", "N", "2", "interacting layers"},
       {"heads", "N", "2", "attention heads"},
       {"head-dim", "N", "8", "size per head"},
       {"embed-dim", "N", "16", "field embedding size"},
       {"no-residual", "", "", "no residual connection"}},
      "Trains AutoInt on synthetic CTR data whose label depends on one pair of\n"
      "fields (fields 1 and 4) through a planted table; reports the test ROC-AUC\n"
      "after every epoch and saves the model.",
      [](const Args& a, TrainScaffold& run) {
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
        models::AutoIntConfig cfg;
        cfg.vocab = dc.vocab;
        cfg.layers = a.u64("layers", 0, 64);
        cfg.heads = a.u64("heads", 1, 256);
        cfg.head_dim = a.u64("head-dim", 1, 4096);
        cfg.embed_dim = a.u64("embed-dim", 1, 4096);
        cfg.residual = !a.flag("no-residual");
        models::AutoInt m(cfg, fo.seed);
        return save_and_report(
            run, m, models::fit_autoint(m, split.train, split.test, fo),
            io::fields_json(AutoIntRecord{split.test.n, 2000 + fo.seed, fo.seed, dc.field_a, dc.field_b},
                            kAutoIntRecord),
            "ctr", fo.seed);
      });
}

int cmd_eval_autoint(const models::ModelFile& f, const Argv& argv) {
  return eval_file<models::AutoInt, AutoIntRecord>(
      f, argv, "AutoInt", "autoint",
      "ROC-AUC and log-loss of an AutoInt model on the synthetic CTR data its\n"
      "file records: the training run's test set, or fresh samples of the same\n"
      "planted table.",
      kAutoIntRecord, [](const models::AutoInt& m, const AutoIntRecord& rec, TestSet t) {
        data::CtrSyntheticConfig dc;
        dc.vocab = m.config().vocab;
        dc.field_a = rec.field_a;
        dc.field_b = rec.field_b;
        dc.n = t.n;
        dc.seed = t.seed;
        dc.task_seed = rec.task_seed;
        const data::CtrSyntheticData test = data::make_ctr_synthetic(dc);
        return std::make_pair(std::vector<int>(test.labels.begin(), test.labels.end()),
                              models::autoint_predict(m, test));
      });
}

}  // namespace attnlab::cli
