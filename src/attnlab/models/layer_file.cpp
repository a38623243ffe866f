// Layer files (see layer_file.hpp): config -> expected tensor shapes -> compare with the
// file -> build the layer -> copy the weights. The forward calls convert the caller's
// layout (sequence first or batch first, batched or not) to the layers' (B,T,E) and back.
#include "attnlab/models/layer_file.hpp"
#include "attnlab/models/layer_file_detail.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "attnlab/attention/attend.hpp"
#include "attnlab/attention/multihead.hpp"
#include "attnlab/attention/transformer.hpp"
#include "attnlab/core/checked.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/io/config_fields.hpp"
#include "attnlab/nn/recurrent.hpp"

namespace attnlab::models {

using json = nlohmann::json;
namespace at = attention;

using layer_detail::check_array;
using layer_detail::plain;
using layer_detail::shape_str;

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

using Shapes = std::vector<std::pair<std::string, std::vector<size_t>>>;

// Each shape's size through checked arithmetic (config values may be anything).
void check_shapes(const Shapes& shapes, const char* kind) {
  uint64_t total = 0;
  for (auto& s : shapes) {
    const size_t n = checked_product(s.first.c_str(), s.second, kMaxModelFloats);
    total = checked_sum(kind, total, n, kMaxModelFloats);
  }
}

// an uninitialised (a,b,c) tensor of the layers' types
template <class Out>
Out blank(size_t a, size_t b, size_t c);
template <>
at::Tensor3 blank<at::Tensor3>(size_t a, size_t b, size_t c) {
  return at::Tensor3::from_shape({a, b, c});
}
template <>
nn::Tensor blank<nn::Tensor>(size_t a, size_t b, size_t c) {
  return nn::empty({a, b, c});
}

// (T,B,E) / (B,T,E) / (T,E) -> (B,T,E) as an `Out` (one copy); `unbatched` set for rank 2.
// last: required last dim.
template <class Out = at::Tensor3>
Out to_bte(const LayerArray& a, bool batch_first, const char* what, size_t last, bool* unbatched,
           const char* layout) {
  check_array(a, what);
  ATTNLAB_CHECK(a.shape.size() == 3 || a.shape.size() == 2, what, ": expected shape ", layout,
                " or an unbatched (T,", last, "), got ", shape_str(a.shape));
  ATTNLAB_CHECK(a.shape.back() == last, what, ": expected last dimension ", last, " (", layout,
                "), got ", shape_str(a.shape));
  if (unbatched) *unbatched = a.shape.size() == 2;
  if (a.shape.size() == 2) {
    ATTNLAB_CHECK(a.shape[0] > 0, what, ": the sequence is empty (T = 0)");
    Out t = blank<Out>(1, a.shape[0], last);
    std::copy_n(a.values(), a.count(), t.data());
    return t;
  }
  const size_t d0 = a.shape[0], d1 = a.shape[1];
  ATTNLAB_CHECK(d0 > 0 && d1 > 0, what, ": empty batch or sequence, got ", shape_str(a.shape));
  if (batch_first) {
    Out t = blank<Out>(d0, d1, last);
    std::copy_n(a.values(), a.count(), t.data());
    return t;
  }
  const size_t T = d0, B = d1;
  Out t = blank<Out>(B, T, last);
  for (size_t s = 0; s < T; ++s)
    for (size_t b = 0; b < B; ++b)
      std::copy_n(a.values() + (s * B + b) * last, last, t.data() + (b * T + s) * last);
  return t;
}

// (B,T,E) rows of t -> the caller's layout. Batch-first and unbatched are t's own layout:
// the result keeps t and views it (no copy); sequence-first is one transposing copy.
template <class Tn>
LayerArray from_bte(Tn&& t, size_t B, size_t T, size_t E, bool batch_first, bool unbatched) {
  LayerArray o;
  if (unbatched || batch_first) {
    o.shape = unbatched ? std::vector<size_t>{T, E} : std::vector<size_t>{B, T, E};
    auto keep = std::make_shared<std::decay_t<Tn>>(std::forward<Tn>(t));
    o.view = keep->data();
    o.view_size = B * T * E;
    o.owner = std::move(keep);
  } else {
    const float* p = t.data();
    o.data.resize(B * T * E);
    o.shape = {T, B, E};
    for (size_t s = 0; s < T; ++s)
      for (size_t b = 0; b < B; ++b) std::copy_n(p + (b * T + s) * E, E, o.data.data() + (s * B + b) * E);
  }
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
  // the config's keys, each once (io/config_fields.hpp)
  static auto fields() {
    return std::make_tuple(
        io::field("embed_dim", &MhaModule::E_).required().in(1, kMaxDim),
        io::field("num_heads", &MhaModule::H_).required().in(1, kMaxDim)
            .then([](const MhaModule& m, const std::string&) {
              ATTNLAB_CHECK(m.E_ % m.H_ == 0, "MultiheadAttention config: embed_dim (", m.E_,
                            ") must be divisible by num_heads (", m.H_, ")");
            }),
        io::field("bias", &MhaModule::bias_), io::field("batch_first", &MhaModule::batch_first_));
  }
  explicit MhaModule(const json& cfg, const io::SafeTensors* st, uint64_t seed) {
    auto r = io::ConfigReader::of(cfg, "MultiheadAttention");
    io::read_fields(r, *this, fields());
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
  json config() const override { return io::fields_json(*this, fields()); }
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
    at::MhaResult r = self ? mha_.forward(q, q, q, o) : mha_.forward(q, k, v, o);
    MhaReturn out;
    out.out = from_bte(std::move(r.out), B, T, E_, bf, unb);
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
  // the config's keys, each once (io/config_fields.hpp)
  static auto fields() {
    return std::make_tuple(
        io::field("input_size", &RnnModule::I_).required().in(1, kMaxDim),
        io::field("hidden_size", &RnnModule::H_).required().in(1, kMaxDim),
        io::field("num_layers", &RnnModule::L_).in(1, 64), io::field("bias", &RnnModule::bias_),
        io::field("bidirectional", &RnnModule::bi_),
        io::field("batch_first", &RnnModule::batch_first_));
  }
  RnnModule(LayerKind kind, const json& cfg, const io::SafeTensors* st, uint64_t seed) : kind_(kind) {
    const char* name = layer_kind_name(kind);
    auto r = io::ConfigReader::of(cfg, name);
    io::read_fields(r, *this, fields());
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
  json config() const override { return io::fields_json(*this, fields()); }
  const ParamList& params() const override { return params_; }

  RnnReturn forward_rnn(const RnnCall& c) override {
    const char* name = layer_kind_name(kind_);
    const bool lstm = kind_ == LayerKind::LSTM;
    const bool bf = c.batch_first < 0 ? batch_first_ : c.batch_first != 0;
    const size_t D = bi_ ? 2 : 1;
    bool unb = false;
    const std::string what = std::string(name) + ": input";
    nn::Tensor cur = to_bte<nn::Tensor>(c.x, bf, what.c_str(), I_, &unb, bf ? "(B,T,input_size)" : "(T,B,input_size)");
    const size_t B = cur.shape(0), T = cur.shape(1);
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
            std::copy_n(s.values() + ((l * D + d) * B + b) * H_, H_, per[l].data() + b * D * H_ + d * H_);
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
    out.out = from_bte(std::move(cur), B, T, D * H_, bf, unb);
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
void parse_activation(const std::string& s, nn::Act& a, const std::string& model) {
  ATTNLAB_CHECK(s == "relu" || s == "gelu", model,
                " config: 'activation' must be \"relu\" or \"gelu\", got \"", s, "\"");
  a = nn::act_from_string(s);
}
// the config's keys but batch_first, each once (io/config_fields.hpp)
constexpr auto kTransformerLayerFields = std::make_tuple(
    io::field("d_model", &at::TransformerLayerConfig::d_model).required().in(1, kMaxDim),
    io::field("nhead", &at::TransformerLayerConfig::nhead).required().in(1, kMaxDim),
    io::field("dim_feedforward", &at::TransformerLayerConfig::dim_feedforward).in(1, kMaxDim),
    io::choice("activation", &at::TransformerLayerConfig::activation, nn::act_name,
               parse_activation),
    io::field("layer_norm_eps", &at::TransformerLayerConfig::layer_norm_eps).in(1e-30, 1.0),
    io::field("norm_first", &at::TransformerLayerConfig::norm_first));

class TransformerModule : public LayerModule {
 public:
  TransformerModule(LayerKind kind, const json& cfg, const io::SafeTensors* st, uint64_t seed)
      : kind_(kind) {
    const bool dec = kind == LayerKind::TransformerDecoderLayer;
    const char* name = layer_kind_name(kind);
    auto r = io::ConfigReader::of(cfg, name);
    io::read_fields(r, c_, kTransformerLayerFields);
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
    json j = io::fields_json(c_, kTransformerLayerFields);
    j["batch_first"] = batch_first_;
    return j;
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
    return from_bte(std::move(y), B, T, E, bf, unb);
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

}  // namespace attnlab::models
