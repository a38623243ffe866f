// Hierarchical Attention Network (Yang et al. 2016) for document
// classification into C named classes (spam vs ham e-mail, or the user's labels):
//
//   words  w_st -> embedding x_st (E)
//   word bi-GRU          h_st = [fwd; bwd] (2Hw)          over each sentence's valid words
//   word attention       u_st = tanh(Ww h_st + bw), a_st = softmax_t(u_st . u_w)
//                        s_s = sum_t a_st h_st (2Hw)       (ContextPooling, word_ctx = |u_w|)
//   sentence bi-GRU      g_s = [fwd; bwd] (2Hs)            over the document's sentences
//   sentence attention   b_s = softmax_s(tanh(Ws g_s + bs) . u_s), v = sum_s b_s g_s (2Hs)
//   classifier           p = softmax(Wc v + bc) (C classes, C >= 2; trained with
//                        softmax cross-entropy; the spam model is C = 2, ham/spam)
//
// Batching: a batch of B documents is flattened into N = sum_b S_b sentences
// for the word level ((N,Tw) ids, Tw = the longest sentence, lengths per
// sentence) and re-packed into (B,Ts,2Hw) for the sentence level (Ts = the
// most sentences, lengths per document). Padding never reaches a softmax
// (length masks) and never receives a gradient.
//
// Parameter names (safetensors keys): embedding.weight, word_gru.{weight,bias}_{ih,hh}_l0[_reverse],
// word_attn.{proj.weight,proj.bias,context}, sent_gru.*, sent_attn.*, classifier.{weight,bias}.
// A model file holds kind "han", the config (incl. the tokenizer's truncation)
// and the vocabulary in __metadata__, so one file is one model.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/attention/pooling.hpp"
#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/data/email.hpp"
#include "attnlab/data/vocab.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/nn/layers.hpp"
#include "attnlab/nn/rnn.hpp"

namespace attnlab::models {

struct HANConfig {
  size_t vocab = 0;          // vocabulary size incl. the 4 specials (set from the Vocab)
  size_t emb = 100;          // word embedding width
  size_t word_hidden = 50;   // word GRU units per direction
  size_t sent_hidden = 50;   // sentence GRU units per direction
  size_t word_ctx = 100;     // word attention (context vector) size
  size_t sent_ctx = 100;     // sentence attention size
  size_t classes = 2;
  size_t max_sentences = 30;  // tokenizer truncation (data::EmailOptions)
  size_t max_words = 40;
  float dropout = 0.f;        // training only: on the word embeddings and the document vector
  std::vector<std::string> labels = {"ham", "spam"};  // one name per class
  // How raw input is read: "email" (RFC 822 / MIME / HTML, data/email.hpp) or "text"
  // (plain text split into sentences and words by the same tokenizer). Written to the
  // config only when "text", so files of the email kind keep their config as before.
  std::string format = "email";
  void check() const;  // throws attnlab::Error naming the bad field
  nlohmann::json to_json() const;
  static HANConfig from_json(const std::string& s);
  data::EmailOptions email_options() const;  // the tokenizer options, format included
};

// One document: sentences of token ids (each sentence non-empty, at least one sentence).
using HANDoc = std::vector<std::vector<int>>;

struct HANOutput {
  std::vector<float> logits, probs;                        // (B,C) row-major
  std::vector<std::vector<float>> sent_weights;            // [b][s]  sums to 1 per document
  std::vector<std::vector<std::vector<float>>> word_weights;  // [b][s][t] sums to 1 per sentence
};

struct HANWord {
  std::string text;   // as written in the sentence
  std::string token;  // what the model saw (lowercased / <num> / <url> / <email> / <unk>)
  float weight = 0;   // word attention within its sentence
  float score = 0;    // sqrt(sentence weight) * word weight (the paper's figures)
};
struct HANSentence {
  std::string text;
  float weight = 0;
  std::vector<HANWord> words;
};
struct HANClassification {
  int label = 0;
  std::string label_name;
  std::vector<float> probs;  // (C)
  std::vector<HANSentence> sentences;
  bool truncated = false;  // the tokenizer cut input or sentences (see data/email.hpp)
  // The message had no words (empty, whitespace, markup only): the model saw one
  // <unk> token, so probs are only the model's answer to an empty document and
  // callers should not read the label as a verdict.
  bool empty = false;
  nlohmann::json to_json() const;
  // The same object as compact JSON text, written directly (several times
  // faster than building a nlohmann::json; the wasm binding uses it).
  // word_extra(out, s, w), when given, appends members (",\"name\":value") to word w of
  // sentence s; tail is appended after the object's last member (",\"name\":value").
  using WordExtra = std::function<void(std::string& out, size_t s, size_t w)>;
  std::string to_json_string(const WordExtra& word_extra = nullptr, std::string_view tail = {}) const;
};

class HAN {
 public:
  // Integrated gradients' straight-line path through one document's word embeddings (explain/):
  // point i's embeddings are base + alpha_i (x - base), x and base (S,Tw,E) laid out as
  // word_embeddings({&doc}) gives them. The word GRU's input projection is linear, so it is
  // P(base) + alpha_i (P(x) - P(base)): both made once (begin_path), then one axpy per point and
  // word instead of a gemm; backward_path sums the gradients with respect to the projections
  // over the points, and path_input_grad multiplies that sum by W_ih once.
  struct Path {
    const HANDoc* doc = nullptr;
    size_t S = 0, Tw = 0;
    nn::Tensor p0[2], dp[2];  // (S,Tw,G) per word-GRU direction {fwd, bwd}: P(base), P(x) - P(base)
    nn::Tensor dg[2];         // (S,Tw,G) sum over backward_path's points of d/d(projection)
  };
  // The word level runs in chunks of sentences of similar length (sorted
  // longest first; a chunk keeps sentences >= 2/3 of its longest), so padding
  // costs little: (rows, T) per chunk instead of (N, longest sentence).
  struct WordChunk {
    std::vector<size_t> rows;  // sentence indices in [0, N)
    size_t T = 0;              // the chunk's longest sentence
    std::vector<int> ids;      // (rows, T) padded with <pad>
    std::vector<size_t> len;   // (rows)
    nn::BiGRU::Cache gru;
    attention::ContextPooling::Cache attn;
  };
  struct Cache {
    size_t B = 0, N = 0, Tw = 0, Ts = 0;
    std::vector<size_t> wlen;          // (N) words per sentence
    std::vector<size_t> slen;          // (B) sentences per document
    std::vector<size_t> first;         // (B) index of each document's first sentence in N
    std::vector<WordChunk> chunks;
    nn::BiGRU::Cache sgru;
    attention::ContextPooling::Cache sattn;
    std::vector<float> doc;            // (B,2Hs) document vectors (after dropout)
    std::vector<float> emb_mask;       // (N,Tw,E) embedding dropout mask, empty = none
    std::vector<float> doc_mask;       // (B,2Hs)
    // Attribution (explain/): when emb_in is set, forward reads the word embeddings from it,
    // (N,Tw,E) with sentence n's word t at row n*Tw+t, instead of looking the ids up; when
    // keep_demb, backward also writes d/d(word embeddings) into demb (N,Tw,E), 0 at padding.
    const float* emb_in = nullptr;
    bool keep_demb = false;
    // Set before a forward with this cache when only backward_input follows (attribution): the
    // word GRU then keeps no input and projects every word of every chunk in one gemm per
    // direction (no padding rows), and backward_input multiplies the projections' gradients of
    // every word by W_ih in one gemm per direction; backward() on such a cache is an Error.
    // Inference (no cache) always projects so.
    bool input_grads_only = false;
    std::vector<size_t> woff;  // (N) a sentence's first row among the projected words
    std::vector<float> demb;
    // forward_path: document b (a copy of path->doc) is the point alpha[b] of the path
    Path* path = nullptr;
    std::vector<float> path_alpha;  // (B)
    // the sentence vectors (N,2Hw) of a forward pass with a cache (the sentence level's input)
    std::vector<float> sv;
    // forward_given: sv_given[n] set = sentence n's vector (2Hw) is known (no word level)
    std::vector<const float*> sv_given;
  };

  // Fresh model with random weights (seeded); cfg.vocab is set from vocab.
  HAN(HANConfig cfg, data::Vocab vocab, uint64_t seed);
  HAN(const HAN&) = delete;  // params_ points into the layers
  HAN& operator=(const HAN&) = delete;

  const HANConfig& config() const { return cfg_; }
  const data::Vocab& vocab() const { return vocab_; }
  ParamList& params() { return params_; }
  const ParamList& params() const { return params_; }

  // docs: B documents -> logits/probs (B,C), attention weights; cache for backward;
  // train_rng (training only) turns on dropout (config().dropout)
  HANOutput forward(const std::vector<const HANDoc*>& docs, Cache* cache = nullptr,
                    Rng* train_rng = nullptr) const;
  // dlogits: (B,C) -> accumulates every parameter's grad
  void backward(const std::vector<float>& dlogits, Cache& cache);
  // dlogits: (B,C) -> d/d(word embeddings) (N,Tw,E) of sum(dlogits * logits), laid out as
  // word_embeddings() gives, 0 at padding; the same values as backward_embedded() but no
  // parameter grads (each layer's backward_input: no dW gemms, no bias sums), so const
  std::vector<float> backward_input(const std::vector<float>& dlogits, Cache& cache) const;
  // forward + mean cross-entropy + backward; returns the loss
  double loss_and_grad(const std::vector<const HANDoc*>& docs, const std::vector<int>& labels,
                       Rng* train_rng = nullptr);
  // forward() (inference, no cache) with some sentence vectors known from an earlier pass:
  // given (N: every sentence of docs in order) holds, per sentence, a (2Hw) row of that pass's
  // Cache::sv or nullptr; the given sentences skip the word level (the sentence level runs on
  // all) and their word weights are left empty
  HANOutput forward_given(const std::vector<const HANDoc*>& docs,
                          const std::vector<const float*>& given) const;
  // P(class 1) for every document, in batches of `batch` (inference, no cache)
  std::vector<double> predict_positive(const std::vector<const HANDoc*>& docs,
                                       size_t batch = 64) const;
  // Class probabilities (N,C) row-major for every document, in batches (inference)
  std::vector<float> predict_probs(const std::vector<const HANDoc*>& docs, size_t batch = 64) const;

  // Token ids per sentence; an empty document becomes one sentence [<unk>].
  HANDoc encode(const data::EmailDoc& doc) const;
  // Raw text (RFC 822 message, plain text or HTML) -> label, probabilities and
  // attention per sentence and word, tokenized with the training tokenizer.
  HANClassification classify(std::string_view text) const;
  // classify()'s result from the tokenized text and the forward output of encode(doc) (its
  // first document): for callers that ran that forward pass themselves
  HANClassification describe(const data::EmailDoc& doc, const HANOutput& out) const;

  // Word embeddings of `docs` as forward looks them up: (N,Tw,E), sentence n's word t at
  // row n*Tw+t (N sentences of all documents in order, Tw the longest), zeros at padding.
  std::vector<float> word_embeddings(const std::vector<const HANDoc*>& docs) const;
  // forward() from given word embeddings emb (N,Tw,E) laid out as word_embeddings() gives.
  HANOutput forward_embedded(const std::vector<const HANDoc*>& docs, const std::vector<float>& emb,
                             Cache& cache) const;
  // backward() that also returns d/d(word embeddings) (N,Tw,E) of sum(dlogits * logits);
  // parameter grads accumulate as in backward().
  std::vector<float> backward_embedded(const std::vector<float>& dlogits, Cache& cache);

  // The Path of doc from x to base (both (S,Tw,E) as word_embeddings({&doc}) gives them);
  // doc must outlive the Path
  Path begin_path(const HANDoc& doc, const std::vector<float>& x,
                  const std::vector<float>& base) const;
  // forward_embedded() of B = alphas.size() copies of the path's document at the points
  // base + alphas[b] (x - base); cache (which keeps a pointer to p) for backward_path
  HANOutput forward_path(Path& p, const std::vector<float>& alphas, Cache& cache) const;
  // backward_input() of a forward_path() pass, dlogits (B,C): adds each point's d/d(word-GRU
  // input projections) to p.dg (no parameter grads, no gemm with W_ih)
  void backward_path(const std::vector<float>& dlogits, Cache& cache, Path& p) const;
  // p.dg W_ih: the sum over every point given to backward_path of d/d(word embeddings), (S,Tw,E)
  // laid out as word_embeddings() gives, 0 at padding
  std::vector<float> path_input_grad(const Path& p) const;

  std::vector<uint8_t> save(const io::SaveOptions& o) const;
  std::vector<uint8_t> save(io::DType dtype = io::DType::F16,
                            const std::map<std::string, std::string>& extra = {}) const;
  static std::unique_ptr<HAN> load(const uint8_t* bytes, size_t size);
  static std::unique_ptr<HAN> load(const io::SafeTensors& st);
  static std::unique_ptr<HAN> load(const std::vector<uint8_t>& b) { return load(b.data(), b.size()); }

 private:
  void collect();
  // forward's steps (their shapes are stated where they are defined)
  std::vector<const std::vector<int>*> flatten(const std::vector<const HANDoc*>& docs,
                                               Cache& c) const;
  static void plan_chunks(Cache& c);
  static void chunk_rows(WordChunk& ch, const std::vector<const std::vector<int>*>& sents);
  nn::Tensor chunk_input(const Cache& c, WordChunk& ch,
                         const std::vector<const std::vector<int>*>& sents) const;
  void chunk_gates(const Cache& c, const WordChunk& ch, nn::Tensor gi[2]) const;
  void project_words(Cache& c, const std::vector<const std::vector<int>*>& sents,
                     nn::Tensor g[2]) const;
  void gather_gates(const Cache& c, const WordChunk& ch, const nn::Tensor g[2],
                    nn::Tensor gi[2]) const;
  void mask_chunk(const Cache& c, const WordChunk& ch, float* x) const;
  attention::Tensor2 word_level(Cache& c, const std::vector<const std::vector<int>*>& sents,
                                bool keep, std::vector<std::vector<float>>& ww) const;
  attention::PoolingResult sentence_level(Cache& c, const attention::Tensor2& sv, bool keep) const;
  void head(const std::vector<float>& doc, HANOutput& out) const;
  // forward() into the cache c; keep: leave the layer caches (for backward)
  HANOutput run_forward(const std::vector<const HANDoc*>& docs, Cache& c, bool keep,
                        Rng* train_rng) const;
  // backward() (grads == this) and backward_input() (grads == nullptr)
  void backward_pass(const std::vector<float>& dlogits, Cache& c, HAN* grads) const;
  HANConfig cfg_;
  data::Vocab vocab_;
  nn::Embedding embedding_;
  nn::BiGRU word_gru_, sent_gru_;
  attention::ContextPooling word_attn_, sent_attn_;
  nn::Linear classifier_;
  ParamList params_;
};

}  // namespace attnlab::models
