// Deep Interest Network (Zhou et al., KDD 2018) for click-through prediction:
// the candidate item attends over the user's behaviour history through the
// local activation unit (attention/din.hpp), and an MLP scores the pooled
// interest against the candidate.
//
//   item i -> e(i) = [goods_emb(i) (Dg), cate_emb(category(i)) (Dc)]   D = Dg + Dc
//   history (B,T) -> E (B,T,D); candidate (B) -> v (B,D)
//   u = ActivationUnit(E, v, lengths)           (pooling = attention; the paper's DIN)
//     = sum_{t < len} E_t                       (pooling = sum; the paper's Base model)
//   logit = MLP([u, v]) (2D -> hidden... -> 1, ReLU),  p(click) = sigmoid(logit)
//
// Parameters: "goods.weight" (items,Dg), "cate.weight" (categories,Dc),
// "activation.*" (attention pooling only), "mlp.<i>.weight|bias".
// Count (attention pooling, one hidden layer Hm, activation hidden Ha):
//   items*Dg + categories*Dc + (4D*Ha + 3Ha + 1) + (2D*Hm + Hm + Hm + 1).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/attention/din.hpp"
#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/nn/layers.hpp"

namespace attnlab::models {

struct DINConfig {
  size_t items = 600, categories = 24;
  size_t goods_dim = 8, cate_dim = 8;
  size_t att_hidden = 36;            // activation unit hidden units (the paper's figure: 36)
  std::vector<size_t> mlp_hidden = {32};
  bool attention = true;             // false = sum pooling (the paper's Base model)
  bool normalize = false;            // softmax over the activation weights (not the paper's)
  void check() const;                // throws attnlab::Error naming the bad field
  std::string to_json() const;
  static DINConfig from_json(const std::string& s);  // validates
  size_t dim() const { return goods_dim + cate_dim; }
};

// A batch: B candidates with their histories padded to T (positions >= len ignored).
struct DINBatch {
  size_t B = 0, T = 0;
  std::vector<int> hist_items, hist_cats;  // (B,T)
  std::vector<size_t> hist_len;            // (B), each <= T
  std::vector<int> cand_item, cand_cat;    // (B)
};

struct DINOutput {
  std::vector<float> logits, probs;  // (B)
  attention::Tensor2 weights;        // (B,T) activation weights (sum pooling: 1 on valid)
};

class DIN {
 public:
  struct Cache {
    DINBatch batch;
    attention::Tensor3 E;  // (B,T,D)
    attention::Tensor2 v;  // (B,D)
    attention::ActivationUnit::Cache att;
    nn::Tensor x;          // (B,2D) MLP input
    nn::MLP::Cache mlp;
  };
  DIN(DINConfig cfg, uint64_t seed);
  DIN(const DIN&) = delete;  // params_ points into the layers
  DIN& operator=(const DIN&) = delete;

  const DINConfig& config() const { return cfg_; }
  ParamList& params() { return params_; }
  const ParamList& params() const { return params_; }

  // batch -> logits, probs (B), weights (B,T); throws on ids out of range or bad shapes
  DINOutput forward(const DINBatch& batch, Cache* cache = nullptr) const;
  // dlogits (B) -> accumulates every parameter's grad
  void backward(const std::vector<float>& dlogits, Cache& cache);
  // forward + mean binary cross-entropy + backward; returns the loss
  double loss_and_grad(const DINBatch& batch, const std::vector<int>& labels);

  // One safetensors file: kind "din", config and o.meta in __metadata__.
  std::vector<uint8_t> save(const io::SaveOptions& o = {}) const;
  // Validates kind, config, every tensor's shape, finite values.
  static std::unique_ptr<DIN> load(const io::SafeTensors& st);
  static std::unique_ptr<DIN> load(const uint8_t* bytes, size_t size);

 private:
  DINConfig cfg_;
  nn::Embedding goods_, cate_;
  attention::ActivationUnit unit_;
  nn::MLP mlp_;
  ParamList params_;
};

}  // namespace attnlab::models
