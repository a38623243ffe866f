// E-mail text pipeline: raw RFC 822 message (or pasted plain text / HTML) ->
// sentences of word tokens, as the HAN model and the tf-idf baseline see them.
// The same code runs natively and in wasm (the page tokenizes pasted text with
// it), so it uses only the C++17 standard library and no OS calls.
//
// Pipeline (tokenize_email):
//  1. Input cap: only the first max_input_bytes bytes (default 1 MiB) are read;
//     the cut is moved back to a UTF-8 character boundary and the result says
//     input_truncated. A multipart message cut this way keeps the parts seen so
//     far (the last one runs to the cut).
//  2. Headers: if the text starts like a message (an mbox "From " line or a
//     header field "Name: value", and every line up to the first blank line is
//     a header field or a folded continuation), the header block is parsed:
//     Subject is kept (RFC 2047 encoded-words =?charset?Q|B?...?= decoded,
//     whitespace between adjacent encoded-words dropped), Content-Type /
//     Content-Transfer-Encoding / Content-Disposition drive the body decoding,
//     all other headers are dropped. Otherwise the whole text is the body.
//  3. MIME: multipart/* bodies are split at their boundaries (nested parts
//     too, depth <= 16). multipart/alternative keeps one alternative: the first
//     text/plain one with some text, else the text/html one, else the last one
//     that yields text. Other multiparts keep the text of all their parts.
//     message/rfc822 parts contribute their body. Parts with
//     "Content-Disposition: attachment" and non-text parts are dropped; among
//     text/* only plain, html and enriched are kept. A part without
//     Content-Type is text/plain. Transfer encodings quoted-printable (soft line
//     breaks "=\n", "=XX" escapes; a malformed "=" stays as is) and base64
//     (characters outside the alphabet skipped) are decoded.
//  4. Charsets and invalid bytes: bytes decoded from quoted-printable/base64
//     (and RFC 2047 words) in iso-8859-1/-15, latin1 or windows-1252 are
//     converted to UTF-8 (0x80-0x9F per windows-1252). Everything else (utf-8,
//     us-ascii, 7bit/8bit parts, which are already text in the JSON corpus and
//     in pasted text, and charsets we do not convert such as gb2312 or koi8-r)
//     is checked as UTF-8: each byte that does not start a valid, shortest-form
//     UTF-8 sequence (no surrogates, <= U+10FFFF) is replaced by U+FFFD. U+FFFD
//     is not a word character, so it separates words and never becomes one.
//  5. HTML (text/html parts, and text/plain bodies that contain <html or <body)
//     becomes text: comments, <script>, <style>, <title> and <xml> content are
//     dropped, block tags (p, div, tr, h1-6, table, ...) become paragraph
//     breaks, br/li become line breaks, other tags vanish, source whitespace
//     collapses, entities are decoded (numeric, and ~100 common named ones).
//  6. Sentences: the subject is the first sentence. The body splits at blank
//     lines (paragraphs), at a line break after a short line (< 40 bytes: greetings,
//     signatures, lists) or before a list/quote marker, and after ., ! or ? (runs
//     thereof, optionally followed by closing quotes/brackets) followed by
//     whitespace, except after common abbreviations (e.g., mr., etc.) and
//     single-letter initials. Other line breaks inside a paragraph join wrapped
//     lines. Leading quote markers (">") are removed from each line. A
//     sentence's text is trimmed and its whitespace collapsed to single spaces.
//  7. Words (tokenize_words): whitespace-separated chunks, stripped of
//     surrounding punctuation; a chunk starting with http://, https://, ftp://,
//     www. -> <url>; mailto: or local@domain.tld -> <email>; a bare domain with a
//     common TLD (example.com, foo.co.uk/path) -> <url>. Otherwise the chunk
//     splits into runs of word characters (ASCII letters and digits, and
//     non-ASCII letters: every code point >= U+0080 except spaces, punctuation,
//     symbols, private use, emoji and U+FFFD); an apostrophe (' or U+2019)
//     between letters stays inside the word (as '), and . , : / - between digits
//     glue a number (1,000.50, 12:30, 2002-08-22). A run of digits and those
//     separators -> <num>; any other run -> lowercased (ASCII, Latin-1,
//     Latin Extended-A, Greek and Cyrillic capitals). Punctuation is dropped.
//     Sentences without tokens are dropped.
//  8. Truncation: a sentence longer than max_words tokens continues as the
//     next sentence (split_long_sentences = true, default) or is cut
//     (false); at most max_sentences sentences are kept (doc_truncated says
//     whether more were there). Defaults: 30 sentences x 40 words.
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
