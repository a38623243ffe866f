// A small built-in task and model that exercise the whole engine before the
// real models exist: "toy-reverse" (reverse a random digit sequence) solved by
// a GRU encoder-decoder with Luong dot-product attention, trained with teacher
// forcing. Also the shape of the training benchmark (bench_train).
//
// Tokens: 0 <pad>, 1 <bos>, 2 <eos>, 3.. symbols.
// Model:  src_emb -> encoder GRU -> enc (B,Ts,H), h
//         tgt_emb(<bos> y) -> decoder GRU (h0 = h) -> dec (B,Td,H)
//         a = softmax(dec enc^T, masked past src lengths); ctx = a enc
//         comb = tanh(W_c [ctx; dec]); logits = W_o comb; CE ignoring <pad>
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/nn/layers.hpp"
#include "attnlab/nn/rnn.hpp"

namespace attnlab::models {

struct ToyConfig {
  size_t vocab = 13;  // 3 specials + 10 symbols
  size_t emb = 32;
  size_t hidden = 64;
  size_t min_len = 3, max_len = 8;
  std::string to_json() const;
  static ToyConfig from_json(const std::string& s);  // validates
};

constexpr int kPad = 0, kBos = 1, kEos = 2;

struct ToyData {
  std::vector<std::vector<int>> src, tgt;  // tgt = reversed src (no bos/eos)
};
// n samples, lengths uniform in [min_len, max_len], symbols uniform.
ToyData make_toy_reverse(size_t n, const ToyConfig& cfg, uint64_t seed);
std::vector<std::string> toy_vocab(const ToyConfig& cfg);  // "<pad>","<bos>","<eos>","a",...

struct ToyBatch {
  size_t B = 0, Ts = 0, Td = 0;
  std::vector<int> src, tgt_in, tgt_out;  // (B,Ts), (B,Td), (B,Td)
  std::vector<size_t> src_len, tgt_len;   // tgt_len = len(y) + 1
};
ToyBatch make_toy_batch(const ToyData& d, const std::vector<size_t>& idx);

class ToySeq2Seq {
 public:
  ToySeq2Seq(const ToyConfig& cfg, uint64_t seed);
  void collect(ParamList& out);
  // forward + backward (grads accumulate); returns mean token cross-entropy
  float train_step(const ToyBatch& b);
  // forward only
  float loss(const ToyBatch& b) const;
  // greedy decoding of one sequence; attn (optional) gets (steps, len(src)) weights
  std::vector<int> greedy(const std::vector<int>& src, size_t max_out,
                          std::vector<float>* attn = nullptr) const;
  // One model file: kind "toy-reverse", config, vocabulary (toy_vocab) and o.meta.
  std::vector<uint8_t> save(const io::SaveOptions& o) const;
  static std::unique_ptr<ToySeq2Seq> load(const io::SafeTensors& st);

  ToyConfig cfg;
  nn::Embedding src_emb, tgt_emb;
  nn::GRU encoder, decoder;
  nn::Linear combine, out;

 private:
  float run(const ToyBatch& b, bool backward);
};

}  // namespace attnlab::models
