#include "attnlab/models/autoint.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/io/config_fields.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/flat_model.hpp"
#include "attnlab/nn/loss.hpp"

namespace attnlab::models {

using attention::Tensor3;

// ------------------------------------------------------------------ config
namespace {
// the config's keys, each once (io/config_fields.hpp); validate() has the ranges
using Cfg = AutoIntConfig;
constexpr auto kFields = std::make_tuple(
    io::field("vocab", &Cfg::vocab), io::field("embed_dim", &Cfg::embed_dim),
    io::field("layers", &Cfg::layers), io::field("heads", &Cfg::heads),
    io::field("head_dim", &Cfg::head_dim), io::field("residual", &Cfg::residual),
    io::field("scaled", &Cfg::scaled));
}  // namespace

ATTNLAB_CONFIG_JSON(AutoIntConfig, "AutoInt", kFields, validate)

void AutoIntConfig::validate() const {
  ATTNLAB_CHECK(!vocab.empty() && vocab.size() <= 1024,
                "AutoInt: expected 1 to 1024 fields (vocab sizes), got ", vocab.size());
  for (size_t f = 0; f < vocab.size(); ++f)
    ATTNLAB_CHECK(vocab[f] >= 1 && vocab[f] <= (size_t(1) << 24), "AutoInt: vocab of field ", f,
                  " must be in [1, 16777216], got ", vocab[f]);
  ATTNLAB_CHECK(embed_dim >= 1 && embed_dim <= 4096, "AutoInt: embed_dim must be in [1, 4096], got ",
                embed_dim);
  ATTNLAB_CHECK(layers <= 64, "AutoInt: layers must be in [0, 64], got ", layers);
  ATTNLAB_CHECK(heads >= 1 && heads <= 256, "AutoInt: heads must be in [1, 256], got ", heads);
  ATTNLAB_CHECK(head_dim >= 1 && head_dim <= 4096, "AutoInt: head_dim must be in [1, 4096], got ",
                head_dim);
}

// ------------------------------------------------------------------ model
AutoInt::AutoInt(const AutoIntConfig& cfg, uint64_t seed) : cfg_(cfg) {
  cfg_.validate();
  Rng rng(seed);
  const size_t F = cfg_.vocab.size();
  for (size_t f = 0; f < F; ++f) emb_.emplace_back(cfg_.vocab[f], cfg_.embed_dim, rng);
  attention::InteractingOptions o;
  o.heads = cfg_.heads;
  o.head_dim = cfg_.head_dim;
  o.residual = cfg_.residual;
  o.scaled = cfg_.scaled;
  size_t D = cfg_.embed_dim;
  for (size_t l = 0; l < cfg_.layers; ++l) {
    layers_.emplace_back(D, o, rng);
    D = layers_.back().output_dim();
  }
  out_ = nn::Linear(F * D, 1, rng);
  for (size_t f = 0; f < F; ++f) emb_[f].collect(params_, "embeddings." + std::to_string(f) + ".");
  for (size_t l = 0; l < layers_.size(); ++l)
    layers_[l].collect(params_, "layers." + std::to_string(l) + ".");
  out_.collect(params_, "output.");
}

AutoIntParamCount AutoInt::param_count() const {
  AutoIntParamCount c;
  const size_t D = cfg_.embed_dim, L = cfg_.layers, HD = cfg_.heads * cfg_.head_dim,
               F = cfg_.vocab.size(), R = cfg_.residual ? 1 : 0;
  for (size_t v : cfg_.vocab) c.embeddings += D * v;
  c.layers = L == 0 ? 0 : (3 + R) * HD * (D + (L - 1) * HD);
  c.output = F * (L == 0 ? D : HD) + 1;
  c.total = c.embeddings + c.layers + c.output;
  return c;
}

void AutoInt::check_ids(const int* ids, size_t B) const {
  ATTNLAB_CHECK(B > 0, "AutoInt: empty batch (B = 0)");
  ATTNLAB_CHECK(ids != nullptr, "AutoInt: no field ids");
  const size_t F = fields();
  for (size_t b = 0; b < B; ++b)
    for (size_t f = 0; f < F; ++f) {
      const int id = ids[b * F + f];
      ATTNLAB_CHECK(id >= 0 && size_t(id) < cfg_.vocab[f], "AutoInt: field ", f,
                    " expects ids in [0, ", cfg_.vocab[f], "), got ", id, " at sample ", b);
    }
}

AutoInt::Output AutoInt::forward(const std::vector<int>& ids) const {
  const size_t F = fields();
  ATTNLAB_CHECK(!ids.empty() && ids.size() % F == 0, "AutoInt: expected (B, ", F,
                ") field ids, i.e. a non-zero multiple of ", F, " values, got ", ids.size());
  return forward(ids.data(), ids.size() / F);
}

AutoInt::Output AutoInt::forward(const int* ids, size_t B, Cache* cache) const {
  // ids: (B,F) -> logit, prob: (B), attention: L x (B,H,F,F)
  check_ids(ids, B);
  const size_t F = fields(), D = cfg_.embed_dim;
  Tensor3 e = Tensor3::from_shape({B, F, D});
  for (size_t b = 0; b < B; ++b)
    for (size_t f = 0; f < F; ++f) emb_[f].forward(1, ids + b * F + f, e.data() + (b * F + f) * D);
  if (cache) {
    cache->B = B;
    cache->ids.assign(ids, ids + B * F);
    cache->inputs.clear();
    cache->layers.assign(layers_.size(), {});
  }
  Output o;
  for (size_t l = 0; l < layers_.size(); ++l) {
    attention::InteractingResult r = layers_[l].forward(e, cache ? &cache->layers[l] : nullptr);
    o.attention.push_back(std::move(r.weights));
    if (cache) cache->inputs.push_back(std::move(e));
    e = std::move(r.out);
  }
  o.logit.resize(B);
  out_.forward(B, e.data(), o.logit.data());
  o.prob.resize(B);
  for (size_t b = 0; b < B; ++b) {
    const float z = o.logit[b];
    o.prob[b] = nn::stable_sigmoid(z);
  }
  if (cache) {
    cache->inputs.push_back(std::move(e));
    cache->logit = o.logit;
  }
  return o;
}

void AutoInt::backward(const float* dlogit, const Cache& c) {
  const size_t B = c.B, F = fields(), D = cfg_.embed_dim;
  ATTNLAB_CHECK(B > 0 && c.inputs.size() == layers_.size() + 1,
                "AutoInt backward: the cache is not from forward()");
  const Tensor3& last = c.inputs.back();
  Tensor3 g = Tensor3::from_shape({B, F, last.shape(2)});
  out_.backward(B, last.data(), dlogit, g.data());
  for (size_t l = layers_.size(); l-- > 0;) {
    Tensor3 de;
    layers_[l].backward(g, c.layers[l], de);
    g = std::move(de);
  }
  for (size_t b = 0; b < B; ++b)
    for (size_t f = 0; f < F; ++f)
      emb_[f].backward(1, c.ids.data() + b * F + f, g.data() + (b * F + f) * D);
}

namespace {
void check_labels(const float* labels, size_t B) {
  ATTNLAB_CHECK(labels != nullptr, "AutoInt: no labels");
  for (size_t b = 0; b < B; ++b)
    ATTNLAB_CHECK(std::isfinite(labels[b]) && labels[b] >= 0.f && labels[b] <= 1.f,
                  "AutoInt: labels must be in [0, 1], got ", labels[b], " at sample ", b);
}
// mean BCE with logits (stable form); dlogit (nullable) = (sigmoid(z) - y) / B
float bce(const std::vector<float>& z, const float* y, float* dlogit) {
  const size_t B = z.size();
  double s = 0;
  for (size_t b = 0; b < B; ++b) {
    const float x = z[b];
    s += std::max(x, 0.f) - x * y[b] + std::log1p(std::exp(-std::fabs(x)));
    if (dlogit) {
      const float sg = nn::stable_sigmoid(x);
      dlogit[b] = (sg - y[b]) / float(B);
    }
  }
  return float(s / double(B));
}
}  // namespace

float AutoInt::loss(const int* ids, const float* labels, size_t B) const {
  check_labels(labels, B);
  return bce(forward(ids, B).logit, labels, nullptr);
}

float AutoInt::loss_and_grad(const int* ids, const float* labels, size_t B) {
  check_labels(labels, B);
  Cache c;
  const Output o = forward(ids, B, &c);
  std::vector<float> dz(B);
  const float l = bce(o.logit, labels, dz.data());
  backward(dz.data(), c);
  return l;
}

float AutoInt::train_step(const int* ids, const float* labels, size_t B, nn::Optimizer& opt) {
  opt.zero_grad();
  const float l = loss_and_grad(ids, labels, B);
  opt.step();
  return l;
}

// ------------------------------------------------------------------ files
std::vector<uint8_t> AutoInt::save(const io::SaveOptions& o) const {
  return save_flat_model("autoint", cfg_.to_json(), params_, o);
}

std::vector<uint8_t> AutoInt::save(const std::map<std::string, std::string>& extra) const {
  return save(io::SaveOptions{io::DType::F32, extra});
}

std::unique_ptr<AutoInt> AutoInt::load(const uint8_t* bytes, size_t size) {
  return load(io::decode(bytes, size));
}

std::unique_ptr<AutoInt> AutoInt::load(const io::SafeTensors& st) {
  return load_flat_model<AutoInt, AutoIntConfig>(st, "autoint", "an AutoInt");
}

}  // namespace attnlab::models
