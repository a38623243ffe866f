// Writes tiny, valid model files of every kind as seed inputs for the loader
// fuzz targets (small seeds keep each execution fast, so the fuzzer explores
// the header and config paths millions of times).
//   make_seeds OUT_DIR  -> OUT_DIR/{seq2seq,han,mmoe,autoint,transformer,lm}.safetensors
#include <cstdio>
#include <string>

#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/autoint.hpp"
#include "attnlab/models/han.hpp"
#include "attnlab/models/mmoe.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/models/transformer.hpp"
#include "attnlab/models/xl_lm.hpp"
// the tiny model of each kind that test_model_registry saves and loads
#include "../tests/native/model_test_util.hpp"

int main(int argc, char** argv) {
  using namespace attnlab;
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seeds OUT_DIR\n");
    return 2;
  }
  const std::string out = argv[1];
  data::Vocab src, tgt, words;
  for (char c : std::string("abcdefgh")) src.add(std::string(1, c));
  for (char c : std::string("xyz")) tgt.add(std::string(1, c));
  for (const char* w : {"hello", "buy", "now", "meeting", "free"}) words.add(w);

  models::Seq2SeqConfig sc = testing::tiny_seq2seq_config();
  sc.max_src_len = 10;
  sc.max_tgt_len = 8;
  io::write_bytes(out + "/seq2seq.safetensors", models::Seq2Seq(sc, src, tgt, 1).save());

  io::write_bytes(out + "/han.safetensors", models::HAN(testing::tiny_han_config(), words, 1).save());

  io::write_bytes(out + "/mmoe.safetensors", models::MMoE(testing::tiny_mmoe_config(), 1).save());

  io::write_bytes(out + "/autoint.safetensors", models::AutoInt(testing::tiny_autoint_config(), 1).save());

  models::TransformerConfig tc = testing::small_transformer_config();
  tc.max_src_len = 10;
  tc.max_tgt_len = 8;
  tc.uppercase = false;
  io::write_bytes(out + "/transformer.safetensors", models::TransformerSeq2Seq(tc, src, tgt, 1).save());

  std::vector<std::string> syms = {"\xEF\xBF\xBD", "\n", "a", "b", "c"};
  io::write_bytes(out + "/lm.safetensors",
                  models::CharLM(testing::tiny_char_lm_config(), data::CharVocab::from_symbols(syms), 1).save());
  return 0;
}
