// Training loops for the two click-through models on their synthetic data
// (DIN on data/behavior_synthetic, AutoInt on data/ctr_synthetic): Adam,
// mini-batches in a seeded shuffled order, after every epoch the mean training
// loss and the test ROC-AUC. The CLI-free form the wasm package and the tests use.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "attnlab/attention/common.hpp"
#include "attnlab/data/behavior_synthetic.hpp"
#include "attnlab/data/ctr_synthetic.hpp"
#include "attnlab/models/autoint.hpp"
#include "attnlab/models/din.hpp"

namespace attnlab::models {

struct RecsysFitOptions {
  size_t epochs = 6;
  size_t batch = 64;
  float lr = 3e-3f;
  uint64_t seed = 1;  // batch order
};

struct RecsysEpoch {
  size_t epoch = 0;       // 1-based
  double loss = 0;        // mean training loss of the epoch
  double test_auc = 0;    // after the epoch
};
using RecsysEpochFn = std::function<void(const RecsysEpoch&)>;

// The given rows of a behaviour data set as one DIN batch (into `out`, reusing its storage).
void din_gather(const data::BehaviorData& d, const std::vector<size_t>& rows, DINBatch& out);
// Rows [first, first + count) as one DIN batch.
DINBatch din_batch(const data::BehaviorData& d, size_t first, size_t count);
// P(click) for every sample of d (batches of 256).
std::vector<double> din_predict(const DIN& m, const data::BehaviorData& d);
std::vector<RecsysEpoch> fit_din(DIN& m, const data::BehaviorData& train,
                                 const data::BehaviorData& test, const RecsysFitOptions& o,
                                 const RecsysEpochFn& on_epoch = {});

std::vector<double> autoint_predict(const AutoInt& m, const data::CtrSyntheticData& d);
std::vector<RecsysEpoch> fit_autoint(AutoInt& m, const data::CtrSyntheticData& train,
                                     const data::CtrSyntheticData& test,
                                     const RecsysFitOptions& o, const RecsysEpochFn& on_epoch = {});

// The synthetic train/test pair the page and the package train on: data seeds
// 1000 + seed (train) and 2000 + seed (test), so one seed gives one experiment.
struct DinData {
  data::BehaviorData train, test;
};
DinData din_synthetic_split(size_t n_train, size_t n_test, const data::BehaviorOptions& o,
                            uint64_t seed);
// The DIN for that data with one interest pooling: "attention" (the activation unit's weights,
// unnormalized as in the paper), "softmax" (the same scores normalized) or "sum" (no
// attention); another name is an Error listing these.
DINConfig din_config_for(const data::BehaviorOptions& o, const std::string& pooling);
struct CtrData {
  data::CtrSyntheticData train, test;
};
// cfg.n and cfg.seed are set per split; cfg.task_seed = seed (the planted interaction).
CtrData ctr_synthetic_split(size_t n_train, size_t n_test, data::CtrSyntheticConfig cfg,
                            uint64_t seed);
// AutoInt's attention averaged over the first n samples of ids: (L,H,F,F).
std::vector<float> autoint_mean_attention(const AutoInt& m, const int* ids, size_t n);

}  // namespace attnlab::models
