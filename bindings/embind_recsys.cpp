// Embind glue for the two click-through models (DIN, AutoInt): one call
// generates the synthetic data, trains with models/recsys_fit and returns the
// history and the attention the page draws. Marshalling only.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <string>

#include "attnlab/data/behavior_synthetic.hpp"
#include "attnlab/data/ctr_synthetic.hpp"
#include "attnlab/models/recsys_fit.hpp"
#include "common.hpp"

using namespace emscripten;
using namespace attnlab::bindings;
namespace m = attnlab::models;
namespace d = attnlab::data;

namespace {

m::RecsysFitOptions fit_options(const val& o, size_t def_epochs) {
  m::RecsysFitOptions f;
  f.epochs = opt_size(o, "epochs", 1, 200, def_epochs);
  f.batch = opt_size(o, "batchSize", 1, 4096, 64);
  f.lr = static_cast<float>(opt_number(o, "lr", 1e-6, 1, 3e-3));
  f.seed = opt_size(o, "seed", 0, 1u << 30, 1);
  return f;
}
val history_js(const std::vector<m::RecsysEpoch>& h) {
  val arr = val::array();
  for (const auto& e : h) {
    val x = val::object();
    x.set("epoch", e.epoch);
    x.set("loss", e.loss);
    x.set("auc", e.test_auc);
    arr.call<void>("push", x);
  }
  return arr;
}

// {pooling: 'attention'|'softmax'|'sum', train, test, epochs, batchSize, lr, seed, examples}
val din(val o) {
  return guard([&] {
    check_options(o, "recsys.din options");
    const std::string pooling = opt_enum(o, "pooling", {"attention", "softmax", "sum"}, "attention");
    const size_t n_train = opt_size(o, "train", 1, 200000, 12000);
    const size_t n_test = opt_size(o, "test", 1, 50000, 3000);
    const size_t n_ex = opt_size(o, "examples", 0, 64, 8);
    const m::RecsysFitOptions fo = fit_options(o, 6);
    d::BehaviorOptions bo;
    const m::DinData data = m::din_synthetic_split(n_train, n_test, bo, fo.seed);
    const d::BehaviorData& train = data.train;
    const d::BehaviorData& test = data.test;
    m::DIN model(m::din_config_for(bo, pooling), fo.seed);
    const auto hist = m::fit_din(model, train, test, fo);
    val out = val::object();
    out.set("history", history_js(hist));
    out.set("params", static_cast<double>(model.params().count()));
    out.set("T", test.T);
    const size_t ne = std::min(n_ex, test.n);
    if (ne > 0) {
      const m::DINOutput r = model.forward(m::din_batch(test, 0, ne));
      val ex = val::object();
      ex.set("n", ne);
      ex.set("len", int32s(std::vector<size_t>(test.hist_len.begin(), test.hist_len.begin() + static_cast<std::ptrdiff_t>(ne))));
      ex.set("cats", int32s(std::vector<int>(test.hist_cats.begin(), test.hist_cats.begin() + static_cast<std::ptrdiff_t>(ne * test.T))));
      ex.set("candCat", int32s(std::vector<int>(test.cand_cat.begin(), test.cand_cat.begin() + static_cast<std::ptrdiff_t>(ne))));
      ex.set("nSame", int32s(std::vector<int>(test.n_same.begin(), test.n_same.begin() + static_cast<std::ptrdiff_t>(ne))));
      ex.set("label", int32s(std::vector<int>(test.label.begin(), test.label.begin() + static_cast<std::ptrdiff_t>(ne))));
      ex.set("prob", from_floats(r.probs));
      ex.set("weights", from_floats(r.weights.data(), r.weights.size()));
      out.set("examples", ex);
    }
    return out;
  });
}

// {layers, heads, headDim, embedDim, residual, fields, vocab, fieldA, fieldB, train, test,
//  epochs, batchSize, lr, seed}
val autoint(val o) {
  return guard([&] {
    check_options(o, "recsys.autoint options");
    const size_t F = opt_size(o, "fields", 2, 32, 6);
    const size_t V = opt_size(o, "vocab", 2, 1000, 8);
    d::CtrSyntheticConfig dc;
    dc.vocab.assign(F, V);
    dc.field_a = opt_size(o, "fieldA", 0, F - 1, 1);
    dc.field_b = opt_size(o, "fieldB", 0, F - 1, std::min<size_t>(4, F - 1));
    ATTNLAB_CHECK(dc.field_a != dc.field_b, "fieldA and fieldB must differ, both are ", dc.field_a);
    const m::RecsysFitOptions fo = fit_options(o, 5);
    const m::CtrData data = m::ctr_synthetic_split(opt_size(o, "train", 1, 200000, 8000),
                                                   opt_size(o, "test", 1, 50000, 3000), dc, fo.seed);
    const d::CtrSyntheticData& train = data.train;
    const d::CtrSyntheticData& test = data.test;
    m::AutoIntConfig cfg;
    cfg.vocab = dc.vocab;
    cfg.layers = opt_size(o, "layers", 0, 6, 2);
    cfg.heads = opt_size(o, "heads", 1, 8, 2);
    cfg.head_dim = opt_size(o, "headDim", 1, 64, 8);
    cfg.embed_dim = opt_size(o, "embedDim", 1, 128, 16);
    cfg.residual = opt_bool(o, "residual", true);
    m::AutoInt model(cfg, fo.seed);
    const auto hist = m::fit_autoint(model, train, test, fo);
    val out = val::object();
    out.set("history", history_js(hist));
    out.set("params", static_cast<double>(model.param_count().total));
    out.set("fields", F);
    out.set("layers", cfg.layers);
    out.set("heads", cfg.heads);
    out.set("fieldA", dc.field_a);
    out.set("fieldB", dc.field_b);
    // mean attention over (up to) 1000 test samples: (L,H,F,F)
    out.set("attention", from_floats(m::autoint_mean_attention(model, test.ids.data(),
                                                               std::min<size_t>(test.n, 1000))));
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_recsys) {
  function("recsysDin", &din);
  function("recsysAutoInt", &autoint);
}
