// Attention beside attribution: does an attention map explain the decision?
//
//   gradient x input   a_i = sum_e x_ie * d f / d x_ie            (Shrikumar et al. 2016)
//   integrated grads   a_i = sum_e (x_ie - b_e) * mean_k d f / d x_ie at b + alpha_k (x - b),
//                      alpha_k = (k + 1/2) / m, k = 0..m-1 (midpoint Riemann sum of
//                      Sundararajan et al. 2017); sum_i a_i ~ f(x) - f(b) (completeness)
//   x_i: the input embedding of token i (E); b_i: its baseline embedding (default zeros; or the
//   <unk> or <pad> embedding, or given values: one embedding for every token, or one per
//   token); f: the log-probability of the explained output (HAN: the predicted class;
//   seq2seq: output token t of the decoded output, teacher-forced, one row per output step).
//   For the Transformer seq2seq, x_i is the row of the source embedding table, before the
//   sqrt(E) scale and the positional encoding (the encoder reads x_i sqrt(E) + PE_i); the
//   baseline replaces the token row only, the positions stay. (Taking x after the scale
//   gives the same attributions: the factor moves from x to the gradient.)
//   The attention compared: HAN's word weight x sentence weight; the RNN seq2seq's attention
//   weights; the Transformer's cross-attention of the LAST decoder layer averaged over its
//   heads (what its Translation::attention shows), teacher-forced on the decoded output.
//
//   Kendall tau-b between the attention a token gets and |attribution| (the magnitude of its
//   influence, as Jain & Wallace 2019 compare attention with gradient importance), over the
//   input tokens; ties in either ranking handled (tau-b); NaN when either is constant.
//   Removal (the counterfactual check): the k tokens with the most attention, and the k with the
//   largest (signed: most supporting) attribution, are deleted from the input, and the explained
//   output's probability is computed again (HAN: p(class); seq2seq: p(the whole decoded
//   output, teacher-forced)).
//   Attention rollout (Abnar & Zuidema 2020): per layer the head-mean attention plus the
//   identity (residual), rows renormalized, multiplied over the layers.
//
// Both attribution functions run the model's own backward pass. HAN's is its input-gradient-only
// form (HAN::backward_input: no parameter gradients; for IG HAN::Path, which forms the word GRU's
// input projections along the straight line by linearity and multiplies the summed projection
// gradients by W_ih once), so its functions take a const model; the seq2seq one runs the
// model's training forward/backward through the Translator's attribution hooks (every seq2seq
// kind: RNN and Transformer), leaves the parameter gradients zero afterwards and needs a
// non-const model. The model's predictions do not change.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/data/vocab.hpp"
#include "attnlab/models/han.hpp"
#include "attnlab/models/seq2seq.hpp"

namespace attnlab::explain {

enum class Method { Grad, IG };
// "grad" | "ig"; anything else is an Error naming both.
Method parse_method(const std::string& s);
const char* method_name(Method m);

// IG's baseline by name: zeros, or the embedding of <unk> / <pad> put at every input token
enum class Baseline { Zero, Unk, Pad };
// "zero" | "unk" | "pad"; anything else is an Error naming them
Baseline parse_baseline(const std::string& s);
const char* baseline_name(Baseline b);

struct Options {
  Method method = Method::Grad;
  size_t steps = 32;               // IG: interpolation steps, in [1, kMaxSteps]
  Baseline baseline_kind = Baseline::Zero;  // IG: the baseline when `baseline` is empty
  // IG: given baseline values, instead of baseline_kind: E values (one embedding put at every
  // input token) or n*E (one embedding per input token, in input order: HAN sentence by
  // sentence, word by word); any other size is an Error
  std::vector<float> baseline;
  size_t topk = 0;                 // removal: tokens removed; 0 = 10% of the input tokens (>= 1)
  static constexpr size_t kMaxSteps = 1024;
  void check(size_t emb) const;  // steps range, baseline size a multiple of emb, finite values
  // The baseline (n,E) for n input tokens; embed(id) gives a token's embedding (E); throws
  // when `baseline` holds neither E nor n*E values
  template <class Embed>
  std::vector<float> baseline_for(size_t n, size_t emb, Embed&& embed) const;
};

// Kendall's tau-b of two equally long rankings: (concordant - discordant) /
// sqrt((n0 - ties_a) (n0 - ties_b)), n0 = n(n-1)/2; NaN when n < 2, either is constant or a
// value is NaN. O(n log n) (Knight 1966).
double kendall_tau_b(const std::vector<float>& a, const std::vector<float>& b);
// Indices of the k largest values, the lower index first among equal values.
std::vector<size_t> top_k(const std::vector<float>& v, size_t k);
// The removal count for n input tokens: topk (0 = max(1, round(n/10))), at most n - 1 (>= 0).
size_t removal_count(size_t topk, size_t n);

// maps: (layers, heads, n, n) row-major self-attention -> (n, n): row i = how much each input
// position flows into position i at the top.
std::vector<float> attention_rollout(const std::vector<float>& maps, size_t layers, size_t heads,
                                     size_t n);

// ---------------------------------------------------------------- HAN
struct HANAttribution {
  Method method = Method::Grad;
  size_t steps = 1;
  int target = 0;                              // the explained (predicted) class
  double f = 0, f_baseline = 0;                // log p(target) at the input, at the baseline (IG)
  std::vector<std::vector<float>> attribution;  // [s][t] per word
  std::vector<std::vector<float>> attention;    // [s][t] word weight x sentence weight
  double tau = 0;                               // Kendall tau-b, attention vs |attribution|
  size_t k = 0;                                 // words removed
  double prob = 0;                              // p(target)
  double prob_without_attention = 0;            // p(target), top-k words by attention removed
  double prob_without_attribution = 0;          // p(target), top-k words by attribution removed
  std::vector<std::pair<size_t, size_t>> removed_attention, removed_attribution;  // (s, t)
  nlohmann::json to_json() const;
};
HANAttribution attribute_han(const models::HAN& m, const models::HANDoc& doc, const Options& o);
// The document without the listed (sentence, word) positions; a sentence left empty is dropped,
// a document left empty becomes [<unk>] (as HAN::encode does).
models::HANDoc remove_words(const models::HANDoc& doc,
                            const std::vector<std::pair<size_t, size_t>>& where);

// p(target) of doc with the listed (sentence, word) positions removed (the removal check's
// forward pass; also a random-removal baseline's)
double han_prob_without(const models::HAN& m, const models::HANDoc& doc,
                        const std::vector<std::pair<size_t, size_t>>& where, int target);
// k distinct positions of doc drawn with `seed` (at most all words but one)
std::vector<std::pair<size_t, size_t>> random_words(const models::HANDoc& doc, size_t k, uint64_t seed);

// ---------------------------------------------------------------- seq2seq (RNN and Transformer)
struct Seq2SeqAttribution {
  Method method = Method::Grad;
  size_t steps = 1;
  std::vector<int> src, out;           // input ids, decoded output ids (no </s>)
  size_t rows = 0, cols = 0;           // rows = output tokens, cols = input tokens
  std::vector<float> attribution;      // (rows, cols): to log p(out_t) from input token s
  std::vector<float> attention;        // (rows, cols): the teacher-forced cross-attention
                                       // (Transformer: last decoder layer, mean over heads)
  std::vector<double> f, f_baseline;   // (rows) log p(out_t) at the input, at the baseline (IG)
  std::vector<double> tau;             // (rows) Kendall tau-b per output step
  double tau_mean = 0;                 // mean over the rows where tau is defined (NaN if none)
  size_t k = 0;                        // input tokens removed
  double prob = 0;                     // p(output + </s> | input), teacher-forced
  double prob_without_attention = 0;   // the same with the top-k inputs by summed attention removed
  double prob_without_attribution = 0; // ... by summed attribution removed
  std::vector<size_t> removed_attention, removed_attribution;
  std::string kind;              // the model's kind ("seq2seq", "transformer-seq2seq")
  std::string attention_source;  // which attention `attention` holds (in words)
  nlohmann::json to_json() const;
};
// out: the output to explain (usually the model's decoded output, no </s>).
Seq2SeqAttribution attribute_seq2seq(models::Translator& m, const std::vector<int>& src,
                                     const std::vector<int>& out, const Options& o);

// p(out + </s> | src without the listed positions), teacher-forced; NaN if nothing is left
double seq2seq_prob_without(const models::Translator& m, const std::vector<int>& src,
                            const std::vector<int>& out, const std::vector<size_t>& where);

// ---------------------------------------------------------------- from text
// HAN::classify(text) and the attribution of its decision; attribution.attribution[s][t] is the
// word classification.sentences[s].words[t].
struct HANExplained {
  models::HANClassification classification;
  HANAttribution attribution;
  // the classification's JSON with, per word, "attribution" and "attention" (word x sentence
  // weight), and "explain": the rest of HANAttribution::to_json()
  std::string to_json_string() const;
};
HANExplained classify_explained(const models::HAN& m, std::string_view text, const Options& o);

// Translator::translate(text) and the attribution of its output, for every seq2seq kind (RNN
// "seq2seq" and "transformer-seq2seq").
struct TranslationExplained {
  models::Translation translation;
  Seq2SeqAttribution attribution;
};
TranslationExplained translate_explained(models::Translator& m, const std::string& text,
                                         const models::DecodeOptions& d, const Options& o);

template <class Embed>
std::vector<float> Options::baseline_for(size_t n, size_t emb, Embed&& embed) const {
  if (baseline.empty()) {
    if (baseline_kind == Baseline::Zero) return std::vector<float>(n * emb, 0.f);
    const std::vector<float> e = embed(baseline_kind == Baseline::Unk ? data::Vocab::kUnk
                                                                      : data::Vocab::kPad);
    std::vector<float> b(n * emb);
    for (size_t i = 0; i < n; ++i) std::copy(e.begin(), e.end(), b.begin() + long(i * emb));
    return b;
  }
  ATTNLAB_CHECK(baseline.size() == emb || baseline.size() == n * emb,
                "attribution: expected a baseline of ", emb, " values (one embedding for every token) or ",
                n * emb, " (", n, " tokens x ", emb, "), got ", baseline.size());
  if (baseline.size() == n * emb) return baseline;
  std::vector<float> b(n * emb);
  for (size_t i = 0; i < n; ++i) std::copy(baseline.begin(), baseline.end(), b.begin() + long(i * emb));
  return b;
}

}  // namespace attnlab::explain
