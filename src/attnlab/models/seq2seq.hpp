// Seq2seq with attention (Bahdanau et al. 2015; Luong, Pham & Manning 2015):
// character/phoneme translation such as CMUdict spelling-to-sound (G2P) and
// TensorFlow.js's date normalization example.
//
// Architecture (one decoder step t, batch B):
//   enc   = Encoder(src_emb(x))              (B,S,De)  GRU or LSTM, optionally bidirectional
//                                             (De = 2He if bidirectional else He)
//   s_0   = encoder final state               bidirectional: h0 = [h_fwd; h_bwd] (c likewise)
//   in_t  = [tgt_emb(y_{t-1}); att_{t-1}]     input feeding (att_{-1} = 0); without input
//                                             feeding in_t = tgt_emb(y_{t-1})
//   h_t   = DecoderRNN(in_t, s_{t-1})         (B,Dh), Dh = De
//   ctx_t, a_t = attend(h_t, enc, enc)        (B,De), (B,S): the selectable score
//   att_t = tanh(W_c [ctx_t; h_t] + b_c)      (B,C)  Luong's attentional hidden state
//   p_t   = softmax(W_o att_t + b_o)          (B,V)
// Scores: additive (Bahdanau), general, dot, scaled_dot (attention::Attention, masked past
// each source length), local_p (attention::LocalAttention, Luong local-p with the general
// score; its weights are softmax x Gaussian, so a row sums to <= 1, not exactly 1).
//
// The "tfjs" preset reproduces the TensorFlow.js date-conversion-attention example:
// embedding 64, unidirectional LSTM 64 encoder and decoder (decoder state starts at the
// encoder's final (h, c)), no input feeding, Luong dot attention between decoder outputs and
// encoder outputs, [context; decoder output] -> Dense 64 tanh -> softmax.
// (The tfjs code starts the decoder with (h_last, h_last); we use (h_last, c_last).)
//
// Tokens: both vocabularies are data::Vocab (ids 0..3 = <pad> <unk> <s> </s>). Inputs are
// text split into characters (a-z upper-cased when config.uppercase); outputs are joined
// with config.output_sep (" " for phonemes, "" for dates).
//
// Input errors (attnlab::Error, documented contract):
//   * empty input                       -> "empty input: expected 1..N characters"
//   * more than config.max_src_len chars -> error naming the length and the limit
//   * a character not in the source vocabulary -> error naming the character (printable,
//     or as \xNN) and its 0-based position, e.g. "unknown character '3' at position 2"
// Nothing is mapped to <unk> silently in those models. Models trained on the user's pairs
// (config src_tokens "char" or "word", `attnlab train seq2seq`) split the input into code
// points or words and map a token outside their vocabulary to <unk>: their vocabularies
// come from open data, so an unseen token is expected, not an error.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "attnlab/attention/attend.hpp"
#include "attnlab/attention/local.hpp"
#include "attnlab/core/param.hpp"
#include "attnlab/data/vocab.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/beam_search.hpp"
#include "attnlab/nn/layers.hpp"
#include "attnlab/nn/recurrent.hpp"
#include "attnlab/nn/rnn.hpp"

namespace attnlab::models {

// What every seq2seq kind (RNN Seq2Seq, TransformerSeq2Seq) records about its text: the task
// label, the length limits, how text becomes tokens and back, the vocabulary sizes.
// (seq2seq_text.cpp; its config keys: text_sides_fields.hpp)
struct TextSides {
  std::string task = "g2p";        // free text label: "g2p", "dates", ...
  size_t max_src_len = 40;         // longest accepted input (tokens)
  size_t max_tgt_len = 40;         // default decode limit (tokens, without </s>)
  bool uppercase = true;           // a-z -> A-Z before lookup
  std::string output_sep = " ";    // joins output tokens into text
  // How text becomes tokens (models trained on the user's pairs): "char" (Unicode code
  // points), "word" (whitespace-separated) or "wordpunct"; unknown tokens become <unk>.
  // Empty (the shipped G2P and dates models): one byte per token, unknown characters are
  // an error.
  std::string src_tokens, tgt_tokens;
  size_t src_vocab = 0, tgt_vocab = 0;  // filled from the vocabularies

  void validate(const char* who) const;  // token units and length ranges; who: "seq2seq config"
};

struct Seq2SeqConfig : TextSides {
  std::string rnn = "gru";         // "gru" | "lstm"
  bool bidirectional = true;
  bool input_feed = true;
  std::string score = "additive";  // additive | general | dot | scaled_dot | local_p
  size_t emb = 64;
  size_t enc_hidden = 128;         // per direction
  size_t attn_dim = 128;           // additive: A; local_p: predictor size
  size_t local_window = 3;         // local_p: D
  size_t combine = 256;            // C, size of the attentional vector

  size_t enc_out() const { return enc_hidden * (bidirectional ? 2 : 1); }
  size_t dec_hidden() const { return enc_out(); }
  size_t dec_input() const { return emb + (input_feed ? combine : 0); }
  std::string to_json() const;
  static Seq2SeqConfig from_json(const std::string& s);  // validates
  void validate() const;
};

// The TensorFlow.js date example's configuration.
Seq2SeqConfig tfjs_dates_config();

// How decoding does its matrix products.
//   Int8 (default): the recurrent, attention-query, combine, output and key matrices are
//     quantized once per model to int8 with one scale per row, and each step's input
//     vectors to int16 with one scale per vector (kernels::gemm_i8): a quarter of float32's
//     bytes per step, so the decoder's weights stay in the L2 cache, and eight products per
//     16-bit multiply-add instruction. Probabilities move by about 1e-3 against F32; the
//     chosen tokens differ only where two candidates are that close (the G2P model card
//     gives WER for each precision).
//   Int16: the same with int16 matrices (probabilities within about 1e-4 of F32).
//   F32: float32 everywhere, the same arithmetic as training's forward pass.
// Attention scores, softmax, gate nonlinearities and embeddings are float32 in all three.
enum class DecodePrecision { Int8, Int16, F32 };
// "int8" | "int16" | "f32" -> DecodePrecision; anything else is an Error listing them.
DecodePrecision parse_decode_precision(const std::string& s);
const char* decode_precision_name(DecodePrecision p);  // and back

struct DecodeOptions {
  size_t beam = 1;           // 1 = greedy
  size_t max_len = 0;        // output tokens; 0 = config.max_tgt_len
  float length_alpha = 0.6f; // beam score = logp / ((5 + len) / 6)^alpha (GNMT); 0 = none
  DecodePrecision precision = DecodePrecision::Int8;
  // Transformer models: fill Translation::cross / enc_self / dec_self (one extra forward
  // pass over the chosen output; off for bulk scoring)
  bool head_maps = true;
  // beam search: also return every finished hypothesis, best first (Translation::n_best)
  bool n_best = false;
};

// Attention of every layer and head (Transformer models; empty for the RNN seq2seq):
// data is (layers, heads, rows, cols) row-major.
struct HeadMaps {
  size_t layers = 0, heads = 0, rows = 0, cols = 0;
  std::vector<float> data;
  bool empty() const { return data.empty(); }
  const float* map(size_t layer, size_t head) const {
    return data.data() + (layer * heads + head) * rows * cols;
  }
};

struct Translation {
  std::vector<int> ids;              // output token ids (no </s>)
  std::vector<std::string> tokens;   // their strings
  std::string text;                  // tokens joined with config.output_sep
  std::vector<float> probs;          // probability of each output token when chosen
  float eos_prob = 0;                // probability of </s> at the end (0 if cut at max_len)
  double logprob = 0;                // sum of log probabilities incl. </s>
  std::vector<float> attention;      // (rows, cols) row-major: rows = tokens, cols = inputs
  size_t rows = 0, cols = 0;
  std::vector<std::string> input_tokens;
  // Transformer models: cross-attention (rows = output tokens, cols = inputs), encoder
  // self-attention (inputs x inputs) and decoder self-attention (outputs x outputs), per
  // layer and head; `attention` above is then the last layer's cross-attention averaged
  // over heads.
  HeadMaps cross, enc_self, dec_self;
  // the time those maps took, milliseconds: a float32 teacher-forced pass on the output after
  // the decode (DecodeOptions::head_maps), the larger part of such a call (0 without maps)
  double head_maps_ms = 0;
  double score = 0;                  // the beam's ranking score (logprob, length-normalized)
  // DecodeOptions::n_best: every finished hypothesis, best first, each output once (ids,
  // tokens, text, probs, attention, logprob, score, eos_prob each; no head maps, no n_best)
  std::vector<Translation> n_best;
};

// Text -> source ids: characters (a-z upper-cased when `uppercase`) looked up in `vocab`;
// the error contract above (empty, too long, unknown character with its position).
std::vector<int> encode_chars(const std::string& text, const data::Vocab& vocab, bool uppercase,
                              size_t max_len);
// Text -> source ids by the config's tokens (`tokens` "char" | "word": data::split_tokens,
// unknown tokens -> <unk>; empty input or more than max_len tokens is an Error; "" falls
// back to encode_chars). Shared by every seq2seq kind.
std::vector<int> encode_text(const std::string& text, const data::Vocab& vocab,
                             const std::string& tokens, bool uppercase, size_t max_len);
// decode()'s check of source ids: 1..max_len ids, each a vocabulary symbol (>= 4), or <unk>
// when allow_unk (models with config src_tokens). Shared by every seq2seq kind.
void check_source_ids(const std::vector<int>& src, size_t vocab_size, size_t max_len, bool allow_unk);
// "", "char" or "word", else an Error naming `what`.
void check_token_unit(const std::string& tokens, const char* what);
// A beam-search result as a Translation (tokens, text joined with sep, input tokens) of its
// best hypothesis; with n_best, every hypothesis also in Translation::n_best.
Translation translation_from(const std::vector<BeamHyp>& ranked, bool n_best, const std::vector<int>& src,
                             const data::Vocab& src_vocab, const data::Vocab& tgt_vocab,
                             const std::string& sep);

// A padded, teacher-forced batch: tgt_in = <s> y, tgt_out = y </s>, <pad> past each length.
struct Seq2SeqBatch {
  size_t B = 0, S = 0, T = 0;
  std::vector<int> src;       // (B,S)
  std::vector<int> tgt_in;    // (B,T)
  std::vector<int> tgt_out;   // (B,T)
  std::vector<size_t> src_len, tgt_len;
};
Seq2SeqBatch make_seq2seq_batch(const std::vector<std::vector<int>>& src,
                                const std::vector<std::vector<int>>& tgt,
                                const std::vector<size_t>& idx);
// A batch a model of `who` ("seq2seq", "transformer") can run, or an Error naming it: sizes
// that agree with B, S, T (and src_len with B when `lengths`), source ids below src_vocab,
// target ids below tgt_vocab.
void check_seq2seq_batch(const Seq2SeqBatch& b, size_t src_vocab, size_t tgt_vocab,
                         const char* who, bool lengths);

// One API over the seq2seq model kinds (the RNN Seq2Seq below, TransformerSeq2Seq in
// models/transformer.hpp): what evaluation, prediction and the bindings use.
class Translator {
 public:
  virtual ~Translator() = default;
  virtual const char* kind() const = 0;  // the model file's kind
  virtual std::string config_json() const = 0;
  virtual size_t max_src_len() const = 0;
  virtual const data::Vocab& src_vocab() const = 0;
  virtual const data::Vocab& tgt_vocab() const = 0;
  virtual Translation decode(const std::vector<int>& src, const DecodeOptions& o = {}) const = 0;
  virtual const TextSides& sides() const = 0;  // the config's text options
  // Text -> source ids by sides() (encode_text), and decode() of them; the same for every kind.
  std::vector<int> encode_input(const std::string& text) const;
  Translation translate(const std::string& text, const DecodeOptions& o = {}) const;

  // Teacher-forced per-token log-probabilities of tgt_out (B,T) (0 at <pad>) and the
  // attention each kind shows (B,T,S): the RNN's attention weights, the Transformer's last
  // decoder layer's cross-attention averaged over heads.
  virtual void score_batch(const Seq2SeqBatch& b, std::vector<float>& logp,
                           std::vector<float>& attn) const = 0;
  // Teacher-forced next-token probabilities (B,T,V): row (b,t) is the distribution of
  // tgt_out[b,t] given the source and tgt_in[b,0..t], in float32 arithmetic without dropout;
  // rows at <pad> are zero. (The teacher of token-level distillation.)
  virtual void next_token_probs(const Seq2SeqBatch& b, std::vector<float>& probs) const = 0;
  // Attribution (explain/attribution.hpp), every kind through these. source_dim: E of a
  // source embedding row; source_embeddings: the rows x (S,E) attributions are taken on (each
  // kind documents where they enter); source_logp_grad: a teacher-forced pass of `b` with the
  // rows es (B,S,E) in place of the lookup: logp (B,T) of tgt_out (0 at <pad>), attention
  // (B,T,S) as score_batch, and des (B,S,E) = d/d(es) of the sum of logp over the non-<pad>
  // targets; parameter grads are zero afterwards and the predictions do not change.
  // pass_floats: about how many floats one sequence's forward + backward pass holds (S source,
  // T target tokens), to size batches. source_logp_grad is the same for every kind
  // (models/translator.cpp) around the kind's attribution_pass.
  virtual size_t source_dim() const = 0;
  virtual std::vector<float> source_embeddings(const std::vector<int>& src) const = 0;
  void source_logp_grad(const Seq2SeqBatch& b, const std::vector<float>& es, std::vector<float>& logp,
                        std::vector<float>& attn, std::vector<float>& des);
  virtual size_t pass_floats(size_t S, size_t T) const = 0;

  // Every parameter, mutable (add_params), after dropping the decode plans: the caller may
  // change the parameters. (models/translator.cpp)
  void collect(ParamList& ps);
  // Drops the quantized decode plans a kind builds on first use; code that changes parameters
  // after a decode in another way than through collect() calls it.
  virtual void reset_decode_plan() = 0;

 protected:
  // What source_logp_grad asks of a kind. attribution_pass: the teacher-forced forward and
  // backward of `b` without dropout, label smoothing or penalties (the loss is
  // -sum(logp) / count), filling logp and attn as score_batch; while emb_in_ is set the pass
  // reads its source rows (B,S,E) from *emb_in_ instead of the lookup, and while demb_out_ is
  // set it writes the loss's gradient w.r.t. them to *demb_out_. add_params: every parameter,
  // as collect() gives them but without dropping the decode plans.
  virtual void attribution_pass(const Seq2SeqBatch& b, std::vector<float>& logp,
                                std::vector<float>& attn) = 0;
  virtual void add_params(ParamList& ps) = 0;
  const std::vector<float>* emb_in_ = nullptr;
  std::vector<float>* demb_out_ = nullptr;
};
// Loads any seq2seq model file by its kind ("seq2seq", "transformer-seq2seq"); other kinds
// are an error naming the known ones. (models/translator.cpp)
std::unique_ptr<Translator> load_translator(const io::SafeTensors& st);
bool is_translator_kind(const std::string& kind);

// What every seq2seq kind holds alike: its config (a TextSides with to_json() and
// validate()), the vocabulary sizes set in it and checked at construction, the two
// vocabularies, and the Translator members that only read them.
template <class Config>
class TranslatorOf : public Translator {
 public:
  const Config& config() const { return cfg_; }
  std::string config_json() const override { return cfg_.to_json(); }
  size_t max_src_len() const override { return cfg_.max_src_len; }
  const data::Vocab& src_vocab() const override { return src_; }
  const data::Vocab& tgt_vocab() const override { return tgt_; }
  const TextSides& sides() const override { return cfg_; }

 protected:
  TranslatorOf(const Config& cfg, const data::Vocab& src, const data::Vocab& tgt)
      : cfg_(cfg), src_(src), tgt_(tgt) {
    cfg_.src_vocab = src_.size();
    cfg_.tgt_vocab = tgt_.size();
    cfg_.validate();
  }
  // The model file of each kind, written and read alike (models/translator.cpp). save_as:
  // the weights with kind(), the config, the source vocabulary as the file's vocab and
  // "tgt_vocab" added to the caller's o.meta. load_as: a file of this kind (`kind`, as
  // kind() names it) read back: the config (validated by Config::from_json), both
  // vocabularies and their sizes checked against the config's, then the model built (its
  // parameters held to the number of values the file stores while `budget`) and its weights
  // copied in.
  template <class Model>
  std::vector<uint8_t> save_as(const io::SaveOptions& o) const;
  template <class Model>
  static std::unique_ptr<Model> load_as(const io::SafeTensors& st, const char* kind, bool budget);
  Config cfg_;
  data::Vocab src_, tgt_;
};

class Seq2Seq : public TranslatorOf<Seq2SeqConfig> {
 public:
  using Tensor = nn::Tensor;
  Seq2Seq(const Seq2SeqConfig& cfg, const data::Vocab& src, const data::Vocab& tgt,
          uint64_t seed);
  // The number of parameter values the constructor would create, without building them
  // (a config is checked against a limit before anything is allocated). Validates cfg.
  static uint64_t param_count(Seq2SeqConfig cfg, size_t src_vocab, size_t tgt_vocab);
  const char* kind() const override { return "seq2seq"; }

  // Teacher-forced forward (+ backward when `backward`): mean token cross-entropy over the
  // non-pad targets; parameter grads ACCUMULATE. label_smoothing as nn::cross_entropy.
  float train_step(const Seq2SeqBatch& b, float label_smoothing = 0.f);
  float loss(const Seq2SeqBatch& b) const;
  // Teacher-forced per-token log-probabilities of tgt_out (B,T) (0 at pads) and
  // attention weights (B,T,S). For tests and scoring.
  void score_batch(const Seq2SeqBatch& b, std::vector<float>& logp,
                   std::vector<float>& attn) const override;
  void next_token_probs(const Seq2SeqBatch& b, std::vector<float>& probs) const override;

  // Text -> source ids (see the error contract above).
  // translate/decode build the quantized decode plan on first use (a few ms) and keep it;
  // collect() (which hands out mutable parameters) and train_step() drop it. Code that
  // changes parameters after a decode in another way calls reset_decode_plan().
  void reset_decode_plan() override { plan_[0].reset(); plan_[1].reset(); }
  Translation decode(const std::vector<int>& src, const DecodeOptions& o = {}) const override;

  // Attribution (explain/). Source embeddings of ids: (S,E) as the encoder sees them.
  std::vector<float> source_embeddings(const std::vector<int>& src) const override;
  size_t source_dim() const override { return cfg_.emb; }
  size_t pass_floats(size_t S, size_t T) const override { return S * cfg_.emb * T; }

  // One safetensors file: kind "seq2seq", config, src vocab in "vocab", target vocab in
  // "tgt_vocab", plus `extra` metadata.
  std::vector<uint8_t> save(const io::SaveOptions& o) const;
  std::vector<uint8_t> save(io::DType dtype = io::DType::F32,
                            const std::map<std::string, std::string>& extra = {}) const;
  static std::unique_ptr<Seq2Seq> load(const io::SafeTensors& st);
  static std::unique_ptr<Seq2Seq> load(const uint8_t* bytes, size_t size);

 private:
  using EncCache = nn::Recurrent::Cache;
  struct StepCache {
    nn::Recurrent::Cache rnn;
    attention::Attention::Cache att;
    attention::LocalAttention::Cache local;
    Tensor x;    // (B,1,I) decoder input
    Tensor cat;  // (B,De+Dh) [ctx; h]
  };
  // x: (B,S,E), lengths (B) -> enc: (B,S,De), init: decoder initial state (B,Dh)
  void encode(const Tensor& x, const std::vector<size_t>& len, Tensor& enc, nn::RnnState& init,
              EncCache* c) const;
  // denc: (B,S,De), dinit: (B,Dh) -> dx: (B,S,E)
  void encode_backward(const Tensor& denc, const nn::RnnState& dinit, const EncCache& c,
                       Tensor& dx);
  // ids: (B) previous tokens, enc3: (B,S,De), state (B,Dh) in/out, feed (B,C) in,
  // -> att (B,C) (may alias feed), weights (B,S) (nullable)
  void step(size_t B, const int* ids, const attention::Tensor3& enc3,
            const std::vector<size_t>& len, nn::RnnState& state, const float* feed, float* att,
            float* weights, StepCache* c) const;
  // att: (B,C) the step's output, datt: (B,C) (consumed), dstate: gradient w.r.t. the state after the step (in/out: becomes
  // the gradient w.r.t. the state before it), denc3 += ..., dfeed: (B,C) overwritten
  void step_backward(size_t B, const int* ids, const float* att, float* datt, nn::RnnState& dstate,
                     attention::Tensor3& denc3, float* dfeed, const StepCache& c);
  // Inference fast path (decode): keys projected once per input, raw kernels, no caches.
  struct InferCtx {
    size_t S = 0;
    std::vector<float> enc;   // (S,De)
    std::vector<float> keys;  // additive: enc W2^T (S,A); general/local_p: enc W^T (S,Dh)
    std::vector<float> h0, c0;  // decoder initial state (Dh); c0 for LSTM only
  };
  InferCtx infer_prepare(const std::vector<int>& src) const;
  // Attention of n decoder states: h (n,Dh), q (n,A) the additive query or local-p's
  // predictor rows (W h, overwritten; unused by other scores) -> weights (n,S).
  // Shared by the float and the quantized decoders.
  void attention_weights(size_t n, const InferCtx& ctx, const float* h, float* q,
                         std::vector<float>& hid, std::vector<float>& mask, float* weights) const;
  // quantized decode plans (seq2seq_fast.cpp): int8 in plan_[0], int16 in plan_[1],
  // each built on first use.
  struct FastPlan;
  const FastPlan& fast_plan(DecodePrecision precision) const;
  InferCtx fast_prepare(const std::vector<int>& src, const FastPlan& plan) const;
  // A decoder as the beam search sees it: a flat per-hypothesis state and one step.
  struct Stepper {
    size_t state_size = 0;
    std::vector<float> init;  // (state_size) the state before the first step
    // prev: (n) tokens, state_in: (n,state_size) -> state_out: (n,state_size),
    // weights: (n,S) attention, logp: (n,V) log-probabilities of the next token
    std::function<void(size_t n, const int* prev, const float* state_in, float* state_out,
                       float* weights, float* logp)>
        step;
  };
  Stepper f32_stepper(const InferCtx& ctx) const;
  Stepper fast_stepper(const InferCtx& ctx, const FastPlan& plan) const;
  // n hypotheses: prev (n), h/c (n,Dh) in/out, feed (n,C) in -> att (n,C), weights (n,S),
  // logp (n,V). Same numbers as step() + out_ + log_softmax (tested).
  void infer_step(size_t n, const int* prev, const InferCtx& ctx, float* h, float* c,
                  const float* feed, float* att, float* weights, float* logp) const;
  float run(const Seq2SeqBatch& b, bool backward, float smoothing, std::vector<float>* logp,
            std::vector<float>* attn, std::vector<float>* probs = nullptr);
  void attribution_pass(const Seq2SeqBatch& b, std::vector<float>& logp,
                        std::vector<float>& attn) override;
  void add_params(ParamList& ps) override;

  nn::Embedding src_emb_, tgt_emb_;
  nn::Recurrent enc_, dec_;  // GRU or LSTM; the encoder one or two directions
  attention::Attention att_;
  attention::LocalAttention local_;
  bool is_local_ = false;
  nn::Linear combine_, out_;
  mutable std::shared_ptr<const FastPlan> plan_[2];
};

}  // namespace attnlab::models
