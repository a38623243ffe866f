// libFuzzer target: the e-mail text path (MIME, HTML, entities, words,
// sentences) and HAN classification of the result, with the shipped model's
// vocabulary and tokenizer options in a HAN made narrow (random weights, widths
// 4): the text path is the shipped model's, at a speed that lets the fuzzer
// reach millions of executions.
// Any bytes give a classification (probabilities summing to 1) or an
// attnlab::Error.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/han.hpp"

namespace {
const attnlab::models::HAN& model() {
  static const std::unique_ptr<attnlab::models::HAN> m = [] {
    const auto shipped = attnlab::models::HAN::load(
        attnlab::io::read_bytes(ATTNLAB_SOURCE_DIR "/models/han-spam/model.safetensors"));
    attnlab::models::HANConfig c = shipped->config();
    c.emb = c.word_hidden = c.sent_hidden = c.word_ctx = c.sent_ctx = 4;
    return std::make_unique<attnlab::models::HAN>(c, shipped->vocab(), 1);
  }();
  return *m;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const attnlab::models::HANClassification r = model().classify(text);
    float s = 0;
    for (float p : r.probs) s += p;
    if (!(std::fabs(s - 1.f) < 1e-3f)) __builtin_trap();
    (void)r.to_json_string();
  } catch (const attnlab::Error&) {
  }
  return 0;
}
