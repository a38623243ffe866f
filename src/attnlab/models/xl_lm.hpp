// Character language model, decoder only: Transformer-XL (Dai et al. 2019) and
// its memory-less baseline.
//
//   ids (B,T) -> embedding e (B,T,E)                [baseline: + absolute sinusoids of 0..T-1]
//   N blocks, post-LN as in the paper:
//     a  = Attn(h)                     xl: RelMultiheadAttention over [memory; h]
//                                      (relative sinusoidal encodings, u/v biases,
//                                      relative shift, causal); baseline: causal
//                                      MultiheadAttention within the segment
//     h1 = LayerNorm(h + a)
//     h' = LayerNorm(h1 + W2 relu(W1 h1 + b1) + b2)
//   logits = h_N Wout^T + bout (B,T,V)
//
// Segment recurrence (xl): block n's memory is the last mem_len rows of its own
// input from the previous segments ("the hidden states of layer n-1"), kept by
// its RelMultiheadAttention after every forward as a copy: no gradient reaches
// the memory, parameters still get gradients through the keys/values computed
// from it. The baseline has no memory: each segment stands alone.
//
// Parameter names (safetensors keys): emb.weight,
// layers.<n>.attn.{qkv_net.weight,r_net.weight,o_net.weight,r_w_bias,r_r_bias} (xl)
// or layers.<n>.attn.{in_proj_weight,in_proj_bias,out_proj.weight,out_proj.bias} (baseline),
// layers.<n>.norm1.{weight,bias}, layers.<n>.ff1.{weight,bias}, layers.<n>.ff2.{weight,bias},
// layers.<n>.norm2.{weight,bias}, out.{weight,bias}.
// A model file has kind "char-lm", the config JSON and the character list
// (data::CharVocab symbols) in __metadata__.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/attention/multihead.hpp"
#include "attnlab/attention/relative.hpp"
#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/data/sotu.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/nn/layers.hpp"
#include "attnlab/nn/optim.hpp"

namespace attnlab::models {

using attention::Tensor3;
using attention::Tensor4;

struct CharLMConfig {
  std::string arch = "xl";  // "xl" (relative attention + memory) or "baseline" (absolute, no memory)
  size_t vocab = 0;         // set from the CharVocab
  size_t d_model = 128;     // E (even)
  size_t n_head = 4;        // H
  size_t d_head = 0;        // 0 = d_model / n_head
  size_t d_inner = 512;     // feed-forward width
  size_t n_layer = 4;
  size_t seg_len = 64;      // training segment length
  size_t mem_len = 64;      // training memory length (xl; 0 for the baseline)
  bool xl() const { return arch == "xl"; }
  void check() const;  // throws attnlab::Error naming the bad field
  nlohmann::json to_json() const;
  static CharLMConfig from_json(const std::string& s);
};

class CharLM {
 public:
  struct BlockCache {
    attention::RelMultiheadAttention::Cache rel;
    attention::MultiheadAttention::Cache mha;
    std::vector<float> r1, h1, f1, g, r2;  // (n,E) h+a, LN1 out, (n,F) pre/post relu, (n,E) h1+ff
    std::vector<float> mean1, rstd1, mean2, rstd2;  // (n)
  };
  struct Cache {
    size_t B = 0, T = 0;
    std::vector<int> ids;          // (B,T)
    std::vector<BlockCache> blocks;
    std::vector<float> last;       // (B*T,E) the last block's output
  };

  CharLM(CharLMConfig cfg, data::CharVocab vocab, uint64_t seed);
  CharLM(const CharLM&) = delete;  // params_ points into the layers
  CharLM& operator=(const CharLM&) = delete;

  const CharLMConfig& config() const { return cfg_; }
  const data::CharVocab& vocab() const { return vocab_; }
  ParamList& params() { return params_; }
  const ParamList& params() const { return params_; }

  // ids: (B,T) row-major -> logits (B,T,V). xl: attends over the memory and then
  // updates it (update_memory). weights (optional): per block (B,H,T,M+T) (xl) or
  // (B,H,T,T) (baseline).
  Tensor3 forward(const int* ids, size_t B, size_t T, Cache* cache = nullptr,
                  bool update_memory = true, std::vector<Tensor4>* weights = nullptr);
  // dlogits: (B,T,V) -> accumulates every parameter's grad (the memory gets none)
  void backward(const Tensor3& dlogits, Cache& cache);
  // forward + mean cross-entropy (nats) + backward; targets (B,T)
  double loss_and_grad(const int* ids, const int* targets, size_t B, size_t T);

  // Memory (xl): per block (B,M,E); empty for the baseline.
  void reset_memory();
  void set_mem_len(size_t mem_len);  // memory length used from now on (evaluation, generation)
  size_t mem_len() const { return mem_len_; }
  std::vector<Tensor3> memory() const;
  void set_memory(const std::vector<Tensor3>& m);
  // xl: keep the memory's key/value projections between forwards (inference
  // only: bits_per_char and generate turn it on and off themselves).
  void set_inference_cache(bool on);

  // Bits per character over a stream, segment after segment (one stream, B=1):
  // every character but the first is predicted once. xl: memory of mem_len
  // rows carried across segments; baseline: each segment alone (mem_len ignored).
  // max_chars > 0 evaluates only the first max_chars characters. The training
  // memory and mem_len are restored afterwards. progress(done, total) optional.
  double bits_per_char(const std::vector<int>& stream, size_t seg_len, size_t mem_len,
                       size_t max_chars = 0,
                       const std::function<void(size_t, size_t)>& progress = {});

  std::vector<uint8_t> save(io::DType dtype = io::DType::F16,
                            const std::map<std::string, std::string>& extra = {}) const;
  static std::unique_ptr<CharLM> load(const uint8_t* bytes, size_t size);
  static std::unique_ptr<CharLM> load(const std::vector<uint8_t>& b) { return load(b.data(), b.size()); }
  static std::unique_ptr<CharLM> load(const io::SafeTensors& st);

  // Sinusoids of absolute positions 0..T-1: (T,E), [sin(p f_k), cos(p f_k)]
  static std::vector<float> absolute_positions(size_t T, size_t E);

 private:
  struct Block {
    attention::RelMultiheadAttention rel;
    attention::MultiheadAttention mha;
    nn::LayerNorm norm1, norm2;
    nn::Linear ff1, ff2;
  };
  // h: (B,T,E) -> (B,T,E); train: keep the attention's cache for backward
  Tensor3 block_forward(Block& blk, const Tensor3& h, BlockCache& c, bool train,
                        bool update_memory, Tensor4* weights);
  // dout: (B,T,E) -> dh (B,T,E)
  Tensor3 block_backward(Block& blk, const Tensor3& dout, BlockCache& c);

  CharLMConfig cfg_;
  data::CharVocab vocab_;
  nn::Embedding emb_;
  std::vector<Block> blocks_;
  nn::Linear out_;
  ParamList params_;
  size_t mem_len_ = 0;
};

// ------------------------------------------------------------------ generation
struct GenerateOptions {
  size_t n = 200;             // characters to generate
  float temperature = 1.f;    // 0 = greedy (argmax)
  size_t top_k = 0;           // 0 = all characters
  uint64_t seed = 0;
  size_t mem_len = 0;         // xl: memory rows kept while generating; 0 = seg_len + mem_len
  bool attention = false;     // record, per generated character, the attention that chose it
  // called after each generated character (id, its text); return false to stop
  std::function<bool(int, const std::string&)> on_token;
};
// The attention of the query that predicted one generated character: the
// query is the character before it, at `query` in the model's input sequence
// (the prompt as encoded, or "\n" for an empty prompt, then the generated
// characters). Key j is the character at query + 1 - keys + j; keys [0, memory)
// came from the XL memory, the rest from the current segment.
struct GenAttention {
  size_t query = 0, keys = 0, memory = 0;
  std::vector<float> weights;  // (layers, heads, keys); each (layer, head) row sums to 1
};
struct Generation {
  std::vector<int> ids;  // generated ids (without the prompt)
  std::string text;      // their text
  std::vector<int> prompt_ids;  // the model's input before the generated characters
  std::vector<GenAttention> attention;  // per generated character (options.attention)
};
// Feeds the prompt (empty = the address boundary "\n"), then samples one
// character at a time. xl: each new character is one segment of length 1 whose
// context is the memory, carried from segment to segment (mem_len rows);
// baseline: the last seg_len characters are re-read for every new one.
// Same model, prompt, options and seed -> the same text. The model's memory is
// left holding the generation's context (call reset_memory() before training).
Generation generate(CharLM& m, const std::string& prompt, const GenerateOptions& opt);

// Samples an id from logits (V) with temperature and top-k (ties broken by the
// lower id); temperature 0 returns the argmax.
int sample_logits(const float* logits, size_t V, float temperature, size_t top_k, Rng& rng);

// ------------------------------------------------------------------ training
// Trained the paper's way: the stream is cut into `batch` contiguous parts, one
// per batch row; step k feeds the k-th segment of seg_len characters of every
// part (targets: the next characters), so each row's memory is the previous
// segment of the same text. An epoch ends when the parts run out; the memory is
// reset then. Adam, linear warm-up then cosine decay to min_lr, global-norm
// clipping. A checkpoint holds parameters, Adam state, step AND the memory, so a
// resumed run is bit-identical to an uninterrupted one.
struct CharLMTrainOptions {
  size_t batch = 16;
  size_t steps = 1000;     // total optimizer steps
  float lr = 1e-3f;
  size_t warmup = 200;
  float min_lr = 1e-4f;
  float clip = 0.25f;      // 0 = off
};

class CharLMTrainer {
 public:
  CharLMTrainer(CharLM& m, const std::vector<int>& stream, const CharLMTrainOptions& opt);
  double step();  // one optimizer step; returns the batch's mean loss (nats per char)
  size_t steps_done() const { return step_; }
  size_t steps_per_epoch() const { return per_epoch_; }
  const CharLMTrainOptions& options() const { return opt_; }
  float lr() const { return adam_.lr; }

  // parameters "param.*", Adam state "optim.*", memory "memory.<n>"; metadata
  // kind "attnlab-checkpoint", step, optimizer_steps, plus `meta`.
  std::vector<uint8_t> checkpoint(const std::map<std::string, std::string>& meta = {});
  void restore(const io::SafeTensors& ck);

 private:
  CharLM& m_;
  const std::vector<int>& stream_;
  CharLMTrainOptions opt_;
  nn::Adam adam_;
  nn::LrSchedule sched_;
  size_t part_ = 0, per_epoch_ = 0, step_ = 0;
  std::vector<int> ids_, tgt_;
};

}  // namespace attnlab::models
