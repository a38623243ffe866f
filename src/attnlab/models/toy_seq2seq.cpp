#include "attnlab/models/toy_seq2seq.hpp"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "attnlab/io/config_fields.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/nn/loss.hpp"

namespace attnlab::models {

using namespace attnlab::nn;  // the layers this toy model composes

namespace k = attnlab::kernels;

namespace {
// the config's keys, each once (io/config_fields.hpp)
using Cfg = ToyConfig;
constexpr auto kFields = std::make_tuple(
    io::field("vocab", &Cfg::vocab).required(), io::field("emb", &Cfg::emb).required(),
    io::field("hidden", &Cfg::hidden).required(), io::field("min_len", &Cfg::min_len),
    io::field("max_len", &Cfg::max_len));
}  // namespace

std::string ToyConfig::to_json() const {
  nlohmann::json j = io::fields_json(*this, kFields);
  j["attention"] = "dot";  // the toy model's one score: written for the record, not read
  return j.dump();
}

ToyConfig ToyConfig::from_json(const std::string& s) {
  ToyConfig c;
  io::read_fields(io::ConfigReader(s, "toy"), c, kFields);
  ATTNLAB_CHECK(c.vocab >= 4 && c.vocab <= 100000, "toy config: vocab must be in [4, 100000], got ",
                c.vocab);
  ATTNLAB_CHECK(c.emb >= 1 && c.emb <= 4096 && c.hidden >= 1 && c.hidden <= 4096,
                "toy config: emb and hidden must be in [1, 4096], got ", c.emb, ", ", c.hidden);
  ATTNLAB_CHECK(c.min_len >= 1 && c.min_len <= c.max_len && c.max_len <= 1000,
                "toy config: expected 1 <= min_len <= max_len <= 1000, got ", c.min_len, ", ",
                c.max_len);
  return c;
}

ToyData make_toy_reverse(size_t n, const ToyConfig& cfg, uint64_t seed) {
  ATTNLAB_CHECK(cfg.vocab >= 4, "toy data: vocab must leave room for symbols");
  Rng rng(seed);
  ToyData d;
  const uint32_t nsym = static_cast<uint32_t>(cfg.vocab - 3);
  const uint32_t span = static_cast<uint32_t>(cfg.max_len - cfg.min_len + 1);
  for (size_t i = 0; i < n; ++i) {
    const size_t len = cfg.min_len + rng.below(span);
    std::vector<int> s(len);
    for (auto& v : s) v = 3 + static_cast<int>(rng.below(nsym));
    d.tgt.emplace_back(s.rbegin(), s.rend());
    d.src.push_back(std::move(s));
  }
  return d;
}

std::vector<std::string> toy_vocab(const ToyConfig& cfg) {
  std::vector<std::string> v = {"<pad>", "<bos>", "<eos>"};
  for (size_t i = 3; i < cfg.vocab; ++i) v.push_back("s" + std::to_string(i - 3));
  return v;
}

ToyBatch make_toy_batch(const ToyData& d, const std::vector<size_t>& idx) {
  ToyBatch b;
  b.B = idx.size();
  ATTNLAB_CHECK(b.B > 0, "toy batch: expected at least one sample");
  for (size_t i : idx) {
    ATTNLAB_CHECK(i < d.src.size(), "toy batch: sample ", i, " out of range");
    b.Ts = std::max(b.Ts, d.src[i].size());
    b.Td = std::max(b.Td, d.tgt[i].size() + 1);
  }
  b.src.assign(b.B * b.Ts, kPad);
  b.tgt_in.assign(b.B * b.Td, kPad);
  b.tgt_out.assign(b.B * b.Td, kPad);
  for (size_t r = 0; r < b.B; ++r) {
    const auto& s = d.src[idx[r]];
    const auto& t = d.tgt[idx[r]];
    std::copy(s.begin(), s.end(), b.src.begin() + static_cast<std::ptrdiff_t>(r * b.Ts));
    b.tgt_in[r * b.Td] = kBos;
    for (size_t j = 0; j < t.size(); ++j) {
      b.tgt_in[r * b.Td + j + 1] = t[j];
      b.tgt_out[r * b.Td + j] = t[j];
    }
    b.tgt_out[r * b.Td + t.size()] = kEos;
    b.src_len.push_back(s.size());
    b.tgt_len.push_back(t.size() + 1);
  }
  return b;
}

ToySeq2Seq::ToySeq2Seq(const ToyConfig& c, uint64_t seed) : cfg(c) {
  Rng rng(seed);
  src_emb = Embedding(cfg.vocab, cfg.emb, rng, kPad);
  tgt_emb = Embedding(cfg.vocab, cfg.emb, rng, kPad);
  encoder = GRU(cfg.emb, cfg.hidden, rng);
  decoder = GRU(cfg.emb, cfg.hidden, rng);
  combine = Linear(2 * cfg.hidden, cfg.hidden, rng);
  out = Linear(cfg.hidden, cfg.vocab, rng);
}

void ToySeq2Seq::collect(ParamList& ps) {
  src_emb.collect(ps, "src_emb.");
  tgt_emb.collect(ps, "tgt_emb.");
  encoder.collect(ps, "encoder.");
  decoder.collect(ps, "decoder.");
  combine.collect(ps, "combine.");
  out.collect(ps, "out.");
}

float ToySeq2Seq::loss(const ToyBatch& b) const { return const_cast<ToySeq2Seq*>(this)->run(b, false); }
float ToySeq2Seq::train_step(const ToyBatch& b) { return run(b, true); }

float ToySeq2Seq::run(const ToyBatch& b, bool bw) {
  // src (B,Ts), tgt_in/out (B,Td) -> mean token cross-entropy
  const size_t B = b.B, Ts = b.Ts, Td = b.Td, H = cfg.hidden, V = cfg.vocab;
  GRU::Cache ec, dc;
  const Tensor es = src_emb.forward(b.src, {B, Ts});  // (B,Ts,E)
  Tensor enc, dec;
  RnnState hs, hd;
  encoder.forward(es, b.src_len, nullptr, enc, hs, bw ? &ec : nullptr);  // (B,Ts,H)
  const Tensor ed = tgt_emb.forward(b.tgt_in, {B, Td});                 // (B,Td,E)
  decoder.forward(ed, b.tgt_len, &hs, dec, hd, bw ? &dc : nullptr);     // (B,Td,H)

  // dot attention: attn (B,Td,Ts) = softmax(dec enc^T + mask); cat = [attn enc, dec]
  Tensor attn = empty({B, Td, Ts}), cat = empty({B, Td, 2 * H});
  std::vector<float> mask(Ts);
  for (size_t r = 0; r < B; ++r) {
    for (size_t s = 0; s < Ts; ++s)
      mask[s] = s < b.src_len[r] ? 0.f : -std::numeric_limits<float>::infinity();
    const float* er = enc.data() + r * Ts * H;
    const float* dr = dec.data() + r * Td * H;
    float* ar = attn.data() + r * Td * Ts;
    float* cr = cat.data() + r * Td * 2 * H;
    k::gemm(false, true, Td, Ts, H, 1.f, dr, H, er, H, 0.f, ar, Ts);
    k::softmax_rows(Td, Ts, ar, Ts, mask.data(), 0, ar, Ts);
    k::gemm(false, false, Td, H, Ts, 1.f, ar, Ts, er, H, 0.f, cr, 2 * H);
    for (size_t t = 0; t < Td; ++t) std::copy(dr + t * H, dr + (t + 1) * H, cr + t * 2 * H + H);
  }
  const size_t N = B * Td;
  Tensor comb = empty({N, H});
  combine.forward(N, cat.data(), comb.data());
  k::tanh(N * H, comb.data(), comb.data());
  Tensor logits = empty({N, V});
  out.forward(N, comb.data(), logits.data());
  Tensor dlogits;
  if (bw) dlogits = empty({N, V});
  const float loss =
      cross_entropy(N, V, logits.data(), b.tgt_out.data(), bw ? dlogits.data() : nullptr, kPad);
  if (!bw) return loss;

  Tensor dcomb = empty({N, H});
  out.backward(N, comb.data(), dlogits.data(), dcomb.data());
  k::tanh_backward(N * H, comb.data(), dcomb.data(), dcomb.data());
  Tensor dcat = empty({B, Td, 2 * H});
  combine.backward(N, cat.data(), dcomb.data(), dcat.data());
  Tensor ddec = empty({B, Td, H}), denc = zeros({B, Ts, H});
  std::vector<float> dA(Td * Ts);
  for (size_t r = 0; r < B; ++r) {
    const float* er = enc.data() + r * Ts * H;
    const float* dr = dec.data() + r * Td * H;
    const float* ar = attn.data() + r * Td * Ts;
    const float* dcr = dcat.data() + r * Td * 2 * H;  // [dctx | ddec]
    float* ddr = ddec.data() + r * Td * H;
    float* der = denc.data() + r * Ts * H;
    for (size_t t = 0; t < Td; ++t)
      std::copy(dcr + t * 2 * H + H, dcr + (t + 1) * 2 * H, ddr + t * H);
    k::gemm(false, true, Td, Ts, H, 1.f, dcr, 2 * H, er, H, 0.f, dA.data(), Ts);  // d attn
    k::gemm(true, false, Ts, H, Td, 1.f, ar, Ts, dcr, 2 * H, 1.f, der, H);       // attn^T dctx
    k::softmax_rows_backward(Td, Ts, ar, dA.data(), dA.data());                  // d scores
    k::gemm(false, false, Td, H, Ts, 1.f, dA.data(), Ts, er, H, 1.f, ddr, H);
    k::gemm(true, false, Ts, H, Td, 1.f, dA.data(), Ts, dr, H, 1.f, der, H);
  }
  Tensor ded, des;
  RnnState dh0_dec, dh0_enc;
  decoder.backward(ddec, RnnState(), dc, ded, dh0_dec);
  tgt_emb.backward(b.tgt_in, ded);
  encoder.backward(denc, dh0_dec, ec, des, dh0_enc);
  src_emb.backward(b.src, des);
  return loss;
}

// src: (Ts) -> tokens until <eos> or max_out
std::vector<int> ToySeq2Seq::greedy(const std::vector<int>& src, size_t max_out,
                                    std::vector<float>* attn) const {
  ATTNLAB_CHECK(!src.empty(), "toy model: expected a non-empty input sequence");
  const size_t Ts = src.size(), H = cfg.hidden, E = cfg.emb, V = cfg.vocab;
  const Tensor es = src_emb.forward(src, {1, Ts});
  Tensor enc;
  RnnState hs;
  encoder.forward(es, {}, nullptr, enc, hs, nullptr);
  std::vector<float> h(hs.h.data(), hs.h.data() + H), x(E), a(Ts), cat(2 * H), comb(H), lg(V);
  std::vector<int> outv;
  int tok = kBos;
  if (attn) attn->clear();
  for (size_t step = 0; step < max_out; ++step) {
    tgt_emb.forward(1, &tok, x.data());
    decoder.step(1, x.data(), h.data(), h.data());
    k::gemv(false, Ts, H, 1.f, enc.data(), H, h.data(), 0.f, a.data());
    k::softmax_rows(1, Ts, a.data(), Ts, nullptr, 0, a.data(), Ts);
    k::gemv(true, Ts, H, 1.f, enc.data(), H, a.data(), 0.f, cat.data());
    std::copy(h.begin(), h.end(), cat.begin() + static_cast<std::ptrdiff_t>(H));
    combine.forward(1, cat.data(), comb.data());
    k::tanh(H, comb.data(), comb.data());
    out.forward(1, comb.data(), lg.data());
    tok = static_cast<int>(std::max_element(lg.begin(), lg.end()) - lg.begin());
    if (attn) attn->insert(attn->end(), a.begin(), a.end());
    if (tok == kEos) break;
    outv.push_back(tok);
  }
  return outv;
}

// ---------------------------------------------------------------- files
std::vector<uint8_t> ToySeq2Seq::save(const io::SaveOptions& o) const {
  ParamList ps;
  const_cast<ToySeq2Seq*>(this)->collect(ps);
  const io::ModelInfo info{"toy-reverse", cfg.to_json(), toy_vocab(cfg), o.meta};
  return io::save_model(info, ps, o.dtype);
}

std::unique_ptr<ToySeq2Seq> ToySeq2Seq::load(const io::SafeTensors& st) {
  const io::ModelInfo info = io::model_info(st);
  ATTNLAB_CHECK(info.kind == "toy-reverse", "expected a toy-reverse model file, got kind '",
                info.kind, "'");
  const ParamBudget budget(st.total_elements());  // config checked against the file first
  auto m = std::make_unique<ToySeq2Seq>(ToyConfig::from_json(info.config), 0);
  ParamList ps;
  m->collect(ps);
  io::load_params(st, ps);
  return m;
}

}  // namespace attnlab::models
