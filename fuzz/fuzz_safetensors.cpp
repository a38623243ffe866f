// libFuzzer target: the safetensors reader on arbitrary bytes. Every input
// either decodes (and then re-encodes to a file that decodes the same) or
// throws attnlab::Error; nothing else (crash, other exception, sanitizer report).
#include <cstddef>
#include <cstdint>

#include "attnlab/io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace attnlab;
  try {
    const io::SafeTensors st = io::decode(data, size);
    std::vector<io::TensorView> views;
    for (const io::TensorData& t : st.tensors) views.push_back({t.name, t.shape, t.data.data()});
    const std::vector<uint8_t> again = io::encode(views, st.metadata);
    const io::SafeTensors st2 = io::decode(again);
    if (st2.tensors.size() != st.tensors.size()) __builtin_trap();
  } catch (const Error&) {
  }
  return 0;
}
