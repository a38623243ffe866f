// E-mail pipeline, message structure: raw RFC 822 text -> subject and body text
// (extract_email_text, steps 1-4 of the pipeline in email.hpp; step 5, HTML, is
// email_html.cpp). Also the decoders: RFC 2047 words, quoted-printable, base64,
// charsets and UTF-8 repair.
//
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
#include "attnlab/data/email.hpp"

#include <algorithm>

#include "attnlab/core/error.hpp"
#include "attnlab/data/email_detail.hpp"

namespace attnlab::data {

using namespace email_detail;

namespace {

bool is_latin1_charset(std::string_view cs) {
  const std::string c = to_lower(trim(cs));
  return c == "iso-8859-1" || c == "iso8859-1" || c == "latin1" || c == "latin-1" ||
         c == "iso-8859-15" || c == "iso8859-15" || c == "windows-1252" || c == "cp1252" ||
         c == "iso_8859-1" || c == "l1";
}

// ------------------------------------------------------------------ headers / MIME
struct Field {
  std::string name;   // lowercase
  std::string value;  // unfolded, trimmed
};

bool is_field_line(std::string_view line) {
  size_t i = 0;
  while (i < line.size()) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c == ':') return i > 0;
    if (c <= 32 || c >= 127) return false;
    ++i;
  }
  return false;
}
// does not start with one. *body = offset of the body.
bool parse_headers(std::string_view s, bool require, std::vector<Field>& fields, size_t* body) {
  fields.clear();
  size_t pos = 0, next;
  std::string_view line = next_line(s, 0, &next);
  if (istarts_with(line, "From ")) pos = next;  // mbox separator
  bool any = false;
  while (pos < s.size()) {
    line = next_line(s, pos, &next);
    if (trim(line).empty()) {  // end of the header block
      pos = next;
      break;
    }
    if (is_hspace(static_cast<unsigned char>(line[0])) && !fields.empty()) {
      fields.back().value += ' ';
      fields.back().value += std::string(trim(line));
    } else if (is_field_line(line)) {
      const size_t c = line.find(':');
      fields.push_back({to_lower(line.substr(0, c)), std::string(trim(line.substr(c + 1)))});
      any = true;
    } else {
      // not a header line: a top-level text is then no message at all; a MIME
      // part with a broken header keeps what it had and starts its body here.
      if (require) {
        fields.clear();
        return false;
      }
      break;
    }
    pos = next;
  }
  if (require && !any) return false;
  *body = std::min(pos, s.size());
  return true;
}

const Field* find_field(const std::vector<Field>& f, const char* name) {
  for (const Field& x : f)
    if (x.name == name) return &x;
  return nullptr;
}

// "type/sub; a=b; c="d"" -> lowercased type and the value of parameter `param`.
std::string header_param(std::string_view v, std::string_view param) {
  size_t i = v.find(';');
  while (i != std::string_view::npos && i < v.size()) {
    ++i;
    while (i < v.size() && is_space(static_cast<unsigned char>(v[i]))) ++i;
    size_t eq = i;
    while (eq < v.size() && v[eq] != '=' && v[eq] != ';') ++eq;
    if (eq >= v.size() || v[eq] == ';') {
      i = eq < v.size() ? eq : std::string_view::npos;
      continue;
    }
    const std::string_view name = trim(v.substr(i, eq - i));
    size_t j = eq + 1;
    while (j < v.size() && is_space(static_cast<unsigned char>(v[j]))) ++j;
    std::string val;
    if (j < v.size() && v[j] == '"') {
      ++j;
      while (j < v.size() && v[j] != '"') {
        if (v[j] == '\\' && j + 1 < v.size()) ++j;
        val += v[j++];
      }
      if (j < v.size()) ++j;
    } else {
      while (j < v.size() && v[j] != ';' && !is_space(static_cast<unsigned char>(v[j]))) val += v[j++];
    }
    if (iequals(name, param)) return val;
    i = v.find(';', j);
  }
  return {};
}
std::string header_main(std::string_view v) {
  const size_t e = v.find(';');
  return to_lower(trim(v.substr(0, e)));
}

bool looks_like_html(std::string_view s) {
  const size_t n = std::min<size_t>(s.size(), 4096);
  for (size_t i = 0; i + 5 <= n; ++i)
    if (s[i] == '<' && (istarts_with(s.substr(i + 1), "html") || istarts_with(s.substr(i + 1), "body") ||
                        istarts_with(s.substr(i + 1), "!doctype html")))
      return true;
  return false;
}

struct Extracted {
  std::string text;
  int kind = 0;  // 0 none, 1 plain, 2 html (for multipart/alternative choice)
};

void append_block(std::string& out, const std::string& t) {
  if (trim(t).empty()) return;
  if (!out.empty()) out += "\n\n";
  out += t;
}

// The parts of a multipart body between its "delim" lines (the line break before a
// delimiter belongs to the delimiter); in a body cut before the closing delimiter the
// last part runs to the cut.
std::vector<std::string_view> split_parts(std::string_view body, const std::string& delim) {
  std::vector<std::string_view> parts;
  size_t pos = 0, next, part_start = std::string_view::npos;
  bool closed = false;
  while (pos < body.size() && !closed) {
    std::string_view line = next_line(body, pos, &next);
    if (line.size() >= delim.size() && line.compare(0, delim.size(), delim) == 0) {
      std::string_view rest = trim(line.substr(delim.size()));
      const bool close = rest.size() >= 2 && rest.substr(0, 2) == "--";
      if (rest.empty() || close) {
        if (part_start != std::string_view::npos) {
          size_t pe = pos;  // the line break before the delimiter belongs to it
          if (pe > part_start && body[pe - 1] == '\n') --pe;
          if (pe > part_start && body[pe - 1] == '\r') --pe;
          parts.push_back(body.substr(part_start, pe - part_start));
        }
        part_start = next;
        closed = close;
      }
    }
    pos = next;
  }
  if (!closed && part_start != std::string_view::npos && part_start < body.size())
    parts.push_back(body.substr(part_start));  // cut message: the last part runs to the end
  return parts;
}

Extracted extract_entity(std::string_view s, bool top, int depth, std::string* subject,
                         bool* has_headers);

// A multipart/* body -> the text of its parts (multipart/alternative: of one part).
Extracted extract_multipart(std::string_view body, const std::string& ct, const Field& ct_f,
                            int depth) {
  Extracted r;
  const std::string boundary = header_param(ct_f.value, "boundary");
  if (boundary.empty() || depth >= 16) {
    // broken multipart: read the body as plain text
    r.text = sanitize_utf8(body);
    r.kind = 1;
    return r;
  }
  const std::vector<std::string_view> parts = split_parts(body, "--" + boundary);
  if (parts.empty()) {
    r.text = sanitize_utf8(body);
    r.kind = 1;
    return r;
  }
  if (ct == "multipart/alternative") {
    Extracted best;
    for (std::string_view p : parts) {
      Extracted e = extract_entity(p, false, depth + 1, nullptr, nullptr);
      if (e.kind == 0 || trim(e.text).empty()) continue;
      if (e.kind == 1 && best.kind != 1) best = std::move(e);       // first plain wins
      else if (e.kind == 2 && best.kind == 0) best = std::move(e);  // html if no plain
      else if (best.kind == 2 && e.kind == 2) best = std::move(e);  // last html
    }
    return best;
  }
  for (std::string_view p : parts) {
    Extracted e = extract_entity(p, false, depth + 1, nullptr, nullptr);
    if (e.kind == 0) continue;
    append_block(r.text, e.text);
    r.kind = std::max(r.kind, e.kind);
  }
  return r;
}

// One MIME entity (headers + body) -> its text.
Extracted extract_entity(std::string_view s, bool top, int depth, std::string* subject,
                         bool* has_headers) {
  Extracted r;
  std::vector<Field> fields;
  size_t body_pos = 0;
  bool hdr = parse_headers(s, top, fields, &body_pos);
  if (top) *has_headers = hdr;
  if (!hdr) {  // plain text (or HTML) without headers
    fields.clear();
    body_pos = 0;
  }
  if (top && subject) {
    if (const Field* f = find_field(fields, "subject")) *subject = decode_rfc2047(f->value);
  }
  std::string_view body = s.substr(body_pos);
  const Field* ct_f = find_field(fields, "content-type");
  const std::string ct = ct_f ? header_main(ct_f->value) : std::string("text/plain");
  const Field* cd_f = find_field(fields, "content-disposition");
  if (!top && cd_f && header_main(cd_f->value) == "attachment") return r;

  if (ct.rfind("multipart/", 0) == 0) return extract_multipart(body, ct, *ct_f, depth);
  if (ct == "message/rfc822") {
    if (depth >= 16) return r;
    std::string dummy_subject;
    bool dummy = false;
    return extract_entity(body, false, depth + 1, &dummy_subject, &dummy);
  }
  const bool plain = ct == "text/plain";
  const bool html = ct == "text/html";
  const bool enriched = ct == "text/enriched" || ct == "text/richtext";
  if (!plain && !html && !enriched) return r;  // attachments, images, signatures, ...

  const Field* te_f = find_field(fields, "content-transfer-encoding");
  const std::string te = te_f ? header_main(te_f->value) : std::string();
  const std::string charset = ct_f ? header_param(ct_f->value, "charset") : std::string();
  std::string text;
  if (te == "quoted-printable")
    text = charset_to_utf8(decode_quoted_printable(body), charset);
  else if (te == "base64")
    text = charset_to_utf8(decode_base64(body), charset);
  else
    text = sanitize_utf8(body);
  if (html || enriched || looks_like_html(text)) {
    r.text = html_to_text(text);
    r.kind = 2;
  } else {
    r.text = std::move(text);
    r.kind = 1;
  }
  return r;
}

}  // namespace

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    // fast path: ASCII
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      out += s[i++];
      continue;
    }
    uint32_t cp;
    const size_t n = utf8_valid_len(s, i, &cp);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

std::string charset_to_utf8(std::string_view bytes, std::string_view charset) {
  if (!is_latin1_charset(charset)) return sanitize_utf8(bytes);
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 8);
  for (char ch : bytes) {
    const auto b = static_cast<unsigned char>(ch);
    if (b < 0x80) out += ch;
    else if (b < 0xA0) append_utf8(out, kCp1252[b - 0x80]);
    else append_utf8(out, b);
  }
  return out;
}

std::string decode_quoted_printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c != '=') {
      out += c;
      continue;
    }
    // soft line break: '=' [spaces/tabs] (\r)?\n
    size_t j = i + 1;
    while (j < s.size() && is_hspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j < s.size() && s[j] == '\r') ++j;
    if (j < s.size() && s[j] == '\n') {
      i = j;
      continue;
    }
    if (j >= s.size()) {  // '=' at the very end: soft break
      i = j;
      continue;
    }
    if (i + 2 < s.size()) {
      const int h = hex_val(static_cast<unsigned char>(s[i + 1]));
      const int l = hex_val(static_cast<unsigned char>(s[i + 2]));
      if (h >= 0 && l >= 0) {
        out += static_cast<char>(h * 16 + l);
        i += 2;
        continue;
      }
    }
    out += c;  // malformed: keep the '='
  }
  return out;
}

std::string decode_base64(std::string_view s) {
  std::string out;
  out.reserve(s.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+') v = 62;
    else if (c == '/') v = 63;
    else if (c == '=') {
      // padding ends a group; drop partial bits and continue (concatenated blocks)
      acc = 0, bits = 0;
      continue;
    } else {
      continue;
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

std::string decode_rfc2047(std::string_view v) {
  std::string out;
  size_t i = 0;
  while (i < v.size()) {
    if (v[i] == '=' && i + 1 < v.size() && v[i + 1] == '?') {
      // =?charset?E?text?=
      const size_t q1 = v.find('?', i + 2);
      if (q1 != std::string_view::npos && q1 + 2 < v.size() && v[q1 + 2] == '?') {
        const size_t q3 = v.find("?=", q1 + 3);
        if (q3 != std::string_view::npos) {
          std::string_view cs = v.substr(i + 2, q1 - i - 2);
          const size_t star = cs.find('*');  // RFC 2231 language suffix
          if (star != std::string_view::npos) cs = cs.substr(0, star);
          const char enc = lower(v[q1 + 1]);
          std::string_view text = v.substr(q1 + 3, q3 - q1 - 3);
          if (enc == 'q' || enc == 'b') {
            std::string bytes;
            if (enc == 'b') {
              bytes = decode_base64(text);
            } else {
              for (size_t k = 0; k < text.size(); ++k) {
                if (text[k] == '_') {
                  bytes += ' ';
                } else if (text[k] == '=' && k + 2 < text.size() &&
                           hex_val(static_cast<unsigned char>(text[k + 1])) >= 0 &&
                           hex_val(static_cast<unsigned char>(text[k + 2])) >= 0) {
                  bytes += static_cast<char>(hex_val(static_cast<unsigned char>(text[k + 1])) * 16 +
                                             hex_val(static_cast<unsigned char>(text[k + 2])));
                  k += 2;
                } else {
                  bytes += text[k];
                }
              }
            }
            out += charset_to_utf8(bytes, cs);
            i = q3 + 2;
            // look ahead: whitespace then another encoded word -> skip the whitespace
            size_t k = i;
            while (k < v.size() && is_space(static_cast<unsigned char>(v[k]))) ++k;
            if (k > i && k + 1 < v.size() && v[k] == '=' && v[k + 1] == '?') i = k;
            continue;
          }
        }
      }
    }
    // ordinary text
    size_t j = i + 1;
    while (j < v.size() && !(v[j] == '=' && j + 1 < v.size() && v[j + 1] == '?')) ++j;
    out += sanitize_utf8(v.substr(i, j - i));
    i = j;
  }
  return out;
}
EmailText extract_email_text(std::string_view raw, size_t max_input_bytes) {
  ATTNLAB_CHECK(max_input_bytes >= 1, "email: expected max_input_bytes >= 1, got ", max_input_bytes);
  EmailText r;
  if (raw.size() > max_input_bytes) {
    raw = raw.substr(0, utf8_cut(raw, max_input_bytes));
    r.input_truncated = true;
  }
  Extracted e = extract_entity(raw, true, 0, &r.subject, &r.has_headers);
  r.body = std::move(e.text);
  return r;
}

}  // namespace attnlab::data
