// attnlab experiment mmoe  and  attnlab train mmoe
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/cli/commands.hpp"
#include "attnlab/cli/train_scaffold.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/data/mmoe_synthetic.hpp"
#include "attnlab/models/mmoe_experiment.hpp"
#include "attnlab/models/registry.hpp"
#include "attnlab/nn/train.hpp"

namespace attnlab::cli {

namespace {

std::vector<float> parse_floats(const std::string& s, const char* flag) {
  std::vector<float> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      out.push_back(std::stof(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw UsageError(std::string("--") + flag + ": '" + item + "' is not a number");
    }
  }
  if (out.empty()) throw UsageError(std::string("--") + flag + " needs a comma-separated list");
  return out;
}

std::vector<models::GateKind> parse_models(const std::string& s) {
  std::vector<models::GateKind> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      out.push_back(models::gate_from_string(item));
    } catch (const Error& e) {
      throw UsageError(std::string("--models: ") + e.what());
    }
  }
  return out;
}

std::vector<FlagSpec> model_flags() {
  return {{"experts", "N", "8", "number of experts"},
          {"expert-units", "N", "16", "units per expert (ReLU layer)"},
          {"tower-units", "N", "8", "units of each task tower's hidden layer"},
          {"att-dim", "N", "16", "query/key size of attention gates"},
          {"dim", "N", "100", "input dimension of the synthetic data"},
          {"sines", "N", "10", "sine terms in the synthetic targets (m)"},
          {"sine-shape", "index|random", "index",
           "sine shapes: index (alpha_i = i, beta_i = i^2) or random (alpha_i, beta_i ~ N(0,1) per task pair)"},
          {"scale", "F", "1", "scale c of the task weight vectors"},
          {"noise", "F", "0.01", "standard deviation of the label noise"},
          {"bottom-units", "N", "0", "shared-bottom hidden units (0 = experts x expert-units)"},
          {"epochs", "N", "60", "maximum epochs (early stopping on the validation split)"},
          {"patience", "N", "8", "stop after this many epochs without a better validation loss"},
          {"batch-size", "N", "128", "samples per step"},
          {"lr", "LIST", "0.001",
           "Adam learning rate; a comma-separated list trains each run once per rate and keeps the "
           "one with the lowest validation loss"},
          {"train", "N", "10000", "training samples per run"},
          {"val", "N", "2000", "validation samples per run"},
          {"test", "N", "2000", "test samples per run"}};
}

models::MMoEExperimentConfig config_from(const Args& a) {
  models::MMoEExperimentConfig c;
  c.model.experts = a.u64("experts", 1, 256);
  c.model.expert_units = a.u64("expert-units", 1, 4096);
  c.model.tower_units = a.u64("tower-units", 1, 4096);
  c.model.att_dim = a.u64("att-dim", 1, 4096);
  c.model.input_dim = a.u64("dim", 2, 100000);
  c.sine_terms = static_cast<int>(a.u64("sines", 0, 1000));
  const std::string shape = a.get("sine-shape");
  if (shape == "index")
    c.sine_shape = data::SineShape::Index;
  else if (shape == "random")
    c.sine_shape = data::SineShape::Random;
  else
    throw UsageError("--sine-shape must be index or random, got '" + shape + "'");
  c.scale = static_cast<float>(a.num("scale", -1e6, 1e6));
  c.noise = static_cast<float>(a.num("noise", 0.0, 1e6));
  c.model.bottom_units = a.u64("bottom-units", 0, 65536);
  c.epochs = a.u64("epochs", 1, 100000);
  c.patience = a.u64("patience", 1, 100000);
  c.batch = a.u64("batch-size", 1, 1 << 20);
  const std::vector<float> lrs = parse_floats(a.get("lr"), "lr");
  for (float lr : lrs)
    if (!(lr >= 1e-8f && lr <= 10.f)) throw UsageError("--lr: learning rates must be in [1e-8, 10]");
  c.lr = lrs[0];
  if (lrs.size() > 1) c.lr_grid = lrs;
  c.n_train = a.u64("train", 1, 1 << 26);
  c.n_val = a.u64("val", 1, 1 << 26);
  c.n_test = a.u64("test", 1, 1 << 26);
  return c;
}

using io::write_text;

// The synthetic data a model file records (train mmoe writes these keys; files without the
// sizes get the defaults).
data::MMoESyntheticConfig recorded_data(const models::ModelFile& f, size_t dim, size_t* n_test) {
  auto meta = [&](const char* k, const char* def) {
    return f.info.extra.count(k) ? f.info.extra.at(k) : std::string(def);
  };
  auto need = [&](const char* k) {
    if (!f.info.extra.count(k))
      throw Error(f.source + ": the file does not record its data ('" + k + "' in its metadata)");
    return f.info.extra.at(k);
  };
  data::MMoESyntheticConfig dc;
  try {
    dc.dim = dim;
    dc.p = std::stof(need("p"));
    dc.seed = std::stoull(meta("task_seed", need("seed").c_str()));
    dc.m = std::stoi(meta("sine_terms", "10"));
    dc.c = std::stof(meta("scale", "1"));
    dc.noise = std::stof(meta("noise", "0.01"));
    const std::string shape = meta("sine_shape", "index");
    dc.shape = shape == "random" ? data::SineShape::Random : data::SineShape::Index;
    const size_t n_train = std::stoull(meta("n_train", "10000")), n_val = std::stoull(meta("n_val", "2000"));
    *n_test = std::stoull(meta("n_test", "2000"));
    dc.n = n_train + n_val + *n_test;
  } catch (const std::logic_error&) {
    throw Error(f.source + ": unreadable data description in the metadata");
  }
  return dc;
}

}  // namespace

int cmd_experiment(const std::vector<std::string>& argv) {
  std::vector<FlagSpec> flags = model_flags();
  flags.push_back({"p", "LIST", "0.5,0.8,0.9,1.0", "task correlations to sweep"});
  flags.push_back({"models", "LIST", "shared-bottom,omoe,softmax,attention",
                   "models: shared-bottom, omoe, softmax, attention, attention-x"});
  flags.push_back({"seeds", "N", "10", "runs per (model, p), seeds 1..N"});
  flags.push_back({"first-seed", "N", "1", "first seed"});
  flags.push_back({"csv", "PATH", "mmoe-experiment.csv", "write every run here"});
  flags.push_back({"svg", "PATH", "mmoe-experiment.svg", "write the plot here"});
  flags.push_back({"stats-csv", "PATH", "",
                   "write the paired statistics here (default: the --csv path with -stats before .csv)"});
  flags.push_back({"from-csv", "PATH", "",
                   "train nothing: read the runs from this CSV (an earlier --csv) and summarise them"});
  flags.push_back({"quiet", "", "", "no progress bar"});
  flags.push_back(json_flag("print results as JSON on stdout"));
  Args a("experiment", flags);
  a.parse(argv);
  if (a.flag("help") || a.positional().empty()) {
    std::cout << a.help("attnlab experiment mmoe [flags]",
                        "The MMoE paper's synthetic experiment: for each task correlation p and\n"
                        "seed, train shared-bottom, OMoE, MMoE with softmax gates and MMoE with\n"
                        "attention gates (early stopping on validation), report the test MSE\n"
                        "(mean and sample standard deviation over seeds), write a CSV and an SVG.");
    return a.flag("help") ? 0 : 2;
  }
  if (a.positional()[0] != "mmoe")
    throw UsageError("unknown experiment '" + a.positional()[0] + "' (experiments: mmoe)");
  models::MMoEExperimentConfig c = config_from(a);
  c.ps = parse_floats(a.get("p"), "p");
  for (float p : c.ps)
    if (!(p >= -1.f && p <= 1.f)) throw UsageError("--p: correlations must be in [-1, 1]");
  c.models = parse_models(a.get("models"));
  c.seeds = a.u64("seeds", 1, 100000);
  c.first_seed = a.u64("first-seed", 0, 1ull << 62);
  const size_t total = c.ps.size() * c.seeds * c.models.size();
  std::vector<models::MMoERun> runs;
  if (!a.get("from-csv").empty()) {
    const std::vector<uint8_t> bytes = io::read_bytes(a.get("from-csv"));
    runs = models::parse_runs_csv(std::string(bytes.begin(), bytes.end()));
  } else {
    nn::ProgressBar bar(&std::cerr, !a.flag("quiet") && isatty(2), total);
    double loss_sum = 0;
    runs = models::run_mmoe_experiment(c, [&](size_t done, size_t, const models::MMoERun& r) {
      loss_sum += 0.5 * (r.test_mse[0] + r.test_mse[1]);
      bar.update(done, loss_sum / static_cast<double>(done), done);
    });
    bar.finish();
    write_text(a.get("csv"), models::runs_csv(runs));
  }
  const auto rows = models::summarize(runs);
  const auto stats = models::paired_stats(runs);
  std::string stats_path = a.get("stats-csv");
  if (stats_path.empty()) {
    const std::string base = a.get("from-csv").empty() ? a.get("csv") : a.get("from-csv");
    const size_t dot = base.size() >= 4 && base.compare(base.size() - 4, 4, ".csv") == 0
                           ? base.size() - 4 : base.size();
    stats_path = base.substr(0, dot) + "-stats.csv";
  }
  write_text(stats_path, models::paired_stats_csv(stats));
  write_text(a.get("svg"), models::summary_svg(rows));
  if (a.flag("json")) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : rows)
      j.push_back({{"model", models::gate_name(r.gate)}, {"p", r.p}, {"runs", r.runs},
                   {"mean", {r.mean[0], r.mean[1]}}, {"std", {r.std[0], r.std[1]}},
                   {"mean_avg", r.mean_total}, {"std_avg", r.std_total},
                   {"median_avg", r.median_total}});
    nlohmann::json js = nlohmann::json::array();
    for (const auto& s : stats)
      js.push_back({{"measure", s.measure}, {"model", models::gate_name(s.model)},
                    {"versus", models::gate_name(s.versus)}, {"p_low", s.p_low},
                    {"p_high", s.p_high}, {"pairs", s.pairs}, {"mean", s.mean}, {"sd", s.sd},
                    {"se", s.se}});
    std::cout << nlohmann::json({{"summary", j}, {"paired", js}}).dump() << std::endl;
  } else {
    std::cout << models::summary_table(rows) << "\nPaired over seeds (spread = loss(p_low) - "
              << "loss(p_high); differences are row model minus column model):\n"
              << models::paired_stats_table(stats) << "\nwrote "
              << (a.get("from-csv").empty() ? a.get("csv") + ", " : std::string()) << stats_path
              << " and " << a.get("svg") << "\n";
  }
  return 0;
}

int cmd_train_mmoe(const Argv& argv) {
  std::vector<FlagSpec> flags = model_flags();
  flags.push_back({"gate", "KIND", "softmax", "shared-bottom, omoe, softmax, attention, attention-x"});
  flags.push_back({"p", "F", "0.5", "task correlation of the synthetic data"});
  TrainFlagDefaults d;
  d.trainer = false;  // its own loop: early stopping on the validation split
  d.out = "mmoe.safetensors";
  d.seed_help = "seed for data and initialisation";
  Args a("train mmoe", with_common_train_flags(flags, d));
  if (a.parse_or_help(argv, "attnlab train mmoe [flags]",
                            "Train one multi-task model on the synthetic data (early stopping on a\n"
                            "validation split) and save it; prints its test MSE per task.")) return 0;
  a.no_positional();
  TrainScaffold run(a, "train mmoe");
  models::MMoEExperimentConfig c = config_from(a);
  const float p = static_cast<float>(a.num("p", -1.0, 1.0));
  const uint64_t seed = a.u64("seed", 0, 1ull << 62);
  try {
    c.model.gate = models::gate_from_string(a.get("gate"));
  } catch (const Error& e) {
    throw UsageError(std::string("--gate: ") + e.what());
  }
  nn::ProgressBar& bar = run.bar(c.epochs);
  const models::MMoETrained r = models::train_mmoe_run(
      c, c.model.gate, p, seed, [&](size_t e, const std::vector<float>& l) {
        bar.update(e + 1, 0.5 * (l[0] + l[1]), (e + 1) * c.n_train);
      });
  bar.finish();
  const float t[2] = {r.test_mse[0], r.test_mse[1]};
  std::ostringstream p_str;
  p_str << p;
  auto str = [](double v) {
    std::ostringstream os;
    os << v;
    return os.str();
  };
  const std::vector<uint8_t> bytes = r.model->save(
      {run.dtype(),
       {{"data", "mmoe-synthetic"}, {"p", p_str.str()}, {"seed", std::to_string(seed)},
        {"task_seed", std::to_string(seed)}, {"sine_terms", std::to_string(c.sine_terms)},
        {"sine_shape", a.get("sine-shape")}, {"scale", str(c.scale)}, {"noise", str(c.noise)},
        {"n_train", std::to_string(c.n_train)}, {"n_val", std::to_string(c.n_val)},
        {"n_test", std::to_string(c.n_test)}, {"test_mse", nlohmann::json({t[0], t[1]}).dump()},
        {"best_epoch", std::to_string(r.best_epoch)}}});
  run.write(run.out(), bytes);
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "mmoe (%s gates), p = %.2f: test MSE %.4f / %.4f (best epoch %zu); wrote %s (%zu bytes)",
                models::gate_name(c.model.gate), p, t[0], t[1], r.best_epoch + 1, run.out().c_str(),
                bytes.size());
  run.done({{"model", "mmoe"}, {"gate", models::gate_name(c.model.gate)}, {"p", p},
            {"test_mse", {t[0], t[1]}}, {"best_epoch", r.best_epoch}, {"out", run.out()},
            {"bytes", bytes.size()}},
           buf);
  return 0;
}

int cmd_eval_mmoe(const models::ModelFile& f, const Argv& argv) {
  Args a("eval", {model_flag("MMoE model file written by 'attnlab train mmoe'"),
                  {"samples", "N", "0",
                   "fresh samples of the same two tasks (0 = the test split of the training run)"},
                  eval_seed_flag("seed of the fresh samples"),
                  json_flag()});
  if (a.parse_or_help(argv, "attnlab eval --model MMOE.safetensors [flags]",
                            "MSE per task on the synthetic data the file records (p, task seed, sine\n"
                            "terms, ...): its training run's test split, or fresh samples of the\n"
                            "same two tasks with --samples.")) return 0;
  const std::unique_ptr<models::MMoE> m = models::MMoE::load(f.tensors);
  size_t n_test = 0;
  data::MMoESyntheticConfig dc = recorded_data(f, m->config().input_dim, &n_test);
  const size_t fresh = a.u64("samples", 0, 1 << 24);
  if (fresh) {
    dc.task_seed = dc.seed;
    dc.seed = a.u64("seed");
    dc.n = n_test = fresh;
  }
  const data::MMoESyntheticData d = data::make_mmoe_synthetic(dc);
  const size_t first = dc.n - n_test, dim = m->config().input_dim;
  const std::vector<float> mse = m->evaluate(d.x.data() + first * dim, d.y.data() + first * 2, n_test);
  const char* what = fresh ? "fresh samples" : "the training run's test split";
  if (a.flag("json"))
    std::cout << nlohmann::json({{"model", f.source}, {"kind", "mmoe"}, {"samples", n_test},
                                 {"data", fresh ? "fresh" : "test"}, {"p", dc.p}, {"mse", mse}})
                     .dump()
              << std::endl;
  else
    std::printf("%s (mmoe, %s gates), p = %g: test MSE %.4f / %.4f on %zu samples (%s)\n",
                f.source.c_str(), models::gate_name(m->config().gate), dc.p, mse[0], mse[1], n_test,
                what);
  return 0;
}

}  // namespace attnlab::cli
