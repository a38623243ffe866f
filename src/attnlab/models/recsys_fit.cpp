#include "attnlab/models/recsys_fit.hpp"

#include <algorithm>
#include <numeric>

#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/data/class_metrics.hpp"
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
  for (size_t e = 0; e < o.epochs; ++e) {
    rng.shuffle(order);
    double sum = 0;
    size_t steps = 0;
    for (size_t a = 0; a < n; a += o.batch, ++steps)
      sum += step(std::vector<size_t>(order.begin() + static_cast<std::ptrdiff_t>(a),
                                      order.begin() + static_cast<std::ptrdiff_t>(std::min(n, a + o.batch))));
    hist.push_back({e + 1, sum / double(steps), eval()});
    if (on_epoch) on_epoch(hist.back());
  }
  return hist;
}

}  // namespace

DINBatch din_batch(const data::BehaviorData& d, size_t first, size_t count) {
  ATTNLAB_CHECK(first + count <= d.n, "din_batch: rows [", first, ", ", first + count,
                ") outside the ", d.n, " samples");
  DINBatch b;
  b.B = count;
  b.T = d.T;
  const auto r = [](size_t i) { return static_cast<std::ptrdiff_t>(i); };
  b.hist_items.assign(d.hist_items.begin() + r(first * d.T), d.hist_items.begin() + r((first + count) * d.T));
  b.hist_cats.assign(d.hist_cats.begin() + r(first * d.T), d.hist_cats.begin() + r((first + count) * d.T));
  b.hist_len.assign(d.hist_len.begin() + r(first), d.hist_len.begin() + r(first + count));
  b.cand_item.assign(d.cand_item.begin() + r(first), d.cand_item.begin() + r(first + count));
  b.cand_cat.assign(d.cand_cat.begin() + r(first), d.cand_cat.begin() + r(first + count));
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
  auto step = [&](const std::vector<size_t>& idx) {
    DINBatch b;
    b.B = idx.size();
    b.T = train.T;
    std::vector<int> y;
    for (size_t i : idx) {
      const DINBatch one = din_batch(train, i, 1);
      b.hist_items.insert(b.hist_items.end(), one.hist_items.begin(), one.hist_items.end());
      b.hist_cats.insert(b.hist_cats.end(), one.hist_cats.begin(), one.hist_cats.end());
      b.hist_len.push_back(one.hist_len[0]);
      b.cand_item.push_back(one.cand_item[0]);
      b.cand_cat.push_back(one.cand_cat[0]);
      y.push_back(train.label[i]);
    }
    m.params().zero_grad();
    const double l = m.loss_and_grad(b, y);
    opt.step();
    return l;
  };
  auto eval = [&] { return data::roc_auc(test.label, din_predict(m, test)); };
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
  auto eval = [&] { return data::roc_auc(ylab, autoint_predict(m, test)); };
  return run(train.n, o, step, eval, on_epoch);
}

}  // namespace attnlab::models
