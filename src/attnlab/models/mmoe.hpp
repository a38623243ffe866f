// Multi-task mixtures of experts (Ma et al., KDD 2018) with two gate families:
//
//   shared-bottom   one ReLU layer shared by all tasks, a tower per task
//   omoe            n ReLU experts mixed by ONE softmax gate g(x) = softmax(W x)
//   softmax         MMoE: a gate per task, g_k(x) = softmax(W_k x)
//   attention       MMoE with attention gates: per task a learned context
//                   vector q_k (the query); keys are the experts' outputs through
//                   a shared projection P; g_k = softmax(q_k . (P e_i) / sqrt(a))
//   attention-x     as attention, with a query that also depends on the input:
//                   q_k(x) = q_k + Q_k x
//
// Experts: Linear(d -> units) + ReLU. Towers: Linear(units -> tower) + ReLU ->
// Linear(tower -> 1). Loss: sum over tasks of the MSE.
// Parameter names (the safetensors keys): experts.weight (n*units, d),
// experts.bias; bottom.weight/bias (shared-bottom); gates.<k>.weight/bias
// (softmax), gate.weight/bias (omoe); gates.key.weight (a, units),
// gates.<k>.query (a), gates.<k>.query_x.weight (a, d); towers.<k>.0.weight ...
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/nn/layers.hpp"
#include "attnlab/nn/optim.hpp"

namespace attnlab::models {

enum class GateKind { SharedBottom, OMoE, Softmax, Attention, AttentionX };
GateKind gate_from_string(const std::string& s);  // shared-bottom|omoe|softmax|attention|attention-x
const char* gate_name(GateKind g);

struct MMoEConfig {
  size_t input_dim = 100;
  size_t experts = 8;
  size_t expert_units = 16;
  size_t tasks = 2;
  size_t tower_units = 8;
  size_t att_dim = 16;       // a: attention gates' query/key size
  size_t bottom_units = 0;   // shared-bottom hidden size; 0 = experts * expert_units
  GateKind gate = GateKind::Softmax;
  bool gate_bias = false;    // the paper's gates have no bias
  std::string to_json() const;
  static MMoEConfig from_json(const std::string& s);
  void validate() const;     // throws attnlab::Error naming the bad field
};

// Parameter counts per part, from the formulas (bias-free unless noted).
struct MMoEParamCount {
  size_t experts = 0, gates = 0, towers_hidden = 0, towers_out = 0, biases = 0, total = 0;
};

class MMoE {
 public:
  // What forward keeps for backward.
  struct Cache {
    size_t B = 0;
    std::vector<float> x;                 // (B, d)
    std::vector<float> z, h;              // experts pre/post ReLU (B, HU)
    std::vector<std::vector<float>> g;    // per gate (B, n) weights
    std::vector<std::vector<float>> r;    // attention: per task key-space query (1 or B, U)
    std::vector<std::vector<float>> q;    // attention-x: per task queries (B, a)
    std::vector<nn::Tensor> f;            // per task tower input (B, U)
    std::vector<nn::MLP::Cache> tower;
  };
  struct Output {
    std::vector<float> pred;   // (B, K)
    std::vector<float> gates;  // (K, B, n) gate weights (empty for shared-bottom; omoe repeats its one gate)
  };
  struct TrainOptions {
    size_t epochs = 20, batch = 128;
    float lr = 1e-3f;
    uint64_t seed = 0;  // shuffling
    // called after each epoch with (epoch, train loss per task); return false to stop
    std::function<bool(size_t, const std::vector<float>&)> on_epoch;
  };

  MMoE(const MMoEConfig& cfg, uint64_t seed);
  static std::unique_ptr<Cache> make_cache();
  ~MMoE();
  MMoE(const MMoE&) = delete;
  MMoE& operator=(const MMoE&) = delete;

  const MMoEConfig& config() const { return cfg_; }
  ParamList& params() { return params_; }
  const ParamList& params() const { return params_; }
  MMoEParamCount param_count() const;

  // x: (B, d) -> pred (B, K), gates (K, B, n); cache (optional) for backward
  Output forward(const float* x, size_t B, Cache* cache = nullptr) const;
  // dpred: (B, K) -> accumulates parameter grads
  void backward(const float* dpred, const Cache& cache);

  // One optimizer step on a batch; y: (B, K). Returns the MSE per task.
  std::vector<float> train_step(const float* x, const float* y, size_t B, nn::Optimizer& opt);
  // One pass over shuffled mini-batches with the caller's optimizer (its state
  // persists across calls); returns the epoch's train MSE per task.
  std::vector<float> train_epoch(const float* x, const float* y, size_t n, size_t batch,
                                 nn::Optimizer& opt, Rng& rng);
  // Adam over shuffled mini-batches; returns the last epoch's train MSE per task.
  std::vector<float> fit(const float* x, const float* y, size_t n, const TrainOptions& o);
  // MSE per task on (x, y).
  std::vector<float> evaluate(const float* x, const float* y, size_t n) const;

  // One safetensors file: kind "mmoe", config and extra metadata in __metadata__.
  std::vector<uint8_t> save(const io::SaveOptions& o) const;
  std::vector<uint8_t> save(bool f16 = false,
                            const std::map<std::string, std::string>& extra = {}) const;
  // Validates the file (kind, config, every tensor's shape, finite values).
  static std::unique_ptr<MMoE> load(const uint8_t* bytes, size_t size);
  static std::unique_ptr<MMoE> load(const io::SafeTensors& st);
  // Copies of all parameter values / restore from such a copy (early stopping).
  std::vector<std::vector<float>> snapshot() const;
  void restore(const std::vector<std::vector<float>>& snap);

 private:
  MMoEConfig cfg_;
  nn::Linear experts_;                 // (n*units, d); shared-bottom: (bottom, d)
  std::vector<nn::Linear> gate_lin_;   // softmax: K gates; omoe: 1
  Param key_;                          // attention: (a, units)
  std::vector<Param> query_;           // attention: K x (a)
  std::vector<nn::Linear> query_x_;    // attention-x: K x (a, d), no bias
  std::vector<nn::MLP> towers_;
  ParamList params_;
};

}  // namespace attnlab::models
