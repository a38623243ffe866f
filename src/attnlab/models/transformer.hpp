// Transformer seq2seq (Vaswani et al. 2017) for character/phoneme translation such as
// CMUdict spelling-to-sound, with the same vocabularies, batches, decode options and
// Translation as the RNN Seq2Seq (models/seq2seq.hpp).
//
//   x   = drop(src_emb(src) * sqrt(E) + PE)          (B,S,E)  (sqrt(E) if scale_embedding)
//   mem = [norm](EncoderLayer^Le(x))                  (B,S,E)  source padding masked
//   y   = drop(tgt_emb(<s> y) * sqrt(E) + PE)         (B,T,E)
//   h   = [norm](DecoderLayer^Ld(y, mem))             (B,T,E)  causal + target padding masked
//   p   = softmax(h W_out^T + b_out)                  (B,T,V)  W_out = tgt_emb.weight if tied
// [norm]: a final LayerNorm after each stack when norm_first (pre-norm), as nn.Transformer.
// Layers: attention::TransformerEncoderLayer / TransformerDecoderLayer (PyTorch semantics).
//
// Parameter names: src_emb.weight, tgt_emb.weight, [src_pos.weight, tgt_pos.weight when
// learned], encoder.layers.<i>.<torch layer keys>, [encoder.norm.*], decoder.layers.<i>.*,
// [decoder.norm.*], [out.weight when untied], out.bias.
//
// Training: mean token cross-entropy over non-pad targets with optional label smoothing,
// plus optional disagreement penalties (Li et al. 2018, attention/disagreement.hpp) on
// every layer's encoder self-, decoder self- and cross-attention, each with its weights;
// padded positions are left out of the terms (MhaOptions::disagreement_skip_padding).
//
// Decoding: greedy or beam search (models/beam_search.hpp) over an incremental decoder
// with a per-layer key/value cache (each step computes one new row per hypothesis); the
// full recomputation of the prefix at every step is kept as the reference (kv_cache =
// false) and tested equal. decode() runs in float32 (DecodeOptions::precision is not used
// by this model). The returned Translation carries the attention of every layer and head.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/attention/transformer.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/nn/positional.hpp"

namespace attnlab::models {

struct TransformerConfig : TextSides {
  size_t d_model = 128;        // E
  size_t nhead = 4;            // H
  size_t dim_feedforward = 512;
  size_t enc_layers = 3, dec_layers = 3;
  float dropout = 0.1f;
  std::string activation = "relu";  // relu | gelu
  bool norm_first = true;
  std::string pos = "sinusoidal";   // sinusoidal | learned
  // output projection weight = tgt_emb.weight. Off by default: tied, the scaled embedding of
  // the previous token reaches the output through the residual path and the untrained model
  // predicts a repeat with confidence (init loss 7.9 against ln V = 3.8 for G2P sizes)
  bool tie_output = false;
  bool scale_embedding = true;      // embeddings times sqrt(E)

  attention::TransformerLayerConfig layer() const;
  std::string to_json() const;
  static TransformerConfig from_json(const std::string& s);  // validates
  void validate() const;
};

struct TransformerLossOptions {
  float label_smoothing = 0.f;
  // token-level distillation: the teachers' next-token probabilities (B,T,V) for the batch
  // (Translator::next_token_probs) mixed into the target with this weight (nn::cross_entropy)
  const float* teacher = nullptr;
  float teacher_weight = 0.f;
  // penalty weights, applied in every layer (zero = off)
  attention::DisagreementWeights enc_self, dec_self, cross;
  bool training = true;  // dropout on
};

struct TransformerLossInfo {
  float ce = 0;       // cross-entropy (with label smoothing if set)
  float penalty = 0;  // sum over layers of weights . similarity terms
  // similarity terms averaged over layers (higher = heads agree more)
  attention::DisagreementTerms enc_self, dec_self, cross;
};

class TransformerSeq2Seq : public TranslatorOf<TransformerConfig> {
 public:
  TransformerSeq2Seq(const TransformerConfig& cfg, const data::Vocab& src, const data::Vocab& tgt,
                     uint64_t seed);
  const char* kind() const override { return "transformer-seq2seq"; }
  // quantized copies of the decoder weights would be stale after a parameter change
  void reset_decode_plan() override { plan_[0].reset(); plan_[1].reset(); }

  // Teacher-forced forward + backward: returns ce + penalty; parameter grads ACCUMULATE.
  // Dropout draws from rng when o.training.
  float train_step(const Seq2SeqBatch& b, const TransformerLossOptions& o, Rng& rng,
                   TransformerLossInfo* info = nullptr);
  // Mean token cross-entropy without backward, dropout or smoothing.
  float loss(const Seq2SeqBatch& b) const;
  // The training loss without backward (rng needed only if o.training and dropout > 0).
  float loss(const Seq2SeqBatch& b, const TransformerLossOptions& o, Rng* rng,
             TransformerLossInfo* info = nullptr) const;
  // Teacher-forced per-token log-probabilities of tgt_out (B,T) (0 at pads) and the last
  // layer's cross-attention averaged over heads (B,T,S).
  void score_batch(const Seq2SeqBatch& b, std::vector<float>& logp,
                   std::vector<float>& attn) const override;
  void next_token_probs(const Seq2SeqBatch& b, std::vector<float>& probs) const override;

  // Attribution (explain/): x = the rows of src_emb.weight for the ids (S,E), BEFORE the
  // sqrt(E) scale and the positional encoding; the encoder reads x * sqrt(E) + PE (scale
  // when scale_embedding). Gradient x input and integrated gradients are the same whether x
  // is taken before or after the scale (a constant factor moves from x to the gradient); a
  // baseline replaces the token rows only, the positions stay. source_logp_grad runs the
  // training forward/backward (dropout off, no label smoothing, no penalties) with es in
  // place of the lookup; parameter grads are zero afterwards, the decode plans are kept.
  size_t source_dim() const override { return cfg_.d_model; }
  std::vector<float> source_embeddings(const std::vector<int>& src) const override;
  size_t pass_floats(size_t S, size_t T) const override;

  Translation decode(const std::vector<int>& src, const DecodeOptions& o = {}) const override {
    return decode(src, o, true);
  }
  // kv_cache = false recomputes the whole prefix at every step (the reference).
  Translation decode(const std::vector<int>& src, const DecodeOptions& o, bool kv_cache) const;
  // Fills r.cross, r.enc_self, r.dec_self for source src and output tokens out.
  void attention_maps(const std::vector<int>& src, const std::vector<int>& out,
                      Translation& r) const;

  // One safetensors file: kind "transformer-seq2seq", config, source vocab in "vocab",
  // target vocab in "tgt_vocab", plus `extra` metadata.
  std::vector<uint8_t> save(const io::SaveOptions& o) const;
  std::vector<uint8_t> save(io::DType dtype = io::DType::F32,
                            const std::map<std::string, std::string>& extra = {}) const {
    return save(io::SaveOptions{dtype, extra});
  }
  static std::unique_ptr<TransformerSeq2Seq> load(const io::SafeTensors& st);
  static std::unique_ptr<TransformerSeq2Seq> load(const uint8_t* bytes, size_t size);

 private:
  struct Cache;
  float run(const Seq2SeqBatch& b, bool backward, const TransformerLossOptions& o, Rng* rng,
            std::vector<float>* logp, std::vector<float>* attn, TransformerLossInfo* info,
            std::vector<float>* probs = nullptr);
  void attribution_pass(const Seq2SeqBatch& b, std::vector<float>& logp,
                        std::vector<float>& attn) override;
  void add_params(ParamList& ps) override;
  // ids (B,T) -> (B,T,E) = drop(emb * scale + PE); mask receives the dropout mask
  attention::Tensor3 embed(const nn::Embedding& emb, const nn::PositionalEncoding& pos,
                           const int* ids, size_t B, size_t T, Rng* rng, bool drop,
                           std::vector<float>* mask) const;
  void embed_backward(nn::Embedding& emb, nn::PositionalEncoding& pos, const int* ids, size_t B,
                      size_t T, float* dx, const std::vector<float>& mask);
  // The matrices of every layer and the output projection quantized for decoding
  // (DecodePrecision Int8 / Int16), built on first use; collect() and train_step() drop them.
  struct QuantPlan {
    std::vector<attention::EncoderLayerQuant> enc;
    std::vector<attention::DecoderLayerQuant> dec;
    nn::QuantMatrix out;
  };
  const QuantPlan* quant_plan(DecodePrecision p) const;  // nullptr for F32
  // src (S) -> memory (S,E); enc_w (optional) receives the (Le,H,S,S) weights;
  // scratch: buffers to reuse (nullptr = the call's own)
  std::vector<float> encode_one(const std::vector<int>& src, std::vector<float>* enc_w,
                                const QuantPlan* q = nullptr,
                                attention::InferScratch* scratch = nullptr) const;
  // rows (n,E) -> logits (n,V)
  void project(size_t n, const float* h, float* logits, const QuantPlan* q = nullptr,
               attention::InferScratch* scratch = nullptr) const;
  const float* out_weight() const;

  nn::Embedding src_emb_, tgt_emb_;
  nn::PositionalEncoding src_pos_, tgt_pos_;
  std::vector<attention::TransformerEncoderLayer> enc_;
  std::vector<attention::TransformerDecoderLayer> dec_;
  nn::LayerNorm enc_norm_, dec_norm_;  // norm_first only
  Param out_weight_, out_bias_;        // out_weight_ when untied
  mutable std::shared_ptr<const QuantPlan> plan_[2];  // int8, int16
};

}  // namespace attnlab::models
