// E-mail pipeline, the whole: tokenize_email runs the stages (email_mime.cpp,
// email_html.cpp, email_sentences.cpp, email_words.cpp) and applies step 8 of
// the pipeline in email.hpp:
//
//  8. Truncation: a sentence longer than max_words tokens continues as the
//     next sentence (split_long_sentences = true, default) or is cut
//     (false); at most max_sentences sentences are kept (doc_truncated says
//     whether more were there). Defaults: 30 sentences x 40 words.
#include "attnlab/data/email.hpp"

#include <algorithm>

#include "attnlab/core/error.hpp"
#include "attnlab/data/email_detail.hpp"

namespace attnlab::data {

using namespace email_detail;

size_t EmailDoc::num_tokens() const {
  size_t n = 0;
  for (const Sentence& s : sentences) n += s.tokens.size();
  return n;
}
std::vector<std::string> EmailDoc::all_tokens() const {
  std::vector<std::string> r;
  r.reserve(num_tokens());
  for (const Sentence& s : sentences) r.insert(r.end(), s.tokens.begin(), s.tokens.end());
  return r;
}
EmailDoc tokenize_email(std::string_view raw, const EmailOptions& opt) {
  ATTNLAB_CHECK(opt.max_sentences >= 1 && opt.max_words >= 1,
                "email: expected max_sentences >= 1 and max_words >= 1, got ", opt.max_sentences,
                " and ", opt.max_words);
  EmailDoc doc;
  EmailText et;
  if (opt.plain_text) {
    ATTNLAB_CHECK(opt.max_input_bytes >= 1, "text: expected max_input_bytes >= 1, got ",
                  opt.max_input_bytes);
    if (raw.size() > opt.max_input_bytes) {
      raw = raw.substr(0, utf8_cut(raw, opt.max_input_bytes));
      et.input_truncated = true;
    }
    et.body = sanitize_utf8(raw);
  } else {
    et = extract_email_text(raw, opt.max_input_bytes);
  }
  doc.input_truncated = et.input_truncated;

  auto add_sentence = [&](const std::string& text) -> bool {  // false once full
    std::vector<TokenSpan> spans;
    std::vector<std::string> toks = tokenize_words(text, &spans);
    if (toks.empty()) return true;
    size_t t0 = 0;
    while (t0 < toks.size()) {
      if (doc.sentences.size() >= opt.max_sentences) {
        doc.doc_truncated = true;
        return false;
      }
      const size_t t1 = std::min(toks.size(), t0 + opt.max_words);
      const bool last = t1 == toks.size() || !opt.split_long_sentences;
      Sentence s;
      const size_t b = t0 == 0 ? 0 : spans[t0].begin;
      const size_t e = t1 == toks.size() ? text.size() : (last ? spans[t1 - 1].begin + spans[t1 - 1].size : spans[t1].begin);
      // text is trimmed and b is 0 or a token start, so only the end needs trimming
      std::string_view piece = std::string_view(text).substr(b, e - b);
      while (!piece.empty() && is_space(static_cast<unsigned char>(piece.back()))) piece.remove_suffix(1);
      s.text = std::string(piece);
      for (size_t k = t0; k < t1; ++k) {
        s.tokens.push_back(std::move(toks[k]));
        s.spans.push_back({static_cast<uint32_t>(spans[k].begin - b), spans[k].size});
      }
      doc.sentences.push_back(std::move(s));
      if (t1 < toks.size() && !opt.split_long_sentences) {
        doc.doc_truncated = true;
        break;
      }
      t0 = t1;
    }
    return true;
  };

  if (opt.include_subject && !trim(et.subject).empty()) {
    // the subject is one sentence (whitespace collapsed)
    std::vector<std::string> parts;
    split_segment(et.subject, parts);
    std::string subj;
    for (const std::string& p : parts) {
      if (!subj.empty()) subj += ' ';
      subj += p;
    }
    if (!add_sentence(subj)) return doc;
  }
  for (const std::string& s : split_sentences(et.body))
    if (!add_sentence(s)) break;
  return doc;
}

}  // namespace attnlab::data
