// Writes tiny, valid model files of every kind as seed inputs for the loader
// fuzz targets (small seeds keep each execution fast, so the fuzzer explores
// the header and config paths millions of times).
//   make_seeds OUT_DIR  -> OUT_DIR/{seq2seq,han,mmoe,autoint}.safetensors
#include <cstdio>
#include <string>

#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/autoint.hpp"
#include "attnlab/models/han.hpp"
#include "attnlab/models/mmoe.hpp"
#include "attnlab/models/seq2seq.hpp"

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

  models::Seq2SeqConfig sc;
  sc.rnn = "gru";
  sc.score = "additive";
  sc.emb = 3;
  sc.enc_hidden = 4;
  sc.attn_dim = 3;
  sc.combine = 3;
  sc.max_src_len = 10;
  sc.max_tgt_len = 8;
  io::write_bytes(out + "/seq2seq.safetensors", models::Seq2Seq(sc, src, tgt, 1).save());

  models::HANConfig hc;
  hc.emb = 4;
  hc.word_hidden = 3;
  hc.sent_hidden = 3;
  hc.word_ctx = 5;
  hc.sent_ctx = 4;
  io::write_bytes(out + "/han.safetensors", models::HAN(hc, words, 1).save());

  models::MMoEConfig mc;
  mc.input_dim = 4;
  mc.experts = 2;
  mc.expert_units = 3;
  mc.tower_units = 2;
  mc.att_dim = 2;
  mc.gate = models::GateKind::Attention;
  io::write_bytes(out + "/mmoe.safetensors", models::MMoE(mc, 1).save());

  models::AutoIntConfig ac;
  ac.vocab = {3, 3, 3};
  ac.embed_dim = 4;
  ac.heads = 2;
  ac.head_dim = 2;
  io::write_bytes(out + "/autoint.safetensors", models::AutoInt(ac, 1).save());
  return 0;
}
