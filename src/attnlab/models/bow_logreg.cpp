#include "attnlab/models/bow_logreg.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "attnlab/core/error.hpp"
#include "attnlab/io/config_fields.hpp"
#include "attnlab/io/safetensors.hpp"

namespace attnlab::models {

namespace {

constexpr int kFirstFeature = 4;  // data::Vocab ids 0..3 are specials

struct Csr {
  size_t rows = 0, cols = 0;
  std::vector<size_t> ptr{0};
  std::vector<uint32_t> idx;
  std::vector<float> val;
};

inline double sigmoid(double z) {
  if (z >= 0) return 1.0 / (1.0 + std::exp(-z));
  const double e = std::exp(z);
  return e / (1.0 + e);
}
// log(1 + exp(z)), stable
inline double softplus(double z) { return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z)); }

// Objective and gradient of mean log-loss + l2/2 |w|^2 at x = (w..., b).
double objective(const Csr& X, const std::vector<double>& y, double l2, const std::vector<double>& x,
                 std::vector<double>& g) {
  const size_t d = X.cols;
  std::fill(g.begin(), g.end(), 0.0);
  const double b = x[d];
  double loss = 0;
  const double inv_n = 1.0 / static_cast<double>(X.rows);
  for (size_t i = 0; i < X.rows; ++i) {
    double z = b;
    for (size_t k = X.ptr[i]; k < X.ptr[i + 1]; ++k) z += x[X.idx[k]] * static_cast<double>(X.val[k]);
    loss += softplus(z) - y[i] * z;
    const double r = (sigmoid(z) - y[i]) * inv_n;
    for (size_t k = X.ptr[i]; k < X.ptr[i + 1]; ++k) g[X.idx[k]] += r * static_cast<double>(X.val[k]);
    g[d] += r;
  }
  loss *= inv_n;
  double reg = 0;
  for (size_t j = 0; j < d; ++j) {
    reg += x[j] * x[j];
    g[j] += l2 * x[j];
  }
  return loss + 0.5 * l2 * reg;
}

double dotv(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}
double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::fabs(v));
  return m;
}

// Full-batch L-BFGS with a backtracking Armijo line search.
BowFitReport lbfgs(const Csr& X, const std::vector<double>& y, const BowLogRegOptions& opt,
                   std::vector<double>& x) {
  const size_t n = x.size();
  const int m = std::max(1, opt.history);
  std::vector<std::vector<double>> S, Y;
  std::vector<double> rho;
  std::vector<double> g(n), g_new(n), x_new(n), dir(n), alpha(static_cast<size_t>(m));
  double f = objective(X, y, opt.l2, x, g);
  BowFitReport rep;
  for (int it = 0; it < opt.max_iter; ++it) {
    rep.iterations = it;
    if (max_abs(g) < opt.tol) {
      rep.converged = true;
      break;
    }
    // two-loop recursion: dir = -H g
    dir = g;
    const int h = static_cast<int>(S.size());
    for (int k = h - 1; k >= 0; --k) {
      const auto ku = static_cast<size_t>(k);
      alpha[ku] = rho[ku] * dotv(S[ku], dir);
      for (size_t i = 0; i < n; ++i) dir[i] -= alpha[ku] * Y[ku][i];
    }
    const double gamma = h ? dotv(S.back(), Y.back()) / dotv(Y.back(), Y.back()) : 1.0;
    for (double& v : dir) v *= gamma;
    for (int k = 0; k < h; ++k) {
      const auto ku = static_cast<size_t>(k);
      const double beta = rho[ku] * dotv(Y[ku], dir);
      for (size_t i = 0; i < n; ++i) dir[i] += S[ku][i] * (alpha[ku] - beta);
    }
    for (double& v : dir) v = -v;
    double slope = dotv(g, dir);
    if (slope >= 0) {  // not a descent direction: restart with steepest descent
      S.clear(), Y.clear(), rho.clear();
      for (size_t i = 0; i < n; ++i) dir[i] = -g[i];
      slope = dotv(g, dir);
    }
    double step = 1.0;
    double f_new = 0;
    bool ok = false;
    for (int ls = 0; ls < 40; ++ls) {
      for (size_t i = 0; i < n; ++i) x_new[i] = x[i] + step * dir[i];
      f_new = objective(X, y, opt.l2, x_new, g_new);
      if (f_new <= f + 1e-4 * step * slope) {
        ok = true;
        break;
      }
      step *= 0.5;
    }
    if (!ok) break;  // no progress possible at float precision
    std::vector<double> s(n), yv(n);
    for (size_t i = 0; i < n; ++i) s[i] = x_new[i] - x[i], yv[i] = g_new[i] - g[i];
    const double sy = dotv(s, yv);
    if (sy > 1e-12) {
      if (static_cast<int>(S.size()) == m) {
        S.erase(S.begin()), Y.erase(Y.begin()), rho.erase(rho.begin());
      }
      S.push_back(std::move(s)), Y.push_back(std::move(yv)), rho.push_back(1.0 / sy);
    }
    const double df = f - f_new;
    x.swap(x_new);
    g.swap(g_new);
    f = f_new;
    rep.iterations = it + 1;
    if (df <= 1e-12 * std::max(1.0, std::fabs(f))) {
      rep.converged = max_abs(g) < std::max(opt.tol, 1e-4);
      break;
    }
  }
  rep.loss = f;
  rep.grad_max = max_abs(g);
  if (rep.grad_max < opt.tol) rep.converged = true;
  return rep;
}

double logloss(const std::vector<int>& labels, const std::vector<double>& p) {
  double s = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const double q = std::min(std::max(p[i], 1e-15), 1 - 1e-15);
    s -= labels[i] ? std::log(q) : std::log(1 - q);
  }
  return p.empty() ? 0.0 : s / static_cast<double>(p.size());
}

}  // namespace

namespace {
// the options' keys, each once (io/config_fields.hpp); read the plain way, every key optional
using Opt = BowLogRegOptions;
constexpr auto kOptionFields = std::make_tuple(
    io::field("min_df", &Opt::min_df), io::field("max_features", &Opt::max_features),
    io::field("l2", &Opt::l2), io::field("max_iter", &Opt::max_iter), io::field("tol", &Opt::tol),
    io::field("history", &Opt::history), io::field("threshold", &Opt::threshold));
}  // namespace

nlohmann::json BowLogRegOptions::to_json() const { return io::fields_json(*this, kOptionFields); }

BowFitReport BowLogReg::fit(const std::vector<std::vector<std::string>>& docs,
                            const std::vector<int>& labels, const BowLogRegOptions& opt) {
  ATTNLAB_CHECK(!docs.empty() && docs.size() == labels.size(), "BowLogReg::fit: expected as many labels (",
                labels.size(), ") as documents (", docs.size(), "), at least one");
  ATTNLAB_CHECK(opt.l2 >= 0 && std::isfinite(opt.l2), "BowLogReg::fit: expected l2 >= 0, got ", opt.l2);
  ATTNLAB_CHECK(opt.max_iter >= 0, "BowLogReg::fit: expected max_iter >= 0, got ", opt.max_iter);
  for (size_t i = 0; i < labels.size(); ++i)
    ATTNLAB_CHECK(labels[i] == 0 || labels[i] == 1, "BowLogReg::fit: expected labels 0/1, got ",
                  labels[i], " at ", i);
  opt_ = opt;
  // document frequencies
  std::unordered_map<std::string, size_t> df;
  for (const auto& d : docs) {
    std::vector<const std::string*> u;
    u.reserve(d.size());
    for (const auto& t : d) u.push_back(&t);
    std::sort(u.begin(), u.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
    for (size_t k = 0; k < u.size(); ++k)
      if (k == 0 || *u[k] != *u[k - 1]) ++df[*u[k]];
  }
  std::map<std::string, size_t> sorted(df.begin(), df.end());
  vocab_ = data::Vocab::from_counts(sorted, std::max<size_t>(opt.min_df, 1),
                                    opt.max_features ? opt.max_features + kFirstFeature : 0);
  const size_t nf = vocab_.size() - kFirstFeature;
  const double n = static_cast<double>(docs.size());
  idf_.assign(nf, 0.0);
  for (size_t j = 0; j < nf; ++j) {
    const double dfj = static_cast<double>(df[vocab_.token(static_cast<int>(j) + kFirstFeature)]);
    idf_[j] = std::log((1.0 + n) / (1.0 + dfj)) + 1.0;
  }
  w_.assign(nf, 0.0);
  b_ = 0;
  // design matrix
  Csr X;
  X.rows = docs.size();
  X.cols = nf;
  std::vector<double> y(docs.size());
  for (size_t i = 0; i < docs.size(); ++i) {
    const SparseRow r = features(docs[i]);
    for (const auto& [j, v] : r) X.idx.push_back(j), X.val.push_back(v);
    X.ptr.push_back(X.idx.size());
    y[i] = labels[i];
  }
  std::vector<double> x(nf + 1, 0.0);
  const BowFitReport rep = lbfgs(X, y, opt, x);
  w_.assign(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(nf));
  b_ = x[nf];
  return rep;
}

BowLogReg::SparseRow BowLogReg::features(const std::vector<std::string>& tokens) const {
  std::unordered_map<uint32_t, uint32_t> tf;
  for (const auto& t : tokens) {
    const int id = vocab_.id(t);
    if (id < kFirstFeature) continue;
    ++tf[static_cast<uint32_t>(id - kFirstFeature)];
  }
  SparseRow r;
  r.reserve(tf.size());
  double norm = 0;
  std::vector<std::pair<uint32_t, double>> tmp;
  tmp.reserve(tf.size());
  for (const auto& [j, c] : tf) {
    const double v = (1.0 + std::log(static_cast<double>(c))) * idf_[j];
    tmp.emplace_back(j, v);
    norm += v * v;
  }
  std::sort(tmp.begin(), tmp.end());
  const double inv = norm > 0 ? 1.0 / std::sqrt(norm) : 0.0;
  for (const auto& [j, v] : tmp) r.emplace_back(j, static_cast<float>(v * inv));
  return r;
}

double BowLogReg::predict_proba(const std::vector<std::string>& tokens) const {
  double z = b_;
  if (!w_.empty())
    for (const auto& [j, v] : features(tokens)) z += w_[j] * static_cast<double>(v);
  return sigmoid(z);
}

std::vector<double> BowLogReg::predict_proba(const std::vector<std::vector<std::string>>& docs) const {
  std::vector<double> p(docs.size());
  for (size_t i = 0; i < docs.size(); ++i) p[i] = predict_proba(docs[i]);
  return p;
}

std::string BowLogReg::to_json() const {
  nlohmann::json j;
  j["format"] = "attnlab-bow-logreg";
  j["version"] = 1;
  j["options"] = opt_.to_json();
  j["vocab"] = nlohmann::json::parse(vocab_.to_json());
  j["idf"] = idf_;
  j["weights"] = w_;
  j["bias"] = b_;
  return j.dump();
}

BowLogReg BowLogReg::from_json(const std::string& s) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(s);
  } catch (const std::exception& e) {
    throw Error(std::string("bow-logreg: invalid JSON: ") + e.what());
  }
  ATTNLAB_CHECK(j.is_object() && j.value("format", "") == "attnlab-bow-logreg",
                "bow-logreg: expected an object with format \"attnlab-bow-logreg\"");
  ATTNLAB_CHECK(j.value("version", 0) == 1, "bow-logreg: expected version 1, got ", j.value("version", 0));
  for (const char* k : {"vocab", "idf", "weights"})
    ATTNLAB_CHECK(j.contains(k) && j[k].is_array(), "bow-logreg: missing array '", k, "'");
  ATTNLAB_CHECK(j.contains("bias") && j["bias"].is_number(), "bow-logreg: missing number 'bias'");
  BowLogReg m;
  m.vocab_ = data::Vocab::from_json(j["vocab"].dump());
  const size_t nf = m.vocab_.size() - kFirstFeature;
  try {
    m.idf_ = j["idf"].get<std::vector<double>>();
    m.w_ = j["weights"].get<std::vector<double>>();
  } catch (const std::exception& e) {
    throw Error(std::string("bow-logreg: idf/weights must be arrays of numbers: ") + e.what());
  }
  ATTNLAB_CHECK(m.idf_.size() == nf && m.w_.size() == nf, "bow-logreg: expected ", nf,
                " idf values and weights (vocabulary size - 4), got ", m.idf_.size(), " and ",
                m.w_.size());
  m.b_ = j["bias"].get<double>();
  if (j.contains("options") && j["options"].is_object())
    io::read_fields_plain(j["options"], m.opt_, kOptionFields);
  return m;
}

void BowLogReg::save(const std::string& path) const {
  std::ofstream f(path, std::ios::binary);
  ATTNLAB_CHECK(f.good(), "bow-logreg: cannot write '", path, "'");
  f << to_json();
  ATTNLAB_CHECK(f.good(), "bow-logreg: write to '", path, "' failed");
}

BowLogReg BowLogReg::load(const std::string& path) {
  const std::vector<uint8_t> b = io::read_bytes(path);  // regular files only
  return from_json(std::string(b.begin(), b.end()));
}

// ------------------------------------------------------------------ the run
nlohmann::json SpamBaselineResult::to_json() const {
  nlohmann::json j;
  j["messages"] = messages;
  j["duplicates"] = duplicates;
  j["split"] = {{"train", n_train}, {"valid", n_valid}, {"test", n_test},
                {"spam_train", spam_train}, {"spam_valid", spam_valid}, {"spam_test", spam_test},
                {"hard_ham_test", hard_ham_test}};
  j["l2"] = l2;
  j["valid_logloss"] = valid_logloss;
  j["fit"] = {{"iterations", fit.iterations}, {"loss", fit.loss}, {"grad_max", fit.grad_max},
              {"converged", fit.converged}};
  j["features"] = model.vocab().size() - kFirstFeature;
  j["valid"] = valid.to_json();
  j["test"] = test.to_json();
  j["test_hard_ham"] = test_hard_ham.to_json();
  j["test_spam_vs_hard_ham"] = test_spam_hard_ham.to_json();
  return j;
}

SpamBaselineResult run_spam_baseline(const data::SpamCorpus& c, const SpamBaselineOptions& opt) {
  const auto& sp = c.split;
  ATTNLAB_CHECK(!sp.train.empty() && !sp.valid.empty() && !sp.test.empty(),
                "run_spam_baseline: expected non-empty train/valid/test splits, got ", sp.train.size(),
                "/", sp.valid.size(), "/", sp.test.size());
  auto gather = [&](const std::vector<size_t>& idx, std::vector<std::vector<std::string>>& docs,
                    std::vector<int>& labels) {
    docs.clear(), labels.clear();
    for (size_t i : idx) docs.push_back(c.docs[i].all_tokens()), labels.push_back(c.records[i].label);
  };
  std::vector<std::vector<std::string>> dtr, dva, dte;
  std::vector<int> ytr, yva, yte;
  gather(sp.train, dtr, ytr);
  gather(sp.valid, dva, yva);
  gather(sp.test, dte, yte);

  SpamBaselineResult r;
  std::vector<double> grid = opt.l2_grid;
  if (grid.empty()) grid.push_back(opt.model.l2);
  double best = 0;
  for (size_t k = 0; k < grid.size(); ++k) {
    BowLogRegOptions mo = opt.model;
    mo.l2 = grid[k];
    BowLogReg m;
    const BowFitReport rep = m.fit(dtr, ytr, mo);
    const double ll = logloss(yva, m.predict_proba(dva));
    if (k == 0 || ll < best) {
      best = ll;
      r.model = std::move(m);
      r.fit = rep;
      r.l2 = grid[k];
    }
  }
  r.valid_logloss = best;
  r.messages = c.records.size();
  r.duplicates = sp.duplicates;
  r.n_train = sp.train.size(), r.n_valid = sp.valid.size(), r.n_test = sp.test.size();
  r.spam_train = c.count(sp.train, 1), r.spam_valid = c.count(sp.valid, 1), r.spam_test = c.count(sp.test, 1);
  r.hard_ham_test = c.count_group(sp.test, "hard-ham-1");
  const double th = opt.model.threshold;
  r.valid = eval::binary_metrics(yva, r.model.predict_proba(dva), th);
  const std::vector<double> pte = r.model.predict_proba(dte);
  r.test = eval::binary_metrics(yte, pte, th);
  std::vector<int> yh, ys;
  std::vector<double> ph, ps;
  for (size_t k = 0; k < sp.test.size(); ++k) {
    const auto& rec = c.records[sp.test[k]];
    if (rec.group == "hard-ham-1") yh.push_back(yte[k]), ph.push_back(pte[k]);
    if (rec.group == "hard-ham-1" || rec.label == 1) ys.push_back(yte[k]), ps.push_back(pte[k]);
  }
  r.test_hard_ham = eval::binary_metrics(yh, ph, th);
  r.test_spam_hard_ham = eval::binary_metrics(ys, ps, th);
  return r;
}

SpamBaselineResult run_spam_baseline(const std::string& data_dir, const SpamBaselineOptions& opt) {
  const data::SpamCorpus c = data::load_spam_corpus(data_dir, opt.seed, opt.email);
  return run_spam_baseline(c, opt);
}

}  // namespace attnlab::models
