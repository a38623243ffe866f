#include "attnlab/models/xl_lm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "attnlab/core/error.hpp"
#include "attnlab/io/config_fields.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/nn/loss.hpp"
#include "attnlab/nn/train.hpp"

namespace attnlab::models {

namespace k = attnlab::kernels;
using json = nlohmann::json;

// ================================================================== config
void CharLMConfig::check() const {
  ATTNLAB_CHECK(arch == "xl" || arch == "baseline", "char-lm config: arch must be 'xl' or ",
                "'baseline', got '", arch, "'");
  ATTNLAB_CHECK(vocab >= 2, "char-lm config: vocab must be >= 2, got ", vocab);
  ATTNLAB_CHECK(d_model >= 2 && d_model % 2 == 0 && d_model <= 8192,
                "char-lm config: d_model must be even in [2, 8192], got ", d_model);
  ATTNLAB_CHECK(n_head >= 1 && n_head <= 256, "char-lm config: n_head must be in [1, 256], got ",
                n_head);
  if (arch == "baseline")
    ATTNLAB_CHECK(d_model % n_head == 0 && (d_head == 0 || d_head == d_model / n_head),
                  "char-lm config: the baseline needs d_model divisible by n_head and d_head = 0 ",
                  "or d_model / n_head, got d_model ", d_model, " n_head ", n_head, " d_head ",
                  d_head);
  else
    ATTNLAB_CHECK(d_head != 0 || d_model % n_head == 0, "char-lm config: d_model (", d_model,
                  ") must be divisible by n_head (", n_head, ") when d_head = 0");
  ATTNLAB_CHECK(d_head <= 4096, "char-lm config: d_head too large: ", d_head);
  ATTNLAB_CHECK(d_inner >= 1 && d_inner <= 65536, "char-lm config: d_inner must be in [1, 65536], got ",
                d_inner);
  ATTNLAB_CHECK(n_layer >= 1 && n_layer <= 64, "char-lm config: n_layer must be in [1, 64], got ",
                n_layer);
  ATTNLAB_CHECK(seg_len >= 1 && seg_len <= 65536, "char-lm config: seg_len must be in [1, 65536], got ",
                seg_len);
  ATTNLAB_CHECK(mem_len <= 65536, "char-lm config: mem_len must be <= 65536, got ", mem_len);
  ATTNLAB_CHECK(arch == "xl" || mem_len == 0, "char-lm config: the baseline has no memory ",
                "(mem_len must be 0), got ", mem_len);
}

namespace {
// the config's keys, each once (io/config_fields.hpp), all required and read typed (as the
// Transformer seq2seq's); check() has the ranges
using Cfg = CharLMConfig;
constexpr auto kFields = std::make_tuple(
    io::field("arch", &Cfg::arch).required(), io::field("vocab", &Cfg::vocab).required(),
    io::field("d_model", &Cfg::d_model).required(), io::field("n_head", &Cfg::n_head).required(),
    io::field("d_head", &Cfg::d_head).required(), io::field("d_inner", &Cfg::d_inner).required(),
    io::field("n_layer", &Cfg::n_layer).required(), io::field("seg_len", &Cfg::seg_len).required(),
    io::field("mem_len", &Cfg::mem_len).required());
}  // namespace

json CharLMConfig::to_json() const { return io::fields_json(*this, kFields); }

CharLMConfig CharLMConfig::from_json(const std::string& s) {
  return io::read_config(s, "char-lm", kFields, &CharLMConfig::check);
}

// ================================================================== model
CharLM::CharLM(CharLMConfig cfg, data::CharVocab vocab, uint64_t seed)
    : cfg_(std::move(cfg)), vocab_(std::move(vocab)) {
  cfg_.vocab = vocab_.size();
  cfg_.check();
  Rng rng(seed);
  const size_t E = cfg_.d_model;
  emb_ = nn::Embedding(cfg_.vocab, E, rng);
  emb_.collect(params_, "emb.");
  blocks_.resize(cfg_.n_layer);
  for (size_t n = 0; n < cfg_.n_layer; ++n) {
    Block& b = blocks_[n];
    const std::string p = "layers." + std::to_string(n) + ".";
    if (cfg_.xl()) {
      b.rel = attention::RelMultiheadAttention({E, cfg_.n_head, cfg_.d_head, cfg_.mem_len}, rng);
      b.rel.collect(params_, p + "attn.");
    } else {
      b.mha = attention::MultiheadAttention(E, cfg_.n_head, rng);
      b.mha.collect(params_, p + "attn.");
    }
    b.norm1 = nn::LayerNorm(E);
    b.norm1.collect(params_, p + "norm1.");
    b.ff1 = nn::Linear(E, cfg_.d_inner, rng);
    b.ff1.collect(params_, p + "ff1.");
    b.ff2 = nn::Linear(cfg_.d_inner, E, rng);
    b.ff2.collect(params_, p + "ff2.");
    b.norm2 = nn::LayerNorm(E);
    b.norm2.collect(params_, p + "norm2.");
  }
  out_ = nn::Linear(E, cfg_.vocab, rng);
  out_.collect(params_, "out.");
  mem_len_ = cfg_.mem_len;
}

std::vector<float> CharLM::absolute_positions(size_t T, size_t E) {
  std::vector<float> P(T * E);
  const size_t half = E / 2;
  for (size_t p = 0; p < T; ++p)
    for (size_t i = 0; i < half; ++i) {
      const double f = std::pow(10000.0, -2.0 * double(i) / double(E));
      P[p * E + i] = float(std::sin(double(p) * f));
      P[p * E + half + i] = float(std::cos(double(p) * f));
    }
  return P;
}

Tensor3 CharLM::block_forward(Block& blk, const Tensor3& h, BlockCache& c, bool train,
                              bool update_memory, Tensor4* weights) {
  // h: (B,T,E) -> out: (B,T,E); weights: (B,H,T,M+T) xl, (B,H,T,T) baseline
  const size_t B = h.shape(0), T = h.shape(1), E = h.shape(2), F = cfg_.d_inner, n = B * T;
  Tensor3 a;
  if (cfg_.xl()) {
    a = blk.rel.forward(h, train ? &c.rel : nullptr, update_memory, weights);
  } else {
    attention::MhaOptions o;
    o.is_causal = true;
    o.need_weights = weights != nullptr;
    o.average_attn_weights = false;
    attention::MhaResult r = blk.mha.forward(h, h, h, o, train ? &c.mha : nullptr);
    a = std::move(r.out);
    if (weights) *weights = std::move(r.head_weights);
  }
  c.r1.resize(n * E);
  c.h1.resize(n * E);
  c.f1.resize(n * F);
  c.g.resize(n * F);
  c.r2.resize(n * E);
  c.mean1.resize(n), c.rstd1.resize(n), c.mean2.resize(n), c.rstd2.resize(n);
  std::copy(h.data(), h.data() + n * E, c.r1.data());
  k::add(n * E, a.data(), c.r1.data());  // r1 = h + a
  k::layernorm(n, E, c.r1.data(), blk.norm1.weight.data(), blk.norm1.bias.data(), blk.norm1.eps,
               c.h1.data(), c.mean1.data(), c.rstd1.data());
  blk.ff1.forward(n, c.h1.data(), c.f1.data());  // (n,F)
  k::relu(n * F, c.f1.data(), c.g.data());
  blk.ff2.forward(n, c.g.data(), c.r2.data());  // (n,E)
  k::add(n * E, c.h1.data(), c.r2.data());      // r2 = h1 + ff
  Tensor3 out = Tensor3::from_shape({B, T, E});
  k::layernorm(n, E, c.r2.data(), blk.norm2.weight.data(), blk.norm2.bias.data(), blk.norm2.eps,
               out.data(), c.mean2.data(), c.rstd2.data());
  return out;
}

Tensor3 CharLM::block_backward(Block& blk, const Tensor3& dout, BlockCache& c) {
  // dout: (B,T,E) -> dh: (B,T,E)
  const size_t B = dout.shape(0), T = dout.shape(1), E = dout.shape(2), F = cfg_.d_inner,
               n = B * T;
  std::vector<float> dr2(n * E), dg(n * F), dh1(n * E);
  k::layernorm_backward(n, E, dout.data(), c.r2.data(), blk.norm2.weight.data(), c.mean2.data(),
                        c.rstd2.data(), dr2.data(), blk.norm2.weight.gdata(),
                        blk.norm2.bias.gdata());
  blk.ff2.backward(n, c.g.data(), dr2.data(), dg.data());
  k::relu_backward(n * F, c.f1.data(), dg.data(), dg.data());
  blk.ff1.backward(n, c.h1.data(), dg.data(), dh1.data());
  k::add(n * E, dr2.data(), dh1.data());  // residual
  Tensor3 dr1 = Tensor3::from_shape({B, T, E});
  k::layernorm_backward(n, E, dh1.data(), c.r1.data(), blk.norm1.weight.data(), c.mean1.data(),
                        c.rstd1.data(), dr1.data(), blk.norm1.weight.gdata(),
                        blk.norm1.bias.gdata());
  Tensor3 dh;
  if (cfg_.xl()) {
    blk.rel.backward(dr1, c.rel, dh);
  } else {
    Tensor3 dq, dk, dv;
    blk.mha.backward(dr1, c.mha, dq, dk, dv);
    dh = std::move(dq);
    k::add(n * E, dk.data(), dh.data());
    k::add(n * E, dv.data(), dh.data());
  }
  k::add(n * E, dr1.data(), dh.data());  // residual
  return dh;
}

Tensor3 CharLM::forward(const int* ids, size_t B, size_t T, Cache* cache, bool update_memory,
                        std::vector<Tensor4>* weights) {
  // ids: (B,T) -> logits: (B,T,V)
  ATTNLAB_CHECK(B > 0 && T > 0, "char-lm: empty input (B=", B, ", T=", T, ")");
  const size_t E = cfg_.d_model, V = cfg_.vocab, n = B * T;
  for (size_t i = 0; i < n; ++i)
    ATTNLAB_CHECK(ids[i] >= 0 && static_cast<size_t>(ids[i]) < V, "char-lm: character id ",
                  ids[i], " at position ", i, " is outside the vocabulary [0, ", V, ")");
  Cache local;
  Cache& c = cache ? *cache : local;
  c.B = B;
  c.T = T;
  c.ids.assign(ids, ids + n);
  c.blocks.resize(blocks_.size());
  Tensor3 h = Tensor3::from_shape({B, T, E});
  emb_.forward(n, ids, h.data());
  if (!cfg_.xl()) {
    const std::vector<float> P = absolute_positions(T, E);
    for (size_t b = 0; b < B; ++b) k::add(T * E, P.data(), h.data() + b * T * E);
  }
  if (weights) weights->assign(blocks_.size(), Tensor4());
  for (size_t l = 0; l < blocks_.size(); ++l)
    h = block_forward(blocks_[l], h, c.blocks[l], cache != nullptr, update_memory,
                      weights ? &(*weights)[l] : nullptr);
  c.last.assign(h.data(), h.data() + n * E);
  Tensor3 logits = Tensor3::from_shape({B, T, V});
  out_.forward(n, h.data(), logits.data());
  return logits;
}

void CharLM::backward(const Tensor3& dlogits, Cache& c) {
  const size_t B = c.B, T = c.T, E = cfg_.d_model, n = B * T;
  ATTNLAB_CHECK(dlogits.shape(0) == B && dlogits.shape(1) == T && dlogits.shape(2) == cfg_.vocab,
                "char-lm backward: expected dlogits (", B, ",", T, ",", cfg_.vocab, ")");
  Tensor3 dh = Tensor3::from_shape({B, T, E});
  out_.backward(n, c.last.data(), dlogits.data(), dh.data());
  for (size_t l = blocks_.size(); l-- > 0;) dh = block_backward(blocks_[l], dh, c.blocks[l]);
  emb_.backward(n, c.ids.data(), dh.data());  // positions (baseline) are constants
}

double CharLM::loss_and_grad(const int* ids, const int* targets, size_t B, size_t T) {
  Cache c;
  Tensor3 logits = forward(ids, B, T, &c, true);
  Tensor3 dlogits = Tensor3::from_shape(logits.shape());
  const double loss =
      nn::cross_entropy(B * T, cfg_.vocab, logits.data(), targets, dlogits.data());
  backward(dlogits, c);
  return loss;
}

void CharLM::reset_memory() {
  for (auto& b : blocks_) b.rel.reset_memory();
}

void CharLM::set_mem_len(size_t mem_len) {
  mem_len_ = cfg_.xl() ? mem_len : 0;
  if (cfg_.xl())
    for (auto& b : blocks_) b.rel.set_mem_len(mem_len);
}

void CharLM::set_inference_cache(bool on) {
  if (cfg_.xl())
    for (auto& b : blocks_) b.rel.set_inference_cache(on);
}

namespace {
struct InferenceCache {  // on for a scope, off again even on an exception
  CharLM& m;
  explicit InferenceCache(CharLM& m_) : m(m_) { m.set_inference_cache(true); }
  ~InferenceCache() { m.set_inference_cache(false); }
};
}  // namespace

std::vector<Tensor3> CharLM::memory() const {
  std::vector<Tensor3> m;
  if (cfg_.xl())
    for (const auto& b : blocks_) m.push_back(b.rel.memory());
  return m;
}

void CharLM::set_memory(const std::vector<Tensor3>& m) {
  if (!cfg_.xl()) {
    ATTNLAB_CHECK(m.empty(), "char-lm: the baseline has no memory to set");
    return;
  }
  ATTNLAB_CHECK(m.size() == blocks_.size(), "char-lm: expected memory for ", blocks_.size(),
                " blocks, got ", m.size());
  for (size_t l = 0; l < blocks_.size(); ++l) blocks_[l].rel.set_memory(m[l]);
}

double CharLM::bits_per_char(const std::vector<int>& stream, size_t seg_len, size_t mem_len,
                             size_t max_chars, const std::function<void(size_t, size_t)>& progress) {
  ATTNLAB_CHECK(seg_len >= 1, "bits_per_char: seg_len must be >= 1");
  const size_t N = max_chars ? std::min(max_chars, stream.size()) : stream.size();
  ATTNLAB_CHECK(N >= 2, "bits_per_char: need at least 2 characters, got ", N);
  const std::vector<Tensor3> saved = memory();
  const size_t saved_len = mem_len_;
  reset_memory();
  set_mem_len(mem_len);
  InferenceCache inference(*this);
  double nats = 0;
  const size_t total = N - 1;  // predictions
  std::vector<float> lse;
  for (size_t s = 0; s < total; s += seg_len) {
    const size_t T = std::min(seg_len, total - s);
    Tensor3 logits = forward(stream.data() + s, 1, T, nullptr, true);
    const size_t V = cfg_.vocab;
    for (size_t t = 0; t < T; ++t) {
      const float* z = logits.data() + t * V;
      const float mx = *std::max_element(z, z + V);
      double se = 0;
      for (size_t v = 0; v < V; ++v) se += std::exp(double(z[v]) - mx);
      nats += std::log(se) + mx - z[stream[s + t + 1]];
    }
    if (progress) progress(s + T, total);
  }
  reset_memory();
  set_mem_len(saved_len);
  if (cfg_.xl()) {
    bool any = false;
    for (const auto& m : saved) any = any || m.size() > 0;
    if (any) set_memory(saved);
  }
  return nats / double(total) / std::log(2.0);
}

std::vector<uint8_t> CharLM::save(io::DType dtype,
                                  const std::map<std::string, std::string>& extra) const {
  io::ModelInfo info;
  info.kind = "char-lm";
  info.config = cfg_.to_json().dump();
  info.vocab = vocab_.symbols();
  info.extra = extra;
  return io::save_model(info, params_, dtype);
}

std::unique_ptr<CharLM> CharLM::load(const uint8_t* bytes, size_t size) {
  return load(io::decode(bytes, size));
}

std::unique_ptr<CharLM> CharLM::load(const io::SafeTensors& st) {
  const io::ModelInfo info = io::model_info(st);
  ATTNLAB_CHECK(info.kind == "char-lm", "expected a character language model file (kind ",
                "'char-lm'), got kind '", info.kind, "'");
  const CharLMConfig cfg = CharLMConfig::from_json(info.config);
  data::CharVocab vocab = data::CharVocab::from_symbols(info.vocab);
  ATTNLAB_CHECK(vocab.size() == cfg.vocab, "char-lm file: config says vocab ", cfg.vocab,
                " but the file lists ", vocab.size(), " characters");
  const ParamBudget budget(st.total_elements());  // config checked against the file first
  auto m = std::make_unique<CharLM>(cfg, std::move(vocab), 0);
  io::load_params(st, m->params_, "", true);
  return m;
}

// ================================================================== generation
int sample_logits(const float* logits, size_t V, float temperature, size_t top_k, Rng& rng) {
  ATTNLAB_CHECK(V > 0, "sample_logits: empty logits");
  ATTNLAB_CHECK(temperature >= 0 && std::isfinite(temperature),
                "sample: temperature must be a finite number >= 0, got ", temperature);
  size_t best = 0;
  for (size_t v = 1; v < V; ++v)
    if (logits[v] > logits[best]) best = v;
  if (temperature == 0.f || top_k == 1) return static_cast<int>(best);
  std::vector<size_t> idx(V);
  std::iota(idx.begin(), idx.end(), size_t(0));
  size_t K = V;
  if (top_k > 0 && top_k < V) {
    std::partial_sort(idx.begin(), idx.begin() + top_k, idx.end(), [&](size_t a, size_t b) {
      return logits[a] != logits[b] ? logits[a] > logits[b] : a < b;
    });
    K = top_k;
    std::sort(idx.begin(), idx.begin() + K);
  }
  std::vector<double> p(K);
  const double mx = logits[best];
  double z = 0;
  for (size_t i = 0; i < K; ++i) z += (p[i] = std::exp((double(logits[idx[i]]) - mx) / temperature));
  double u = rng.uniform() * z;
  for (size_t i = 0; i < K; ++i) {
    u -= p[i];
    if (u < 0) return static_cast<int>(idx[i]);
  }
  return static_cast<int>(idx[K - 1]);
}

namespace {
// the last query row of every block's weights (1,H,T,L) -> (layers, H, L)
GenAttention last_query_attention(const std::vector<Tensor4>& w, size_t query) {
  GenAttention a;
  const size_t H = w.at(0).shape(1), T = w[0].shape(2), L = w[0].shape(3);
  a.query = query;
  a.keys = L;
  a.memory = L - T;
  a.weights.resize(w.size() * H * L);
  for (size_t l = 0; l < w.size(); ++l)
    for (size_t h = 0; h < H; ++h)
      std::copy(w[l].data() + (h * T + T - 1) * L, w[l].data() + (h * T + T) * L,
                a.weights.data() + (l * H + h) * L);
  return a;
}
}  // namespace

Generation generate(CharLM& m, const std::string& prompt, const GenerateOptions& opt) {
  const CharLMConfig& cfg = m.config();
  const size_t V = cfg.vocab;
  std::vector<int> ctx = m.vocab().encode(prompt);
  if (ctx.empty()) ctx.push_back(data::CharVocab::kBoundary);
  Rng rng(opt.seed);
  Generation g;
  g.prompt_ids = ctx;
  std::vector<float> last(V);
  std::vector<Tensor4> w;
  std::vector<Tensor4>* wp = opt.attention ? &w : nullptr;
  GenAttention pending;  // attention of the forward whose logits choose the next character
  auto emit = [&](int id) {
    g.ids.push_back(id);
    if (opt.attention) g.attention.push_back(std::move(pending));
    const std::string& sym = m.vocab().symbol(id);
    g.text += sym;
    return !opt.on_token || opt.on_token(id, sym);
  };
  if (cfg.xl()) {
    InferenceCache inference(m);
    m.reset_memory();
    m.set_mem_len(opt.mem_len ? opt.mem_len : cfg.seg_len + cfg.mem_len);
    for (size_t s = 0; s < ctx.size(); s += cfg.seg_len) {  // the prompt, segment by segment
      const size_t T = std::min(cfg.seg_len, ctx.size() - s);
      Tensor3 lg = m.forward(ctx.data() + s, 1, T, nullptr, true, wp);
      std::copy(lg.data() + (T - 1) * V, lg.data() + T * V, last.data());
      if (wp) pending = last_query_attention(w, s + T - 1);
    }
    for (size_t i = 0; i < opt.n; ++i) {
      const int id = sample_logits(last.data(), V, opt.temperature, opt.top_k, rng);
      if (!emit(id) || i + 1 == opt.n) break;
      Tensor3 lg = m.forward(&id, 1, 1, nullptr, true, wp);  // a segment of one character
      std::copy(lg.data(), lg.data() + V, last.data());
      if (wp) pending = last_query_attention(w, ctx.size() + i);
    }
  } else {
    for (size_t i = 0; i < opt.n; ++i) {
      const size_t T = std::min(cfg.seg_len, ctx.size());
      Tensor3 lg = m.forward(ctx.data() + ctx.size() - T, 1, T, nullptr, false, wp);
      if (wp) pending = last_query_attention(w, ctx.size() - 1);
      const int id = sample_logits(lg.data() + (T - 1) * V, V, opt.temperature, opt.top_k, rng);
      ctx.push_back(id);
      if (!emit(id)) break;
    }
  }
  return g;
}

// ================================================================== training
CharLMTrainer::CharLMTrainer(CharLM& m, const std::vector<int>& stream,
                             const CharLMTrainOptions& opt)
    : m_(m), stream_(stream), opt_(opt), adam_(m.params(), opt.lr) {
  const size_t T = m.config().seg_len;
  ATTNLAB_CHECK(opt.batch >= 1, "char-lm training: batch must be >= 1");
  ATTNLAB_CHECK(opt.steps >= 1, "char-lm training: steps must be >= 1");
  part_ = stream.size() / opt.batch;
  ATTNLAB_CHECK(part_ > T, "char-lm training: the stream (", stream.size(),
                " characters) is too short for ", opt.batch, " rows of segments of ", T);
  per_epoch_ = (part_ - 1) / T;
  sched_.base_lr = opt.lr;
  sched_.warmup = opt.warmup;
  sched_.total = opt.steps;
  sched_.decay = nn::LrSchedule::Decay::Cosine;
  sched_.min_lr = opt.min_lr;
  m_.reset_memory();
  m_.set_mem_len(m.config().mem_len);
}

double CharLMTrainer::step() {
  const size_t B = opt_.batch, T = m_.config().seg_len;
  const size_t k = step_ % per_epoch_;
  if (k == 0) m_.reset_memory();  // each epoch starts the parts afresh
  ids_.resize(B * T);
  tgt_.resize(B * T);
  for (size_t b = 0; b < B; ++b)
    for (size_t t = 0; t < T; ++t) {
      const size_t pos = b * part_ + k * T + t;
      ids_[b * T + t] = stream_[pos];
      tgt_[b * T + t] = stream_[pos + 1];
    }
  m_.params().zero_grad();
  const double loss = m_.loss_and_grad(ids_.data(), tgt_.data(), B, T);
  ATTNLAB_CHECK(std::isfinite(loss), "char-lm training diverged: loss is ", loss, " at step ",
                step_, " (try a lower --lr or --clip)");
  adam_.lr = sched_.lr_at(step_);
  if (opt_.clip > 0) nn::clip_grad_norm(m_.params(), opt_.clip);
  adam_.step();
  ++step_;
  return loss;
}

std::vector<uint8_t> CharLMTrainer::checkpoint(const std::map<std::string, std::string>& meta) {
  std::vector<io::TensorView> views = nn::training_state_views(m_.params(), adam_);
  const std::vector<Tensor3> mem = m_.memory();
  for (size_t l = 0; l < mem.size(); ++l)
    if (mem[l].size())
      views.push_back({"memory." + std::to_string(l),
                       std::vector<size_t>(mem[l].shape().begin(), mem[l].shape().end()),
                       mem[l].data()});
  std::map<std::string, std::string> md = meta;
  nn::add_training_meta(md, step_, adam_);
  md["model"] = "char-lm";
  return io::encode(views, md, io::DType::F32);
}

void CharLMTrainer::restore(const io::SafeTensors& ck) {
  ATTNLAB_CHECK(ck.meta("kind") == "attnlab-checkpoint" && ck.meta("model") == "char-lm",
                "checkpoint: expected a char-lm training checkpoint, got kind '", ck.meta("kind"),
                "' model '", ck.meta("model"), "'");
  step_ = nn::restore_training_state(ck, m_.params(), adam_);
  m_.reset_memory();
  if (m_.config().xl()) {
    std::vector<Tensor3> mem(m_.config().n_layer);
    bool any = false;
    for (size_t l = 0; l < mem.size(); ++l) {
      const io::TensorData* t = ck.find("memory." + std::to_string(l));
      if (!t) continue;
      ATTNLAB_CHECK(t->shape.size() == 3, "checkpoint: memory.", l, " must be (B,M,E)");
      mem[l] = Tensor3::from_shape({t->shape[0], t->shape[1], t->shape[2]});
      std::copy(t->data.begin(), t->data.end(), mem[l].data());
      any = true;
    }
    if (any) m_.set_memory(mem);
  }
}

}  // namespace attnlab::models
