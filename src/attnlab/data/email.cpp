#include "attnlab/data/email.hpp"

#include <algorithm>
#include <cstring>

#include "attnlab/core/error.hpp"

namespace attnlab::data {

namespace {

// ------------------------------------------------------------------ bytes
inline bool is_space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
inline bool is_hspace(unsigned char c) { return c == ' ' || c == '\t'; }
inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
inline bool is_alpha(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
inline bool is_alnum(unsigned char c) { return is_digit(c) || is_alpha(c); }
inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
inline int hex_val(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c |= 0x20;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string to_lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = lower(c);
  return r;
}
bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}
bool istarts_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && iequals(s.substr(0, p.size()), p);
}
std::string_view trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && is_space(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && is_space(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// ------------------------------------------------------------------ UTF-8
void append_utf8(std::string& out, uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Length of the valid UTF-8 sequence starting at s[i] (0 if invalid), and its code point.
size_t utf8_valid_len(std::string_view s, size_t i, uint32_t* cp_out) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *cp_out = b0;
    return 1;
  }
  size_t n;
  uint32_t cp, lo;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2, cp = b0 & 0x1F, lo = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3, cp = b0 & 0x0F, lo = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4, cp = b0 & 0x07, lo = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < lo || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *cp_out = cp;
  return n;
}

// Decodes one code point of already-valid UTF-8 (output of sanitize_utf8).
inline uint32_t next_cp(std::string_view s, size_t i, size_t* len) {
  uint32_t cp;
  size_t n = utf8_valid_len(s, i, &cp);
  if (n == 0) {  // should not happen on sanitized text; treat as U+FFFD
    *len = 1;
    return 0xFFFD;
  }
  *len = n;
  return cp;
}

// Cut position <= n that does not split a UTF-8 sequence.
size_t utf8_cut(std::string_view s, size_t n) {
  if (n >= s.size()) return s.size();
  size_t k = n;
  // back up over at most 3 continuation bytes to the lead byte
  for (int i = 0; i < 3 && k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80; ++i) --k;
  return k;
}

const uint16_t kCp1252[32] = {0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                              0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
                              0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                              0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178};

bool is_latin1_charset(std::string_view cs) {
  const std::string c = to_lower(trim(cs));
  return c == "iso-8859-1" || c == "iso8859-1" || c == "latin1" || c == "latin-1" ||
         c == "iso-8859-15" || c == "iso8859-15" || c == "windows-1252" || c == "cp1252" ||
         c == "iso_8859-1" || c == "l1";
}

// ------------------------------------------------------------------ words
bool is_word_cp(uint32_t cp) {
  if (cp < 0x80) return is_alnum(static_cast<unsigned char>(cp));
  if (cp <= 0xBF) return cp == 0xAA || cp == 0xB5 || cp == 0xBA;  // C1 controls, Latin-1 punct.
  if (cp == 0xD7 || cp == 0xF7) return false;
  if (cp >= 0x2000 && cp <= 0x2BFF) return false;  // punctuation, currency, symbols, arrows, boxes
  if (cp >= 0x3000 && cp <= 0x303F) return false;  // CJK punctuation
  if (cp >= 0xE000 && cp <= 0xF8FF) return false;  // private use
  if (cp >= 0xFE00 && cp <= 0xFE0F) return false;  // variation selectors
  if (cp >= 0xFF00 && cp <= 0xFF0F) return false;  // fullwidth punctuation
  if (cp >= 0xFFF0 && cp <= 0xFFFF) return false;  // specials incl. U+FFFD
  if (cp >= 0x1F000 && cp <= 0x1FAFF) return false;  // emoji, symbols
  return true;
}
bool is_space_cp(uint32_t cp) {
  return (cp < 0x80 && is_space(static_cast<unsigned char>(cp))) || cp == 0xA0 ||
         (cp >= 0x2000 && cp <= 0x200B) || cp == 0x3000 || cp == 0x202F || cp == 0x205F;
}
uint32_t lower_cp(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 0x20;
  if (cp >= 0x100 && cp <= 0x17F) {
    if ((cp <= 0x137 || (cp >= 0x14A && cp <= 0x177)) && cp % 2 == 0) return cp + 1;
    if (((cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E)) && cp % 2 == 1)
      return cp + 1;
    if (cp == 0x178) return 0xFF;
    return cp;
  }
  if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) return cp + 0x20;
  if (cp >= 0x410 && cp <= 0x42F) return cp + 0x20;
  if (cp >= 0x400 && cp <= 0x40F) return cp + 0x50;
  return cp;
}
bool is_apostrophe_cp(uint32_t cp) { return cp == '\'' || cp == 0x2019; }
bool is_num_glue(uint32_t cp) { return cp == '.' || cp == ',' || cp == ':' || cp == '/' || cp == '-'; }

const char* const kTlds[] = {"com", "net", "org", "edu", "gov", "mil", "biz", "info", "us",
                             "uk",  "de",  "ca",  "au",  "fr",  "jp",  "ru",  "nl",   "ch",
                             "se",  "tv",  "cc",  "ws",  "io",  "cn",  "kr", "br",   "be",
                             "at",  "dk",  "no",  "pl",  "name", "mobi", "ie", "nz",  "za"};

bool is_domain_like(std::string_view s) {
  // label(.label)+ with a known TLD, optionally followed by / path or :port
  size_t end = s.size();
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == '/' || s[i] == ':' || s[i] == '?') {
      end = i;
      break;
    }
  std::string_view host = s.substr(0, end);
  if (host.size() < 4) return false;
  size_t dots = 0, label = 0;
  for (size_t i = 0; i < host.size(); ++i) {
    const auto c = static_cast<unsigned char>(host[i]);
    if (c == '.') {
      if (label == 0) return false;
      ++dots, label = 0;
    } else if (is_alnum(c) || c == '-') {
      ++label;
    } else {
      return false;
    }
  }
  if (dots == 0 || label == 0) return false;
  const std::string tld = to_lower(host.substr(host.rfind('.') + 1));
  for (const char* t : kTlds)
    if (tld == t) return true;
  return false;
}

bool is_email_like(std::string_view s) {
  const size_t at = s.find('@');
  if (at == 0 || at == std::string_view::npos || at + 1 >= s.size()) return false;
  if (s.find('@', at + 1) != std::string_view::npos) return false;
  for (size_t i = 0; i < at; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (!(is_alnum(c) || std::strchr("._%+-=!#$&*/?^{|}~'", c))) return false;
  }
  std::string_view dom = s.substr(at + 1);
  if (dom.find('.') == std::string_view::npos) return false;
  for (char ch : dom) {
    const auto c = static_cast<unsigned char>(ch);
    if (!(is_alnum(c) || c == '.' || c == '-')) return false;
  }
  return dom.front() != '.' && dom.back() != '.';
}

void emit(std::vector<std::string>& toks, std::vector<TokenSpan>* spans, std::string tok,
          size_t b, size_t e) {
  toks.push_back(std::move(tok));
  if (spans) spans->push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(e - b)});
}

// One whitespace-free chunk s[a, b).
void tokenize_chunk(std::string_view s, size_t a, size_t b, std::vector<std::string>& toks,
                    std::vector<TokenSpan>* spans) {
  // strip surrounding non-word characters (keeping the chunk's core)
  size_t ca = a, cb = b;
  while (ca < cb) {
    size_t n;
    const uint32_t cp = next_cp(s, ca, &n);
    if (is_word_cp(cp)) break;
    ca += n;
  }
  while (cb > ca) {
    size_t k = cb - 1;
    while (k > ca && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
    size_t n;
    const uint32_t cp = next_cp(s, k, &n);
    if (is_word_cp(cp) || cp == '/') break;  // keep a trailing '/' of a URL
    cb = k;
  }
  if (ca >= cb) return;
  std::string_view core = s.substr(ca, cb - ca);
  // URL / e-mail: the original chunk may start with '<' or '(' which we stripped.
  if (istarts_with(core, "http://") || istarts_with(core, "https://") ||
      istarts_with(core, "ftp://") || istarts_with(core, "www.")) {
    emit(toks, spans, kUrlToken, ca, cb);
    return;
  }
  if (istarts_with(core, "mailto:") || is_email_like(core)) {
    emit(toks, spans, kEmailToken, ca, cb);
    return;
  }
  if (core.find('.') != std::string_view::npos && is_domain_like(core)) {
    emit(toks, spans, kUrlToken, ca, cb);
    return;
  }
  // runs of word characters
  size_t i = ca;
  while (i < cb) {
    size_t n;
    uint32_t cp = next_cp(s, i, &n);
    if (!is_word_cp(cp)) {
      i += n;
      continue;
    }
    const size_t start = i;
    bool only_num = true;
    uint32_t prev = 0;
    std::string tok;
    while (i < cb) {
      cp = next_cp(s, i, &n);
      if (is_word_cp(cp)) {
        if (!(cp < 0x80 && is_digit(static_cast<unsigned char>(cp)))) only_num = false;
        append_utf8(tok, lower_cp(cp));
        prev = cp;
        i += n;
        continue;
      }
      // glue characters need a word character on both sides
      if (i + n >= cb) break;
      size_t n2;
      const uint32_t nx = next_cp(s, i + n, &n2);
      const bool prev_digit = prev < 0x80 && is_digit(static_cast<unsigned char>(prev));
      const bool next_digit = nx < 0x80 && is_digit(static_cast<unsigned char>(nx));
      if (is_apostrophe_cp(cp) && is_word_cp(prev) && !prev_digit && is_word_cp(nx) &&
          !next_digit) {
        tok += '\'';
        prev = cp;
        i += n;
        continue;
      }
      if (is_num_glue(cp) && prev_digit && next_digit) {
        tok += static_cast<char>(cp);
        prev = cp;
        i += n;
        continue;
      }
      break;
    }
    emit(toks, spans, only_num ? std::string(kNumToken) : std::move(tok), start, i);
  }
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

// Next line of s from pos: [pos, eol), and *next = start of the following line.
std::string_view next_line(std::string_view s, size_t pos, size_t* next) {
  size_t e = s.find('\n', pos);
  if (e == std::string_view::npos) {
    *next = s.size();
    e = s.size();
  } else {
    *next = e + 1;
  }
  size_t le = e;
  if (le > pos && s[le - 1] == '\r') --le;
  return s.substr(pos, le - pos);
}

// Parses a header block at the start of s. Returns false (and no fields) if s
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

  if (ct.rfind("multipart/", 0) == 0) {
    const std::string boundary = header_param(ct_f->value, "boundary");
    if (boundary.empty() || depth >= 16) {
      // broken multipart: read the body as plain text
      r.text = sanitize_utf8(body);
      r.kind = 1;
      return r;
    }
    const std::string delim = "--" + boundary;
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

// ------------------------------------------------------------------ HTML
struct Entity {
  const char* name;
  uint32_t cp;
};
const Entity kEntities[] = {
    {"amp", '&'},      {"lt", '<'},        {"gt", '>'},       {"quot", '"'},     {"apos", '\''},
    {"nbsp", 0xA0},    {"copy", 0xA9},     {"reg", 0xAE},     {"trade", 0x2122}, {"hellip", 0x2026},
    {"mdash", 0x2014}, {"ndash", 0x2013},  {"lsquo", 0x2018}, {"rsquo", 0x2019}, {"ldquo", 0x201C},
    {"rdquo", 0x201D}, {"sbquo", 0x201A},  {"bdquo", 0x201E}, {"bull", 0x2022},  {"middot", 0xB7},
    {"euro", 0x20AC},  {"pound", 0xA3},    {"yen", 0xA5},     {"cent", 0xA2},    {"sect", 0xA7},
    {"deg", 0xB0},     {"plusmn", 0xB1},   {"times", 0xD7},   {"divide", 0xF7},  {"laquo", 0xAB},
    {"raquo", 0xBB},   {"iexcl", 0xA1},    {"iquest", 0xBF},  {"para", 0xB6},    {"micro", 0xB5},
    {"frac12", 0xBD},  {"frac14", 0xBC},   {"frac34", 0xBE},  {"sup1", 0xB9},    {"sup2", 0xB2},
    {"sup3", 0xB3},    {"ordf", 0xAA},     {"ordm", 0xBA},    {"shy", 0xAD},     {"macr", 0xAF},
    {"acute", 0xB4},   {"cedil", 0xB8},    {"uml", 0xA8},     {"not", 0xAC},     {"curren", 0xA4},
    {"brvbar", 0xA6},  {"szlig", 0xDF},    {"agrave", 0xE0},  {"aacute", 0xE1},  {"acirc", 0xE2},
    {"atilde", 0xE3},  {"auml", 0xE4},     {"aring", 0xE5},   {"aelig", 0xE6},   {"ccedil", 0xE7},
    {"egrave", 0xE8},  {"eacute", 0xE9},   {"ecirc", 0xEA},   {"euml", 0xEB},    {"igrave", 0xEC},
    {"iacute", 0xED},  {"icirc", 0xEE},    {"iuml", 0xEF},    {"eth", 0xF0},     {"ntilde", 0xF1},
    {"ograve", 0xF2},  {"oacute", 0xF3},   {"ocirc", 0xF4},   {"otilde", 0xF5},  {"ouml", 0xF6},
    {"oslash", 0xF8},  {"ugrave", 0xF9},   {"uacute", 0xFA},  {"ucirc", 0xFB},   {"uuml", 0xFC},
    {"yacute", 0xFD},  {"thorn", 0xFE},    {"yuml", 0xFF},    {"Agrave", 0xC0},  {"Aacute", 0xC1},
    {"Acirc", 0xC2},   {"Atilde", 0xC3},   {"Auml", 0xC4},    {"Aring", 0xC5},   {"AElig", 0xC6},
    {"Ccedil", 0xC7},  {"Egrave", 0xC8},   {"Eacute", 0xC9},  {"Ecirc", 0xCA},   {"Euml", 0xCB},
    {"Igrave", 0xCC},  {"Iacute", 0xCD},   {"Icirc", 0xCE},   {"Iuml", 0xCF},    {"Ntilde", 0xD1},
    {"Ograve", 0xD2},  {"Oacute", 0xD3},   {"Ocirc", 0xD4},   {"Otilde", 0xD5},  {"Ouml", 0xD6},
    {"Oslash", 0xD8},  {"Ugrave", 0xD9},   {"Uacute", 0xDA},  {"Ucirc", 0xDB},   {"Uuml", 0xDC},
    {"Yacute", 0xDD},  {"zwnj", 0x200C},   {"zwj", 0x200D},   {"ensp", 0x2002},  {"emsp", 0x2003},
    {"thinsp", 0x2009}};

enum class TagKind { Inline, Line, Block, Skip };

TagKind tag_kind(std::string_view name) {
  static const char* const skip[] = {"script", "style", "title", "xml"};
  static const char* const line[] = {"br", "li", "dd", "dt", "option"};
  static const char* const block[] = {"p",  "div", "tr", "table", "h1", "h2", "h3", "h4",
                                      "h5", "h6",  "ul", "ol",    "hr", "blockquote",
                                      "pre", "center", "form", "body", "html", "head",
                                      "address", "section", "article", "header", "footer",
                                      "tbody", "thead", "dl", "fieldset"};
  for (const char* t : skip)
    if (iequals(name, t)) return TagKind::Skip;
  for (const char* t : line)
    if (iequals(name, t)) return TagKind::Line;
  for (const char* t : block)
    if (iequals(name, t)) return TagKind::Block;
  return TagKind::Inline;
}

// End of a tag starting at s[i] == '<' (index after '>'), honoring quoted attributes.
size_t tag_end(std::string_view s, size_t i) {
  char q = 0;
  for (size_t k = i + 1; k < s.size(); ++k) {
    const char c = s[k];
    if (q) {
      if (c == q) q = 0;
    } else if (c == '"' || c == '\'') {
      // a quote only opens inside an attribute value (after '=')
      size_t p = k;
      while (p > i && is_space(static_cast<unsigned char>(s[p - 1]))) --p;
      if (p > i && s[p - 1] == '=') q = c;
    } else if (c == '>') {
      return k + 1;
    }
  }
  return s.size();
}

// Case-insensitive find of needle in s from pos.
size_t ifind(std::string_view s, std::string_view needle, size_t pos) {
  if (needle.empty()) return pos;
  for (size_t i = pos; i + needle.size() <= s.size(); ++i)
    if (lower(s[i]) == lower(needle[0]) && iequals(s.substr(i, needle.size()), needle)) return i;
  return std::string_view::npos;
}

// ------------------------------------------------------------------ sentences
bool is_abbreviation(std::string_view word) {
  static const char* const abbr[] = {"mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs",
                                     "etc", "e.g", "i.e", "inc", "ltd", "co", "corp", "no",
                                     "fig", "approx", "dept", "est", "ave", "u.s", "jan", "feb",
                                     "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
                                     "nov", "dec", "mon", "tue", "wed", "thu", "fri", "sat",
                                     "sun", "p.s", "a.m", "p.m", "ph.d", "cf", "al"};
  for (const char* a : abbr)
    if (iequals(word, a)) return true;
  // a single letter (an initial)
  return word.size() == 1 && is_alpha(static_cast<unsigned char>(word[0]));
}

// Appends the sentences of one segment (a paragraph piece without breaks).
void split_segment(std::string_view seg, std::vector<std::string>& out) {
  // collapse whitespace first
  std::string t;
  t.reserve(seg.size());
  bool space = false;
  for (size_t i = 0; i < seg.size();) {
    const auto c = static_cast<unsigned char>(seg[i]);
    size_t n = 1;
    bool ws = false;
    if (c < 0x80) {
      ws = is_space(c) || c < 0x20 || c == 0x7F;
    } else {
      uint32_t cp = next_cp(seg, i, &n);
      ws = is_space_cp(cp);
    }
    if (ws) {
      space = true;
    } else {
      if (space && !t.empty()) t += ' ';
      space = false;
      t.append(seg.data() + i, n);
    }
    i += n;
  }
  size_t start = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c != '.' && c != '!' && c != '?') continue;
    size_t j = i;
    while (j < t.size() && (t[j] == '.' || t[j] == '!' || t[j] == '?')) ++j;
    while (j < t.size() && (t[j] == '"' || t[j] == '\'' || t[j] == ')' || t[j] == ']')) ++j;
    if (j < t.size() && t[j] != ' ') {
      i = j - 1;
      continue;
    }
    if (c == '.' && j == i + 1) {  // a single '.': abbreviation or initial?
      size_t w = i;
      while (w > start && t[w - 1] != ' ') --w;
      std::string_view word(t.data() + w, i - w);
      while (!word.empty() && !is_alnum(static_cast<unsigned char>(word.front()))) word.remove_prefix(1);
      if (is_abbreviation(word)) {
        i = j - 1;
        continue;
      }
    }
    std::string_view s = trim(std::string_view(t).substr(start, j - start));
    if (!s.empty()) out.emplace_back(s);
    start = j;
    i = j - 1;
  }
  std::string_view s = trim(std::string_view(t).substr(start));
  if (!s.empty()) out.emplace_back(s);
}

bool starts_list_item(std::string_view line) {
  if (line.empty()) return false;
  const auto c = static_cast<unsigned char>(line[0]);
  if (c == '-' || c == '*' || c == '+' || c == '#' || c == '|' || c == '=') return true;
  if (line.size() >= 3 && static_cast<unsigned char>(line[0]) == 0xE2 &&
      static_cast<unsigned char>(line[1]) == 0x80 && static_cast<unsigned char>(line[2]) == 0xA2)
    return true;  // U+2022 bullet
  size_t i = 0;
  while (i < line.size() && is_digit(static_cast<unsigned char>(line[i]))) ++i;
  return i > 0 && i < 4 && i < line.size() && (line[i] == '.' || line[i] == ')');
}

// Line without its leading quote markers ("> > text" -> "text").
std::string_view strip_quote(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == '>' || is_hspace(static_cast<unsigned char>(line[i])))) ++i;
  return trim(line.substr(i));
}

}  // namespace

// ==================================================================== public
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

std::string html_to_text(std::string_view s) {
  std::string out;
  out.reserve(s.size() / 2);
  bool space = false;  // pending collapsed whitespace
  auto put_break = [&](const char* br) {
    // trailing spaces before a break are dropped; at most two newlines in a row
    while (!out.empty() && out.back() == ' ') out.pop_back();
    space = false;
    for (const char* p = br; *p; ++p) {
      size_t nl = 0;
      for (size_t k = out.size(); k > 0 && out[k - 1] == '\n'; --k) ++nl;
      if (nl < 2 && !out.empty()) out += '\n';
    }
  };
  auto put_char = [&](const char* p, size_t n) {
    if (space && !out.empty() && out.back() != '\n') out += ' ';
    space = false;
    out.append(p, n);
  };
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '<') {
      if (s.compare(i, 4, "<!--") == 0) {
        const size_t e = s.find("-->", i + 4);
        i = e == std::string_view::npos ? s.size() : e + 3;
        continue;
      }
      size_t k = i + 1;
      bool closing = false;
      if (k < s.size() && s[k] == '/') closing = true, ++k;
      const size_t name_b = k;
      while (k < s.size() && (is_alnum(static_cast<unsigned char>(s[k])) || s[k] == ':')) ++k;
      if (k == name_b) {
        if (k < s.size() && (s[k] == '!' || s[k] == '?')) {  // <!DOCTYPE>, <?xml?>
          i = tag_end(s, i);
          continue;
        }
        put_char("<", 1);  // a lone '<' is text
        ++i;
        continue;
      }
      const std::string_view name = s.substr(name_b, k - name_b);
      const size_t e = tag_end(s, i);
      const TagKind kind = tag_kind(name);
      if (kind == TagKind::Skip && !closing) {
        const std::string close = "</" + std::string(name);
        const size_t ce = ifind(s, close, e);
        i = ce == std::string_view::npos ? s.size() : tag_end(s, ce);
        continue;
      }
      if (kind == TagKind::Block) put_break("\n\n");
      else if (kind == TagKind::Line) put_break("\n");
      else if (iequals(name, "td") || iequals(name, "th")) space = true;
      i = e;
      continue;
    }
    if (c == '&') {
      size_t k = i + 1;
      uint32_t cp = 0;
      bool ok = false;
      if (k < s.size() && s[k] == '#') {
        ++k;
        const bool hex = k < s.size() && (s[k] == 'x' || s[k] == 'X');
        if (hex) ++k;
        const size_t db = k;
        uint64_t val = 0;
        while (k < s.size() && k - db < 8 &&
               (hex ? hex_val(static_cast<unsigned char>(s[k])) >= 0 : is_digit(static_cast<unsigned char>(s[k])))) {
          val = val * (hex ? 16 : 10) + static_cast<uint64_t>(hex ? hex_val(static_cast<unsigned char>(s[k])) : s[k] - '0');
          ++k;
        }
        if (k > db) {
          ok = true;
          cp = val == 0 || val > 0x10FFFF ? 0xFFFD : static_cast<uint32_t>(val);
          if (cp >= 0x80 && cp < 0xA0) cp = kCp1252[cp - 0x80];  // as browsers do
          if (k < s.size() && s[k] == ';') ++k;
        }
      } else {
        const size_t nb = k;
        while (k < s.size() && k - nb < 10 && is_alnum(static_cast<unsigned char>(s[k]))) ++k;
        if (k < s.size() && s[k] == ';' && k > nb) {
          const std::string_view name = s.substr(nb, k - nb);
          for (const Entity& en : kEntities)
            if (name == en.name) {
              cp = en.cp, ok = true;
              break;
            }
          if (!ok)  // case-insensitive second try (&AMP; &NBSP;)
            for (const Entity& en : kEntities)
              if (iequals(name, en.name)) {
                cp = en.cp, ok = true;
                break;
              }
          if (ok) ++k;
        }
      }
      if (ok) {
        if (cp == 0xA0 || cp == '\t' || cp == '\n' || cp == '\r' || cp == ' ') {
          space = true;
        } else {
          std::string tmp;
          append_utf8(tmp, cp);
          put_char(tmp.data(), tmp.size());
        }
        i = k;
        continue;
      }
      put_char("&", 1);
      ++i;
      continue;
    }
    if (is_space(static_cast<unsigned char>(c))) {
      space = true;
      ++i;
      continue;
    }
    // a run of ordinary text
    size_t j = i + 1;
    while (j < s.size() && s[j] != '<' && s[j] != '&' && !is_space(static_cast<unsigned char>(s[j]))) ++j;
    put_char(s.data() + i, j - i);
    i = j;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
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

std::vector<std::string> split_sentences(std::string_view text) {
  std::vector<std::string> out;
  std::string seg;  // current segment (lines joined by spaces)
  size_t prev_len = 0;
  bool prev_colon = false;
  auto flush = [&]() {
    if (!seg.empty()) split_segment(seg, out);
    seg.clear();
  };
  size_t pos = 0, next;
  while (pos < text.size()) {
    std::string_view line = next_line(text, pos, &next);
    // a lone '\r' also breaks lines (old Mac text)
    if (line.find('\r') != std::string_view::npos) {
      size_t cr = line.find('\r');
      next = pos + cr + 1;
      line = line.substr(0, cr);
    }
    pos = next;
    const std::string_view l = strip_quote(line);
    if (l.empty()) {  // paragraph break
      flush();
      prev_len = 0;
      continue;
    }
    if (!seg.empty() && (prev_len < 40 || prev_colon || starts_list_item(l))) flush();
    if (!seg.empty()) seg += ' ';
    seg.append(l.data(), l.size());
    prev_len = l.size();
    prev_colon = l.back() == ':';
  }
  flush();
  return out;
}

std::vector<std::string> tokenize_words(std::string_view s, std::vector<TokenSpan>* spans) {
  std::vector<std::string> toks;
  if (spans) spans->clear();
  size_t i = 0;
  while (i < s.size()) {
    // skip whitespace
    size_t n = 1;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (is_space(c)) {
        ++i;
        continue;
      }
    } else if (is_space_cp(next_cp(s, i, &n))) {
      i += n;
      continue;
    }
    size_t j = i;
    while (j < s.size()) {
      const auto cj = static_cast<unsigned char>(s[j]);
      if (cj < 0x80) {
        if (is_space(cj)) break;
        ++j;
      } else {
        size_t m;
        if (is_space_cp(next_cp(s, j, &m))) break;
        j += m;
      }
    }
    tokenize_chunk(s, i, j, toks, spans);
    i = j;
  }
  return toks;
}

EmailDoc tokenize_email(std::string_view raw, const EmailOptions& opt) {
  ATTNLAB_CHECK(opt.max_sentences >= 1 && opt.max_words >= 1,
                "email: expected max_sentences >= 1 and max_words >= 1, got ", opt.max_sentences,
                " and ", opt.max_words);
  EmailDoc doc;
  EmailText et = extract_email_text(raw, opt.max_input_bytes);
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
