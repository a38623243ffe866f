// libFuzzer target: seq2seq translate on arbitrary strings and options with
// the shipped G2P model's vocabularies, tokenization and length limits, in a model
// of the same kind made narrow (random weights, emb 4, hidden 4): the text handling
// and the decoding paths are the shipped model's, at thousands of executions a
// second instead of about ten under ASan. The first 3 bytes choose beam (1..8),
// precision and max length; the rest is the input text. Output: tokens with
// probabilities in [0, 1] and an attention matrix of rows x cols finite weights,
// or an attnlab::Error (unknown character, empty, too long).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/seq2seq.hpp"

namespace {
const attnlab::models::Seq2Seq& model() {
  static const std::unique_ptr<attnlab::models::Seq2Seq> m = [] {
    using attnlab::models::Seq2Seq;
    const auto b = attnlab::io::read_bytes(ATTNLAB_SOURCE_DIR "/models/g2p-cmudict/model.safetensors");
    const std::unique_ptr<Seq2Seq> shipped = Seq2Seq::load(b.data(), b.size());
    attnlab::models::Seq2SeqConfig c = shipped->config();
    c.emb = 4;
    c.enc_hidden = 4;
    c.attn_dim = 4;
    c.combine = 4;
    return std::make_unique<Seq2Seq>(c, shipped->src_vocab(), shipped->tgt_vocab(), 1);
  }();
  return *m;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace attnlab::models;
  if (size < 3) return 0;
  DecodeOptions o;
  o.beam = 1 + data[0] % 8;
  o.precision = data[1] % 3 == 0 ? DecodePrecision::Int8
                : data[1] % 3 == 1 ? DecodePrecision::Int16 : DecodePrecision::F32;
  o.max_len = data[2] % 40;
  const std::string text(reinterpret_cast<const char*>(data + 3), size - 3);
  try {
    const Translation t = model().translate(text, o);
    if (t.attention.size() != t.rows * t.cols) __builtin_trap();
    for (float w : t.attention)
      if (!(w >= 0.f && w <= 1.f + 1e-5f)) __builtin_trap();
    for (float p : t.probs)
      if (!(p >= 0.f && p <= 1.f + 1e-5f)) __builtin_trap();
  } catch (const attnlab::Error&) {
  }
  return 0;
}
