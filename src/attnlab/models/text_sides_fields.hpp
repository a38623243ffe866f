// TextSides' config keys (io/config_fields.hpp), shared by the RNN and the Transformer
// seq2seq configs: "task" is read before the model's own keys, the rest after them.
// The ranges are loose (validate() has the real ones); src_tokens and tgt_tokens are written
// only when set, so older files keep their config unchanged.
#pragma once
#include <cstddef>
#include <tuple>

#include "attnlab/io/config_fields.hpp"
#include "attnlab/models/seq2seq.hpp"

namespace attnlab::models::text_sides {

constexpr size_t kAny = size_t{1} << 30;

constexpr auto kHead = std::make_tuple(io::field("task", &TextSides::task));

constexpr auto kTail = std::make_tuple(
    io::field("max_src_len", &TextSides::max_src_len).required().in(0, kAny),
    io::field("max_tgt_len", &TextSides::max_tgt_len).required().in(0, kAny),
    io::field("uppercase", &TextSides::uppercase), io::field("output_sep", &TextSides::output_sep),
    io::field("src_tokens", &TextSides::src_tokens).omit_if(""),
    io::field("tgt_tokens", &TextSides::tgt_tokens).omit_if(""),
    io::field("src_vocab", &TextSides::src_vocab).in(0, kAny),
    io::field("tgt_vocab", &TextSides::tgt_vocab).in(0, kAny));

}  // namespace attnlab::models::text_sides
