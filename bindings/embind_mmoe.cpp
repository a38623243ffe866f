// Embind glue for MMoE and its synthetic data: marshalling only.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>

#include "attnlab/data/mmoe_synthetic.hpp"
#include "attnlab/models/mmoe.hpp"
#include "attnlab/nn/optim.hpp"
#include "common.hpp"
#include "model_class.hpp"

using namespace emscripten;
using namespace attnlab::bindings;
namespace m = attnlab::models;

namespace {

class JsMMoE {
 public:
  explicit JsMMoE(std::unique_ptr<m::MMoE> model) : model_(std::move(model)) {}
  // {inputDim, experts, expertUnits, tasks, towerUnits, attDim, bottomUnits, gate, gateBias, seed}
  static JsMMoE* create(val o) {
    return guard([&] {
      check_options(o, "MMoE options");
      // whole numbers here; MMoEConfig::validate() checks each range
      constexpr size_t kAny = size_t{1} << 30;
      m::MMoEConfig c;
      c.input_dim = opt_size(o, "inputDim", 0, kAny, c.input_dim);
      c.experts = opt_size(o, "experts", 0, kAny, c.experts);
      c.expert_units = opt_size(o, "expertUnits", 0, kAny, c.expert_units);
      c.tasks = opt_size(o, "tasks", 0, kAny, c.tasks);
      c.tower_units = opt_size(o, "towerUnits", 0, kAny, c.tower_units);
      c.att_dim = opt_size(o, "attDim", 0, kAny, c.att_dim);
      c.bottom_units = opt_size(o, "bottomUnits", 0, kAny, c.bottom_units);
      c.gate = m::gate_from_string(opt_string(o, "gate", "softmax"));
      c.gate_bias = opt_bool(o, "gateBias", false);
      return new JsMMoE(std::make_unique<m::MMoE>(c, opt_seed(o, "seed", 0)));
    });
  }
  static JsMMoE* from_bytes(val bytes) {
    return guard([&] {
      const std::vector<uint8_t> b = to_bytes(bytes, "MMoE model bytes");
      return new JsMMoE(m::MMoE::load(b.data(), b.size()));
    });
  }

  val config() const { return guard([&] { return val(model_->config().to_json()); }); }
  val param_count() const {
    return guard([&] { return val(static_cast<double>(model_->param_count().total)); });
  }

  // x: Float32Array (n * inputDim) -> {pred: (n, tasks), gates: (tasks, n, experts)}
  val predict(val x) const {
    return guard([&] {
      const std::vector<float> xs = to_floats(x, "x", /*finite=*/true);
      const size_t n = rows(xs.size(), model_->config().input_dim, "x");
      const m::MMoE::Output o = model_->forward(xs.data(), n);
      val out = val::object();
      out.set("pred", from_floats(o.pred));
      out.set("gates", from_floats(o.gates));
      out.set("n", n);
      return out;
    });
  }

  // One epoch of Adam; the optimizer persists between calls (reset by resetOptimizer).
  // x, y, {batchSize, lr, seed}
  val train_epoch(val x, val y, val opts) {
    return guard([&] {
      check_options(opts, "trainEpoch options");
      const size_t batch = opt_size(opts, "batchSize", 1, 1000000, 128);
      const double lr = opt_number(opts, "lr", 1e-8, 10, 1e-3);
      const uint64_t seed = opt_seed(opts, "seed", 0);
      const std::vector<float> xs = to_floats(x, "x", true), ys = to_floats(y, "y", true);
      const size_t n = rows(xs.size(), model_->config().input_dim, "x");
      check_targets(ys.size(), n);
      if (!opt_) opt_ = std::make_unique<attnlab::nn::Adam>(model_->params(), static_cast<float>(lr));
      opt_->lr = static_cast<float>(lr);
      if (!rng_) rng_ = std::make_unique<attnlab::Rng>(seed);
      return from_floats(model_->train_epoch(xs.data(), ys.data(), n, batch, *opt_, *rng_));
    });
  }
  void reset_optimizer() {
    opt_.reset();
    rng_.reset();
  }

  val evaluate(val x, val y) const {
    return guard([&] {
      const std::vector<float> xs = to_floats(x, "x", true), ys = to_floats(y, "y", true);
      const size_t n = rows(xs.size(), model_->config().input_dim, "x");
      check_targets(ys.size(), n);
      return from_floats(model_->evaluate(xs.data(), ys.data(), n));
    });
  }

  // {f16}
  val save(val opts) const {
    return guard([&] {
      check_options(opts, "save options");
      return to_uint8array(model_->save(opt_bool(opts, "f16", false)));
    });
  }

 private:
  static size_t rows(size_t total, size_t width, const char* what) {
    ATTNLAB_CHECK(total > 0, what, ": empty input");
    ATTNLAB_CHECK(total % width == 0, what, ": expected a multiple of inputDim = ", width,
                  " values (n samples x inputDim), got ", total);
    return total / width;
  }
  void check_targets(size_t got, size_t n) const {
    const size_t want = attnlab::checked_product("y", {n, model_->config().tasks});
    ATTNLAB_CHECK(got == want, "y: expected ", n, " x ", model_->config().tasks, " = ", want,
                  " values (one per sample and task), got ", got);
  }
  std::unique_ptr<m::MMoE> model_;
  std::unique_ptr<attnlab::nn::Adam> opt_;
  std::unique_ptr<attnlab::Rng> rng_;
};

// {n, dim, p, sines, noise, seed, taskSeed} -> {x: Float32Array (n*dim), y: Float32Array (n*2)}
val mmoe_synthetic(val o) {
  return guard([&] {
    check_options(o, "mmoeSynthetic options");
    attnlab::data::MMoESyntheticConfig c;
    c.n = opt_size(o, "n", 1, 10000000, 10000);
    c.dim = opt_size(o, "dim", 2, 100000, 100);
    c.p = static_cast<float>(opt_number(o, "p", -1e9, 1e9, 0.5));  // the generator checks [-1, 1]
    c.m = static_cast<int>(opt_size(o, "sines", 0, 1000, 10));
    c.noise = static_cast<float>(opt_number(o, "noise", 0, 100, 0.01));
    c.seed = opt_seed(o, "seed", 0);
    c.task_seed = opt_seed(o, "taskSeed", 0);
    const auto d = attnlab::data::make_mmoe_synthetic(c);
    val out = val::object();
    out.set("x", from_floats(d.x));
    out.set("y", from_floats(d.y));
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_mmoe) {
  model_class<JsMMoE>("MMoEModel")
      .class_function("create", &JsMMoE::create, allow_raw_pointers())
      .function("predict", &JsMMoE::predict)
      .function("trainEpoch", &JsMMoE::train_epoch)
      .function("resetOptimizer", &JsMMoE::reset_optimizer)
      .function("evaluate", &JsMMoE::evaluate)
      .function("save", &JsMMoE::save);
  function("mmoeSynthetic", &mmoe_synthetic);
}
