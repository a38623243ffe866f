// Layer files (see layer_file.hpp): config -> expected tensor shapes -> compare with the
// file -> build the layer -> copy the weights. The forward calls convert the caller's
// layout (sequence first or batch first, batched or not) to the layers' (B,T,E) and back.
#include "attnlab/models/layer_file.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "attnlab/attention/attend.hpp"
#include "attnlab/attention/multihead.hpp"
#include "attnlab/attention/transformer.hpp"
#include "attnlab/core/checked.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/io/config_reader.hpp"
#include "attnlab/nn/recurrent.hpp"

namespace attnlab::models {

using json = nlohmann::json;
namespace at = attention;

namespace {

constexpr const char* kFormat = "attnlab-layer";
constexpr size_t kMaxDim = size_t{1} << 24;

const std::vector<std::pair<LayerKind, const char*>>& kind_table() {
  static const std::vector<std::pair<LayerKind, const char*>> t = {
      {LayerKind::MultiheadAttention, "MultiheadAttention"},
      {LayerKind::GRU, "GRU"},
      {LayerKind::LSTM, "LSTM"},
      {LayerKind::TransformerEncoderLayer, "TransformerEncoderLayer"},
      {LayerKind::TransformerDecoderLayer, "TransformerDecoderLayer"},
  };
  return t;
}

std::string shape_str(const std::vector<size_t>& s) {
  std::string o = "(";
  for (size_t i = 0; i < s.size(); ++i) o += (i ? "," : "") + std::to_string(s[i]);
  return o + ")";
}

using Shapes = std::vector<std::pair<std::string, std::vector<size_t>>>;

// Each shape's size through checked arithmetic (config values may be anything).
void check_shapes(const Shapes& shapes, const char* kind) {
  uint64_t total = 0;
  for (auto& s : shapes) {
    const size_t n = checked_product(s.first.c_str(), s.second, kMaxModelFloats);
    total = checked_sum(kind, total, n, kMaxModelFloats);
  }
}

// ---- a caller's tensor in the layers' layout
void check_array(const LayerArray& a, const char* what) {
  const size_t n = checked_product(what, a.shape);
  ATTNLAB_CHECK(n == a.data.size(), what, ": shape ", shape_str(a.shape), " needs ", n,
                " values, got ", a.data.size());
}

// (T,B,E) / (B,T,E) / (T,E) -> (B,T,E); `unbatched` set for rank 2. last: required last dim.
at::Tensor3 to_bte(const LayerArray& a, bool batch_first, const char* what, size_t last,
                   bool* unbatched, const char* layout) {
  check_array(a, what);
  ATTNLAB_CHECK(a.shape.size() == 3 || a.shape.size() == 2, what, ": expected shape ", layout,
                " or an unbatched (T,", last, "), got ", shape_str(a.shape));
  ATTNLAB_CHECK(a.shape.back() == last, what, ": expected last dimension ", last, " (", layout,
                "), got ", shape_str(a.shape));
  if (unbatched) *unbatched = a.shape.size() == 2;
  if (a.shape.size() == 2) {
    ATTNLAB_CHECK(a.shape[0] > 0, what, ": the sequence is empty (T = 0)");
    at::Tensor3 t = at::Tensor3::from_shape({1, a.shape[0], last});
    std::copy(a.data.begin(), a.data.end(), t.data());
    return t;
  }
  const size_t d0 = a.shape[0], d1 = a.shape[1];
  ATTNLAB_CHECK(d0 > 0 && d1 > 0, what, ": empty batch or sequence, got ", shape_str(a.shape));
  if (batch_first) {
    at::Tensor3 t = at::Tensor3::from_shape({d0, d1, last});
    std::copy(a.data.begin(), a.data.end(), t.data());
    return t;
  }
  const size_t T = d0, B = d1;
  at::Tensor3 t = at::Tensor3::from_shape({B, T, last});
  for (size_t s = 0; s < T; ++s)
    for (size_t b = 0; b < B; ++b)
      std::copy_n(a.data.data() + (s * B + b) * last, last, t.data() + (b * T + s) * last);
  return t;
}

// (B,T,E) rows at p -> the caller's layout
LayerArray from_bte(const float* p, size_t B, size_t T, size_t E, bool batch_first,
                    bool unbatched) {
  LayerArray o;
  if (unbatched || batch_first) {  // the layers' own layout: one copy
    o.shape = unbatched ? std::vector<size_t>{T, E} : std::vector<size_t>{B, T, E};
    o.data.assign(p, p + B * T * E);
  } else {
    o.data.resize(B * T * E);
    o.shape = {T, B, E};
    for (size_t s = 0; s < T; ++s)
      for (size_t b = 0; b < B; ++b) std::copy_n(p + (b * T + s) * E, E, o.data.data() + (s * B + b) * E);
  }
  return o;
}

LayerArray plain(std::vector<size_t> shape, const float* p) {
  LayerArray o;
  o.shape = std::move(shape);
  size_t n = 1;
  for (size_t x : o.shape) n *= x;
  o.data.assign(p, p + n);
  return o;
}

// A key padding mask (B,S), or (S) when unbatched, as the layers' bool (B,S).
at::BoolTensor2 padding_mask(const LayerMask& m, size_t B, size_t S, bool unbatched,
                             const char* what) {
  if (m.empty()) return {};
  check_array(LayerArray{m.shape, m.data}, what);
  ATTNLAB_CHECK(m.boolean, what, ": expected a bool mask (true = ignore that key), got a float mask");
  const bool ok = unbatched ? (m.shape.size() == 1 && m.shape[0] == S)
                            : (m.shape.size() == 2 && m.shape[0] == B && m.shape[1] == S);
  ATTNLAB_CHECK(ok, what, ": expected shape ", unbatched ? "(" + std::to_string(S) + ")"
                                                          : shape_str({B, S}),
                ", got ", shape_str(m.shape));
  at::BoolTensor2 t = at::BoolTensor2::from_shape({B, S});
  for (size_t i = 0; i < B * S; ++i) t.data()[i] = m.data[i] != 0.f;
  return t;
}

// An attention mask (T,S) or (B*H,T,S), bool (true = not attended) or additive.
void attn_mask(const LayerMask& m, at::MhaOptions& o, size_t B, size_t H, size_t T, size_t S,
               const char* what) {
  if (m.empty()) return;
  check_array(LayerArray{m.shape, m.data}, what);
  const auto& sh = m.shape;
  const bool ok = (sh.size() == 2 && sh[0] == T && sh[1] == S) ||
                  (sh.size() == 3 && sh[0] == B * H && sh[1] == T && sh[2] == S);
  ATTNLAB_CHECK(ok, what, ": expected shape ", shape_str({T, S}), " or ", shape_str({B * H, T, S}),
                " (batch x heads), got ", shape_str(sh));
  if (m.boolean) {
    xt::xarray<bool> t = xt::xarray<bool>::from_shape(sh);
    for (size_t i = 0; i < m.data.size(); ++i) t.data()[i] = m.data[i] != 0.f;
    o.attn_mask_bool = std::move(t);
  } else {
    xt::xarray<float> t = xt::xarray<float>::from_shape(sh);
    for (size_t i = 0; i < m.data.size(); ++i) {
      ATTNLAB_CHECK(!std::isnan(m.data[i]) && m.data[i] != INFINITY, what,
                    ": additive mask values must be finite or -Infinity, got ", m.data[i],
                    " at index ", i);
      t.data()[i] = m.data[i];
    }
    o.attn_mask_float = std::move(t);
  }
}

// Copies the file's tensors into params (names and shapes were checked against the config).
void copy_params(const io::SafeTensors& st, const ParamList& params) {
  for (auto& it : params.items()) {
    const io::TensorData& t = st.get(it.first);
    std::copy(t.data.begin(), t.data.end(), it.second->value.data());
  }
}

// The file's tensors must be exactly `want` (names and shapes).
void match_tensors(const io::SafeTensors& st, const Shapes& want, const std::string& kind) {
  for (auto& w : want) {
    const io::TensorData* t = st.find(w.first);
    ATTNLAB_CHECK(t, kind, ": missing tensor '", w.first, "' (expected shape ", shape_str(w.second),
                  " from the config)");
    ATTNLAB_CHECK(t->shape == w.second, kind, ": tensor '", w.first, "' has shape ",
                  shape_str(t->shape), " but the config asks for ", shape_str(w.second),
                  " (config and weights disagree)");
  }
  for (auto& t : st.tensors) {
    bool known = false;
    for (auto& w : want) known = known || w.first == t.name;
    ATTNLAB_CHECK(known, kind, ": unexpected tensor '", t.name, "' (the config has no such parameter)");
  }
}

bool read_batch_first(const io::ConfigReader& r) {
  bool b = false;
  r.boolean("batch_first", b);
  return b;
}

void reject_true(const io::ConfigReader& r, const char* key, const char* why) {
  bool b = false;
  r.boolean(key, b);
  ATTNLAB_CHECK(!b, "config: ", key, " = true is not supported: ", why);
}

// ================================================================ MultiheadAttention
class MhaModule : public LayerModule {
 public:
  static Shapes shapes(size_t E, bool bias) {
    Shapes s = {{"in_proj_weight", {3 * E, E}}};
    if (bias) s.push_back({"in_proj_bias", {3 * E}});
    s.push_back({"out_proj.weight", {E, E}});
    if (bias) s.push_back({"out_proj.bias", {E}});
    return s;
  }
  explicit MhaModule(const json& cfg, const io::SafeTensors* st, uint64_t seed) {
    auto r = io::ConfigReader::of(cfg, "MultiheadAttention");
    r.require("embed_dim");
    r.require("num_heads");
    r.size("embed_dim", E_, 1, kMaxDim);
    r.size("num_heads", H_, 1, kMaxDim);
    ATTNLAB_CHECK(E_ % H_ == 0, "MultiheadAttention config: embed_dim (", E_,
                  ") must be divisible by num_heads (", H_, ")");
    r.boolean("bias", bias_);
    batch_first_ = read_batch_first(r);
    reject_true(r, "add_bias_kv", "export without it");
    reject_true(r, "add_zero_attn", "export without it");
    for (const char* k : {"kdim", "vdim"})
      if (r.has(k) && !r.json()[k].is_null()) {
        size_t d = 0;
        r.size(k, d, 0, kMaxDim);
        ATTNLAB_CHECK(d == E_, "MultiheadAttention config: ", k, " = ", d,
                      " is not supported (only kdim = vdim = embed_dim = ", E_, ")");
      }
    const Shapes want = shapes(E_, bias_);
    check_shapes(want, "MultiheadAttention");
    if (st) match_tensors(*st, want, "MultiheadAttention");
    Rng rng(seed);
    mha_ = at::MultiheadAttention(E_, H_, rng, bias_);
    mha_.collect(params_, "");
    if (st) copy_params(*st, params_);
  }
  LayerKind kind() const override { return LayerKind::MultiheadAttention; }
  json config() const override {
    return {{"embed_dim", E_}, {"num_heads", H_}, {"bias", bias_}, {"batch_first", batch_first_}};
  }
  const ParamList& params() const override { return params_; }

  MhaReturn forward_mha(const MhaCall& c) override {
    const bool bf = c.batch_first < 0 ? batch_first_ : c.batch_first != 0;
    const char* layout = bf ? "(B,T,E)" : "(T,B,E)";
    bool unb = false, unb_k = false, unb_v = false;
    const at::Tensor3 q = to_bte(c.query, bf, "MultiheadAttention: query", E_, &unb, layout);
    const bool self = c.key.empty() && c.value.empty();
    at::Tensor3 k, v;
    if (!self) {
      ATTNLAB_CHECK(!c.key.empty() && !c.value.empty(),
                    "MultiheadAttention: give both key and value, or neither (self-attention)");
      k = to_bte(c.key, bf, "MultiheadAttention: key", E_, &unb_k, layout);
      v = to_bte(c.value, bf, "MultiheadAttention: value", E_, &unb_v, layout);
      ATTNLAB_CHECK(unb_k == unb && unb_v == unb,
                    "MultiheadAttention: query, key and value must all be batched (rank 3) or all "
                    "unbatched (rank 2), got ", shape_str(c.query.shape), ", ", shape_str(c.key.shape),
                    ", ", shape_str(c.value.shape));
      ATTNLAB_CHECK(k.shape(0) == q.shape(0) && v.shape(0) == q.shape(0) && k.shape(1) == v.shape(1),
                    "MultiheadAttention: query ", shape_str(c.query.shape), ", key ",
                    shape_str(c.key.shape), " and value ", shape_str(c.value.shape),
                    " disagree on the batch or the key length (layout ", layout, ")");
    }
    const size_t B = q.shape(0), T = q.shape(1), S = self ? T : k.shape(1);
    at::MhaOptions o;
    o.key_padding_mask = padding_mask(c.key_padding_mask, B, S, unb, "MultiheadAttention: key_padding_mask");
    attn_mask(c.attn_mask, o, B, H_, T, S, "MultiheadAttention: attn_mask");
    o.is_causal = c.is_causal;
    o.need_weights = c.need_weights;
    o.average_attn_weights = c.average_attn_weights;
    const at::MhaResult r = self ? mha_.forward(q, q, q, o) : mha_.forward(q, k, v, o);
    MhaReturn out;
    out.out = from_bte(r.out.data(), B, T, E_, bf, unb);
    if (c.need_weights) {
      if (c.average_attn_weights)
        out.weights = unb ? plain({T, S}, r.weights.data()) : plain({B, T, S}, r.weights.data());
      else
        out.weights = unb ? plain({H_, T, S}, r.head_weights.data())
                          : plain({B, H_, T, S}, r.head_weights.data());
    }
    return out;
  }

 private:
  size_t E_ = 0, H_ = 1;
  bool bias_ = true, batch_first_ = false;
  at::MultiheadAttention mha_;
  ParamList params_;
};

// ================================================================ GRU / LSTM
class RnnModule : public LayerModule {
 public:
  RnnModule(LayerKind kind, const json& cfg, const io::SafeTensors* st, uint64_t seed) : kind_(kind) {
    const char* name = layer_kind_name(kind);
    auto r = io::ConfigReader::of(cfg, name);
    r.require("input_size");
    r.require("hidden_size");
    r.size("input_size", I_, 1, kMaxDim);
    r.size("hidden_size", H_, 1, kMaxDim);
    r.size("num_layers", L_, 1, 64);
    r.boolean("bias", bias_);
    r.boolean("bidirectional", bi_);
    batch_first_ = read_batch_first(r);
    if (r.has("proj_size")) {
      size_t p = 0;
      r.size("proj_size", p, 0, kMaxDim);
      ATTNLAB_CHECK(p == 0, name, " config: proj_size = ", p, " is not supported (only 0)");
    }
    const size_t G = kind == LayerKind::LSTM ? 4 : 3, D = bi_ ? 2 : 1;
    Shapes want;
    for (size_t l = 0; l < L_; ++l)
      for (size_t d = 0; d < D; ++d) {
        const std::string sfx = "_l" + std::to_string(l) + (d ? "_reverse" : "");
        const size_t in = l == 0 ? I_ : D * H_;
        // G*H checked before it is used as a dimension
        const size_t gh = checked_product("gates x hidden_size", {G, H_}, kMaxModelFloats);
        want.push_back({"weight_ih" + sfx, {gh, in}});
        want.push_back({"weight_hh" + sfx, {gh, H_}});
        if (bias_) {
          want.push_back({"bias_ih" + sfx, {gh}});
          want.push_back({"bias_hh" + sfx, {gh}});
        }
      }
    check_shapes(want, name);
    if (st) match_tensors(*st, want, name);
    Rng rng(seed);
    layers_.reserve(L_);
    for (size_t l = 0; l < L_; ++l) {
      layers_.emplace_back(kind == LayerKind::LSTM ? nn::Recurrent::Kind::LSTM : nn::Recurrent::Kind::GRU,
                           bi_, l == 0 ? I_ : D * H_, H_, rng);
    }
    // PyTorch's names: the layer's own "_l0" becomes "_l<k>"
    for (size_t l = 0; l < L_; ++l) {
      ParamList one;
      layers_[l].collect(one, "");
      for (auto& it : one.items()) {
        std::string n = it.first;
        const size_t at = n.find("_l0");
        ATTNLAB_CHECK(at != std::string::npos, "internal: unexpected RNN parameter name ", n);
        n.replace(at, 3, "_l" + std::to_string(l));
        const bool is_bias = n.compare(0, 4, "bias") == 0;
        if (is_bias && !bias_) {
          it.second->value.fill(0.f);  // bias = false: the layer runs with zero biases
          continue;
        }
        params_.add(n, *it.second);
      }
    }
    if (st) copy_params(*st, params_);
  }
  LayerKind kind() const override { return kind_; }
  json config() const override {
    return {{"input_size", I_}, {"hidden_size", H_}, {"num_layers", L_}, {"bias", bias_},
            {"bidirectional", bi_}, {"batch_first", batch_first_}};
  }
  const ParamList& params() const override { return params_; }

  RnnReturn forward_rnn(const RnnCall& c) override {
    const char* name = layer_kind_name(kind_);
    const bool lstm = kind_ == LayerKind::LSTM;
    const bool bf = c.batch_first < 0 ? batch_first_ : c.batch_first != 0;
    const size_t D = bi_ ? 2 : 1;
    bool unb = false;
    const std::string what = std::string(name) + ": input";
    const at::Tensor3 x3 = to_bte(c.x, bf, what.c_str(), I_, &unb, bf ? "(B,T,input_size)" : "(T,B,input_size)");
    const size_t B = x3.shape(0), T = x3.shape(1);
    // initial states (L*D,B,H) -> per layer (B, D*H), directions side by side
    auto state_in = [&](const LayerArray& s, const char* sname) {
      std::vector<nn::Tensor> per(L_);
      if (s.empty()) return per;
      const std::string w = std::string(name) + ": " + sname;
      check_array(s, w.c_str());
      const std::vector<size_t> want = unb ? std::vector<size_t>{L_ * D, H_}
                                           : std::vector<size_t>{L_ * D, B, H_};
      ATTNLAB_CHECK(s.shape == want, w, ": expected shape ", shape_str(want),
                    " (num_layers x directions, batch, hidden_size), got ", shape_str(s.shape));
      for (size_t l = 0; l < L_; ++l) {
        per[l] = nn::empty({B, D * H_});
        for (size_t d = 0; d < D; ++d)
          for (size_t b = 0; b < B; ++b)
            std::copy_n(s.data.data() + ((l * D + d) * B + b) * H_, H_, per[l].data() + b * D * H_ + d * H_);
      }
      return per;
    };
    ATTNLAB_CHECK(lstm || c.c0.empty(), name, ": c0 is for LSTM only");
    const std::vector<nn::Tensor> h0 = state_in(c.h0, "h0");
    const std::vector<nn::Tensor> c0 = lstm ? state_in(c.c0, "c0") : std::vector<nn::Tensor>(L_);
    if (lstm)
      ATTNLAB_CHECK(c.h0.empty() == c.c0.empty(), name, ": give both h0 and c0, or neither");
    std::vector<size_t> lengths;
    if (!c.lengths.empty()) {
      ATTNLAB_CHECK(c.lengths.size() == B, name, ": lengths: expected ", B, " lengths (one per sequence), got ",
                    c.lengths.size());
      for (size_t b = 0; b < B; ++b)
        ATTNLAB_CHECK(c.lengths[b] >= 1 && c.lengths[b] <= T, name, ": lengths[", b, "] = ", c.lengths[b],
                      " is not in [1, ", T, "]");
      lengths = c.lengths;
    }
    nn::Tensor cur = nn::empty({B, T, I_});
    std::copy_n(x3.data(), x3.size(), cur.data());
    RnnReturn out;
    std::vector<float> hn(L_ * D * B * H_), cn(lstm ? L_ * D * B * H_ : 0);
    for (size_t l = 0; l < L_; ++l) {
      nn::RnnState s0, sn;
      const bool given = !c.h0.empty();
      if (given) {
        s0.h = h0[l];
        if (lstm) s0.c = c0[l];
      }
      nn::Tensor y;
      layers_[l].forward(cur, lengths, given ? &s0 : nullptr, y, sn, nullptr);
      for (size_t d = 0; d < D; ++d)
        for (size_t b = 0; b < B; ++b) {
          std::copy_n(sn.h.data() + b * D * H_ + d * H_, H_, hn.data() + ((l * D + d) * B + b) * H_);
          if (lstm)
            std::copy_n(sn.c.data() + b * D * H_ + d * H_, H_, cn.data() + ((l * D + d) * B + b) * H_);
        }
      cur = std::move(y);
    }
    out.out = from_bte(cur.data(), B, T, D * H_, bf, unb);
    const std::vector<size_t> sshape = unb ? std::vector<size_t>{L_ * D, H_}
                                           : std::vector<size_t>{L_ * D, B, H_};
    out.h_n = plain(sshape, hn.data());
    if (lstm) out.c_n = plain(sshape, cn.data());
    return out;
  }

 private:
  LayerKind kind_;
  size_t I_ = 0, H_ = 0, L_ = 1;
  bool bias_ = true, bi_ = false, batch_first_ = false;
  std::vector<nn::Recurrent> layers_;
  ParamList params_;
};

// ================================================================ Transformer layers
class TransformerModule : public LayerModule {
 public:
  TransformerModule(LayerKind kind, const json& cfg, const io::SafeTensors* st, uint64_t seed)
      : kind_(kind) {
    const bool dec = kind == LayerKind::TransformerDecoderLayer;
    const char* name = layer_kind_name(kind);
    auto r = io::ConfigReader::of(cfg, name);
    r.require("d_model");
    r.require("nhead");
    r.size("d_model", c_.d_model, 1, kMaxDim);
    r.size("nhead", c_.nhead, 1, kMaxDim);
    r.size("dim_feedforward", c_.dim_feedforward, 1, kMaxDim);
    std::string act = "relu";
    r.string("activation", act);
    ATTNLAB_CHECK(act == "relu" || act == "gelu", name,
                  " config: 'activation' must be \"relu\" or \"gelu\", got \"", act, "\"");
    c_.activation = nn::act_from_string(act);
    r.number("layer_norm_eps", c_.layer_norm_eps, 1e-30, 1.0);
    r.boolean("norm_first", c_.norm_first);
    batch_first_ = read_batch_first(r);
    c_.dropout = 0.f;  // inference
    ATTNLAB_CHECK(c_.d_model % c_.nhead == 0, name, " config: d_model (", c_.d_model,
                  ") must be divisible by nhead (", c_.nhead, ")");
    const size_t E = c_.d_model, F = c_.dim_feedforward;
    Shapes want;
    auto mha = [&](const std::string& p) {
      for (auto& s : MhaModule::shapes(E, true)) want.push_back({p + s.first, s.second});
    };
    mha("self_attn.");
    if (dec) mha("multihead_attn.");
    want.push_back({"linear1.weight", {F, E}});
    want.push_back({"linear1.bias", {F}});
    want.push_back({"linear2.weight", {E, F}});
    want.push_back({"linear2.bias", {E}});
    for (int i = 1; i <= (dec ? 3 : 2); ++i) {
      want.push_back({"norm" + std::to_string(i) + ".weight", {E}});
      want.push_back({"norm" + std::to_string(i) + ".bias", {E}});
    }
    // 3E x E before anything is allocated
    checked_product("in_proj_weight", {3, E, E}, kMaxModelFloats);
    check_shapes(want, name);
    if (st) match_tensors(*st, want, name);
    Rng rng(seed);
    if (dec) {
      dec_ = at::TransformerDecoderLayer(c_, rng);
      dec_.collect(params_, "");
    } else {
      enc_ = at::TransformerEncoderLayer(c_, rng);
      enc_.collect(params_, "");
    }
    if (st) copy_params(*st, params_);
  }
  LayerKind kind() const override { return kind_; }
  json config() const override {
    return {{"d_model", c_.d_model},
            {"nhead", c_.nhead},
            {"dim_feedforward", c_.dim_feedforward},
            {"activation", nn::act_name(c_.activation)},
            {"layer_norm_eps", c_.layer_norm_eps},
            {"norm_first", c_.norm_first},
            {"batch_first", batch_first_}};
  }
  const ParamList& params() const override { return params_; }

  LayerArray forward_transformer(const TransformerCall& c) override {
    const bool dec = kind_ == LayerKind::TransformerDecoderLayer;
    const char* name = layer_kind_name(kind_);
    const bool bf = c.batch_first < 0 ? batch_first_ : c.batch_first != 0;
    const char* layout = bf ? "(B,T,d_model)" : "(T,B,d_model)";
    const size_t E = c_.d_model, H = c_.nhead;
    bool unb = false;
    const std::string wx = std::string(name) + (dec ? ": tgt" : ": src");
    const at::Tensor3 x = to_bte(c.x, bf, wx.c_str(), E, &unb, layout);
    const size_t B = x.shape(0), T = x.shape(1);
    at::MhaOptions so, co;
    const std::string w1 = std::string(name) + (dec ? ": tgt_mask" : ": src_mask");
    const std::string w2 = std::string(name) + (dec ? ": tgt_key_padding_mask" : ": src_key_padding_mask");
    attn_mask(c.self_mask, so, B, H, T, T, w1.c_str());
    so.key_padding_mask = padding_mask(c.self_key_padding, B, T, unb, w2.c_str());
    so.is_causal = c.self_causal;
    so.need_weights = false;
    at::Tensor3 y;
    if (dec) {
      ATTNLAB_CHECK(!c.memory.empty(), name, ": memory (the encoder output) is required");
      bool unb_m = false;
      const std::string wm = std::string(name) + ": memory";
      const at::Tensor3 mem = to_bte(c.memory, bf, wm.c_str(), E, &unb_m, layout);
      ATTNLAB_CHECK(unb_m == unb && mem.shape(0) == B, name, ": tgt ", shape_str(c.x.shape),
                    " and memory ", shape_str(c.memory.shape), " disagree on the batch (layout ",
                    layout, ")");
      const size_t S = mem.shape(1);
      const std::string w3 = std::string(name) + ": memory_mask";
      const std::string w4 = std::string(name) + ": memory_key_padding_mask";
      attn_mask(c.memory_mask, co, B, H, T, S, w3.c_str());
      co.key_padding_mask = padding_mask(c.memory_key_padding, B, S, unb, w4.c_str());
      co.need_weights = false;
      y = dec_.forward(x, mem, so, co);
    } else {
      ATTNLAB_CHECK(c.memory.empty() && c.memory_mask.empty() && c.memory_key_padding.empty(), name,
                    ": memory and its masks are for TransformerDecoderLayer only");
      y = enc_.forward(x, so);
    }
    return from_bte(y.data(), B, T, E, bf, unb);
  }

 private:
  LayerKind kind_;
  at::TransformerLayerConfig c_;
  bool batch_first_ = false;
  at::TransformerEncoderLayer enc_;
  at::TransformerDecoderLayer dec_;
  ParamList params_;
};

std::unique_ptr<LayerModule> build(LayerKind kind, const json& cfg, const io::SafeTensors* st,
                                   uint64_t seed) {
  switch (kind) {
    case LayerKind::MultiheadAttention: return std::make_unique<MhaModule>(cfg, st, seed);
    case LayerKind::GRU:
    case LayerKind::LSTM: return std::make_unique<RnnModule>(kind, cfg, st, seed);
    case LayerKind::TransformerEncoderLayer:
    case LayerKind::TransformerDecoderLayer:
      return std::make_unique<TransformerModule>(kind, cfg, st, seed);
  }
  throw Error("unknown layer kind");
}

}  // namespace

const char* layer_kind_name(LayerKind k) {
  for (auto& e : kind_table())
    if (e.first == k) return e.second;
  return "?";
}

std::string layer_kind_names() {
  std::string s;
  for (auto& e : kind_table()) s += (s.empty() ? "" : ", ") + std::string(e.second);
  return s;
}

LayerKind parse_layer_kind(const std::string& name) {
  for (auto& e : kind_table())
    if (name == e.second) return e.first;
  throw Error("unknown layer kind '" + name + "' (expected one of " + layer_kind_names() + ")");
}

MhaReturn LayerModule::forward_mha(const MhaCall&) {
  throw Error(std::string("this layer is a ") + layer_kind_name(kind()) +
              ", not a MultiheadAttention: call its own forward");
}
RnnReturn LayerModule::forward_rnn(const RnnCall&) {
  throw Error(std::string("this layer is a ") + layer_kind_name(kind()) +
              ", not a GRU or LSTM: call its own forward");
}
LayerArray LayerModule::forward_transformer(const TransformerCall&) {
  throw Error(std::string("this layer is a ") + layer_kind_name(kind()) +
              ", not a Transformer layer: call its own forward");
}

std::vector<uint8_t> LayerModule::save() const {
  const std::map<std::string, std::string> meta = {
      {"format", kFormat}, {"kind", layer_kind_name(kind())}, {"config", config().dump()}};
  return io::encode(io::param_views(params()), meta);
}

std::unique_ptr<LayerModule> load_layer(const io::SafeTensors& st, const std::string& source) {
  try {
    const std::string format = st.meta("format");
    ATTNLAB_CHECK(format == kFormat, "__metadata__ 'format' is '", format, "', expected '", kFormat,
                  "' (a layer file written by scripts/export_torch.py; model files load with "
                  "their own class, e.g. Seq2Seq.fromBytes)");
    const std::string kind = st.meta("kind");
    ATTNLAB_CHECK(!kind.empty(), "__metadata__ has no 'kind' (expected one of ", layer_kind_names(), ")");
    const LayerKind k = parse_layer_kind(kind);
    const std::string text = st.meta("config");
    ATTNLAB_CHECK(!text.empty(), "__metadata__ has no 'config' (a JSON object of the ", kind,
                  " constructor's arguments)");
    json cfg;
    try {
      cfg = json::parse(text);
    } catch (const json::exception& e) {
      throw Error(std::string("'config' is not valid JSON: ") + e.what());
    }
    ATTNLAB_CHECK(cfg.is_object(), "'config' must be a JSON object, got ", text);
    // every shape the config implies was compared with the file's tensors before the
    // layer allocates (no ParamBudget: a bias-free layer still allocates zero biases)
    return build(k, cfg, &st, 0);
  } catch (const Error& e) {
    throw Error(source + ": " + e.what());
  }
}

std::unique_ptr<LayerModule> load_layer(const uint8_t* bytes, size_t size, const std::string& source) {
  io::SafeTensors st;
  try {
    st = io::decode(bytes, size);
  } catch (const Error& e) {
    throw Error(source + ": " + e.what());
  }
  return load_layer(st, source);
}

std::unique_ptr<LayerModule> make_layer(LayerKind kind, const json& config, uint64_t seed) {
  ATTNLAB_CHECK(config.is_object(), layer_kind_name(kind), " config must be a JSON object");
  return build(kind, config, nullptr, seed);
}

// ================================================================ functional
namespace {
// rank 3 (B,T,D) or rank 2 (T,D) -> (B,T,D)
at::Tensor3 batched(const LayerArray& a, const char* what, bool* unbatched) {
  check_array(a, what);
  ATTNLAB_CHECK(a.shape.size() == 3 || a.shape.size() == 2, what,
                ": expected shape (B,T,D) or an unbatched (T,D), got ", shape_str(a.shape));
  if (unbatched) *unbatched = a.shape.size() == 2;
  const std::vector<size_t> sh = a.shape.size() == 2 ? std::vector<size_t>{1, a.shape[0], a.shape[1]} : a.shape;
  for (size_t i = 0; i < 3; ++i)
    ATTNLAB_CHECK(sh[i] > 0, what, ": every dimension must be > 0, got ", shape_str(a.shape));
  at::Tensor3 t = at::Tensor3::from_shape({sh[0], sh[1], sh[2]});
  std::copy(a.data.begin(), a.data.end(), t.data());
  return t;
}

struct Qkv {
  at::Tensor3 q, k, v;
  bool unb = false;
  size_t B = 0, T = 0, S = 0;
};
Qkv read_qkv(const LayerArray& q, const LayerArray& k, const LayerArray& v, const char* who) {
  Qkv r;
  bool uk = false, uv = false;
  const std::string a = std::string(who) + ": q", b = std::string(who) + ": k",
                    c = std::string(who) + ": v";
  r.q = batched(q, a.c_str(), &r.unb);
  r.k = batched(k, b.c_str(), &uk);
  r.v = batched(v, c.c_str(), &uv);
  ATTNLAB_CHECK(uk == r.unb && uv == r.unb, who,
                ": q, k and v must all be batched (rank 3) or all unbatched (rank 2), got ",
                shape_str(q.shape), ", ", shape_str(k.shape), ", ", shape_str(v.shape));
  ATTNLAB_CHECK(r.k.shape(0) == r.q.shape(0) && r.v.shape(0) == r.q.shape(0) &&
                    r.k.shape(1) == r.v.shape(1),
                who, ": q ", shape_str(q.shape), ", k ", shape_str(k.shape), " and v ",
                shape_str(v.shape), " disagree on the batch or the key length");
  r.B = r.q.shape(0);
  r.T = r.q.shape(1);
  r.S = r.k.shape(1);
  return r;
}

// mask (T,S) or (B,T,S), bool true = not attended -> additive (B,T,S) or (1,T,S)
at::Tensor3 functional_mask(const LayerMask& m, const Qkv& x, const char* who, bool allow_float) {
  check_array(LayerArray{m.shape, m.data}, who);
  const auto& sh = m.shape;
  const bool ok = (sh.size() == 2 && sh[0] == x.T && sh[1] == x.S) ||
                  (sh.size() == 3 && sh[0] == x.B && sh[1] == x.T && sh[2] == x.S && !x.unb);
  ATTNLAB_CHECK(ok, who, ": mask: expected shape ", shape_str({x.T, x.S}),
                x.unb ? std::string() : " or " + shape_str({x.B, x.T, x.S}), ", got ", shape_str(sh));
  ATTNLAB_CHECK(m.boolean || allow_float, who, ": mask: expected a bool mask (true = not attended)");
  const size_t n = sh.size() == 3 ? x.B : 1;
  at::Tensor3 t = at::Tensor3::from_shape({n, x.T, x.S});
  for (size_t i = 0; i < m.data.size(); ++i) {
    if (m.boolean) {
      t.data()[i] = m.data[i] != 0.f ? at::kNegInf : 0.f;
    } else {
      ATTNLAB_CHECK(!std::isnan(m.data[i]) && m.data[i] != INFINITY, who,
                    ": mask: additive values must be finite or -Infinity, got ", m.data[i],
                    " at index ", i);
      t.data()[i] = m.data[i];
    }
  }
  return t;
}

FunctionalReturn functional_out(const at::Tensor3& out, const at::Tensor3& w, const Qkv& x,
                                bool with_weights = true) {
  FunctionalReturn r;
  const size_t Dv = out.shape(2);
  r.out = x.unb ? plain({x.T, Dv}, out.data()) : plain({x.B, x.T, Dv}, out.data());
  if (with_weights)
    r.weights = x.unb ? plain({x.T, x.S}, w.data()) : plain({x.B, x.T, x.S}, w.data());
  return r;
}
}  // namespace

FunctionalReturn scaled_dot_attention(const LayerArray& q, const LayerArray& k, const LayerArray& v,
                                      const LayerMask& mask, bool causal, double scale,
                                      bool need_weights) {
  const char* who = "attention.scaledDot";
  const Qkv x = read_qkv(q, k, v, who);
  const size_t D = x.q.shape(2), Dv = x.v.shape(2);
  ATTNLAB_CHECK(x.k.shape(2) == D, who, ": q and k must have the same last dimension, got ",
                shape_str(q.shape), " and ", shape_str(k.shape));
  at::Tensor3 add;
  const bool has_mask = !mask.empty();
  if (has_mask) add = functional_mask(mask, x, who, true);
  const float sc = scale > 0 ? static_cast<float>(scale) : 1.f / std::sqrt(static_cast<float>(D));
  at::Tensor3 out = at::Tensor3::from_shape({x.B, x.T, Dv});
  at::Tensor3 w = need_weights ? at::Tensor3::from_shape({x.B, x.T, x.S}) : at::Tensor3();
  std::vector<float> m;
  std::vector<float> work(at::sdpa_workspace_size(x.S));
  for (size_t b = 0; b < x.B; ++b) {
    const float* mp = nullptr;
    if (has_mask || causal) {
      m.assign(x.T * x.S, 0.f);
      if (has_mask) {
        const float* src = add.data() + (add.shape(0) == 1 ? 0 : b) * x.T * x.S;
        std::copy_n(src, x.T * x.S, m.data());
      }
      if (causal)
        for (size_t t = 0; t < x.T; ++t)
          for (size_t s = t + 1; s < x.S; ++s) m[t * x.S + s] = at::kNegInf;
      mp = m.data();
    }
    at::sdpa_raw(x.T, x.S, D, Dv, sc, x.q.data() + b * x.T * D, D, x.k.data() + b * x.S * D, D,
                 x.v.data() + b * x.S * Dv, Dv, mp, mp ? x.S : 0, out.data() + b * x.T * Dv, Dv,
                 need_weights ? w.data() + b * x.T * x.S : nullptr, x.S, work.data());
  }
  FunctionalReturn r = functional_out(out, w, x, need_weights);
  return r;
}

FunctionalReturn additive_attention(const LayerArray& q, const LayerArray& k, const LayerArray& v,
                                    const LayerArray& w_q, const LayerArray& w_k,
                                    const LayerArray& v_a, const LayerMask& mask, bool causal) {
  const char* who = "attention.additive";
  const Qkv x = read_qkv(q, k, v, who);
  const size_t Dq = x.q.shape(2), Dk = x.k.shape(2);
  check_array(w_q, "attention.additive: wq");
  check_array(w_k, "attention.additive: wk");
  check_array(v_a, "attention.additive: va");
  ATTNLAB_CHECK(v_a.shape.size() == 1 && v_a.shape[0] > 0, who, ": va: expected shape (A), got ",
                shape_str(v_a.shape));
  const size_t A = v_a.shape[0];
  ATTNLAB_CHECK(w_q.shape == (std::vector<size_t>{A, Dq}), who, ": wq: expected shape ",
                shape_str({A, Dq}), " (A, query dim), got ", shape_str(w_q.shape));
  ATTNLAB_CHECK(w_k.shape == (std::vector<size_t>{A, Dk}), who, ": wk: expected shape ",
                shape_str({A, Dk}), " (A, key dim), got ", shape_str(w_k.shape));
  checked_product("attention.additive: B x Tq x S x A", {x.B, x.T, x.S, A});
  at::ScoreConfig sc;
  sc.kind = at::ScoreKind::Additive;
  sc.query_dim = Dq;
  sc.key_dim = Dk;
  sc.attn_dim = A;
  Rng rng(0);
  at::Attention att(sc, rng);
  std::copy(w_q.data.begin(), w_q.data.end(), att.score.query_weight.value.data());
  std::copy(w_k.data.begin(), w_k.data.end(), att.score.key_weight.value.data());
  std::copy(v_a.data.begin(), v_a.data.end(), att.score.v.value.data());
  at::AttendMask am;
  am.causal = causal;
  if (!mask.empty()) {
    const at::Tensor3 add = functional_mask(mask, x, who, false);
    am.ignore = at::BoolTensor3::from_shape({add.shape(0), x.T, x.S});
    for (size_t i = 0; i < add.size(); ++i) am.ignore.data()[i] = add.data()[i] != 0.f;
  }
  const at::AttendResult r = att.forward(x.q, x.k, x.v, am);
  return functional_out(r.out, r.weights, x);
}

}  // namespace attnlab::models
