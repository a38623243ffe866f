#include "attnlab/models/recsys_fit.hpp"

#include <algorithm>
#include <numeric>

#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/eval/class_metrics.hpp"
#include "attnlab/nn/optim.hpp"

namespace attnlab::models {

namespace {

void check_fit(const RecsysFitOptions& o, size_t n_train, size_t n_test) {
  ATTNLAB_CHECK(o.epochs > 0 && o.batch > 0, "fit: epochs and batch must be > 0, got ", o.epochs,
                ", ", o.batch);
  ATTNLAB_CHECK(o.lr > 0 && o.lr < 10, "fit: lr must be in (0, 10), got ", o.lr);
  ATTNLAB_CHECK(n_train > 0 && n_test > 0, "fit: need training and test samples, got ", n_train,
                " and ", n_test);
}

template <class Step, class Eval>
std::vector<RecsysEpoch> run(size_t n, const RecsysFitOptions& o, Step step, Eval eval,
                             const RecsysEpochFn& on_epoch) {
  Rng rng(o.seed * 0x9E3779B97F4A7C15ull + 3);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t(0));
  std::vector<RecsysEpoch> hist;
  std::vector<size_t> idx;  // the batch's rows, reused by every step
  for (size_t e = 0; e < o.epochs; ++e) {
    rng.shuffle(order);
    double sum = 0;
    size_t steps = 0;
    for (size_t a = 0; a < n; a += o.batch, ++steps) {
      idx.assign(order.begin() + static_cast<std::ptrdiff_t>(a),
                 order.begin() + static_cast<std::ptrdiff_t>(std::min(n, a + o.batch)));
      sum += step(idx);
    }
    hist.push_back({e + 1, sum / double(steps), eval()});
    if (on_epoch) on_epoch(hist.back());
  }
  return hist;
}

}  // namespace

void din_gather(const data::BehaviorData& d, const std::vector<size_t>& rows, DINBatch& b) {
  const size_t T = d.T;
  b.B = rows.size();
  b.T = T;
  b.hist_items.resize(b.B * T);
  b.hist_cats.resize(b.B * T);
  b.hist_len.resize(b.B);
  b.cand_item.resize(b.B);
  b.cand_cat.resize(b.B);
  for (size_t k = 0; k < b.B; ++k) {
    const size_t i = rows[k];
    ATTNLAB_CHECK(i < d.n, "din_gather: row ", i, " outside the ", d.n, " samples");
    std::copy_n(d.hist_items.data() + i * T, T, b.hist_items.data() + k * T);
    std::copy_n(d.hist_cats.data() + i * T, T, b.hist_cats.data() + k * T);
    b.hist_len[k] = d.hist_len[i];
    b.cand_item[k] = d.cand_item[i];
    b.cand_cat[k] = d.cand_cat[i];
  }
}

DINBatch din_batch(const data::BehaviorData& d, size_t first, size_t count) {
  ATTNLAB_CHECK(first + count <= d.n, "din_batch: rows [", first, ", ", first + count,
                ") outside the ", d.n, " samples");
  std::vector<size_t> rows(count);
  std::iota(rows.begin(), rows.end(), first);
  DINBatch b;
  din_gather(d, rows, b);
  return b;
}

std::vector<double> din_predict(const DIN& m, const data::BehaviorData& d) {
  std::vector<double> p;
  p.reserve(d.n);
  for (size_t a = 0; a < d.n; a += 256) {
    const DINOutput o = m.forward(din_batch(d, a, std::min(d.n - a, size_t(256))));
    p.insert(p.end(), o.probs.begin(), o.probs.end());
  }
  return p;
}

std::vector<RecsysEpoch> fit_din(DIN& m, const data::BehaviorData& train,
                                 const data::BehaviorData& test, const RecsysFitOptions& o,
                                 const RecsysEpochFn& on_epoch) {
  check_fit(o, train.n, test.n);
  nn::Adam opt(m.params(), o.lr);
  DINBatch b;  // reused by every step
  std::vector<int> y;
  auto step = [&](const std::vector<size_t>& idx) {
    din_gather(train, idx, b);
    y.resize(idx.size());
    for (size_t k = 0; k < idx.size(); ++k) y[k] = train.label[idx[k]];
    m.params().zero_grad();
    const double l = m.loss_and_grad(b, y);
    opt.step();
    return l;
  };
  auto eval = [&] { return eval::roc_auc(test.label, din_predict(m, test)); };
  return run(train.n, o, step, eval, on_epoch);
}

std::vector<double> autoint_predict(const AutoInt& m, const data::CtrSyntheticData& d) {
  const size_t F = m.fields();
  ATTNLAB_CHECK(d.fields == F, "autoint_predict: data has ", d.fields, " fields, the model ", F);
  std::vector<double> p;
  p.reserve(d.n);
  for (size_t a = 0; a < d.n; a += 256) {
    const size_t B = std::min(d.n - a, size_t(256));
    const AutoInt::Output o = m.forward(d.ids.data() + a * F, B);
    p.insert(p.end(), o.prob.begin(), o.prob.end());
  }
  return p;
}

std::vector<RecsysEpoch> fit_autoint(AutoInt& m, const data::CtrSyntheticData& train,
                                     const data::CtrSyntheticData& test,
                                     const RecsysFitOptions& o, const RecsysEpochFn& on_epoch) {
  check_fit(o, train.n, test.n);
  const size_t F = m.fields();
  ATTNLAB_CHECK(train.fields == F && test.fields == F, "fit_autoint: the data has ", train.fields,
                " fields, the model ", F);
  nn::Adam opt(m.params(), o.lr);
  std::vector<int> ids;
  std::vector<float> y;
  auto step = [&](const std::vector<size_t>& idx) {
    ids.clear();
    y.clear();
    for (size_t i : idx) {
      ids.insert(ids.end(), train.ids.begin() + static_cast<std::ptrdiff_t>(i * F),
                 train.ids.begin() + static_cast<std::ptrdiff_t>((i + 1) * F));
      y.push_back(train.labels[i]);
    }
    return double(m.train_step(ids.data(), y.data(), idx.size(), opt));
  };
  std::vector<int> ylab(test.n);
  for (size_t i = 0; i < test.n; ++i) ylab[i] = test.labels[i] > 0.5f ? 1 : 0;
  auto eval = [&] { return eval::roc_auc(ylab, autoint_predict(m, test)); };
  return run(train.n, o, step, eval, on_epoch);
}

DinData din_synthetic_split(size_t n_train, size_t n_test, const data::BehaviorOptions& o,
                            uint64_t seed) {
  return {data::make_behavior_data(n_train, o, 1000 + seed),
          data::make_behavior_data(n_test, o, 2000 + seed)};
}

DINConfig din_config_for(const data::BehaviorOptions& o, const std::string& pooling) {
  ATTNLAB_CHECK(pooling == "attention" || pooling == "softmax" || pooling == "sum",
                "DIN pooling: expected attention, softmax or sum, got '", pooling, "'");
  DINConfig cfg;
  cfg.items = o.items;
  cfg.categories = o.categories;
  cfg.attention = pooling != "sum";
  cfg.normalize = pooling == "softmax";
  return cfg;
}

CtrData ctr_synthetic_split(size_t n_train, size_t n_test, data::CtrSyntheticConfig cfg,
                            uint64_t seed) {
  cfg.task_seed = seed;
  CtrData d;
  cfg.n = n_train;
  cfg.seed = 1000 + seed;
  d.train = data::make_ctr_synthetic(cfg);
  cfg.n = n_test;
  cfg.seed = 2000 + seed;
  d.test = data::make_ctr_synthetic(cfg);
  return d;
}

std::vector<float> autoint_mean_attention(const AutoInt& m, const int* ids, size_t n) {
  const AutoIntConfig& c = m.config();
  const size_t F = c.vocab.size(), per = c.heads * F * F;
  std::vector<float> mean(c.layers * per, 0.f);
  if (n == 0) return mean;
  const AutoInt::Output r = m.forward(ids, n);
  for (size_t l = 0; l < c.layers; ++l) {
    const float* a = r.attention[l].data();
    for (size_t b = 0; b < n; ++b)
      for (size_t i = 0; i < per; ++i) mean[l * per + i] += a[b * per + i] / static_cast<float>(n);
  }
  return mean;
}

}  // namespace attnlab::models
