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

  models::TransformerConfig tc;
  tc.d_model = 4;
  tc.nhead = 2;
  tc.dim_feedforward = 6;
  tc.enc_layers = tc.dec_layers = 1;
  tc.max_src_len = 10;
  tc.max_tgt_len = 8;
  tc.uppercase = false;
  io::write_bytes(out + "/transformer.safetensors", models::TransformerSeq2Seq(tc, src, tgt, 1).save());

  models::CharLMConfig lc;
  lc.d_model = 4;
  lc.n_head = 2;
  lc.d_inner = 6;
  lc.n_layer = 1;
  lc.seg_len = 4;
  lc.mem_len = 4;
  std::vector<std::string> syms = {"\xEF\xBF\xBD", "\n", "a", "b", "c"};
  io::write_bytes(out + "/lm.safetensors",
                  models::CharLM(lc, data::CharVocab::from_symbols(syms), 1).save());
  return 0;
}
