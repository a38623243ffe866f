#include "attnlab/models/din.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/io/config_fields.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/models/flat_model.hpp"
#include "attnlab/nn/loss.hpp"

namespace attnlab::models {

namespace k = attnlab::kernels;

using attention::Tensor2;
using attention::Tensor3;

void DINConfig::check() const {
  ATTNLAB_CHECK(items > 0, "DIN config: items must be > 0");
  ATTNLAB_CHECK(categories > 0, "DIN config: categories must be > 0");
  ATTNLAB_CHECK(goods_dim > 0 && cate_dim > 0, "DIN config: goods_dim and cate_dim must be > 0, got ",
                goods_dim, ", ", cate_dim);
  ATTNLAB_CHECK(!attention || att_hidden > 0, "DIN config: att_hidden must be > 0");
  for (size_t h : mlp_hidden) ATTNLAB_CHECK(h > 0, "DIN config: mlp_hidden sizes must be > 0");
}

namespace {
// the config's keys, each once: read and written by io/config_fields.hpp
using Cfg = DINConfig;
constexpr size_t kIds = size_t(1) << 24, kDim = 4096;
constexpr auto kFields = std::make_tuple(
    io::field("items", &Cfg::items).in(1, kIds), io::field("categories", &Cfg::categories).in(1, kIds),
    io::field("goods_dim", &Cfg::goods_dim).in(1, kDim), io::field("cate_dim", &Cfg::cate_dim).in(1, kDim),
    io::field("att_hidden", &Cfg::att_hidden).in(1, kDim),
    io::field("mlp_hidden", &Cfg::mlp_hidden).in(1, kDim),
    io::field("attention", &Cfg::attention), io::field("normalize", &Cfg::normalize));
}  // namespace

ATTNLAB_CONFIG_JSON(DINConfig, "DIN", kFields, check)

DIN::DIN(DINConfig cfg, uint64_t seed) : cfg_(std::move(cfg)) {
  cfg_.check();
  Rng rng(seed);
  goods_ = nn::Embedding(cfg_.items, cfg_.goods_dim, rng);
  cate_ = nn::Embedding(cfg_.categories, cfg_.cate_dim, rng);
  for (auto* p : {&goods_.weight, &cate_.weight}) p->value *= 0.1f;  // small start
  goods_.collect(params_, "goods.");
  cate_.collect(params_, "cate.");
  if (cfg_.attention) {
    unit_ = attention::ActivationUnit(cfg_.dim(), cfg_.att_hidden, rng, cfg_.normalize);
    unit_.collect(params_, "activation.");
  }
  std::vector<size_t> dims = {2 * cfg_.dim()};
  dims.insert(dims.end(), cfg_.mlp_hidden.begin(), cfg_.mlp_hidden.end());
  dims.push_back(1);
  mlp_ = nn::MLP(dims, nn::Act::ReLU, rng);
  mlp_.collect(params_, "mlp.");
}

// ---------------------------------------------------------------- forward
DINOutput DIN::forward(const DINBatch& bt, Cache* cache) const {
  // history (B,T) ids, candidate (B) -> logits/probs (B), weights (B,T)
  const size_t B = bt.B, T = bt.T, Dg = cfg_.goods_dim, D = cfg_.dim();
  ATTNLAB_CHECK(B > 0 && T > 0, "DIN: empty batch (B = ", B, ", T = ", T, ")");
  ATTNLAB_CHECK(bt.hist_items.size() == B * T && bt.hist_cats.size() == B * T,
                "DIN: expected history ids (", B, ",", T, ") = ", B * T, " values, got ",
                bt.hist_items.size(), " items and ", bt.hist_cats.size(), " categories");
  ATTNLAB_CHECK(bt.hist_len.size() == B && bt.cand_item.size() == B && bt.cand_cat.size() == B,
                "DIN: expected ", B, " lengths, candidate items and candidate categories, got ",
                bt.hist_len.size(), ", ", bt.cand_item.size(), ", ", bt.cand_cat.size());
  auto check_id = [](int id, size_t n, const char* what, size_t at) {
    ATTNLAB_CHECK(id >= 0 && static_cast<size_t>(id) < n, "DIN: ", what, " id ", id, " at ", at,
                  " is outside [0, ", n, ")");
  };
  for (size_t b = 0; b < B; ++b) {
    ATTNLAB_CHECK(bt.hist_len[b] <= T, "DIN: hist_len[", b, "] = ", bt.hist_len[b], " exceeds T = ", T);
    check_id(bt.cand_item[b], cfg_.items, "candidate item", b);
    check_id(bt.cand_cat[b], cfg_.categories, "candidate category", b);
    for (size_t t = 0; t < bt.hist_len[b]; ++t) {
      check_id(bt.hist_items[b * T + t], cfg_.items, "history item", b * T + t);
      check_id(bt.hist_cats[b * T + t], cfg_.categories, "history category", b * T + t);
    }
  }
  // embeddings; padding positions (t >= len) stay zero
  Tensor3 E = Tensor3::from_shape({B, T, D});
  E.fill(0.f);
  Tensor2 v = Tensor2::from_shape({B, D});
  for (size_t b = 0; b < B; ++b) {
    for (size_t t = 0; t < bt.hist_len[b]; ++t) {
      float* row = E.data() + (b * T + t) * D;
      goods_.forward(1, &bt.hist_items[b * T + t], row);
      cate_.forward(1, &bt.hist_cats[b * T + t], row + Dg);
    }
    goods_.forward(1, &bt.cand_item[b], v.data() + b * D);
    cate_.forward(1, &bt.cand_cat[b], v.data() + b * D + Dg);
  }
  DINOutput out;
  Tensor2 u;
  if (cfg_.attention) {
    attention::ActivationUnitResult r =
        unit_.forward(E, v, bt.hist_len, cache ? &cache->att : nullptr);
    u = std::move(r.out);
    out.weights = std::move(r.weights);
  } else {
    u = Tensor2::from_shape({B, D});
    u.fill(0.f);
    out.weights = Tensor2::from_shape({B, T});
    out.weights.fill(0.f);
    for (size_t b = 0; b < B; ++b)
      for (size_t t = 0; t < bt.hist_len[b]; ++t) {
        out.weights(b, t) = 1.f;
        k::add(D, E.data() + (b * T + t) * D, u.data() + b * D);
      }
  }
  nn::Tensor x = nn::Tensor::from_shape({B, 2 * D});
  for (size_t b = 0; b < B; ++b) {  // x = [u, v]
    std::copy_n(u.data() + b * D, D, x.data() + b * 2 * D);
    std::copy_n(v.data() + b * D, D, x.data() + b * 2 * D + D);
  }
  const nn::Tensor y = mlp_.forward(x, cache ? &cache->mlp : nullptr);
  out.logits.resize(B);
  out.probs.resize(B);
  for (size_t b = 0; b < B; ++b) {
    const float z = y.data()[b];
    out.logits[b] = z;
    out.probs[b] = nn::stable_sigmoid(z);
  }
  if (cache) {
    cache->batch = bt;
    cache->E = std::move(E);
    cache->v = std::move(v);
    cache->x = std::move(x);
  }
  return out;
}

// ---------------------------------------------------------------- backward
void DIN::backward(const std::vector<float>& dlogits, Cache& c) {
  const size_t B = c.batch.B, T = c.batch.T, Dg = cfg_.goods_dim, D = cfg_.dim();
  ATTNLAB_CHECK(dlogits.size() == B, "DIN backward: expected ", B, " dlogits, got ", dlogits.size());
  nn::Tensor dy = nn::Tensor::from_shape({B, size_t(1)});
  std::copy(dlogits.begin(), dlogits.end(), dy.data());
  const nn::Tensor dx = mlp_.backward(dy, c.mlp);  // (B,2D)
  Tensor2 du = Tensor2::from_shape({B, D}), dv = Tensor2::from_shape({B, D});
  for (size_t b = 0; b < B; ++b) {
    std::copy_n(dx.data() + b * 2 * D, D, du.data() + b * D);
    std::copy_n(dx.data() + b * 2 * D + D, D, dv.data() + b * D);
  }
  Tensor3 dE;
  if (cfg_.attention) {
    Tensor2 dv_att;
    unit_.backward(du, c.att, dE, dv_att);
    dv += dv_att;
  } else {
    dE = Tensor3::from_shape({B, T, D});
    dE.fill(0.f);
    for (size_t b = 0; b < B; ++b)
      for (size_t t = 0; t < c.batch.hist_len[b]; ++t)
        std::copy_n(du.data() + b * D, D, dE.data() + (b * T + t) * D);
  }
  for (size_t b = 0; b < B; ++b) {
    for (size_t t = 0; t < c.batch.hist_len[b]; ++t) {
      const float* g = dE.data() + (b * T + t) * D;
      goods_.backward(1, &c.batch.hist_items[b * T + t], g);
      cate_.backward(1, &c.batch.hist_cats[b * T + t], g + Dg);
    }
    goods_.backward(1, &c.batch.cand_item[b], dv.data() + b * D);
    cate_.backward(1, &c.batch.cand_cat[b], dv.data() + b * D + Dg);
  }
}

double DIN::loss_and_grad(const DINBatch& batch, const std::vector<int>& labels) {
  ATTNLAB_CHECK(labels.size() == batch.B, "DIN loss: expected ", batch.B, " labels, got ",
                labels.size());
  for (int l : labels) ATTNLAB_CHECK(l == 0 || l == 1, "DIN loss: labels must be 0 or 1, got ", l);
  Cache cache;
  const DINOutput out = forward(batch, &cache);
  nn::Tensor logits = nn::Tensor::from_shape({batch.B});
  nn::Tensor target = nn::Tensor::from_shape({batch.B});
  for (size_t b = 0; b < batch.B; ++b) {
    logits(b) = out.logits[b];
    target(b) = static_cast<float>(labels[b]);
  }
  nn::Tensor dl;
  const float loss = nn::bce_with_logits(logits, target, &dl);
  backward(std::vector<float>(dl.data(), dl.data() + batch.B), cache);
  return loss;
}

// ---------------------------------------------------------------- files
std::vector<uint8_t> DIN::save(const io::SaveOptions& o) const {
  return save_flat_model("din", cfg_.to_json(), params_, o);
}

std::unique_ptr<DIN> DIN::load(const uint8_t* bytes, size_t size) {
  return load(io::decode(bytes, size));
}

std::unique_ptr<DIN> DIN::load(const io::SafeTensors& st) {
  return load_flat_model<DIN, DINConfig>(st, "din", "a DIN");
}

}  // namespace attnlab::models
