// Embind glue for MMoE and its synthetic data: marshalling only.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>

#include "attnlab/data/mmoe_synthetic.hpp"
#include "attnlab/models/mmoe.hpp"
#include "attnlab/nn/optim.hpp"
#include "common.hpp"

using namespace emscripten;
using attnlab::bindings::from_floats;
using attnlab::bindings::guard;
using attnlab::bindings::to_floats;
namespace m = attnlab::models;

namespace {

std::vector<uint8_t> to_bytes(const val& v) {
  if (!v.instanceof(val::global("Uint8Array")))
    throw attnlab::Error("model bytes: expected a Uint8Array");
  const size_t n = v["length"].as<size_t>();
  std::vector<uint8_t> out(n);
  if (n) val(typed_memory_view(n, out.data())).call<void>("set", v);
  return out;
}

class JsMMoE {
 public:
  explicit JsMMoE(std::unique_ptr<m::MMoE> model) : model_(std::move(model)) {}
  static JsMMoE* create(std::string config_json, double seed) {
    return guard([&] {
      return new JsMMoE(std::make_unique<m::MMoE>(m::MMoEConfig::from_json(config_json),
                                                  static_cast<uint64_t>(seed)));
    });
  }
  static JsMMoE* from_bytes(val bytes) {
    return guard([&] {
      const std::vector<uint8_t> b = to_bytes(bytes);
      return new JsMMoE(m::MMoE::load(b.data(), b.size()));
    });
  }

  std::string config() const { return model_->config().to_json(); }
  double param_count() const { return static_cast<double>(model_->param_count().total); }

  // x: Float32Array (n * inputDim) -> {pred: (n, tasks), gates: (tasks, n, experts)}
  val predict(val x) const {
    return guard([&] {
      const std::vector<float> xs = to_floats(x, "x");
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
  val train_epoch(val x, val y, double batch, double lr, double seed) {
    return guard([&] {
      const std::vector<float> xs = to_floats(x, "x"), ys = to_floats(y, "y");
      const size_t n = rows(xs.size(), model_->config().input_dim, "x");
      ATTNLAB_CHECK(ys.size() == n * model_->config().tasks, "y: expected ", n, " x ",
                    model_->config().tasks, " = ", n * model_->config().tasks,
                    " values (one per sample and task), got ", ys.size());
      ATTNLAB_CHECK(batch >= 1 && batch <= 1e6, "batchSize must be in [1, 1e6], got ", batch);
      ATTNLAB_CHECK(lr > 0 && lr < 10, "lr must be in (0, 10), got ", lr);
      if (!opt_ || opt_->lr != static_cast<float>(lr)) {
        if (!opt_) opt_ = std::make_unique<attnlab::nn::Adam>(model_->params(), static_cast<float>(lr));
        opt_->lr = static_cast<float>(lr);
      }
      if (!rng_) rng_ = std::make_unique<attnlab::Rng>(static_cast<uint64_t>(seed));
      return from_floats(model_->train_epoch(xs.data(), ys.data(), n, static_cast<size_t>(batch),
                                             *opt_, *rng_));
    });
  }
  void reset_optimizer() {
    opt_.reset();
    rng_.reset();
  }

  val evaluate(val x, val y) const {
    return guard([&] {
      const std::vector<float> xs = to_floats(x, "x"), ys = to_floats(y, "y");
      const size_t n = rows(xs.size(), model_->config().input_dim, "x");
      ATTNLAB_CHECK(ys.size() == n * model_->config().tasks, "y: expected ",
                    n * model_->config().tasks, " values, got ", ys.size());
      return from_floats(model_->evaluate(xs.data(), ys.data(), n));
    });
  }

  val save(bool f16) const {
    return guard([&] {
      const std::vector<uint8_t> b = model_->save(f16);
      return val::global("Uint8Array").new_(typed_memory_view(b.size(), b.data()));
    });
  }

 private:
  static size_t rows(size_t total, size_t width, const char* what) {
    ATTNLAB_CHECK(total > 0, what, ": empty input");
    ATTNLAB_CHECK(total % width == 0, what, ": expected a multiple of inputDim = ", width,
                  " values (n samples x inputDim), got ", total);
    return total / width;
  }
  std::unique_ptr<m::MMoE> model_;
  std::unique_ptr<attnlab::nn::Adam> opt_;
  std::unique_ptr<attnlab::Rng> rng_;
};

// {n, dim, p, sines, noise, seed, taskSeed} -> {x: Float32Array (n*dim), y: Float32Array (n*2)}
val mmoe_synthetic(double n, double dim, double p, double sines, double noise, double seed,
                   double task_seed) {
  return guard([&] {
    ATTNLAB_CHECK(n >= 1 && n <= 1e7, "n must be in [1, 1e7], got ", n);
    ATTNLAB_CHECK(dim >= 2 && dim <= 1e5, "dim must be in [2, 1e5], got ", dim);
    ATTNLAB_CHECK(sines >= 0 && sines <= 1000, "sines must be in [0, 1000], got ", sines);
    attnlab::data::MMoESyntheticConfig c;
    c.n = static_cast<size_t>(n);
    c.dim = static_cast<size_t>(dim);
    c.p = static_cast<float>(p);
    c.m = static_cast<int>(sines);
    c.noise = static_cast<float>(noise);
    c.seed = static_cast<uint64_t>(seed);
    c.task_seed = static_cast<uint64_t>(task_seed);
    const auto d = attnlab::data::make_mmoe_synthetic(c);
    val out = val::object();
    out.set("x", from_floats(d.x));
    out.set("y", from_floats(d.y));
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_mmoe) {
  class_<JsMMoE>("MMoEModel")
      .constructor(&JsMMoE::create, allow_raw_pointers())
      .class_function("fromBytes", &JsMMoE::from_bytes, allow_raw_pointers())
      .function("config", &JsMMoE::config)
      .function("paramCount", &JsMMoE::param_count)
      .function("predict", &JsMMoE::predict)
      .function("trainEpoch", &JsMMoE::train_epoch)
      .function("resetOptimizer", &JsMMoE::reset_optimizer)
      .function("evaluate", &JsMMoE::evaluate)
      .function("save", &JsMMoE::save);
  function("mmoeSynthetic", &mmoe_synthetic);
}
