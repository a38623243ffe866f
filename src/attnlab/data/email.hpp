// E-mail text pipeline: raw RFC 822 message (or pasted plain text / HTML) ->
// sentences of word tokens, as the HAN model and the tf-idf baseline see them.
// The same code runs natively and in wasm (the page tokenizes pasted text with
// it), so it uses only the C++17 standard library and no OS calls.
//
// Pipeline (tokenize_email); each stage's file states its steps in full:
//  1. input cap (max_input_bytes, cut at a UTF-8 boundary)    email_mime.cpp
//  2. headers: Subject (RFC 2047), the MIME fields            email_mime.cpp
//  3. MIME parts, multipart/alternative choice, QP / base64   email_mime.cpp
//  4. charsets to UTF-8, invalid bytes -> U+FFFD              email_mime.cpp
//  5. HTML to text, entities                                  email_html.cpp
//  6. sentences                                               email_sentences.cpp
//  7. words and <num>/<url>/<email> tokens                    email_words.cpp
//  8. truncation (max_words, max_sentences)                   email.cpp
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::data {

struct EmailOptions {
  size_t max_sentences = 30;          // >= 1
  size_t max_words = 40;              // per sentence, >= 1
  size_t max_input_bytes = 1u << 20;  // longer input is cut (see header comment), >= 1
  bool split_long_sentences = true;   // a long sentence continues as the next one
  bool include_subject = true;        // the subject is the first sentence
  // Plain text (HAN format "text"): steps 2-5 are left out; the input (capped as in
  // step 1) is made valid UTF-8 (step 4's U+FFFD rule) and goes to steps 6-8 as it is,
  // so a line like "Note: ..." is a sentence, not a header.
  bool plain_text = false;
};

// A token's place in Sentence::text (byte offsets, UTF-8).
struct TokenSpan {
  uint32_t begin = 0, size = 0;
};

struct Sentence {
  std::string text;                 // for display: trimmed, whitespace collapsed
  std::vector<std::string> tokens;  // lowercased words and <num>/<url>/<email>
  std::vector<TokenSpan> spans;     // one per token, into text
};

struct EmailDoc {
  std::vector<Sentence> sentences;
  bool input_truncated = false;  // input was longer than max_input_bytes
  bool doc_truncated = false;    // sentences were dropped by max_sentences (or words cut)
  size_t num_tokens() const;
  std::vector<std::string> all_tokens() const;  // the sentences' tokens in order
};

// Subject and body text of a message after MIME decoding (steps 1-5).
struct EmailText {
  std::string subject;  // decoded, UTF-8, unfolded
  std::string body;     // UTF-8 text of the kept parts, separated by blank lines
  bool has_headers = false;
  bool input_truncated = false;
};

// Placeholder tokens.
inline constexpr const char* kNumToken = "<num>";
inline constexpr const char* kUrlToken = "<url>";
inline constexpr const char* kEmailToken = "<email>";

// The whole pipeline.
EmailDoc tokenize_email(std::string_view raw, const EmailOptions& opt = {});
// Steps 1-5 only.
EmailText extract_email_text(std::string_view raw, size_t max_input_bytes = 1u << 20);

// The building blocks, exposed for tests and the bindings.
std::string decode_rfc2047(std::string_view header_value);
std::string decode_quoted_printable(std::string_view s);
std::string decode_base64(std::string_view s);
std::string html_to_text(std::string_view html);
// Invalid bytes -> U+FFFD, one per byte (see step 4).
std::string sanitize_utf8(std::string_view s);
// Bytes in `charset` -> UTF-8 (see step 4).
std::string charset_to_utf8(std::string_view bytes, std::string_view charset);
// Step 6 on already decoded text (no subject, no truncation): trimmed,
// whitespace-collapsed sentence texts, including ones without word tokens.
std::vector<std::string> split_sentences(std::string_view text);
// Step 7 on one sentence; spans (optional) get one entry per token.
std::vector<std::string> tokenize_words(std::string_view sentence,
                                        std::vector<TokenSpan>* spans = nullptr);

}  // namespace attnlab::data
