#include "attnlab/models/mmoe_experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "attnlab/core/error.hpp"
#include "attnlab/data/mmoe_synthetic.hpp"

namespace attnlab::models {

MMoETrained train_mmoe_run(const MMoEExperimentConfig& cfg, GateKind gate, float p, uint64_t seed,
                           const std::function<void(size_t, const std::vector<float>&)>& on_epoch) {
  ATTNLAB_CHECK(cfg.n_train > 0 && cfg.n_val > 0 && cfg.n_test > 0,
                "mmoe experiment: train, validation and test sizes must be > 0");
  ATTNLAB_CHECK(cfg.model.tasks == 2, "mmoe experiment: the synthetic data has 2 tasks");
  const size_t d = cfg.model.input_dim;
  data::MMoESyntheticConfig dc;
  dc.n = cfg.n_train + cfg.n_val + cfg.n_test;
  dc.dim = d;
  dc.p = p;
  dc.m = cfg.sine_terms;
  dc.shape = cfg.sine_shape;
  dc.c = cfg.scale;
  dc.noise = cfg.noise;
  dc.seed = seed;
  const data::MMoESyntheticData data = data::make_mmoe_synthetic(dc);
  const float* xv = data.x.data() + cfg.n_train * d;
  const float* yv = data.y.data() + cfg.n_train * 2;
  MMoEConfig mc = cfg.model;
  mc.gate = gate;
  const std::vector<float> lrs = cfg.lr_grid.empty() ? std::vector<float>{cfg.lr} : cfg.lr_grid;
  MMoETrained out{nullptr, {0, 0}, 0, 0.f, INFINITY};
  for (float lr : lrs) {
    // same initialisation for every learning rate
    auto m = std::make_unique<MMoE>(mc, seed * 7919 + static_cast<uint64_t>(gate));
    // early stopping on the validation split: keep the best epoch's parameters
    float best = INFINITY;
    size_t best_epoch = 0;
    std::vector<std::vector<float>> best_params = m->snapshot();
    MMoE::TrainOptions o;
    o.epochs = cfg.epochs;
    o.batch = cfg.batch;
    o.lr = lr;
    o.seed = seed;
    o.on_epoch = [&](size_t e, const std::vector<float>& loss) {
      const std::vector<float> v = m->evaluate(xv, yv, cfg.n_val);
      if (v[0] + v[1] < best) {
        best = v[0] + v[1];
        best_epoch = e;
        best_params = m->snapshot();
      }
      if (on_epoch) on_epoch(e, loss);
      return e < best_epoch + cfg.patience;
    };
    m->fit(data.x.data(), data.y.data(), cfg.n_train, o);
    if (!out.model || 0.5f * best < out.val_mse) {
      m->restore(best_params);
      out.model = std::move(m);
      out.best_epoch = best_epoch;
      out.lr = lr;
      out.val_mse = 0.5f * best;
    }
  }
  const std::vector<float> t =
      out.model->evaluate(xv + cfg.n_val * d, yv + cfg.n_val * 2, cfg.n_test);
  out.test_mse[0] = t[0];
  out.test_mse[1] = t[1];
  return out;
}

std::vector<MMoERun> run_mmoe_experiment(
    const MMoEExperimentConfig& cfg,
    const std::function<void(size_t, size_t, const MMoERun&)>& progress) {
  ATTNLAB_CHECK(!cfg.ps.empty() && !cfg.models.empty() && cfg.seeds > 0,
                "mmoe experiment: need at least one p, one model and one seed");
  const size_t total = cfg.ps.size() * cfg.seeds * cfg.models.size();
  std::vector<MMoERun> runs;
  for (float p : cfg.ps) {
    for (size_t s = 0; s < cfg.seeds; ++s) {
      const uint64_t seed = cfg.first_seed + s;
      for (GateKind g : cfg.models) {
        const auto t0 = std::chrono::steady_clock::now();
        const MMoETrained t = train_mmoe_run(cfg, g, p, seed);
        runs.push_back({g, p, seed, {t.test_mse[0], t.test_mse[1]}, t.best_epoch,
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                        t.lr, t.val_mse});
        if (progress) progress(runs.size(), total, runs.back());
      }
    }
  }
  return runs;
}

std::vector<MMoESummaryRow> summarize(const std::vector<MMoERun>& runs) {
  std::map<std::pair<int, float>, std::vector<const MMoERun*>> groups;
  std::vector<std::pair<int, float>> order;
  for (const MMoERun& r : runs) {
    auto key = std::make_pair(static_cast<int>(r.gate), r.p);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  std::sort(order.begin(), order.end());
  std::vector<MMoESummaryRow> out;
  for (const auto& key : order) {
    const auto& g = groups[key];
    MMoESummaryRow row{static_cast<GateKind>(key.first), key.second, g.size(), {0, 0}, {0, 0}, 0, 0};
    auto stats = [&](auto get, double& mean, double& sd) {
      mean = 0;
      for (const MMoERun* r : g) mean += get(*r);
      mean /= static_cast<double>(g.size());
      sd = 0;
      for (const MMoERun* r : g) sd += (get(*r) - mean) * (get(*r) - mean);
      sd = g.size() > 1 ? std::sqrt(sd / static_cast<double>(g.size() - 1)) : 0.0;
    };
    stats([](const MMoERun& r) { return static_cast<double>(r.test_mse[0]); }, row.mean[0], row.std[0]);
    stats([](const MMoERun& r) { return static_cast<double>(r.test_mse[1]); }, row.mean[1], row.std[1]);
    stats([](const MMoERun& r) { return 0.5 * (r.test_mse[0] + r.test_mse[1]); }, row.mean_total,
          row.std_total);
    std::vector<double> avg;
    for (const MMoERun* r : g) avg.push_back(0.5 * (static_cast<double>(r->test_mse[0]) + r->test_mse[1]));
    std::sort(avg.begin(), avg.end());
    const size_t n = avg.size();
    row.median_total = n % 2 ? avg[n / 2] : 0.5 * (avg[n / 2 - 1] + avg[n / 2]);
    out.push_back(row);
  }
  return out;
}

std::string runs_csv(const std::vector<MMoERun>& runs) {
  std::ostringstream os;
  os << "model,p,seed,test_mse_task1,test_mse_task2,best_epoch,seconds,lr,val_mse\n";
  for (const MMoERun& r : runs)
    os << gate_name(r.gate) << "," << r.p << "," << r.seed << "," << r.test_mse[0] << ","
       << r.test_mse[1] << "," << r.best_epoch << "," << r.seconds << "," << r.lr << ","
       << r.val_mse << "\n";
  return os.str();
}

std::vector<MMoERun> parse_runs_csv(const std::string& csv) {
  std::istringstream is(csv);
  std::string line;
  ATTNLAB_CHECK(std::getline(is, line) && line.rfind("model,p,seed,test_mse_task1,test_mse_task2", 0) == 0,
                "mmoe runs CSV: expected the header 'model,p,seed,test_mse_task1,test_mse_task2,...'");
  std::vector<MMoERun> out;
  size_t lineno = 1;
  while (std::getline(is, line)) {
    ++lineno;
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> f;
    std::stringstream ls(line);
    std::string item;
    while (std::getline(ls, item, ',')) f.push_back(item);
    ATTNLAB_CHECK(f.size() >= 7, "mmoe runs CSV line ", lineno, ": expected at least 7 fields, got ",
                  f.size());
    MMoERun r{};
    try {
      r.gate = gate_from_string(f[0]);
      r.p = std::stof(f[1]);
      r.seed = std::stoull(f[2]);
      r.test_mse[0] = std::stof(f[3]);
      r.test_mse[1] = std::stof(f[4]);
      r.best_epoch = std::stoull(f[5]);
      r.seconds = std::stod(f[6]);
      if (f.size() > 7) r.lr = std::stof(f[7]);
      if (f.size() > 8) r.val_mse = std::stof(f[8]);
    } catch (const Error&) {
      throw;
    } catch (const std::exception&) {
      throw Error("mmoe runs CSV line " + std::to_string(lineno) + ": a field is not a number: '" +
                  line + "'");
    }
    out.push_back(r);
  }
  return out;
}

namespace {

void paired_moments(const std::vector<double>& v, size_t& n, double& mean, double& sd, double& se) {
  n = v.size();
  mean = 0;
  for (double x : v) mean += x;
  mean = n ? mean / static_cast<double>(n) : std::nan("");
  sd = 0;
  for (double x : v) sd += (x - mean) * (x - mean);
  sd = n > 1 ? std::sqrt(sd / static_cast<double>(n - 1)) : std::nan("");
  se = n > 1 ? sd / std::sqrt(static_cast<double>(n)) : std::nan("");
}

}  // namespace

std::vector<MMoEPairedStat> paired_stats(const std::vector<MMoERun>& runs) {
  // loss[(gate, p)][seed] = task-average test MSE
  std::map<std::pair<int, float>, std::map<uint64_t, double>> loss;
  std::vector<int> gates;
  std::vector<float> ps;
  for (const MMoERun& r : runs) {
    loss[{static_cast<int>(r.gate), r.p}][r.seed] = 0.5 * (static_cast<double>(r.test_mse[0]) + r.test_mse[1]);
    if (std::find(gates.begin(), gates.end(), static_cast<int>(r.gate)) == gates.end())
      gates.push_back(static_cast<int>(r.gate));
    if (std::find(ps.begin(), ps.end(), r.p) == ps.end()) ps.push_back(r.p);
  }
  std::sort(gates.begin(), gates.end());
  std::sort(ps.begin(), ps.end());
  std::vector<MMoEPairedStat> out;
  if (runs.empty()) return out;
  const float lo = ps.front(), hi = ps.back();
  auto stat = [&](const char* measure, int a, int b, float plo, float phi, const std::vector<double>& v) {
    MMoEPairedStat s{measure, static_cast<GateKind>(a), static_cast<GateKind>(b), plo, phi, 0, 0, 0, 0};
    paired_moments(v, s.pairs, s.mean, s.sd, s.se);
    out.push_back(s);
  };
  // per-seed spread of one model
  auto spreads = [&](int g) {
    std::map<uint64_t, double> sp;
    const auto& L = loss[{g, lo}];
    const auto& H = loss[{g, hi}];
    for (const auto& it : L) {
      const auto h = H.find(it.first);
      if (h != H.end()) sp[it.first] = it.second - h->second;
    }
    return sp;
  };
  auto values = [](const std::map<uint64_t, double>& m) {
    std::vector<double> v;
    for (const auto& it : m) v.push_back(it.second);
    return v;
  };
  auto differences = [](const std::map<uint64_t, double>& a, const std::map<uint64_t, double>& b) {
    std::vector<double> v;
    for (const auto& it : a) {
      const auto j = b.find(it.first);
      if (j != b.end()) v.push_back(it.second - j->second);
    }
    return v;
  };
  if (ps.size() > 1)
    for (int g : gates) stat("spread", g, g, lo, hi, values(spreads(g)));
  for (size_t i = 0; i < gates.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      const int a = gates[i], b = gates[j];
      if (ps.size() > 1) stat("spread_minus", a, b, lo, hi, differences(spreads(a), spreads(b)));
      for (float p : ps) stat("diff", a, b, p, p, differences(loss[{a, p}], loss[{b, p}]));
    }
  return out;
}

std::string paired_stats_csv(const std::vector<MMoEPairedStat>& stats) {
  std::ostringstream os;
  os << "measure,model,versus,p_low,p_high,pairs,mean,sd,se\n";
  for (const auto& s : stats)
    os << s.measure << "," << gate_name(s.model) << ","
       << (s.measure == "spread" ? "" : gate_name(s.versus)) << "," << s.p_low << "," << s.p_high
       << "," << s.pairs << "," << s.mean << "," << s.sd << "," << s.se << "\n";
  return os.str();
}

std::string paired_stats_table(const std::vector<MMoEPairedStat>& stats) {
  std::ostringstream os;
  char buf[256];
  os << "| measure | p | pairs | mean ± sd | se |\n|---|---|---|---|---|\n";
  for (const auto& s : stats) {
    std::string what;
    if (s.measure == "spread")
      what = std::string("spread ") + gate_name(s.model);
    else if (s.measure == "spread_minus")
      what = std::string("spread ") + gate_name(s.model) + " - spread " + gate_name(s.versus);
    else
      what = std::string(gate_name(s.model)) + " - " + gate_name(s.versus);
    if (s.p_low == s.p_high)
      std::snprintf(buf, sizeof buf, "| %s | %.2f | %zu | %+.3f ± %.3f | %.3f |\n", what.c_str(),
                    s.p_low, s.pairs, s.mean, s.sd, s.se);
    else
      std::snprintf(buf, sizeof buf, "| %s | %.2f - %.2f | %zu | %+.3f ± %.3f | %.3f |\n",
                    what.c_str(), s.p_low, s.p_high, s.pairs, s.mean, s.sd, s.se);
    os << buf;
  }
  return os.str();
}

std::string summary_table(const std::vector<MMoESummaryRow>& rows) {
  std::ostringstream os;
  char buf[256];
  os << "| model | p | runs | task 1 test MSE | task 2 test MSE | average | median of the average |\n";
  os << "|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows) {
    std::snprintf(buf, sizeof buf, "| %s | %.2f | %zu | %.3f ± %.3f | %.3f ± %.3f | %.3f ± %.3f | %.3f |\n",
                  gate_name(r.gate), r.p, r.runs, r.mean[0], r.std[0], r.mean[1], r.std[1],
                  r.mean_total, r.std_total, r.median_total);
    os << buf;
  }
  return os.str();
}

std::string summary_svg(const std::vector<MMoESummaryRow>& rows) {
  const double W = 640, H = 420, L = 70, R = 150, T = 30, B = 50;
  double pmin = 1e9, pmax = -1e9, ymin = 1e9, ymax = -1e9;
  for (const auto& r : rows) {
    pmin = std::min(pmin, static_cast<double>(r.p));
    pmax = std::max(pmax, static_cast<double>(r.p));
    ymin = std::min(ymin, r.mean_total - r.std_total);
    ymax = std::max(ymax, r.mean_total + r.std_total);
  }
  if (pmax <= pmin) pmax = pmin + 1;
  const double pad = 0.05 * (ymax - ymin + 1e-9);
  ymin -= pad;
  ymax += pad;
  auto X = [&](double p) { return L + (p - pmin) / (pmax - pmin) * (W - L - R); };
  auto Y = [&](double v) { return T + (ymax - v) / (ymax - ymin) * (H - T - B); };
  const char* colors[] = {"#888888", "#d08c00", "#3457d5", "#c2185b", "#2e7d32"};
  std::ostringstream os;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                W, H);
  os << buf;
  std::snprintf(buf, sizeof buf,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
                L, H - B, W - R, H - B, L, T, L, H - B);
  os << buf;
  for (int i = 0; i <= 4; ++i) {
    const double v = ymin + (ymax - ymin) * i / 4.0;
    std::snprintf(buf, sizeof buf,
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.2f</text>\n", L - 6, Y(v) + 4, v);
    os << buf;
  }
  std::vector<double> ps;
  for (const auto& r : rows)
    if (std::find(ps.begin(), ps.end(), r.p) == ps.end()) ps.push_back(r.p);
  for (double p : ps) {
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.2f</text>\n",
                  X(p), H - B + 18, p);
    os << buf;
  }
  std::snprintf(buf, sizeof buf,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">task correlation p</text>\n"
                "<text x=\"16\" y=\"%.1f\" transform=\"rotate(-90 16 %.1f)\" text-anchor=\"middle\">"
                "test MSE (mean of 2 tasks, ±1 sd)</text>\n",
                (L + W - R) / 2, H - 12, (T + H - B) / 2, (T + H - B) / 2);
  os << buf;
  int line = 0;
  for (int g = 0; g < 5; ++g) {
    std::vector<const MMoESummaryRow*> pts;
    for (const auto& r : rows)
      if (static_cast<int>(r.gate) == g) pts.push_back(&r);
    if (pts.empty()) continue;
    std::sort(pts.begin(), pts.end(), [](auto* a, auto* b) { return a->p < b->p; });
    const char* c = colors[g % 5];
    os << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\" points=\"";
    for (auto* r : pts) {
      std::snprintf(buf, sizeof buf, "%.1f,%.1f ", X(r->p) + (line - 2) * 3, Y(r->mean_total));
      os << buf;
    }
    os << "\"/>\n";
    for (auto* r : pts) {
      const double x = X(r->p) + (line - 2) * 3;
      std::snprintf(buf, sizeof buf,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                    x, Y(r->mean_total - r->std_total), x, Y(r->mean_total + r->std_total), c, x,
                    Y(r->mean_total), c);
      os << buf;
    }
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                  W - R + 10, T + 10 + line * 18.0, W - R + 30, T + 10 + line * 18.0, c, W - R + 36,
                  T + 14 + line * 18.0, gate_name(static_cast<GateKind>(g)));
    os << buf;
    ++line;
  }
  os << "</svg>\n";
  return os.str();
}

}  // namespace attnlab::models
