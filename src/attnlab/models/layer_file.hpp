// Layer files: one PyTorch layer's weights and constructor arguments in one safetensors
// file, loaded as an attnlab layer that runs on the caller's tensors (the layer-level
// API of the JS package, al.layers.fromBytes; scripts/export_torch.py writes the files).
//
// FORMAT. safetensors (io/safetensors.hpp) whose __metadata__ holds
//   "format": "attnlab-layer"
//   "kind":   the PyTorch class name: MultiheadAttention, GRU, LSTM,
//             TransformerEncoderLayer, TransformerDecoderLayer
//   "config": a JSON object of the class's constructor arguments, PyTorch names:
//     MultiheadAttention       embed_dim, num_heads, bias (true), batch_first (false)
//     GRU / LSTM               input_size, hidden_size, num_layers (1), bias (true),
//                              bidirectional (false), batch_first (false)
//     Transformer*Layer        d_model, nhead, dim_feedforward (2048), activation
//                              ("relu" | "gelu"), layer_norm_eps (1e-5), norm_first (false),
//                              batch_first (false)
//   Dropout arguments may be present and are ignored (inference only).
// Tensors are the module's state_dict, PyTorch names and shapes (in_proj_weight,
// weight_ih_l0_reverse, self_attn.out_proj.bias, linear1.weight, norm3.bias, ...).
// GRU/LSTM with bias = false store no bias tensors.
//
// LOADING validates the config (types and ranges), derives every tensor's shape from it
// with checked size arithmetic (wasm is 32-bit) and compares those shapes with the file's
// tensors BEFORE any parameter is allocated; a missing, extra or misshapen tensor is an
// Error naming it with the expected and the stored shape.
//
// TENSORS of a call are row-major float with an explicit shape. The layout follows
// PyTorch: batch_first = false means (T,B,E) (sequence first), true (B,T,E); the call's
// batch_first overrides the config's (-1 = the config's). A rank-2 input is one
// unbatched sequence (T,E), as PyTorch accepts, and the outputs are unbatched too.
//
// MASKS, PyTorch polarity (attention/common.hpp): a bool mask's true = NOT attended;
// a float mask is added to the scores. A query row whose keys are all masked gets zero
// weights and a zero context (PyTorch gives NaN there).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/param.hpp"
#include "attnlab/io/safetensors.hpp"

namespace attnlab::models {

enum class LayerKind { MultiheadAttention, GRU, LSTM, TransformerEncoderLayer, TransformerDecoderLayer };
const char* layer_kind_name(LayerKind k);
// "MultiheadAttention", ... (PyTorch class names); anything else is an Error listing them
LayerKind parse_layer_kind(const std::string& name);
std::string layer_kind_names();

// A caller's tensor: row-major data with an explicit shape (product of shape = data size).
// Or, with data empty, `view`: an input the caller keeps alive for the call (the bindings'
// staging buffer, read in place), or a result seen in the layer's own tensor, which `owner`
// keeps (no copy). Read values() and count(), not data.
struct LayerArray {
  std::vector<size_t> shape;
  std::vector<float> data;
  const float* view = nullptr;
  size_t view_size = 0;
  std::shared_ptr<const void> owner = nullptr;
  const float* values() const { return view ? view : data.data(); }
  size_t count() const { return view ? view_size : data.size(); }
  bool empty() const { return shape.empty() && count() == 0; }
};
// A mask: absent (shape empty), bool (values 0/1, 1 = NOT attended) or additive float.
struct LayerMask {
  std::vector<size_t> shape;
  std::vector<float> data;
  bool boolean = true;
  bool empty() const { return shape.empty(); }
};

// MultiheadAttention.forward(query, key, value, key_padding_mask, need_weights, attn_mask,
// average_attn_weights). key and value empty = self-attention on query (one projection).
struct MhaCall {
  LayerArray query, key, value;
  LayerMask key_padding_mask;  // (B,S) or (S) unbatched; bool only
  LayerMask attn_mask;         // (T,S) or (B*H,T,S); bool or float
  bool is_causal = false;      // adds j <= i (no attn_mask needed alongside)
  bool need_weights = true;
  bool average_attn_weights = true;
  int batch_first = -1;
};
struct MhaReturn {
  LayerArray out;      // layout of the query
  LayerArray weights;  // (B,T,S) averaged or (B,H,T,S); unbatched without B; empty if !need_weights
};

// GRU/LSTM.forward(x, h0 [, c0]) with per-sequence lengths (as pack_padded_sequence).
struct RnnCall {
  LayerArray x;              // (T,B,I) or (B,T,I) or (T,I)
  LayerArray h0, c0;         // (L*D,B,H) or (L*D,H) unbatched; empty = zeros
  std::vector<size_t> lengths;  // (B) in [1,T], empty = all T; outputs past a length are 0
  int batch_first = -1;
};
struct RnnReturn {
  LayerArray out;       // (T,B,D*H) / (B,T,D*H) / (T,D*H)
  LayerArray h_n, c_n;  // (L*D,B,H) or (L*D,H); c_n for LSTM only
};

// TransformerEncoderLayer.forward(src, src_mask, src_key_padding_mask) and
// TransformerDecoderLayer.forward(tgt, memory, tgt_mask, memory_mask,
// tgt_key_padding_mask, memory_key_padding_mask).
struct TransformerCall {
  LayerArray x;                 // src / tgt
  LayerArray memory;            // decoder only
  LayerMask self_mask;          // src_mask / tgt_mask (T,T) or (B*H,T,T)
  LayerMask self_key_padding;   // (B,T)
  bool self_causal = false;     // src/tgt is_causal
  LayerMask memory_mask;        // decoder: (T,S) or (B*H,T,S)
  LayerMask memory_key_padding; // decoder: (B,S)
  int batch_first = -1;
};

class LayerModule {
 public:
  virtual ~LayerModule() = default;
  virtual LayerKind kind() const = 0;
  // the validated config with every default filled in (PyTorch argument names)
  virtual nlohmann::json config() const = 0;
  virtual const ParamList& params() const = 0;
  // Each kind answers its own call; another call is an Error naming the kind.
  virtual MhaReturn forward_mha(const MhaCall& c);
  virtual RnnReturn forward_rnn(const RnnCall& c);
  virtual LayerArray forward_transformer(const TransformerCall& c);
  // The layer file of this module (kind, config, parameters).
  std::vector<uint8_t> save() const;
};

// bytes of a layer file -> the layer; errors prefixed with `source`.
std::unique_ptr<LayerModule> load_layer(const uint8_t* bytes, size_t size,
                                        const std::string& source = "layer file");
std::unique_ptr<LayerModule> load_layer(const io::SafeTensors& st,
                                        const std::string& source = "layer file");
// A fresh layer with attnlab's random init (seeded), for tests and benchmarks.
std::unique_ptr<LayerModule> make_layer(LayerKind kind, const nlohmann::json& config,
                                        uint64_t seed);

// ---- functional attention on the caller's tensors (no parameters of a file)
// q (B,Tq,D) k (B,S,D) v (B,S,Dv), or unbatched rank 2. mask: (Tq,S) or (B,Tq,S), the
// library's polarity (as nn.MultiheadAttention's attn_mask): bool true = NOT attended,
// float = added to the scores. causal: j <= i.
// -> out (B,Tq,Dv), weights (B,Tq,S) (without B when unbatched).
struct FunctionalReturn {
  LayerArray out, weights;
};
// A caller's array seen in place (the bindings' staging buffer): no copy.
struct ArrayView {
  std::vector<size_t> shape;
  const float* data = nullptr;
  size_t size = 0;  // number of values at data
};
// scaled_dot_attention on views, into the caller's storage: `outputs` is called once, after
// every check and before any arithmetic, with the shapes of out and weights (weights empty
// when need_weights is false), and returns where to write them (weights nullptr then).
struct ScaledDotCall {
  ArrayView q, k, v;
  LayerMask mask;
  bool causal = false;
  double scale = 0;  // <= 0: 1/sqrt(D)
  bool need_weights = true;
};
struct FunctionalShapes {
  std::vector<size_t> out, weights;
};
using OutputsFor = std::function<std::pair<float*, float*>(const FunctionalShapes&)>;
void scaled_dot_attention(const ScaledDotCall& c, const OutputsFor& outputs);
FunctionalReturn scaled_dot_attention(const LayerArray& q, const LayerArray& k,
                                      const LayerArray& v, const LayerMask& mask, bool causal,
                                      double scale /* <= 0: 1/sqrt(D) */,
                                      bool need_weights = true /* false: weights left empty */);
// Bahdanau additive attention, score = v_a . tanh(W_q q + W_k k): w_q (A,Dq), w_k (A,Dk),
// v_a (A). q (B,Tq,Dq) k (B,S,Dk) v (B,S,Dv); mask as scaled_dot_attention's but bool only.
FunctionalReturn additive_attention(const LayerArray& q, const LayerArray& k,
                                    const LayerArray& v, const LayerArray& w_q,
                                    const LayerArray& w_k, const LayerArray& v_a,
                                    const LayerMask& mask, bool causal);

}  // namespace attnlab::models
