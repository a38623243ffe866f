// AutoInt CTR model (Song et al., CIKM 2019): categorical fields -> embeddings
// -> L stacked interacting layers (attention/autoint.hpp) -> logistic output.
//
//   e_f = E_f[x_f]                          field f's embedding, (D); E_f: (vocab[f], D)
//   e^(0) = (e_1 .. e_F)                    (B, F, D)
//   e^(l) = InteractingLayer_l(e^(l-1))     (B, F, H*d'); layer 1 takes D, later ones H*d'
//   logit = w^T flatten(e^(L)) + b          w: (F * D_L), D_L = H*d' (or D when L = 0)
//   p = sigmoid(logit); loss = mean binary cross-entropy
// L = 0 is the no-interaction baseline: a logistic regression on the
// concatenated embeddings (additive in the fields, so it cannot express a
// pairwise interaction).
//
// Parameter names (the safetensors keys):
//   embeddings.<f>.weight (vocab[f], D)
//   layers.<l>.query.weight / key.weight / value.weight / residual.weight (H*d', D_in(l))
//   output.weight (1, F * D_L), output.bias (1)
// Parameter count (R = 1 with residual, 0 without; HD = H*d'):
//   D * sum_f vocab[f]                               embeddings
// + (3 + R) * HD * (D + (L - 1) * HD)   if L >= 1   interacting layers
// + F * D_L + 1                                     output
// Init: embeddings N(0, 1) (torch.nn.Embedding), layer weights and output
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/attention/autoint.hpp"
#include "attnlab/core/param.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/nn/layers.hpp"
#include "attnlab/nn/optim.hpp"

namespace attnlab::models {

struct AutoIntConfig {
  std::vector<size_t> vocab = {8, 8, 8, 8, 8, 8};  // F fields, vocabulary size per field
  size_t embed_dim = 16;                           // D
  size_t layers = 2;                               // L (0 = no interacting layer)
  size_t heads = 2;                                // H
  size_t head_dim = 8;                             // d'
  bool residual = true;
  bool scaled = false;  // divide attention scores by sqrt(d') (the paper does not)
  std::string to_json() const;
  static AutoIntConfig from_json(const std::string& s);
  void validate() const;  // throws attnlab::Error naming the bad field
};

struct AutoIntParamCount {
  size_t embeddings = 0, layers = 0, output = 0, total = 0;
};

class AutoInt {
 public:
  struct Cache {
    size_t B = 0;
    std::vector<int> ids;                                     // (B, F)
    std::vector<attention::Tensor3> inputs;                   // e^(0) .. e^(L), (B, F, D_l)
    std::vector<attention::InteractingLayer::Cache> layers;   // L
    std::vector<float> logit;                                 // (B)
  };
  struct Output {
    std::vector<float> logit;                 // (B)
    std::vector<float> prob;                  // (B) sigmoid(logit)
    std::vector<attention::Tensor4> attention;  // L tensors (B, H, F, F): layer l's alpha
  };

  AutoInt(const AutoIntConfig& cfg, uint64_t seed);
  AutoInt(const AutoInt&) = delete;
  AutoInt& operator=(const AutoInt&) = delete;

  const AutoIntConfig& config() const { return cfg_; }
  size_t fields() const { return cfg_.vocab.size(); }
  ParamList& params() { return params_; }
  const ParamList& params() const { return params_; }
  AutoIntParamCount param_count() const;  // from the formula above

  // ids: (B, F) row-major field values, ids[b*F + f] in [0, vocab[f]) -> logits,
  // probabilities (B) and every layer's attention (B, H, F, F). Throws naming the
  // sample and field of an out-of-range id.
  Output forward(const int* ids, size_t B, Cache* cache = nullptr) const;
  Output forward(const std::vector<int>& ids) const;  // B = ids.size() / F
  // dlogit: (B) -> parameter grads accumulate
  void backward(const float* dlogit, const Cache& cache);

  // Mean binary cross-entropy of (ids (B,F), labels (B) in [0, 1]); accumulates its
  // gradient into the parameters' .grad (call params().zero_grad() first).
  float loss_and_grad(const int* ids, const float* labels, size_t B);
  float loss(const int* ids, const float* labels, size_t B) const;  // no gradient
  // zero_grad, loss_and_grad, opt.step(); returns the batch loss
  float train_step(const int* ids, const float* labels, size_t B, nn::Optimizer& opt);

  // One safetensors file: kind "autoint", config in __metadata__.
  std::vector<uint8_t> save(const io::SaveOptions& o) const;
  std::vector<uint8_t> save(const std::map<std::string, std::string>& extra = {}) const;
  // Validates kind, config, every tensor's shape, finite values.
  static std::unique_ptr<AutoInt> load(const io::SafeTensors& st);
  static std::unique_ptr<AutoInt> load(const uint8_t* bytes, size_t size);

 private:
  void check_ids(const int* ids, size_t B) const;
  AutoIntConfig cfg_;
  std::vector<nn::Embedding> emb_;
  std::vector<attention::InteractingLayer> layers_;
  nn::Linear out_;
  ParamList params_;
};

}  // namespace attnlab::models
