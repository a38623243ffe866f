// libFuzzer target: one model loader (ATTNLAB_FUZZ_MODEL selects it at
// compile time) on arbitrary bytes. A file either loads, or the loader throws
// attnlab::Error before allocating more than the file's own size allows
// (ParamBudget); a model that loads runs one inference.
#include <cstddef>
#include <cstdint>
#include <string>

#include "attnlab/models/autoint.hpp"
#include "attnlab/models/han.hpp"
#include "attnlab/models/mmoe.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/models/transformer.hpp"
#include "attnlab/models/xl_lm.hpp"

namespace {
// a seq2seq kind translates a short input: an input its vocabulary cannot take is an Error
[[maybe_unused]] void translate_once(const attnlab::models::Translator& m) {  // not every target translates
  try {
    m.translate("abc", {});
  } catch (const attnlab::Error&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace attnlab;
  try {
#if ATTNLAB_FUZZ_MODEL == 1
    translate_once(*models::Seq2Seq::load(data, size));
#elif ATTNLAB_FUZZ_MODEL == 2
    auto m = models::HAN::load(data, size);
    m->classify("Hello, this is a message. Buy now!");
#elif ATTNLAB_FUZZ_MODEL == 3
    auto m = models::MMoE::load(data, size);
    std::vector<float> x(m->config().input_dim, 0.5f);
    m->forward(x.data(), 1);
#elif ATTNLAB_FUZZ_MODEL == 4
    auto m = models::AutoInt::load(data, size);
#elif ATTNLAB_FUZZ_MODEL == 5
    translate_once(*models::TransformerSeq2Seq::load(data, size));
#elif ATTNLAB_FUZZ_MODEL == 6
    auto m = models::CharLM::load(data, size);
    models::GenerateOptions o;
    o.n = 4;
    models::generate(*m, "ab", o);
#else
#error "ATTNLAB_FUZZ_MODEL must be 1..6"
#endif
  } catch (const Error&) {
  }
  return 0;
}
