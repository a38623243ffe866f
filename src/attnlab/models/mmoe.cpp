#include "attnlab/models/mmoe.hpp"

#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>

#include "attnlab/core/enum_names.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/io/config_fields.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/models/flat_model.hpp"

namespace attnlab::models {

namespace k = attnlab::kernels;
using nn::Tensor;

namespace {
constexpr EnumName<GateKind> kGates[] = {
    {GateKind::SharedBottom, "shared-bottom"}, {GateKind::SharedBottom, "shared_bottom"},
    {GateKind::OMoE, "omoe"},
    {GateKind::Softmax, "softmax"}, {GateKind::Softmax, "mmoe"},
    {GateKind::Attention, "attention"},
    {GateKind::AttentionX, "attention-x"}, {GateKind::AttentionX, "attention_x"}};
}  // namespace

GateKind gate_from_string(const std::string& s) {
  return enum_parse(kGates, s, "gate", "shared-bottom, omoe, softmax, attention or attention-x");
}
const char* gate_name(GateKind g) { return enum_name(kGates, g); }

namespace {
// the config's keys, each once (io/config_fields.hpp); validate() has the ranges. A "gate"
// of "" keeps the default.
void parse_gate(const std::string& s, GateKind& g, const std::string&) {
  if (!s.empty()) g = gate_from_string(s);
}
using Cfg = MMoEConfig;
constexpr auto kFields = std::make_tuple(
    io::field("input_dim", &Cfg::input_dim), io::field("experts", &Cfg::experts),
    io::field("expert_units", &Cfg::expert_units), io::field("tasks", &Cfg::tasks),
    io::field("tower_units", &Cfg::tower_units), io::field("att_dim", &Cfg::att_dim),
    io::field("bottom_units", &Cfg::bottom_units), io::choice("gate", &Cfg::gate, gate_name, parse_gate),
    io::field("gate_bias", &Cfg::gate_bias));
}  // namespace

ATTNLAB_CONFIG_JSON(MMoEConfig, "MMoE", kFields, validate)

void MMoEConfig::validate() const {
  auto in = [](size_t v, size_t lo, size_t hi) { return v >= lo && v <= hi; };
  ATTNLAB_CHECK(in(input_dim, 1, 100000), "MMoE: input_dim must be in [1, 100000], got ", input_dim);
  ATTNLAB_CHECK(in(experts, 1, 256), "MMoE: experts must be in [1, 256], got ", experts);
  ATTNLAB_CHECK(in(expert_units, 1, 4096), "MMoE: expert_units must be in [1, 4096], got ",
                expert_units);
  ATTNLAB_CHECK(in(tasks, 1, 64), "MMoE: tasks must be in [1, 64], got ", tasks);
  ATTNLAB_CHECK(in(tower_units, 1, 4096), "MMoE: tower_units must be in [1, 4096], got ",
                tower_units);
  ATTNLAB_CHECK(in(att_dim, 1, 4096), "MMoE: att_dim must be in [1, 4096], got ", att_dim);
  ATTNLAB_CHECK(bottom_units <= 65536, "MMoE: bottom_units too large: ", bottom_units);
}

MMoE::~MMoE() = default;
std::unique_ptr<MMoE::Cache> MMoE::make_cache() { return std::make_unique<Cache>(); }

MMoE::MMoE(const MMoEConfig& cfg, uint64_t seed) : cfg_(cfg) {
  cfg_.validate();
  Rng rng(seed);
  const bool sb = cfg_.gate == GateKind::SharedBottom;
  const size_t U = sb ? (cfg_.bottom_units ? cfg_.bottom_units : cfg_.experts * cfg_.expert_units)
                      : cfg_.expert_units;
  const size_t HU = sb ? U : cfg_.experts * U;
  experts_ = nn::Linear(cfg_.input_dim, HU, rng);
  experts_.collect(params_, sb ? "bottom." : "experts.");
  const size_t K = cfg_.tasks, n = cfg_.experts, a = cfg_.att_dim;
  if (cfg_.gate == GateKind::Softmax || cfg_.gate == GateKind::OMoE) {
    const size_t gates = cfg_.gate == GateKind::OMoE ? 1 : K;
    for (size_t i = 0; i < gates; ++i) gate_lin_.emplace_back(cfg_.input_dim, n, rng, cfg_.gate_bias);
    for (size_t i = 0; i < gates; ++i)
      gate_lin_[i].collect(params_, cfg_.gate == GateKind::OMoE ? std::string("gate.")
                                                                : "gates." + std::to_string(i) + ".");
  }
  if (cfg_.gate == GateKind::Attention || cfg_.gate == GateKind::AttentionX) {
    key_ = Param({a, U});
    const float bound = 1.f / std::sqrt(static_cast<float>(U));
    for (size_t i = 0; i < key_.size(); ++i) key_.data()[i] = rng.uniform(-bound, bound);
    params_.add("gates.key.weight", key_);
    query_.resize(K);
    const float qb = 1.f / std::sqrt(static_cast<float>(a));
    for (size_t t = 0; t < K; ++t) {
      query_[t] = Param({a});
      for (size_t i = 0; i < a; ++i) query_[t].data()[i] = rng.uniform(-qb, qb);
    }
    for (size_t t = 0; t < K; ++t) params_.add("gates." + std::to_string(t) + ".query", query_[t]);
    if (cfg_.gate == GateKind::AttentionX) {
      for (size_t t = 0; t < K; ++t) query_x_.emplace_back(cfg_.input_dim, a, rng, false);
      for (size_t t = 0; t < K; ++t)
        query_x_[t].collect(params_, "gates." + std::to_string(t) + ".query_x.");
    }
  }
  for (size_t t = 0; t < K; ++t) towers_.emplace_back(std::vector<size_t>{U, cfg_.tower_units, 1}, nn::Act::ReLU, rng);
  for (size_t t = 0; t < K; ++t) towers_[t].collect(params_, "towers." + std::to_string(t) + ".");
}

MMoEParamCount MMoE::param_count() const {
  MMoEParamCount c;
  const size_t d = cfg_.input_dim, n = cfg_.experts, u = cfg_.expert_units, K = cfg_.tasks,
               T = cfg_.tower_units, a = cfg_.att_dim;
  const bool sb = cfg_.gate == GateKind::SharedBottom;
  const size_t U = sb ? (cfg_.bottom_units ? cfg_.bottom_units : n * u) : u;
  c.experts = d * (sb ? U : n * u);
  switch (cfg_.gate) {
    case GateKind::SharedBottom: c.gates = 0; break;
    case GateKind::OMoE: c.gates = d * n; break;
    case GateKind::Softmax: c.gates = K * d * n; break;
    case GateKind::Attention: c.gates = a * U + K * a; break;
    case GateKind::AttentionX: c.gates = a * U + K * a + K * a * d; break;
  }
  c.towers_hidden = K * U * T;
  c.towers_out = K * T;
  c.biases = (sb ? U : n * u) + K * (T + 1);
  if (cfg_.gate_bias && (cfg_.gate == GateKind::Softmax || cfg_.gate == GateKind::OMoE))
    c.biases += (cfg_.gate == GateKind::OMoE ? 1 : K) * n;
  c.total = c.experts + c.gates + c.towers_hidden + c.towers_out + c.biases;
  return c;
}

// ------------------------------------------------------------------ forward / backward
// x: (B, d) -> pred: (B, K), gates: (K, B, n)
MMoE::Output MMoE::forward(const float* x, size_t B, Cache* cache) const {
  ATTNLAB_CHECK(B > 0, "MMoE forward: empty batch");
  ATTNLAB_CHECK(x != nullptr, "MMoE forward: no input");
  const size_t d = cfg_.input_dim, n = cfg_.experts, K = cfg_.tasks, a = cfg_.att_dim;
  const bool sb = cfg_.gate == GateKind::SharedBottom;
  const size_t HU = experts_.out_features, U = sb ? HU : cfg_.expert_units;
  for (size_t i = 0; i < B * d; ++i)
    ATTNLAB_CHECK(std::isfinite(x[i]), "MMoE forward: input value ", x[i], " at sample ", i / d,
                  ", feature ", i % d, " is not finite");
  Cache local;
  Cache& c = cache ? *cache : local;
  c = Cache();
  c.B = B;
  c.x.assign(x, x + B * d);
  c.z.resize(B * HU);
  experts_.forward(B, x, c.z.data());
  c.h.resize(B * HU);
  k::relu(B * HU, c.z.data(), c.h.data());

  Output out;
  out.pred.assign(B * K, 0.f);
  if (!sb) out.gates.assign(K * B * n, 0.f);
  const size_t ngates = cfg_.gate == GateKind::OMoE ? 1 : K;
  if (!sb) c.g.assign(ngates, std::vector<float>(B * n));
  if (cfg_.gate == GateKind::Attention || cfg_.gate == GateKind::AttentionX) c.r.resize(K);
  if (cfg_.gate == GateKind::AttentionX) c.q.resize(K);
  const float scale = 1.f / std::sqrt(static_cast<float>(a));

  // gate weights
  for (size_t gi = 0; gi < (sb ? 0 : ngates); ++gi) {
    std::vector<float>& G = c.g[gi];
    if (cfg_.gate == GateKind::Softmax || cfg_.gate == GateKind::OMoE) {
      gate_lin_[gi].forward(B, x, G.data());
      k::softmax_rows(B, n, G.data(), n, nullptr, 0, G.data(), n);
      continue;
    }
    // attention: scores s_bi = <h_bi, r_b> / sqrt(a), r_b = key^T q_b
    std::vector<float>& r = c.r[gi];
    const size_t rows = cfg_.gate == GateKind::Attention ? 1 : B;
    r.resize(rows * U);
    if (cfg_.gate == GateKind::Attention) {
      k::gemv(true, a, U, 1.f, key_.value.data(), U, query_[gi].value.data(), 0.f, r.data());
    } else {
      std::vector<float>& q = c.q[gi];
      q.resize(B * a);
      query_x_[gi].forward(B, x, q.data());
      for (size_t b = 0; b < B; ++b) k::add(a, query_[gi].value.data(), q.data() + b * a);
      k::gemm(false, false, B, U, a, 1.f, q.data(), a, key_.value.data(), U, 0.f, r.data(), U);
    }
    for (size_t b = 0; b < B; ++b) {
      const float* rb = r.data() + (rows == 1 ? 0 : b * U);
      k::gemv(false, n, U, scale, c.h.data() + b * HU, U, rb, 0.f, G.data() + b * n);
    }
    k::softmax_rows(B, n, G.data(), n, nullptr, 0, G.data(), n);
  }

  c.f.resize(K);
  c.tower.resize(K);
  for (size_t t = 0; t < K; ++t) {
    Tensor& f = c.f[t];
    if (sb) {
      f = nn::empty({B, U});
      std::copy(c.h.begin(), c.h.end(), f.data());
    } else {
      f = nn::zeros({B, U});
      const std::vector<float>& G = c.g[cfg_.gate == GateKind::OMoE ? 0 : t];
      for (size_t b = 0; b < B; ++b)  // f_b = sum_i G_bi h_bi = G_b (1,n) x h_b (n,U)
        k::gemv(true, n, U, 1.f, c.h.data() + b * HU, U, G.data() + b * n, 0.f, f.data() + b * U);
      std::copy(G.begin(), G.end(), out.gates.begin() + static_cast<std::ptrdiff_t>(t * B * n));
    }
    const Tensor y = towers_[t].forward(f, &c.tower[t]);
    for (size_t b = 0; b < B; ++b) out.pred[b * K + t] = y.data()[b];
  }
  return out;
}

// dpred: (B, K) -> parameter grads (accumulated)
void MMoE::backward(const float* dpred, const Cache& c) {
  const size_t B = c.B, n = cfg_.experts, K = cfg_.tasks, a = cfg_.att_dim;
  ATTNLAB_CHECK(B > 0 && c.f.size() == K, "MMoE backward: the cache is not from forward()");
  const bool sb = cfg_.gate == GateKind::SharedBottom;
  const size_t HU = experts_.out_features, U = sb ? HU : cfg_.expert_units;
  const float scale = 1.f / std::sqrt(static_cast<float>(a));
  std::vector<float> dh(B * HU, 0.f);
  const size_t ngates = sb ? 0 : (cfg_.gate == GateKind::OMoE ? 1 : K);
  std::vector<std::vector<float>> dG(ngates, std::vector<float>(B * n, 0.f));

  for (size_t t = 0; t < K; ++t) {
    Tensor dy = nn::empty({B, 1});
    for (size_t b = 0; b < B; ++b) dy.data()[b] = dpred[b * K + t];
    const Tensor df = towers_[t].backward(dy, c.tower[t]);  // (B, U)
    if (sb) {
      k::add(B * HU, df.data(), dh.data());
      continue;
    }
    const size_t gi = cfg_.gate == GateKind::OMoE ? 0 : t;
    const std::vector<float>& G = c.g[gi];
    for (size_t b = 0; b < B; ++b) {
      const float* hb = c.h.data() + b * HU;
      const float* dfb = df.data() + b * U;
      // dG_bi += <df_b, h_bi>;  dh_bi += G_bi df_b
      k::gemv(false, n, U, 1.f, hb, U, dfb, 1.f, dG[gi].data() + b * n);
      for (size_t i = 0; i < n; ++i) k::axpy(U, G[b * n + i], dfb, dh.data() + b * HU + i * U);
    }
  }

  for (size_t gi = 0; gi < ngates; ++gi) {
    std::vector<float> dS(B * n);
    k::softmax_rows_backward(B, n, c.g[gi].data(), dG[gi].data(), dS.data());
    if (cfg_.gate == GateKind::Softmax || cfg_.gate == GateKind::OMoE) {
      gate_lin_[gi].backward(B, c.x.data(), dS.data(), nullptr);
      continue;
    }
    const bool per_sample = cfg_.gate == GateKind::AttentionX;
    const std::vector<float>& r = c.r[gi];
    // dr_b = scale * sum_i dS_bi h_bi ; dh_bi += scale * dS_bi r_b
    std::vector<float> dr(per_sample ? B * U : U, 0.f);
    for (size_t b = 0; b < B; ++b) {
      const float* rb = r.data() + (per_sample ? b * U : 0);
      float* drb = dr.data() + (per_sample ? b * U : 0);
      k::gemv(true, n, U, scale, c.h.data() + b * HU, U, dS.data() + b * n, 1.f, drb);
      for (size_t i = 0; i < n; ++i)
        k::axpy(U, scale * dS[b * n + i], rb, dh.data() + b * HU + i * U);
    }
    if (!per_sample) {
      // r = key^T q: dq = key dr (a); dkey += q dr^T (a, U)
      std::vector<float> dq(a);
      k::gemv(false, a, U, 1.f, key_.value.data(), U, dr.data(), 0.f, dq.data());
      k::add(a, dq.data(), query_[gi].grad.data());
      k::gemm(false, false, a, U, 1, 1.f, query_[gi].value.data(), 1, dr.data(), U, 1.f,
              key_.grad.data(), U);
    } else {
      // r_b = key^T q_b with q_b = query + Qx x_b: dQ (B,a) = dR (B,U) key^T; dkey += Q^T dR
      std::vector<float> dQ(B * a);
      k::gemm(false, true, B, a, U, 1.f, dr.data(), U, key_.value.data(), U, 0.f, dQ.data(), a);
      k::gemm(true, false, a, U, B, 1.f, c.q[gi].data(), a, dr.data(), U, 1.f,
              key_.grad.data(), U);
      for (size_t b = 0; b < B; ++b) k::add(a, dQ.data() + b * a, query_[gi].grad.data());
      query_x_[gi].backward(B, c.x.data(), dQ.data(), nullptr);
    }
  }

  // ReLU, then the experts' (or bottom's) linear layer
  std::vector<float> dz(B * HU);
  k::relu_backward(B * HU, c.z.data(), dh.data(), dz.data());
  experts_.backward(B, c.x.data(), dz.data(), nullptr);
}

// ------------------------------------------------------------------ training
std::vector<float> MMoE::train_step(const float* x, const float* y, size_t B,
                                    nn::Optimizer& opt) {
  const size_t K = cfg_.tasks;
  for (size_t i = 0; i < B * K; ++i)
    ATTNLAB_CHECK(std::isfinite(y[i]), "MMoE train: target ", y[i], " at sample ", i / K,
                  ", task ", i % K, " is not finite");
  opt.zero_grad();
  Cache c;
  const Output o = forward(x, B, &c);
  std::vector<float> dpred(B * K), loss(K, 0.f);
  for (size_t b = 0; b < B; ++b)
    for (size_t t = 0; t < K; ++t) {
      const float e = o.pred[b * K + t] - y[b * K + t];
      loss[t] += e * e / static_cast<float>(B);
      dpred[b * K + t] = 2.f * e / static_cast<float>(B);  // d(sum of task MSEs)
    }
  backward(dpred.data(), c);
  opt.step();
  return loss;
}

std::vector<float> MMoE::train_epoch(const float* x, const float* y, size_t n, size_t batch,
                                     nn::Optimizer& opt, Rng& rng) {
  ATTNLAB_CHECK(n > 0, "MMoE train: no samples");
  ATTNLAB_CHECK(batch > 0, "MMoE train: batch must be > 0");
  const size_t d = cfg_.input_dim, K = cfg_.tasks;
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  rng.shuffle(idx);
  std::vector<float> xb, yb, epoch_loss(K, 0.f);
  for (size_t s = 0; s < n; s += batch) {
    const size_t B = std::min(batch, n - s);
    xb.resize(B * d);
    yb.resize(B * K);
    for (size_t i = 0; i < B; ++i) {
      std::copy(x + idx[s + i] * d, x + (idx[s + i] + 1) * d, xb.begin() + static_cast<std::ptrdiff_t>(i * d));
      std::copy(y + idx[s + i] * K, y + (idx[s + i] + 1) * K, yb.begin() + static_cast<std::ptrdiff_t>(i * K));
    }
    const std::vector<float> l = train_step(xb.data(), yb.data(), B, opt);
    for (size_t t = 0; t < K; ++t) epoch_loss[t] += l[t] * static_cast<float>(B) / static_cast<float>(n);
  }
  return epoch_loss;
}

std::vector<float> MMoE::fit(const float* x, const float* y, size_t n, const TrainOptions& o) {
  ATTNLAB_CHECK(std::isfinite(o.lr) && o.lr > 0.f, "MMoE fit: learning rate must be > 0, got ", o.lr);
  nn::Adam opt(params_, o.lr);
  Rng rng(o.seed);
  std::vector<float> loss;
  for (size_t e = 0; e < o.epochs; ++e) {
    loss = train_epoch(x, y, n, o.batch, opt, rng);
    if (o.on_epoch && !o.on_epoch(e, loss)) break;
  }
  return loss;
}

std::vector<float> MMoE::evaluate(const float* x, const float* y, size_t n) const {
  const size_t d = cfg_.input_dim, K = cfg_.tasks, chunk = 1024;
  std::vector<double> acc(K, 0.0);
  for (size_t s = 0; s < n; s += chunk) {
    const size_t B = std::min(chunk, n - s);
    const Output o = forward(x + s * d, B);
    for (size_t b = 0; b < B; ++b)
      for (size_t t = 0; t < K; ++t) {
        const double e = o.pred[b * K + t] - y[(s + b) * K + t];
        acc[t] += e * e;
      }
  }
  std::vector<float> out(K);
  for (size_t t = 0; t < K; ++t) out[t] = static_cast<float>(acc[t] / static_cast<double>(n));
  return out;
}

// ------------------------------------------------------------------ files
std::vector<uint8_t> MMoE::save(const io::SaveOptions& o) const {
  return save_flat_model("mmoe", cfg_.to_json(), params_, o);
}

std::vector<uint8_t> MMoE::save(bool f16, const std::map<std::string, std::string>& extra) const {
  return save(io::SaveOptions{f16 ? io::DType::F16 : io::DType::F32, extra});
}

std::unique_ptr<MMoE> MMoE::load(const uint8_t* bytes, size_t size) {
  return load(io::decode(bytes, size));
}

std::unique_ptr<MMoE> MMoE::load(const io::SafeTensors& st) {
  return load_flat_model<MMoE, MMoEConfig>(st, "mmoe", "an MMoE");
}

std::vector<std::vector<float>> MMoE::snapshot() const {
  std::vector<std::vector<float>> out;
  for (const auto& it : params_.items())
    out.emplace_back(it.second->value.data(), it.second->value.data() + it.second->size());
  return out;
}
void MMoE::restore(const std::vector<std::vector<float>>& snap) {
  ATTNLAB_CHECK(snap.size() == params_.items().size(), "MMoE restore: snapshot does not match");
  size_t i = 0;
  for (const auto& it : params_.items()) {
    ATTNLAB_CHECK(snap[i].size() == it.second->size(), "MMoE restore: snapshot does not match");
    std::copy(snap[i].begin(), snap[i].end(), it.second->value.data());
    ++i;
  }
}

}  // namespace attnlab::models
