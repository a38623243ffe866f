// The text side shared by every seq2seq kind (RNN Seq2Seq, TransformerSeq2Seq): input text to
// source ids (the shipped models' characters with their error contract, or the char / word
// tokens of models trained on the user's pairs), the check of source ids, and a beam-search
// result as a Translation.
#include <cstdio>
#include <cstring>

#include "attnlab/data/tsv_pairs.hpp"
#include "attnlab/models/seq2seq.hpp"

namespace attnlab::models {

void check_token_unit(const std::string& tokens, const char* what) {
  ATTNLAB_CHECK(tokens.empty() || tokens == "char" || tokens == "word" || tokens == "wordpunct", what,
                " must be 'char', 'word' or 'wordpunct', got '", tokens, "'");
}

void TextSides::validate(const char* who) const {
  check_token_unit(src_tokens, (std::string(who) + ": src_tokens").c_str());
  check_token_unit(tgt_tokens, (std::string(who) + ": tgt_tokens").c_str());
  auto in = [](size_t v, size_t lo, size_t hi) { return v >= lo && v <= hi; };
  ATTNLAB_CHECK(in(max_src_len, 1, 100000) && in(max_tgt_len, 1, 100000), who,
                ": max_src_len and max_tgt_len must be in [1, 100000], got ", max_src_len, ", ", max_tgt_len);
}

// ---------------------------------------------------------------- text
namespace {
// The UTF-8 character starting at byte i as "'é' (U+00E9)", and its length in
// bytes (1 for a byte that starts no valid sequence, shown as "byte 0xC3").
std::string describe_char(const std::string& text, size_t i, size_t* len) {
  const auto u = static_cast<unsigned char>(text[i]);
  char buf[32];
  size_t n = u < 0x80 ? 1 : (u >> 5) == 6 ? 2 : (u >> 4) == 14 ? 3 : (u >> 3) == 30 ? 4 : 0;
  uint32_t cp = n == 1 ? u : n == 2 ? (u & 0x1f) : n == 3 ? (u & 0x0f) : (u & 0x07);
  for (size_t k = 1; k < n; ++k) {
    if (i + k >= text.size() || (static_cast<unsigned char>(text[i + k]) >> 6) != 2) { n = 0; break; }
    cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3f);
  }
  if (n == 0) {
    *len = 1;
    std::snprintf(buf, sizeof buf, "byte 0x%02X (not UTF-8)", u);
    return buf;
  }
  *len = n;
  if (cp >= 0x20 && cp < 0x7f) return "'" + text.substr(i, 1) + "'";
  std::snprintf(buf, sizeof buf, " (U+%04X)", static_cast<unsigned>(cp));
  if (cp < 0x80) {  // ASCII control character
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(cp));
    return hex + std::string(buf);
  }
  if (cp < 0xa0) return std::string(buf + 2, buf + std::strlen(buf) - 1);  // C1 control: U+0085
  return "'" + text.substr(i, n) + "'" + buf;
}
}  // namespace

std::vector<int> encode_chars(const std::string& text, const data::Vocab& vocab, bool uppercase,
                              size_t max_len) {
  ATTNLAB_CHECK(!text.empty(), "empty input: expected 1..", max_len, " characters");
  ATTNLAB_CHECK(text.size() <= max_len, "input too long: ", text.size(),
                " characters, this model accepts at most ", max_len);
  std::vector<int> ids;
  ids.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (uppercase && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
    const std::string tok(1, ch);
    if (!vocab.contains(tok) || vocab.id(tok) < 4) {
      size_t pos = 0;  // in characters, not bytes
      for (size_t j = 0; j < i;) {
        size_t len = 1;
        describe_char(text, j, &len);
        j += len;
        ++pos;
      }
      size_t len = 1;
      const std::string shown = describe_char(text, i, &len);
      std::string known;
      for (size_t j = 4; j < vocab.size(); ++j) known += vocab.token(int(j));
      throw Error("unknown character " + shown + " at position " + std::to_string(pos) +
                  " of the input (this model knows: " + known + ")");
    }
    ids.push_back(vocab.id(tok));
  }
  return ids;
}

std::vector<int> encode_text(const std::string& text, const data::Vocab& vocab,
                             const std::string& tokens, bool uppercase, size_t max_len) {
  if (tokens.empty()) return encode_chars(text, vocab, uppercase, max_len);
  const std::vector<std::string> toks = data::split_tokens(text, data::parse_token_unit(tokens));
  ATTNLAB_CHECK(!toks.empty(), "empty input: expected 1..", max_len, " ", tokens == "char" ? "characters" : "words");
  ATTNLAB_CHECK(toks.size() <= max_len, "input too long: ", toks.size(), " ",
                tokens == "char" ? "characters" : "words", ", this model accepts at most ", max_len);
  return data::encode_tokens(vocab, toks);
}

void check_source_ids(const std::vector<int>& src, size_t vocab_size, size_t max_len, bool allow_unk) {
  ATTNLAB_CHECK(!src.empty(), "empty input: expected 1..", max_len, " tokens");
  ATTNLAB_CHECK(src.size() <= max_len, "input too long: ", src.size(),
                " tokens, this model accepts at most ", max_len);
  for (size_t i = 0; i < src.size(); ++i)
    ATTNLAB_CHECK((src[i] >= 4 || (allow_unk && src[i] == data::Vocab::kUnk)) && size_t(src[i]) < vocab_size,
                  "source id ", src[i], " at position ", i, " is not a symbol of the vocabulary (",
                  allow_unk ? "1 or " : "", "4..", vocab_size - 1, ")");
}

namespace {
Translation translation_of(const BeamHyp& h, const std::vector<int>& src, const data::Vocab& src_vocab,
                           const data::Vocab& tgt_vocab, const std::string& sep) {
  Translation r;
  r.ids = h.ids;
  r.probs = h.probs;
  r.eos_prob = h.done ? h.eos_prob : 0.f;
  r.logprob = h.logp;
  r.score = h.score;
  r.attention = h.attn;
  r.rows = h.ids.size();
  r.cols = src.size();
  for (size_t i = 0; i < h.ids.size(); ++i) {
    r.tokens.push_back(tgt_vocab.token(h.ids[i]));
    r.text += (i ? sep : std::string()) + r.tokens.back();
  }
  for (int id : src) r.input_tokens.push_back(src_vocab.token(id));
  return r;
}
}  // namespace

Translation translation_from(const std::vector<BeamHyp>& ranked, bool n_best, const std::vector<int>& src,
                             const data::Vocab& src_vocab, const data::Vocab& tgt_vocab,
                             const std::string& sep) {
  ATTNLAB_CHECK(!ranked.empty(), "beam search: no hypothesis (internal error)");
  Translation r = translation_of(ranked.front(), src, src_vocab, tgt_vocab, sep);
  // a hypothesis cut at max_len can also have finished there with </s>: the same tokens are
  // listed once, at their better rank
  if (n_best)
    for (const BeamHyp& h : ranked) {
      bool seen = false;
      for (const Translation& e : r.n_best) seen = seen || e.ids == h.ids;
      if (!seen) r.n_best.push_back(translation_of(h, src, src_vocab, tgt_vocab, sep));
    }
  return r;
}

}  // namespace attnlab::models
