// Transformer-XL relative multi-head attention (Dai et al. 2019, section 3.3),
// one layer's attention block (no residual / layer norm: compose those in nn/).
//
// With memory m (B,M,E) from earlier segments and the current segment x (B,T,E),
// c = [m; x] (L = M + T rows), head h:
//   q = x W_q^T,  k = c W_k^T,  v = c W_v^T,  r = R W_r^T (R: sinusoidal relative encodings)
//   score(i,j) = [ (q_i + u) . k_j  +  (q_i + v_bias) . r_{(M+i)-j} ] / sqrt(d_head)
//      (a)+(c): content term with global content bias u = "r_w_bias"
//      (b)+(d): position term with global position bias v_bias = "r_r_bias"
//   causal: query i (absolute position M+i) sees keys j <= M+i (memory + current prefix).
//   out = concat_h(softmax(score) v) W_o^T
// The position term is computed for all L relative distances with one gemm per
// head (columns ordered by distance L-1 ... 0) and then "relatively shifted":
// BD[i][j] = BD_full[i][j + T-1-i] (the paper's shift, as an index map instead
// of the pad-and-reshape trick).
// R[c] = [sin(d * f_0..f_{E/2-1}), cos(d * f_0..)], d = L-1-c, f_k = 10000^(-2k/E).
// Parameters (names as the reference implementation): "qkv_net.weight" (3*H*Dh, E),
// "r_net.weight" (H*Dh, E), "o_net.weight" (E, H*Dh), "r_w_bias" (H,Dh), "r_r_bias" (H,Dh).
// Memory: after each forward with update_memory, the memory becomes the last
// min(mem_len, L) rows of c (a copy: no gradient ever flows into memory; the
// parameters still get gradients from the memory rows' keys and values).
// mem_len = 0 disables memory. reset_memory() clears it (needed when B changes).
#pragma once
#include "attnlab/attention/common.hpp"

namespace attnlab::attention {

struct RelConfig {
  size_t d_model = 0;  // E (must be even)
  size_t n_head = 1;   // H
  size_t d_head = 0;   // Dh; 0 = d_model / n_head
  size_t mem_len = 0;  // memory rows kept between calls
};

class RelMultiheadAttention {
 public:
  struct Cache {
    size_t M = 0;
    Tensor3 cat;  // (B,L,E) [memory; x]
    Tensor2 R;    // (L,E) sinusoids
    Tensor3 q;    // (B,T,I)
    Tensor3 kv;   // (B,L,2I)
    Tensor2 r;    // (L,I)
    Tensor4 P;    // (B,H,T,L)
    Tensor3 ctx;  // (B,T,I)
  };
  RelMultiheadAttention() = default;
  RelMultiheadAttention(const RelConfig& cfg, Rng& rng);
  const RelConfig& config() const { return cfg_; }
  void collect(ParamList& out, const std::string& prefix);

  // x: (B,T,E) (+ memory (B,M,E)) -> out: (B,T,E); weights (optional) -> (B,H,T,M+T)
  Tensor3 forward(const Tensor3& x, Cache* cache = nullptr, bool update_memory = true,
                  Tensor4* weights = nullptr);
  // dout: (B,T,E) -> dx (B,T,E) overwritten; parameter grads accumulate; memory gets none.
  void backward(const Tensor3& dout, const Cache& cache, Tensor3& dx);

  const Tensor3& memory() const;
  void set_memory(const Tensor3& m);  // (B,M,E), M <= mem_len
  void reset_memory();
  // Memory length from now on (e.g. longer at evaluation); a longer memory held
  // now is cut to its last mem_len rows.
  void set_mem_len(size_t mem_len);
  // Inference only (evaluation, generation): keep the key/value projections of
  // the memory rows and the projected relative encodings between calls, so a
  // forward projects only its new rows (one character at a time costs O(M Dh)
  // per head instead of O(M E I)). The results are the same as without it. The
  // parameters must not change while it is on, and forward with a Cache
  // (training) is refused.
  void set_inference_cache(bool on);
  bool inference_cache() const { return infer_; }

  // (L,E) sinusoidal encodings for distances L-1, L-2, ..., 0
  static Tensor2 sinusoids(size_t L, size_t E);

  Param qkv_weight, r_weight, o_weight, r_w_bias, r_r_bias;

 private:
  // Per batch item a window of `rows` consecutive rows of width W inside (B,cap,W)
  // storage: new rows are appended after the window, old ones dropped from its
  // front; the window slides back to the front only when the storage end is hit.
  struct RowWindow {
    size_t B = 0, W = 0, cap = 0, start = 0, rows = 0;
    std::vector<float> buf;
    void reset(size_t B_, size_t W_);
    void make_room(size_t n);  // room for n rows after the window
    void keep_last(size_t k);
    float* row(size_t b, size_t i) { return buf.data() + (b * cap + start + i) * W; }
    const float* row(size_t b, size_t i) const { return buf.data() + (b * cap + start + i) * W; }
  };
  // scores (content + shifted position terms, causal), softmax, context; one path
  // for training and inference. q: (B,T,I), kv: B blocks of (M+T,2I) rows kv_stride
  // floats apart, r: (M+T,I) -> P: (B,H,T,M+T), ctx: (B,T,I)
  void attend(size_t B, size_t T, size_t M, const float* q, const float* kv, size_t kv_stride,
              const float* r, float* P, float* ctx) const;
  const float* projected_sinusoids(size_t L, Tensor2& R, Tensor2& r);
  Tensor3 forward_inference(const Tensor3& x, bool update_memory, Tensor4* weights);
  void load_windows(const Tensor3& m);

  RelConfig cfg_;
  mutable Tensor3 mem_;  // with the inference cache on: a copy of hwin_ made by memory()
  bool infer_ = false;
  RowWindow hwin_, kvwin_;  // inference cache: memory rows (B,M,E) and their k,v (B,M,2I)
  Tensor2 r_cache_;         // (L,I) projected encodings for r_cache_L_
  size_t r_cache_L_ = 0;
};

}  // namespace attnlab::attention
